#!/usr/bin/env bash
# Build QEMU 10.0 with the gaudisim device, out of tree in build/qemu.
#
# The device sources stay in qemu-device/; this script hooks them into the
# unpacked QEMU tree (build/qemu-src, made by scripts/setup.sh) and is safe
# to re-run: every edit is applied only when absent, configure runs only when
# its options changed, and ninja rebuilds only what changed.
# qemu-device/README.md describes the hook.
#
# Usage: scripts/build-qemu.sh [ninja target...]
#   default targets: qemu-system-x86_64 and the gaudisim qtest
# Environment: JOBS (ninja -j, default 2)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/qemu-src
out=$top/build/qemu
meson_py=$top/build/tools/meson/root/usr/lib/python3/dist-packages
jobs=${JOBS:-2}

log() { printf '[build-qemu] %s\n' "$*"; }
die() { printf '[build-qemu] error: %s\n' "$*" >&2; exit 1; }

[ -x "$src/configure" ] || die "no QEMU source in build/qemu-src; run scripts/setup.sh"

# Two builds at once in one build tree corrupt ninja's state: serialise.
exec 9>"$top/build/.build-qemu.lock"
flock 9
[ -d "$meson_py/mesonbuild" ] || die "no meson in build/tools; run scripts/setup.sh"

# ---- hook the device into the QEMU tree --------------------------------

# link NAME TARGET: make symlink NAME point to TARGET (relative path).
link() {
	local name=$1 target rel
	target=$2
	rel=$(realpath --relative-to="$(dirname "$name")" "$target")
	if [ -L "$name" ] && [ "$(readlink "$name")" = "$rel" ]; then
		return 0
	fi
	[ ! -e "$name" ] || [ -L "$name" ] || die "$name exists and is not a symlink"
	ln -sfn "$rel" "$name"
	log "linked ${name#"$top"/} -> $rel"
}

# insert_after FILE ANCHOR MARKER TEXT: unless MARKER occurs in FILE, insert
# TEXT after the first line equal to ANCHOR.
insert_after() {
	local file=$1 anchor=$2 marker=$3 text=$4
	grep -qF -- "$marker" "$file" && return 0
	ANCHOR=$anchor TEXT=$text awk '
		{ print }
		!done && $0 == ENVIRON["ANCHOR"] { print ENVIRON["TEXT"]; done = 1 }
	' "$file" > "$file.gaudisim.tmp"
	grep -qF -- "$marker" "$file.gaudisim.tmp" ||
		{ rm -f "$file.gaudisim.tmp"; die "anchor '$anchor' not found in $file"; }
	mv "$file.gaudisim.tmp" "$file"
	log "hooked ${file#"$src"/}"
}

link "$src/hw/gaudisim" "$top/qemu-device"
link "$src/tests/qtest/gaudisim-test.c" "$top/tests/qtest/gaudisim-test.c"
link "$src/configs/devices/x86_64-softmmu/gaudisim.mak" "$top/scripts/gaudisim-devices.mak"

insert_after "$src/hw/meson.build" "subdir('nvme')" "subdir('gaudisim')" \
	"subdir('gaudisim')"
insert_after "$src/hw/Kconfig" "source nvme/Kconfig" "source gaudisim/Kconfig" \
	"source gaudisim/Kconfig"
insert_after "$src/meson.build" "    'hw/nvme'," "'hw/gaudisim'" \
	"    'hw/gaudisim',"
# A tree hooked while the qtest was one file names gaudisim_dep: the
# fixture and test files come with gaudisim_qtest_dep (qemu-device/meson.build).
if grep -qF "{'gaudisim-test': [gaudisim_dep]}" "$src/tests/qtest/meson.build"; then
	sed -i "s/{'gaudisim-test': \[gaudisim_dep\]}/{'gaudisim-test': [gaudisim_qtest_dep]}/" \
		"$src/tests/qtest/meson.build"
	log "hooked tests/qtest/meson.build (gaudisim_qtest_dep)"
fi
insert_after "$src/tests/qtest/meson.build" "qtests_x86_64 = qtests_i386" \
	"'gaudisim-test'" \
	"if config_all_devices.has_key('CONFIG_GAUDISIM')
  qtests_x86_64 += ['gaudisim-test']
  qtests_gaudisim = {'gaudisim-test': [gaudisim_qtest_dep]}
else
  qtests_gaudisim = {}
endif"
insert_after "$src/tests/qtest/meson.build" "qtest_executables = {}" \
	"qtests += qtests_gaudisim" \
	"qtests += qtests_gaudisim"
# -object only creates types the QAPI schema lists: add the NIC fabric,
# its properties and its branch of ObjectOptions.
insert_after "$src/qapi/qom.json" "    'dbus-vmstate'," "    'gaudisim-fabric'," \
	"    'gaudisim-fabric',"
insert_after "$src/qapi/qom.json" "            '*node-affinity': ['uint16'] } }" \
	"'struct': 'GaudisimFabricProperties'" \
	"
##
# @GaudisimFabricProperties:
#
# Properties for gaudisim-fabric objects (the NIC links of one box).
#
# @chardev: ID of a socket chardev that cables NIC ports 7..9 to the
#     same ports of another box
#
# @timeout-ms: how long a write over that cable waits for its answer
#     before it fails (default 5000)
#
# Since: 10.0
##
{ 'struct': 'GaudisimFabricProperties',
  'data': { '*chardev': 'str', '*timeout-ms': 'uint32' } }"
insert_after "$src/qapi/qom.json" \
	"      'acpi-generic-port':          'AcpiGenericPortProperties'," \
	"'gaudisim-fabric':" \
	"      'gaudisim-fabric':            'GaudisimFabricProperties',"

# ---- configure (only when needed) ---------------------------------------

opts=(
	--target-list=x86_64-softmmu
	--without-default-features
	--without-default-devices
	--with-devices-x86_64=gaudisim
	--enable-tcg
	--enable-kvm
	--enable-virtfs
	--enable-attr
	--disable-docs
	--disable-werror
	--disable-install-blobs
	--disable-download
	--python=/usr/bin/python3
)
stamp=$out/gaudisim-configure.options

# QEMU's configure builds a venv with the system site packages and looks
# for meson >= 1.5 in it; PYTHONPATH makes the unpacked meson visible.
export PYTHONPATH=$meson_py${PYTHONPATH:+:$PYTHONPATH}

if [ -f "$out/build.ninja" ] && [ -f "$stamp" ] &&
	[ "$(cat "$stamp")" = "$(printf '%s\n' "${opts[@]}")" ]; then
	log "configured already (delete $stamp to force)"
else
	log "configuring build/qemu"
	mkdir -p "$out"
	rm -f "$stamp"
	(cd "$out" && "$src/configure" "${opts[@]}")
	printf '%s\n' "${opts[@]}" > "$stamp"
fi

# ninja re-runs meson on its own when a meson.build changes; make the venv
# find meson without PYTHONPATH too, so plain `ninja -C build/qemu` works.
for site in "$out"/pyvenv/lib/python3*/site-packages; do
	[ -d "$site" ] || die "no pyvenv in build/qemu; delete $stamp and re-run"
	pth=$site/gaudisim-meson.pth
	[ "$(cat "$pth" 2>/dev/null)" = "$meson_py" ] || echo "$meson_py" > "$pth"
done

# ---- build ---------------------------------------------------------------

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(qemu-system-x86_64 tests/qtest/gaudisim-test)
log "ninja ${targets[*]}"
ninja -C "$out" -j "$jobs" "${targets[@]}"
log "done: build/qemu/qemu-system-x86_64"
