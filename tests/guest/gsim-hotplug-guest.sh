#!/bin/sh
# Guest half of the hot-unplug test (scripts/test-hotplug.sh is the host
# half): the guest has one device on the root bus and one behind a PCIe
# root port. First a hang injected by the host (files in the shared folder
# SYNC_DIR: "hang-me", answered by "hung" once the host set the device's
# fault-hang-engine to DMA_0): a DMA through that engine times out, the
# device resets (which releases the hang), a crash dump names the cause,
# and the next DMA works. Then a job is held in flight on the device;
# "ready" tells the host to device_del it. The process must see
# errors, not a hang; the device must go; the first device must keep
# working; the kernel log must stay clean. Prints "N passed, N failed".
#   gsim-hotplug-guest.sh SYNC_DIR
sync_dir=${1:?usage: gsim-hotplug-guest.sh SYNC_DIR}
passed=0
failed=0
check() { # description, command...
	desc=$1
	shift
	if "$@" >/dev/null 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $desc"
	fi
}
wait_for() { # SECONDS COMMAND...
	n=$(($1 * 5))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}
gone() { ! kill -0 "$1" 2>/dev/null; }
# dump_has PATTERN: the first engine block and header of $dump match PATTERN
dump_has() { printf '%s\n' "$dump" | sed -n '1,/^DMA1 /p' | grep -q "$1"; }

marker="gsim-hotplug: start $$"
echo "$marker" > /dev/kmsg
# The hot-pluggable device sits behind a bridge: two PCI addresses in its path.
plug= fixed=
for d in /sys/class/accel/accel[0-9]*; do
	[ -e "$d" ] || continue
	n=$(readlink -f "$d/device" | tr '/' '\n' | grep -c '^[0-9a-f]\{4\}:[0-9a-f]\{2\}:')
	if [ "$n" -ge 2 ]; then plug=${d##*accel}; else fixed=${d##*accel}; fi
done
check "a device behind a root port (accel$plug)" test -n "$plug"
check "a device on the root bus (accel$fixed)" test -n "$fixed"
if [ -z "$plug" ] || [ -z "$fixed" ]; then
	echo "$passed passed, $failed failed"
	exit 1
fi

# The injected hang: timeout (30 s, timeout_locked), reset, dump, recovery.
resets=$(cat "/sys/class/accel/accel$plug/device/hard_reset_cnt")
for d in /sys/class/devcoredump/devcd*; do [ -e "$d/data" ] && echo 1 > "$d/data"; done
touch "$sync_dir/hang-me"
check "host injected the engine hang" wait_for 120 test -e "$sync_dir/hung"
check "DMA through the hung engine fails" sh -c "! dma-bench -d $plug -s 1 -r 1"
reset_seen() { [ "$(cat "/sys/class/accel/accel$plug/device/hard_reset_cnt")" -gt "$resets" ]; }
check "the device was reset" wait_for 30 reset_seen
dump=$(for d in /sys/class/devcoredump/devcd*; do
	[ "$(readlink -f "$d/failing_device")" = "$(readlink -f "/sys/class/accel/accel$plug/device")" ] &&
		cat "$d/data" && echo 1 > "$d/data"; done)
check "a crash dump of accel$plug names the timeout" \
	dump_has '^cause: \(command submission timed out\|engine timeout\)$'
dma0_s0() { printf '%s\n' "$dump" | sed -n '/^DMA0 /,/^DMA1 /p' | grep '^  s0 '; }
# "  s0 CP_STS x PQ_PI a PQ_CI b ...": the hung stream left work unfetched.
check "the dump shows DMA0 stream 0 behind its PQ" \
	sh -c 'set -- $1; [ "$5" != "$7" ]' sh "$(dma0_s0)"
dma0_s0
check "DMA through the engine after the reset" wait_for 30 dma-bench -d "$plug" -s 1 -r 1

log=$(mktemp)
gsim-job-holder -d "$plug" -w 120 > "$log" 2>&1 &
holder=$!
check "holder has its jobs in flight on accel$plug" wait_for 30 grep -q '^holder: ready' "$log"
touch "$sync_dir/ready"

check "holder exits after the unplug" wait_for 150 gone "$holder"
wait "$holder"
check "holder saw errors, not a hang (exit 0)" test $? -eq 0
cat "$log"
check "accel$plug removed" wait_for 30 test ! -e "/dev/accel/accel$plug"
check "accel$fixed still there" test -c "/dev/accel/accel$fixed"
check "DMA round trip on accel$fixed" dma-bench -d "$fixed" -s 1 -r 1
check "gaudisim still loaded, one device bound" \
	test "$(ls /sys/bus/pci/drivers/gaudisim | grep -c '^[0-9a-f]\{4\}:')" -eq 1
check "rmmod and reload with the remaining device" sh -c 'rmmod gaudisim && modprobe gaudisim'
check "DMA round trip after the reload" wait_for 10 dma-bench -d 0 -s 1 -r 1

bad=$(dmesg | sed -n "/$marker/,\$p" | grep -E 'Oops|BUG|WARNING|Call Trace|refcount|use-after-free')
if [ -n "$bad" ]; then
	printf '%s\n' "$bad"
	failed=$((failed + 1))
	echo "FAIL: kernel log"
else
	passed=$((passed + 1))
fi
dmesg | sed -n "/$marker/,\$p" | grep -E 'gaudisim|pciehp' | tail -n 20
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
