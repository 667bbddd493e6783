#!/bin/sh
# Module lifecycle in the guest: probe summary, unload refused while the
# device is open, clean unload and reload (kmod resolving drm.ko), and a
# working device after several reload cycles. Prints "N passed, N failed".
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
nodes_present() { [ -c /dev/accel/accel0 ] && [ -c /dev/accel/accel_controlD0 ]; }
nodes_absent() { [ ! -e /dev/accel/accel0 ] && [ ! -e /dev/accel/accel_controlD0 ]; }
operational() { hl-smi -Q status -f csv,noheader | grep -q '^Operational$'; }

check "probe summary in the kernel log" \
	sh -c 'dmesg | grep -q "accel0: gaudisim .* GiB HBM, 8 external and [0-9]* internal queues, driver "'
check "module depends on drm" sh -c 'modinfo -F depends gaudisim | grep -qw drm'
check "module loaded" sh -c 'lsmod | grep -q "^gaudisim "'
check "device nodes present" nodes_present

# An open compute node pins the module.
sleep 30 < /dev/accel/accel0 &
holder=$!
sleep 1
check "unload refused while the device is open" sh -c '! rmmod gaudisim'
kill "$holder"
wait "$holder" 2>/dev/null

for cycle in 1 2 3; do
	check "unload (cycle $cycle)" rmmod gaudisim
	check "nodes removed (cycle $cycle)" nodes_absent
	check "reload (cycle $cycle)" modprobe gaudisim
	check "nodes back (cycle $cycle)" nodes_present
	check "operational after reload (cycle $cycle)" operational
done
# Shared devices: max_contexts up to the 7 user ASIDs.
check "reload with max_contexts=4" sh -c 'rmmod gaudisim && modprobe gaudisim max_contexts=4'
check "max_contexts reads 4" sh -c '[ "$(cat /sys/module/gaudisim/parameters/max_contexts)" = 4 ]'
check "operational with max_contexts=4" operational
check "DMA round trip with max_contexts=4" dma-bench -s 1 -r 1
check "max_contexts=8 refused" sh -c 'rmmod gaudisim && ! modprobe gaudisim max_contexts=8'
check "reload with the defaults" modprobe gaudisim
check "max_contexts back to 1" sh -c '[ "$(cat /sys/module/gaudisim/parameters/max_contexts)" = 1 ]'
check "DMA round trip after reloads" dma-bench -s 1 -r 1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
