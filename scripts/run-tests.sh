#!/usr/bin/env bash
# Run every test suite, keep each one's log in build/test-logs, and print
# "N passed, N failed" per suite and a total. A suite that ends without
# its summary line (crash, timeout) counts as one failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/build/test-logs
cd "$top"
mkdir -p "$logs"

suites=(unit unit-portable host runtime trainer torch-host setup lint fuzz qtest guest torch hotplug
	guest-multi mpi)
declare -A cmd=(
	[unit]="$top/build/tests/unit-core"
	# The unit tests again on the MME's portable kernels (no OpenBLAS).
	[unit-portable]="$top/build/tests/unit-core-portable"
	[host]="$top/build/tests/host/host-user"
	[runtime]="$top/build/tests/runtime/runtime-tests"
	[trainer]="$top/build/tests/trainer/trainer-tests"
	[setup]="bash $top/tests/setup/test-apt-sources.sh"
	[lint]="bash $top/scripts/lint.sh"
	[fuzz]="bash $top/scripts/run-fuzz.sh bounded"
	[qtest]="bash $top/scripts/run-qtests.sh"
	[guest]="bash $top/scripts/vm.sh run -t 3600 -- run-all.sh"
	# The hpu bridge for PyTorch on the in-process device (no VM).
	[torch-host]="make -s -C $top/tests/pytorch run"
	# PyTorch on the hpu in the Debian userland (tests/pytorch/test_guest.py).
	[torch]="env GAUDISIM_ROOTFS=debian bash $top/scripts/vm.sh run -t 5400 -- /usr/bin/python3 /usr/share/gaudisim/tests/pytorch/run.py /usr/share/gaudisim/tests/pytorch/test_guest.py /usr/share/gaudisim/tests/pytorch/test_optimizers.py"
	# Hot unplug over QMP of a device with a job in flight (its own guest boot).
	[hotplug]="bash $top/scripts/test-hotplug.sh"
	# Four devices on one fabric: the multi-device programs (run-multi.sh).
	[guest-multi]="env GAUDISIM_DEVICES=4 bash $top/scripts/vm.sh run -t 900 -- GSIM_EXPECT_DEVICES=4 run-multi.sh"
	# Two guests of eight devices under mpirun: a 16-rank collective job.
	[mpi]="bash $top/scripts/mpi-job.sh"
)
[ $# -gt 0 ] && suites=("$@")

total_pass=0
total_fail=0
summary=()
failed_suites=()
for s in "${suites[@]}"; do
	echo "==== suite $s"
	start=$(date +%s)
	${cmd[$s]} 2>&1 | tee "$logs/$s.log"
	rc=${PIPESTATUS[0]}
	secs=$(( $(date +%s) - start ))
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/$s.log" | tail -1)
	if [ -n "$line" ]; then
		p=${line%% passed*}
		f=${line#*, }; f=${f%% failed}
	else
		p=0; f=1
	fi
	# A non-zero exit with no failure counted is still a failure.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	[ "$f" -ne 0 ] && failed_suites+=("$s")
	# Tests a suite could not run on this host say so ("skipped: ...").
	k=$(grep -c '^skipped: ' "$logs/$s.log")
	skipped=""
	[ "$k" -ne 0 ] && skipped=", $k skipped"
	summary+=("$(printf '%-6s %s passed, %s failed%s (%ss)' "$s" "$p" "$f" "$skipped" "$secs")")
done

# Name what failed just above the summary, so the end of the output alone
# says which test to look at (the full logs are in build/test-logs).
if [ "$total_fail" -ne 0 ]; then
	echo "==== failures"
	for s in "${failed_suites[@]}"; do
		grep -E ':[0-9]+:[EF]:|^FAIL|FAILED|no report|: exit status [0-9]' \
			"$logs/$s.log" | grep -v '^ok: ' | head -n 20 | sed "s/^/$s: /"
		echo "$s: full log in build/test-logs/$s.log"
	done
fi

echo "==== summary"
printf '%s\n' "${summary[@]}"
echo "total: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
