#!/usr/bin/env bash
# One-time, idempotent host set-up for gaudisim.
#
# Steps (each skipped once its stamp exists in build/stamps/; delete a stamp
# to redo a step):
#   packages  Debian build dependencies from the machine's own apt sources
#   apt-local a project-local apt configuration (trixie deb-src, bookworm-backports)
#             on the Debian archive and security archive the machine's own apt
#             sources name (any mirror or proxy; only the suites change), used
#             through apt options only; the machine's apt config is untouched
#   meson     meson >= 1.5 from bookworm-backports, unpacked into build/tools
#   qemu-src  QEMU 10.0 from Debian's trixie source package, with Debian's patches
#   kernel    Debian's 6.12 guest kernel image and its kbuild tree, unpacked
#             into build/guest-kernel (nothing installed: the host's /boot and
#             /usr/src stay as they are)
#   checkpatch the kernel's checkpatch.pl and its data files, taken from
#             Debian's linux-source-6.12 into build/tools/checkpatch (for
#             `make lint`; the kbuild tree does not ship it)
#
# Usage: scripts/setup.sh [step...]   (default: all steps)
#        scripts/setup.sh apt-sources  print the project-local apt sources the
#                                      apt-local step would write (APT_ETC
#                                      names another apt configuration folder)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
stamps=$build/stamps
mkdir -p "$stamps"

log() { printf '[setup] %s\n' "$*"; }
done_step() { [ -f "$stamps/$1" ]; }
mark() { touch "$stamps/$1"; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

host_packages=(
	build-essential pkg-config ninja-build python3 python3-venv
	libglib2.0-dev libpixman-1-dev libfdt-dev libattr1-dev flex bison
	dpkg-dev xz-utils zstd cpio file
	busybox-static kmod libdrm-dev check
	qemu-system-data
	bc libelf-dev sparse pahole gcc-12 libopenblas-dev
	clang clang-14 libclang-rt-14-dev
	libjansson-dev dataset-fashion-mnist lm-sensors
	openmpi-bin libopenmpi-dev
	python3-torch libtorch-dev python3-numpy gdb strace
)

step_packages() {
	# Checked on every run (cheap), so a package removed later comes back.
	local missing=()
	for p in "${host_packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing: ${missing[*]}"
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}"
	fi
}

apt_dir=$build/apt
apt_opts() {
	echo -o Dir::Etc::SourceList="$apt_dir/sources.list" \
		-o Dir::Etc::SourceParts="$apt_dir/sources.list.d" \
		-o Dir::State::Lists="$apt_dir/lists" \
		-o Dir::Cache="$apt_dir/cache"
}
apt_local() {
	apt-get -o Dir::Etc::SourceList="$apt_dir/sources.list" \
		-o Dir::Etc::SourceParts="$apt_dir/sources.list.d" \
		-o Dir::State::Lists="$apt_dir/lists" \
		-o Dir::Cache="$apt_dir/cache" \
		-o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root "$@"
}

