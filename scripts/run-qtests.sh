#!/usr/bin/env bash
# Run the gaudisim qtests against the QEMU built by scripts/build-qemu.sh.
#
# Each test case runs in its own process (a failed g_assert aborts the
# process), bounded by a timeout. The last line is "N passed, N failed";
# the exit status is non-zero when a test failed or none ran.
#
# Usage: scripts/run-qtests.sh [-v] [test path prefix...]
#   -v   show each test's output, not only that of failed ones
# Environment: QEMU_FIRMWARE_DIR (default /usr/share/qemu, Debian's
#   qemu-system-data), QTEST_TIMEOUT (seconds per test, default 60)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/qemu
qemu=$out/qemu-system-x86_64
test_bin=$out/tests/qtest/gaudisim-test
fw_dir=${QEMU_FIRMWARE_DIR:-/usr/share/qemu}
timeout_s=${QTEST_TIMEOUT:-60}
verbose=0

if [ "${1:-}" = -v ]; then verbose=1; shift; fi

die() { printf '[run-qtests] error: %s\n' "$*" >&2; exit 1; }
[ -x "$qemu" ] && [ -x "$test_bin" ] || die "not built; run scripts/build-qemu.sh"
# Debian's QEMU source has no firmware blobs; qboot is enough for qtest,
# where no guest code runs.
[ -f "$fw_dir/qboot.rom" ] || die "no qboot.rom in $fw_dir (install qemu-system-data)"

# libqtest derives the target from the binary's name, so the wrapper that
# adds the firmware options keeps the name qemu-system-x86_64.
wrap_dir=$top/build/qtest-bin
mkdir -p "$wrap_dir"
wrapper=$wrap_dir/qemu-system-x86_64
cat > "$wrapper.tmp" <<WRAP
#!/bin/sh
exec "$qemu" -L "$fw_dir" -bios qboot.rom "\$@"
WRAP
chmod +x "$wrapper.tmp"
mv "$wrapper.tmp" "$wrapper"
export QTEST_QEMU_BINARY=$wrapper

mapfile -t all < <("$test_bin" -l 2>/dev/null | grep '^/')
[ ${#all[@]} -gt 0 ] || die "$test_bin lists no tests"
tests=()
if [ $# -gt 0 ]; then
	for t in "${all[@]}"; do
		for want in "$@"; do
			case $t in *"$want"*) tests+=("$t"); break ;; esac
		done
	done
else
	tests=("${all[@]}")
fi

passed=0 failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "${tests[@]}"; do
	start=$(date +%s.%N)
	timeout --kill-after=5 "$timeout_s" "$test_bin" --tap -p "$t" > "$log" 2>&1
	rc=$?
	secs=$(printf '%.2f' "$(echo "$(date +%s.%N) - $start" | bc)")
	# One "ok N path" line and a clean exit, or it failed.
	if [ $rc -eq 0 ] && grep -q "^ok [0-9]* $t\$" "$log" && ! grep -q '^not ok' "$log"; then
		passed=$((passed + 1))
		printf 'ok    %-50s %6ss\n' "$t" "$secs"
		[ $verbose -eq 0 ] || sed 's/^/    /' "$log"
	else
		failed=$((failed + 1))
		[ $rc -ne 124 ] || echo "    (timed out after ${timeout_s}s)" >> "$log"
		printf 'FAIL  %-50s %6ss (exit %d)\n' "$t" "$secs" "$rc"
		sed 's/^/    /' "$log"
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
