#!/usr/bin/env bash
# Fuzzing of the device core (tests/fuzz, README.md there).
#
#   run-fuzz.sh bounded            the test-suite run: replay the committed
#                                  seeds and reproducers with every harness,
#                                  then a short deterministic libFuzzer run
#                                  per harness (one test each; prints
#                                  "N passed, N failed")
#   run-fuzz.sh long [seconds]     fuzz each harness for that long (default
#                                  600) on the persistent corpus in
#                                  build/fuzz/corpus/<harness>
#   run-fuzz.sh replay HARNESS FILE|DIR...
#                                  run inputs once with the replay build
#   run-fuzz.sh minimize HARNESS CRASHFILE
#                                  shrink a crashing input (libFuzzer)
#
# Crashes, sanitizer reports, failed invariants, leaks and inputs slower
# than the per-input timeout leave an artifact in build/fuzz/artifacts/
# <harness>/; its path is printed and the run fails.
#
# Environment: FUZZ_RUNS, FUZZ_TIME (bounded run per harness: executions,
# seconds cap), FUZZ_JOBS (harnesses fuzzed at once, default 2),
# FUZZ_REPLAY_TIMEOUT (seconds per replayed input, default 25).
#
# Every harness must have its libFuzzer build: one that cannot be built or
# run is a failed test, never a skip.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/tests/fuzz
out=$top/build/fuzz
harnesses=(cb tpc tpc_ops)
declare -A max_len=([cb]=4096 [tpc]=8192 [tpc_ops]=1024)
# Executions of the bounded run (FUZZ_RUNS overrides): a tpc_ops input
# always runs a whole launch, so it gets fewer.
declare -A bounded_runs=([cb]=12000 [tpc]=12000 [tpc_ops]=4000)

# Each libFuzzer process is one thread; keep OpenBLAS (MME) to one too.
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

passed=0
failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

build() {
	if ! make -s -C "$src" -j2 O="$out" >"$out.build.log" 2>&1; then
		cat "$out.build.log"
		echo "fuzz: build failed"
		return 1
	fi
	grep -h '^fuzz:' "$out.build.log" || true
}

# Artifacts left by a libFuzzer run: printed, and the count returned in $found.
report_artifacts() {
	local dir=$1 f
	found=0
	for f in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-unit-*; do
		[ -e "$f" ] || continue
		echo "  artifact: $f"
		found=$((found + 1))
	done
}

# One libFuzzer run: harness, log file, then libFuzzer arguments.
fuzz_run() {
	local h=$1 log=$2
	shift 2
	"$out/fuzz_$h" -artifact_prefix="$out/artifacts/$h/" -max_len="${max_len[$h]}" \
		-rss_limit_mb=2560 -print_final_stats=1 "$@" >"$log" 2>&1
}

# Exec rate of a finished run, from libFuzzer's final statistics.
exec_rate() {
	local runs secs
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1")
	secs=$(sed -n 's/^stat::total_time_s: *//p' "$1" 2>/dev/null)
	[ -z "$secs" ] && secs=$(grep -o 'in [0-9]* second' "$1" | tail -1 | grep -o '[0-9]*')
	echo "${runs:-?} runs, ${secs:-?} s, $(grep -o 'exec/s: [0-9]*' "$1" | tail -1)"
}

have_fuzzer() {
	[ -x "$out/fuzz_$1" ]
}

