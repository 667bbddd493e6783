#!/usr/bin/env bash
# Boot the gaudisim guest: Debian's 6.12 kernel, the project's initramfs,
# qboot firmware, serial console, the device, and a host folder shared at
# /mnt/host in the guest.
#
#   scripts/vm.sh run [-t SECONDS] [-s SHARE_DIR] [-m MEM] [-H PAGES] [-n] -- COMMAND...
#       Run COMMAND (a shell command line) in a fresh guest with the driver
#       loaded; print its output; exit with its exit status (124 on timeout).
#       -n: do not load the driver.
#   scripts/vm.sh shell [-s SHARE_DIR] [-m MEM] [-H PAGES]
#       Interactive shell on the serial console; exit the shell to power off.
#   -m MEM (--mem): guest RAM, QEMU's -m syntax (4096M, 8G); overrides
#       GAUDISIM_VM_MEM.
#   -H PAGES (--hugepages): 2 MiB huge pages the guest kernel reserves at
#       boot (0: none); overrides GAUDISIM_VM_HUGEPAGES. Default: a sixteenth
#       of the guest RAM (64 pages of a 2 GiB guest), for programs that map
#       their DMA buffers with MAP_HUGETLB; hugetlbfs is at /dev/hugepages.
#
# Environment: GAUDISIM_ACCEL=kvm to use KVM (default tcg),
# GAUDISIM_QEMU_ARGS for extra QEMU arguments (e.g. device properties:
# GAUDISIM_DEVICE_ARGS=",hbm-size=8G", given to every device),
# GAUDISIM_VM_MEM (default 2G, plus 256M per device past the first),
# GAUDISIM_VM_HUGEPAGES (2 MiB huge pages, default a sixteenth of the RAM),
# GAUDISIM_DEVICES=N (1..8, default 1): N devices on one gaudisim-fabric,
# device i with module-id=i in a fixed PCI slot, so accel i is module i.
# GAUDISIM_FABRIC_ARGS: extra properties of the fabric object (e.g. the
# chardev that cables this VM to another one).
# GAUDISIM_ROOTFS=debian boots the Debian userland (python3 with PyTorch
# and the hpu bridge, gdb, strace, sensors; built by 'make debian'): the
# host's /usr and the project's staged trees shared read-only over 9p,
# with a tmpfs overlay for writes (docs/pytorch.md). Default: initramfs.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
qemu=$build/qemu/qemu-system-x86_64
# The MME's OpenBLAS threads sleep as soon as a product is done, instead
# of spinning (sched_yield) on the cores the device's workers and the
# vCPUs need until the next one (docs/device.md, "Threads and locks").
export OPENBLAS_THREAD_TIMEOUT=${OPENBLAS_THREAD_TIMEOUT:-4}
kver=$(cat "$build/guest-kernel/version")
kernel=$build/guest-kernel/root/boot/vmlinuz-$kver
initrd=$build/vm/initramfs.cpio

usage() { sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

mode=${1:-}
[ -n "$mode" ] || usage
shift
timeout_s=600
share=${GAUDISIM_SHARE:-$build/share}
driver_arg=
mem=${GAUDISIM_VM_MEM:-}
hugepages=${GAUDISIM_VM_HUGEPAGES:-}
while [ $# -gt 0 ]; do
	case "$1" in
	-t) timeout_s=$2; shift 2 ;;
	-s) share=$2; shift 2 ;;
	-m|--mem) mem=$2; shift 2 ;;
	-H|--hugepages) hugepages=$2; shift 2 ;;
	-n) driver_arg=gsim.nodriver; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) [ "$mode" = run ] && break; echo "vm.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
for f in "$qemu" "$kernel" "$initrd"; do
	[ -e "$f" ] || { echo "vm.sh: $f is missing; run 'make vm-deps' first" >&2; exit 2; }
done
rootfs=${GAUDISIM_ROOTFS:-initramfs}
case "$rootfs" in
initramfs) ;;
debian)
	[ -d "$build/guest-debian/etc" ] ||
		{ echo "vm.sh: the Debian userland is not staged; run 'make debian' first" >&2; exit 2; }
	;;
*) echo "vm.sh: GAUDISIM_ROOTFS must be initramfs or debian, not '$rootfs'" >&2; exit 2 ;;
esac
mkdir -p "$share"
share=$(cd "$share" && pwd)

ndev=${GAUDISIM_DEVICES:-1}
case "$ndev" in
[1-8]) ;;
*) echo "vm.sh: GAUDISIM_DEVICES must be 1..8, not '$ndev'" >&2; exit 2 ;;
esac
# HBM is sparse host memory touched on demand; the guest's RAM only holds
# the page tables, DMA buffers and processes of each device's user.
[ -n "$mem" ] || mem=$((2048 + 256 * (ndev - 1)))M
case "$mem" in
*[0-9][Mm]) mem_mib=${mem%[Mm]} ;;
*[0-9][Gg]) mem_mib=$((${mem%[Gg]} * 1024)) ;;
*) mem_mib=x ;;
esac
case "$mem_mib" in
'' | *[!0-9]*) echo "vm.sh: guest memory must be <N>M or <N>G, not '$mem'" >&2; exit 2 ;;
esac
[ "$mem_mib" -ge 512 ] || { echo "vm.sh: guest memory $mem is below 512M" >&2; exit 2; }
# Huge pages for user buffers (MAP_HUGETLB), reserved by the guest kernel
# at boot while memory is still unfragmented; at most half the RAM.
[ -n "$hugepages" ] || hugepages=$((mem_mib / 16 / 2))
case "$hugepages" in
'' | *[!0-9]*) echo "vm.sh: huge pages must be a count, not '$hugepages'" >&2; exit 2 ;;
esac
if [ $((hugepages * 2)) -gt $((mem_mib / 2)) ]; then
	echo "vm.sh: $hugepages huge pages ($((hugepages * 2))M) exceed half the guest memory ($mem)" >&2
	exit 2
