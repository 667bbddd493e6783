#!/bin/sh
# Taking the driver away under load, in the guest: a process with a hung
# job in flight, a job queued behind it, a mapped CB, pinned host memory,
# HBM and a blocked WAIT_CS, next to a process polling the control node.
# rmmod is refused while files are open (the module is pinned, EBUSY); the
# driver is unbound from the device instead (the removal path rmmod and hot
# unplug take), which must end the blocked wait with an error at once,
# fail new ioctls with ENODEV and let both processes close and exit. Then
# rmmod works, the module loads again and the device works. The kernel log
# of the run must stay free of oopses and warnings.
# Prints "N passed, N failed".
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
# wait_for SECONDS COMMAND...: poll COMMAND every 0.2 s until it succeeds
wait_for() {
	n=$(($1 * 5))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}
nodes_absent() { [ ! -e /dev/accel/accel0 ] && [ ! -e /dev/accel/accel_controlD0 ]; }
nodes_present() { [ -c /dev/accel/accel0 ] && [ -c /dev/accel/accel_controlD0 ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
operational() { hl-smi -Q status -f csv,noheader | grep -q '^Operational$'; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gsim-unload.XXXXXX")
marker="gsim-test-unload: start $$"
echo "$marker" > /dev/kmsg
bdf=$(basename "$(readlink -f /sys/class/accel/accel0/device)")
check "device $bdf bound to gaudisim" test -e "/sys/bus/pci/drivers/gaudisim/$bdf"

gsim-job-holder -w 60 > "$tmp/holder" 2>&1 &
holder=$!
hl-smi -l 1 > "$tmp/smi" 2>&1 &
smi=$!
check "holder has its jobs in flight" wait_for 30 grep -q '^holder: ready' "$tmp/holder"
sleep 1

check "rmmod refused while files are open" sh -c '! rmmod gaudisim'
check "the device still works for its user after the refused rmmod" kill -0 "$holder"

# A bounded unbind: it must not wait for the hung job.
start=$(date +%s)
check "unbind under load returns" timeout 60 sh -c "echo $bdf > /sys/bus/pci/drivers/gaudisim/unbind"
check "unbind took under 15 s" test $(($(date +%s) - start)) -lt 15
check "device nodes removed" wait_for 10 nodes_absent
check "holder exits after the removal" wait_for 30 gone "$holder"
wait "$holder"
holder_rc=$?
check "holder saw errors, not a hang (exit 0)" test "$holder_rc" -eq 0
check "holder's blocked wait ended with EIO or ENODEV" \
	grep -Eq '^holder: wait rc -(5|19) ' "$tmp/holder"
check "holder's next ioctl failed with ENODEV" grep -q 'next ioctl rc -19 ' "$tmp/holder"
# The poller either gives up with an error or keeps polling; it never crashes.
sleep 2
if gone "$smi"; then
	wait "$smi"
	smi_rc=$?
else
	kill "$smi"
	wait "$smi" 2>/dev/null
	smi_rc=0
fi
check "the control-node poller did not crash (status $smi_rc)" test "$smi_rc" -lt 128
cat "$tmp/holder"

check "rmmod once the files are closed" wait_for 10 rmmod gaudisim
check "module gone" sh -c '! lsmod | grep -q "^gaudisim "'
check "reload" modprobe gaudisim
check "device bound again" wait_for 10 test -e "/sys/bus/pci/drivers/gaudisim/$bdf"
check "nodes back" wait_for 10 nodes_present
check "operational after the reload" wait_for 10 operational
check "DMA round trip after the reload" dma-bench -s 1 -r 1

# Twice more, quickly: the removal path holds up under repetition.
for cycle in 1 2; do
	gsim-job-holder -w 60 > "$tmp/holder" 2>&1 &
	holder=$!
	check "holder ready (cycle $cycle)" wait_for 30 grep -q '^holder: ready' "$tmp/holder"
	check "unbind (cycle $cycle)" timeout 60 sh -c "echo $bdf > /sys/bus/pci/drivers/gaudisim/unbind"
	check "holder passes (cycle $cycle)" wait_for 30 gone "$holder"
	wait "$holder"
	check "holder exit 0 (cycle $cycle)" test $? -eq 0
	check "bind again (cycle $cycle)" sh -c "echo $bdf > /sys/bus/pci/drivers/gaudisim/bind"
	check "operational after bind (cycle $cycle)" wait_for 10 operational
done
check "DMA round trip at the end" dma-bench -s 1 -r 1

bad=$(dmesg | sed -n "/$marker/,\$p" | grep -E 'Oops|BUG|WARNING|Call Trace|refcount|use-after-free')
if [ -n "$bad" ]; then
	printf '%s\n' "$bad"
	failed=$((failed + 1))
	echo "FAIL: kernel log"
else
	passed=$((passed + 1))
fi
rm -rf "$tmp"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
