#!/usr/bin/env bash
# Stage the project's guest binaries into a root tree for the initramfs:
# libraries into usr/lib, programs and test scripts into usr/bin.
# Files are copied only when they changed, so the initramfs is rebuilt
# only when something in it did.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
root=$1
mkdir -p "$root/usr/bin" "$root/usr/lib"

stage() { # src dst-dir
	local dst=$2/$(basename "$1")
	if [ ! -e "$dst" ] || ! cmp -s "$1" "$dst"; then
		cp -p "$1" "$dst"
	fi
}

for lib in "$build"/libhlthunk/*.so* "$build"/runtime/*.so*; do
	[ -e "$lib" ] || continue
	if [ -L "$lib" ]; then
		ln -sfn "$(readlink "$lib")" "$root/usr/lib/$(basename "$lib")"
	else
		stage "$lib" "$root/usr/lib"
	fi
done
for dir in "$build/smi" "$build/apps" "$build/tests/guest"; do
	[ -d "$dir" ] || continue
	find "$dir" -maxdepth 1 -type f -perm -u+x ! -name '*.so*' -print0 |
		while IFS= read -r -d '' exe; do stage "$exe" "$root/usr/bin"; done
done
for script in "$top"/tests/guest/*.sh; do
	[ -e "$script" ] && stage "$script" "$root/usr/bin"
done
# lm-sensors' sensors (the driver's hwmon channels), with its configuration.
if [ -x /usr/bin/sensors ]; then
	stage /usr/bin/sensors "$root/usr/bin"
	mkdir -p "$root/etc"
	[ -e /etc/sensors3.conf ] && stage /etc/sensors3.conf "$root/etc"
fi
# Model descriptions for the trainers.
mkdir -p "$root/usr/share/gaudisim/models"
for model in "$top"/models/*.json; do
	[ -e "$model" ] && stage "$model" "$root/usr/share/gaudisim/models"
done
exit 0