fi

# Devices in slots 0x10.. in module order: the PCI scan, and so the
# driver's minor numbers, follow the module IDs. A QEMU whose device has
# no fabric yet gets plain devices (no links, module IDs not set).
# A stable board UUID per module (a fixed project prefix, the module ID
# where the default serial "GS" + 10 hex digits shows it), so hl-smi reads
# the same serial and UUID on every boot; GAUDISIM_DEVICE_ARGS, given
# after it, may still set uuid= or serial=.
board_uuid() { printf '67736d00-%02x00-4000-8000-%012x' "$1" "$1"; }
devices=()
if "$qemu" -device gaudisim,help 2>/dev/null | grep -q '^ *module-id='; then
	devices+=(-object "gaudisim-fabric,id=fab0${GAUDISIM_FABRIC_ARGS:-}")
	for ((i = 0; i < ndev; i++)); do
		devices+=(-device "gaudisim,addr=$(printf '0x%x' $((0x10 + i))),module-id=$i,fabric=fab0,uuid=$(board_uuid "$i")${GAUDISIM_DEVICE_ARGS:-}")
	done
else
	for ((i = 0; i < ndev; i++)); do
		devices+=(-device "gaudisim,addr=$(printf '0x%x' $((0x10 + i)))${GAUDISIM_DEVICE_ARGS:-}")
	done
fi

accel=${GAUDISIM_ACCEL:-tcg}
qemu_args=(
	-M q35 -accel "$accel" -m "$mem" -smp 2
	-nodefaults -no-user-config -no-reboot -display none
	-L /usr/share/qemu -bios qboot.rom
	-kernel "$kernel" -initrd "$initrd"
	"${devices[@]}"
	-fsdev "local,id=hostshare,path=$share,security_model=none"
	-device virtio-9p-pci,fsdev=hostshare,mount_tag=host
)
[ "$accel" = kvm ] && qemu_args+=(-cpu host)
if [ "$rootfs" = debian ]; then
	# Read-only shares: the host's /usr (Debian's packages), the project's
	# guest binaries and the Debian staging tree (etc, Python package, examples).
	qemu_args+=(
		-fsdev "local,id=hostusr,path=/usr,security_model=none,readonly=on"
		-device virtio-9p-pci,fsdev=hostusr,mount_tag=hostusr
		-fsdev "local,id=gsimroot,path=$build/guest-root,security_model=none,readonly=on"
		-device virtio-9p-pci,fsdev=gsimroot,mount_tag=gsimroot
		-fsdev "local,id=gsimdeb,path=$build/guest-debian,security_model=none,readonly=on"
		-device virtio-9p-pci,fsdev=gsimdeb,mount_tag=gsimdeb
	)
	driver_arg="$driver_arg gsim.root=debian"
	# Debian's PyTorch uses the instructions the host CPU has (AVX2 & co.).
	[ "$accel" = kvm ] || qemu_args+=(-cpu max)
fi
# shellcheck disable=SC2206
extra=(${GAUDISIM_QEMU_ARGS:-})
# gsim.mem tells the guest the RAM it was given (tests compare MemTotal).
cmdline="console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off hugepagesz=2M hugepages=$hugepages gsim.mem=${mem_mib}M ${GAUDISIM_KERNEL_ARGS:-} $driver_arg"

case "$mode" in
shell)
	exec "$qemu" "${qemu_args[@]}" "${extra[@]}" -serial mon:stdio \
		-append "$cmdline gsim.mode=shell"
	;;
run)
	[ $# -gt 0 ] || usage
	mkdir -p "$share/.gsim"
	cmdfile=$(mktemp "$share/.gsim/cmd.XXXXXX")
	trap 'rm -f "$cmdfile"' EXIT
	printf '%s\n' "$*" > "$cmdfile"
	rel=${cmdfile#"$share/"}
	out=$(mktemp "${TMPDIR:-/tmp}/gaudisim-vm.XXXXXX")
	trap 'rm -f "$cmdfile" "$out"' EXIT
	rc=0
	timeout --foreground -k 5 "$timeout_s" "$qemu" "${qemu_args[@]}" "${extra[@]}" \
		-serial stdio -append "$cmdline gsim.mode=run gsim.cmd=$rel" </dev/null |
		tr -d '\r' | tee "$out" | grep -v '^GAUDISIM-EXIT: ' || true
	status=$(sed -n 's/^GAUDISIM-EXIT: \([0-9]*\)$/\1/p' "$out" | tail -1)
	if [ -z "$status" ]; then
		echo "vm.sh: the guest did not report an exit status (timeout ${timeout_s}s or crash)" >&2
		exit 124
	fi
	exit "$status"
	;;
*) usage ;;
esac