# Run FUNC HARNESS ARGS... for every harness with a libFuzzer build, at
# most FUZZ_JOBS at once, then judge each run by its exit status and the
# artifacts it left. The exit status goes through a file, as the runs are
# background jobs.
fuzz_phase() {
	local phase=$1 func=$2 h rc running=0
	local started=()
	shift 2
	for h in "${harnesses[@]}"; do
		# A harness that cannot run has tested nothing: that is a failure.
		if ! have_fuzzer "$h"; then
			fail "$phase-$h (no libFuzzer build: clang cannot link -fsanitize=fuzzer;" \
				"scripts/setup.sh packages installs Debian's clang and libclang-rt)"
			continue
		fi
		rm -rf "$out/artifacts/$h"
		mkdir -p "$out/artifacts/$h"
		( "$func" "$h" "$@"; echo $? >"$out/$phase-$h.rc" ) &
		started+=("$h")
		running=$((running + 1))
		if [ "$running" -ge "${FUZZ_JOBS:-2}" ]; then
			wait
			running=0
		fi
	done
	wait
	for h in "${started[@]}"; do
		rc=$(cat "$out/$phase-$h.rc" 2>/dev/null || echo 1)
		report_artifacts "$out/artifacts/$h"
		if [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]; then
			pass "$phase-$h ($(exec_rate "$out/$phase-$h.log"))"
		else
			grep -E 'ERROR|invariant|SUMMARY|runtime error|interrupted' "$out/$phase-$h.log" |
				head -5
			fail "$phase-$h (exit $rc, $found artifacts; log build/fuzz/$phase-$h.log)"
		fi
	done
}

bounded_one() {
	local h=$1 scratch=$out/bounded/$1
	# A fresh scratch corpus each time: the seeds alone decide the run.
	rm -rf "$scratch"
	mkdir -p "$scratch"
	fuzz_run "$h" "$out/fuzz-$h.log" -seed=1 -runs="${FUZZ_RUNS:-${bounded_runs[$h]}}" \
		-max_total_time="${FUZZ_TIME:-90}" -timeout=25 "$scratch" "$src/seeds/$h"
}

long_one() {
	local h=$1 secs=$2 corpus=$out/corpus/$1
	mkdir -p "$corpus"
	fuzz_run "$h" "$out/long-$h.log" -max_total_time="$secs" -timeout=60 \
		"$corpus" "$src/seeds/$h"
}

# Seconds one input may take in the replay build (as libFuzzer's -timeout).
replay_timeout=${FUZZ_REPLAY_TIMEOUT:-25}
replay_phase() {
	local h inputs log
	for h in "${harnesses[@]}"; do
		inputs=("$src/seeds/$h")
		[ -d "$src/crashes/$h" ] && inputs+=("$src/crashes/$h")
		log=$out/replay-$h.log
		if "$out/replay_$h" -q -t "$replay_timeout" "${inputs[@]}" >"$log" 2>&1; then
			pass "replay-$h ($(tail -1 "$log"))"
		else
			grep -E '^FAIL|invariant|ERROR' "$log" | head -10
			fail "replay-$h ($(tail -1 "$log"); log build/fuzz/replay-$h.log)"
		fi
	done
}

mode=${1:-bounded}
mkdir -p "$out"
case $mode in
bounded)
	build || { echo "0 passed, 1 failed"; exit 1; }
	replay_phase
	fuzz_phase fuzz bounded_one
	;;
long)
	secs=${2:-600}
	build || { echo "0 passed, 1 failed"; exit 1; }
	fuzz_phase long long_one "$secs"
	;;
replay)
	[ $# -ge 3 ] || { echo "usage: $0 replay HARNESS FILE|DIR..."; exit 2; }
	build || exit 1
	h=$2
	shift 2
	exec "$out/replay_$h" -t "$replay_timeout" "$@"
	;;
minimize)
	[ $# -eq 3 ] || { echo "usage: $0 minimize HARNESS CRASHFILE"; exit 2; }
	build || exit 1
	mkdir -p "$out/minimized"
	exec "$out/fuzz_$2" -minimize_crash=1 -runs=20000 -max_len="${max_len[$2]}" \
		-exact_artifact_path="$out/minimized/$(basename "$3")" "$3"
	;;
*)
	echo "usage: $0 bounded | long [seconds] | replay HARNESS FILE... | minimize HARNESS FILE"
	exit 2
	;;
esac

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
