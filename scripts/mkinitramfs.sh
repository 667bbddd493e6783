#!/usr/bin/env bash
# Build the guest initramfs: busybox, kmod, the guest kernel's modules that
# the driver and the host share need, the gaudisim module, and the
# project's guest binaries with the shared libraries they load.
#
# Usage: scripts/mkinitramfs.sh <module.ko> <guest-root-dir> <output.cpio>
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
module=$1
stage_in=$2
out=$3
kver=$(cat "$top/build/guest-kernel/version")
kroot=$top/build/guest-kernel/root
work=$(mktemp -d "${TMPDIR:-/tmp}/gaudisim-initramfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,mnt/host,usr/bin,usr/lib,lib/modules/"$kver"/extra}
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$top/scripts/guest/init" "$root/init"
chmod 755 "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
echo 'export PS1="gaudisim# "' > "$root/etc/profile"

# kmod provides modprobe & co.; busybox's versions would not read modules.dep.
cp /bin/kmod "$root/bin/kmod"
for tool in modprobe insmod rmmod lsmod modinfo depmod; do
	ln -sf /bin/kmod "$root/sbin/$tool"
done

# Modules: ours and, recursively, everything it and the 9p share depend on.
# Decompressed here so the slow emulated guest does not run xz.
cp "$module" "$root/lib/modules/$kver/extra/gaudisim.ko"
find_module() { find "$kroot/lib/modules/$kver/kernel" -name "$1.ko*" | head -1; }
declare -A seen=()
add_module() {
	local name=$1 src dep rel
	[ -n "${seen[$name]:-}" ] && return 0
	seen[$name]=1
	src=$(find_module "$name")
	[ -n "$src" ] || return 0	# built in
	rel=${src#"$kroot/lib/modules/$kver/"}
	mkdir -p "$root/lib/modules/$kver/$(dirname "$rel")"
	case "$src" in
	*.xz) xz -dc "$src" > "$root/lib/modules/$kver/${rel%.xz}" ;;
	*) cp "$src" "$root/lib/modules/$kver/$rel" ;;
	esac
	for dep in $(modinfo -F depends "$src" | tr ',' ' '); do add_module "$dep"; done
}
for dep in $(modinfo -F depends "$module" | tr ',' ' '); do add_module "$dep"; done
# overlay: the Debian userland's writable /usr over the read-only shares.
for m in 9p 9pnet_virtio overlay; do add_module "$m"; done
cp "$kroot/lib/modules/$kver/modules.builtin"* "$kroot/lib/modules/$kver/modules.order" \
	"$root/lib/modules/$kver/"
depmod -b "$root" "$kver"

# The project's guest binaries and libraries.
if [ -d "$stage_in" ]; then
	cp -a "$stage_in/." "$root/"
fi

# Shared libraries for every ELF file, resolved on the host (same Debian).
copy_libs() {
	local f lib
	for f in "$@"; do
		file -b "$f" 2>/dev/null | grep -q 'ELF.*dynamic' || continue
		LD_LIBRARY_PATH="$root/usr/lib" ldd "$f" 2>/dev/null |
			awk '/=> \//{print $3} /^\t\/lib/{print $1}' |
			while read -r lib; do
				case "$lib" in "$root"/*) continue ;; esac
				[ -e "$root$lib" ] && continue
				mkdir -p "$root$(dirname "$lib")"
				cp -L "$lib" "$root$lib"
			done
	done
}
mapfile -t elves < <(find "$root/bin" "$root/usr/bin" "$root/usr/lib" -type f)
copy_libs "${elves[@]}"
# The dynamic loader must sit where binaries ask for it.
mkdir -p "$root/lib64"
[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
echo "/usr/lib" > "$root/etc/ld.so.conf"
ldconfig -r "$root" 2>/dev/null || true

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
