#!/usr/bin/env bash
# Stage the Debian userland's own tree (build/guest-debian): the /etc the
# guest runs with (a few files of the host's Debian: the loader's cache,
# the alternatives links, sensors' configuration; no accounts or keys of
# the host), the hpu bridge's Python package with its extension, and the
# PyTorch examples. The guest's /usr is this tree's usr over the project's
# guest binaries (build/guest-root) over the host's /usr (scripts/vm.sh).
# Files are copied only when they changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
root=$build/guest-debian
pkg=$build/pytorch/pkg	# the built Python package (runtime/pytorch/Makefile)

mkdir -p "$root/etc" "$root/usr/lib/python3/dist-packages" \
	"$root/usr/share/gaudisim/examples/pytorch" "$root/usr/share/gaudisim/tests/pytorch"

sync_tree() { # src dst: mirror src into dst, copying changed files only
	mkdir -p "$2"
	(cd "$1" && find . -type d -print0) | (cd "$2" && xargs -0 -r mkdir -p)
	(cd "$1" && find . \( -type f -o -type l \) -print0) |
		while IFS= read -r -d '' f; do
			if [ -L "$1/$f" ]; then
				ln -sfn "$(readlink "$1/$f")" "$2/$f"
			elif [ ! -e "$2/$f" ] || ! cmp -s "$1/$f" "$2/$f"; then
				cp -p "$1/$f" "$2/$f"
			fi
		done
}

# /etc: minimal accounts of the guest's own, the loader's configuration
# and cache, the alternatives (libblas.so.3 & co. resolve through them).
cat > "$root/etc/passwd.new" <<'EOT'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOT
cat > "$root/etc/group.new" <<'EOT'
root:x:0:
nogroup:x:65534:
EOT
echo gaudisim > "$root/etc/hostname.new"
cat > "$root/etc/profile.new" <<'EOT'
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PS1='gaudisim# '
EOT
for f in passwd group hostname profile; do
	if cmp -s "$root/etc/$f.new" "$root/etc/$f"; then
		rm "$root/etc/$f.new"
	else
		mv "$root/etc/$f.new" "$root/etc/$f"
	fi
done
for f in ld.so.cache ld.so.conf sensors3.conf; do
	if [ -e "/etc/$f" ] && ! cmp -s "/etc/$f" "$root/etc/$f"; then cp -p "/etc/$f" "$root/etc/$f"; fi
done
for d in ld.so.conf.d alternatives sensors.d python3 python3.11; do
	[ -d "/etc/$d" ] && sync_tree "/etc/$d" "$root/etc/$d"
done

# The bridge's Python package (with its extension) and the examples.
if [ -d "$pkg" ]; then
	sync_tree "$pkg" "$root/usr/lib/python3/dist-packages"
fi
stage() { # src dst-dir
	cmp -s "$1" "$2/$(basename "$1")" || cp -p "$1" "$2/"
}
for f in "$top"/runtime/pytorch/examples/*.py; do
	stage "$f" "$root/usr/share/gaudisim/examples/pytorch"
done
# The guest suite (scripts/run-tests.sh torch).
for f in "$top"/tests/pytorch/run.py "$top"/tests/pytorch/test_guest.py \
	"$top"/tests/pytorch/test_optimizers.py; do
	stage "$f" "$root/usr/share/gaudisim/tests/pytorch"
done
exit 0