# The machine's apt sources, one line per (type, URI, suite): "TYPE URI SUITE
# SIGNED-BY" ("-" when unset), from sources.list and sources.list.d/*.list
# (one-line format) and sources.list.d/*.sources (deb822). Disabled deb822
# stanzas, cdrom: sources and embedded keys are left out.
apt_etc=${APT_ETC:-/etc/apt}
machine_apt_sources() {
	local f
	for f in "$apt_etc/sources.list" "$apt_etc"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '
		{ sub(/#.*/, "") }
		$1 != "deb" && $1 != "deb-src" { next }
		{
			type = $1; sb = "-"; i = 2
			if ($2 ~ /^\[/) {
				opts = ""
				for (; i <= NF; i++) {
					opts = opts " " $i
					if ($i ~ /\]$/) { i++; break }
				}
				if (match(opts, /signed-by=[^] ]+/))
					sb = substr(opts, RSTART + 10, RLENGTH - 10)
			}
			if (i + 1 <= NF && $i !~ /^cdrom:/)
				print type, $i, $(i + 1), sb
		}' "$f"
	done
	for f in "$apt_etc"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
		function flush(   t, u, s, nt, nu, ns, a, b, c) {
			if (tolower(f["enabled"]) != "no" && f["uris"] != "") {
				nt = split(f["types"], a, " ")
				nu = split(f["uris"], b, " ")
				ns = split(f["suites"], c, " ")
				for (t = 1; t <= nt; t++)
					for (u = 1; u <= nu; u++)
						for (s = 1; s <= ns; s++)
							if (b[u] !~ /^cdrom:/)
								print a[t], b[u], c[s], sb
			}
			delete f; sb = "-"; key = ""
		}
		BEGIN { sb = "-" }
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ { if (key != "signed-by") f[key] = f[key] " " $0; next }
		{
			key = tolower(substr($0, 1, index($0, ":") - 1))
			val = substr($0, index($0, ":") + 1)
			gsub(/^[ \t]+|[ \t]+$/, "", val)
			f[key] = val
			# Key file paths (one-line form: comma-separated), not an
			# embedded key block.
			if (key == "signed-by" && val != "") {
				sb = val
				gsub(/[ \t]+/, ",", sb)
			}
		}
		END { flush() }' "$f"
	done
}

# The URI (and signed-by) of the first enabled source of a Debian suite.
archive_for_suite() {
	awk -v suite="$1" '$1 == "deb" && $3 == suite { print $2, $4; exit }'
}

# The project-local sources: the machine's own Debian archive and security
# archive (whatever mirror or proxy it uses), with the suites this project
# needs.
local_apt_sources() {
	local sources main sec uri sb opt
	sources=$(machine_apt_sources)
	main=$(archive_for_suite bookworm <<<"$sources")
	[ -n "$main" ] || main=$(archive_for_suite bookworm-updates <<<"$sources")
	sec=$(archive_for_suite bookworm-security <<<"$sources")
	if [ -z "$main" ]; then
		echo "setup: no Debian bookworm archive in $apt_etc/sources.list{,.d/}" >&2
		return 1
	fi
	read -r uri sb <<<"$main"
	opt=; [ "$sb" = - ] || opt="[signed-by=$sb] "
	printf 'deb %s%s bookworm main\n' "$opt" "$uri"
	printf 'deb %s%s bookworm-updates main\n' "$opt" "$uri"
	printf 'deb-src %s%s trixie main\n' "$opt" "$uri"
	printf 'deb %s%s bookworm-backports main\n' "$opt" "$uri"
	if [ -n "$sec" ]; then
		read -r uri sb <<<"$sec"
		opt=; [ "$sb" = - ] || opt="[signed-by=$sb] "
		printf 'deb %s%s bookworm-security main\n' "$opt" "$uri"
	else
		log "no bookworm-security source on this machine: left out" >&2
	fi
}

step_apt_local() {
	local list
	mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	list=$(local_apt_sources)
	printf '%s\n' "$list" > "$apt_dir/sources.list"
	log "project-local apt sources:"
	sed 's/^/[setup]   /' "$apt_dir/sources.list"
	log "updating project-local apt lists"
	apt_local update -qq
}

step_meson() {
	local dir=$build/tools/meson
	rm -rf "$dir" && mkdir -p "$dir"
	(cd "$dir" && apt_local download -qq meson/bookworm-backports)
	dpkg-deb -x "$dir"/meson_*.deb "$dir/root"
	log "meson $(PYTHONPATH=$dir/root/usr/lib/python3/dist-packages python3 "$dir/root/usr/bin/meson" --version)"
}

step_qemu_src() {
	local dir=$build/qemu-src-dl
	rm -rf "$dir" && mkdir -p "$dir"
	log "downloading QEMU source (trixie)"
	(cd "$dir" && apt_local source --download-only -qq qemu/trixie)
	local dsc
	dsc=$(ls "$dir"/qemu_*.dsc | head -1)
	rm -rf "$build/qemu-src"
	dpkg-source --no-check -x "$dsc" "$build/qemu-src" >/dev/null
	# dpkg-source leaves a copy of the orig tarball beside the tree.
	rm -rf "$dir" "$build"/qemu_*.orig.tar.*
	log "unpacked $(basename "$dsc")"
}

# Highest 6.12 kernel for Debian 12, chosen by query, never hard-coded.
kernel_version() {
	# shellcheck disable=SC2046
	apt-cache $(apt_opts) pkgnames linux-image-6.12. 2>/dev/null |
		sed -n 's,^linux-image-\(6\.12\.[0-9]*+deb12-amd64\)-unsigned$,\1,p' |
		sort -V | tail -1
}

step_kernel() {
	local ver dir=$build/guest-kernel
	ver=$(kernel_version)
	[ -n "$ver" ] || { echo "no linux-image-6.12.*+deb12-amd64-unsigned found" >&2; exit 1; }
	log "guest kernel $ver"
	rm -rf "$dir" && mkdir -p "$dir/deb"
	# The kbuild tree comes from three packages; unpack rather than install
	# them, because the headers package depends on the kernel image, whose
	# installation would rebuild the host's initramfs.
	local kbuild_ver=${ver%-amd64}
	(cd "$dir/deb" && apt_local download -qq "linux-image-$ver-unsigned" \
		"linux-headers-$ver" "linux-headers-$kbuild_ver-common" \
		"linux-kbuild-$kbuild_ver")
	local deb
	for deb in "$dir"/deb/*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
	# The headers' Makefile includes the common tree by absolute path.
	sed -i "s,^include /usr/src/,include $dir/root/usr/src/," \
		"$dir/root/usr/src/linux-headers-$ver/Makefile"
	echo "$ver" > "$dir/version"
	rm -rf "$dir/deb"
}

step_checkpatch() {
	local dir=$build/tools/checkpatch tmp
	tmp=$(mktemp -d "$build/tools/checkpatch.XXXXXX")
	log "checkpatch from linux-source-6.12"
	(cd "$tmp" && apt_local download -qq linux-source-6.12)
	# Only three files of the 150 MB source tarball are needed.
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.12_*.deb |
		tar -xO --wildcards './usr/src/linux-source-6.12.tar*' | xz -dc |
		tar -x -C "$tmp" --strip-components=2 --wildcards \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch'
	[ -f "$tmp/checkpatch.pl" ] || { echo "checkpatch.pl not found in linux-source-6.12" >&2; exit 1; }
	rm -rf "$dir" && mkdir -p "$dir"
	mv "$tmp/checkpatch.pl" "$tmp/spelling.txt" "$tmp/const_structs.checkpatch" "$dir/"
	rm -rf "$tmp"
}

run() {
	local s=$1
	[ "$s" = packages ] || ! done_step "$s" || return 0
	"step_${s//-/_}"
	mark "$s"
}

if [ "${1:-}" = apt-sources ]; then
	local_apt_sources
	exit
fi
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(packages apt-local meson qemu-src kernel checkpatch)
for s in "${steps[@]}"; do run "$s"; done
