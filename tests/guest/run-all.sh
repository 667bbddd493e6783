#!/bin/sh
# Run the guest test programs (inside the VM, as root, driver loaded), then
# check the kernel log for oopses and warnings (counted as one more test).
# Prints every program's report and a total line "N passed, N failed";
# exits non-zero on any failure.
#   run-all.sh [PROGRAM...]   default: every expected gsim-test-* program of
#                             this folder; one that is missing (failed to
#                             build, not staged) counts as a failure
# HL_SMI names the hl-smi binary for gsim-test-smi (default: PATH, then the
# build tree's smi/hl-smi).
dir=$(cd "$(dirname "$0")" && pwd)

if [ -z "$HL_SMI" ]; then
	HL_SMI=$(command -v hl-smi 2>/dev/null || echo "$dir/../../smi/hl-smi")
fi
export HL_SMI

passed=0
failed=0
if [ $# -eq 0 ]; then
	set --
	# The expected programs; module reloads the driver, so it runs last.
	for t in vmenv open info fdinfo memory cb cs wait latency sigwait sync dma negative smi engines security payload responsive sysfs hwmon debugfs debugmode thunk hlrt example train layers busy contexts uirq recovery fuzz unload module; do
		if [ -x "$dir/gsim-test-$t" ]; then
			set -- "$@" "$dir/gsim-test-$t"
		elif [ -x "$dir/gsim-test-$t.sh" ]; then
			set -- "$@" "$dir/gsim-test-$t.sh"
		else
			echo "=== gsim-test-$t"
			echo "gsim-test-$t: expected test program missing from $dir"
			failed=$((failed + 1))
		fi
	done
fi

# Mark where this run starts in the kernel log, to judge only what follows.
marker="gsim-run-all: start $$"
echo "$marker" > /dev/kmsg 2>/dev/null || marker=

log=$(mktemp "${TMPDIR:-/tmp}/gsim-run-all.XXXXXX")
for prog in "$@"; do
	echo "=== $(basename "$prog")"
	"$prog" > "$log" 2>&1
	rc=$?
	cat "$log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		p=${line%% passed*}
		f=${line#*passed, }
		f=${f%% failed*}
		passed=$((passed + p))
		failed=$((failed + f))
		# A crash after the report, or a non-zero status with 0 failures.
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "$(basename "$prog"): exit status $rc"
			failed=$((failed + 1))
		fi
	else
		echo "$(basename "$prog"): no report (exit status $rc)"
		failed=$((failed + 1))
	fi
done
rm -f "$log"

echo "=== kernel log"
if [ -n "$marker" ]; then
	kmsg=$(dmesg | sed -n "/$marker/,\$p")
else
	kmsg=$(dmesg)
fi
bad=$(printf '%s\n' "$kmsg" | grep -E 'Oops|BUG|WARNING|Call Trace')
if [ -n "$bad" ]; then
	printf '%s\n' "$bad"
	echo "kernel log: FAILED (oops, BUG or WARNING above)"
	failed=$((failed + 1))
else
	echo "kernel log: clean"
	passed=$((passed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
