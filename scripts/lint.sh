#!/usr/bin/env bash
# Style and static checks of the kernel module: checkpatch --strict on every
# source file, and sparse (the kernel's C=2 build) on every compilation
# unit. One case per file and checker; prints "N passed, N failed".
#
#   scripts/lint.sh            check kernel/ (and the tree for conflict markers,
#                              and that the benchmark programs build)
#   LINT_SRC=DIR scripts/lint.sh   check another module tree (lint's own test)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
src=${LINT_SRC:-$top/kernel}
checkpatch=$build/tools/checkpatch/checkpatch.pl
kver=$(cat "$build/guest-kernel/version" 2>/dev/null)
kdir=$build/guest-kernel/root/usr/src/linux-headers-$kver
passed=0
failed=0

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

# A missing checker fails the suite: a check that cannot run is no pass.
missing=
[ -f "$checkpatch" ] || missing="$missing checkpatch (scripts/setup.sh checkpatch)"
command -v sparse >/dev/null || missing="$missing sparse (Debian package sparse)"
[ -n "$kver" ] && [ -d "$kdir" ] || missing="$missing the guest kbuild tree (scripts/setup.sh kernel)"
if [ -n "$missing" ]; then
	echo "lint: missing:$missing" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

shopt -s nullglob
files=("$src"/*.c "$src"/*.h)
[ ${#files[@]} -gt 0 ] || { echo "lint: no sources in $src" >&2; echo "0 passed, 1 failed"; exit 1; }

for f in "${files[@]}"; do
	name=${f#"$top"/}
	if out=$(perl "$checkpatch" --strict --no-tree --quiet --show-types -f "$f" 2>&1); then
		pass "checkpatch $name"
	else
		fail "checkpatch $name"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
done

# sparse through kbuild, on a private copy of the tree so the module build
# in build/kernel is left alone; C=2 checks every unit.
# Kbuild finds the contracts at ../include, beside the checked tree.
work=$build/lint/kernel
rm -rf "$build/lint" && mkdir -p "$work"
for f in "$src"/*.c "$src"/*.h "$src"/Kbuild; do ln -sf "$f" "$work/"; done
ln -sfn "$(cd "$src/.." && pwd)/include" "$build/lint/include"
log=$work/sparse.log
make -s -C "$kdir" M="$work" C=2 CHECK=sparse modules >"$log" 2>&1
build_rc=$?
for f in "$src"/*.c; do
	base=$(basename "$f")
	name=${f#"$top"/}
	if grep -E "(^|/)$base:[0-9]+:[0-9]+: (warning|error)" "$log" >"$work/$base.sparse"; then
		fail "sparse $name"
		sed 's/^/    /' "$work/$base.sparse"
	elif [ "$build_rc" -ne 0 ]; then
		fail "sparse $name (the module did not build)"
	else
		pass "sparse $name"
	fi
done
[ "$build_rc" -eq 0 ] || tail -20 "$log" | sed 's/^/    /'

# The benchmark programs are not run by the tests; they must still build
# (they compile the device core with its internal headers).
if [ -z "${LINT_SRC:-}" ]; then
	if out=$(make -C "$top" -s bench-build 2>&1); then
		pass "benchmark programs build"
	else
		fail "benchmark programs build"
		printf '%s\n' "$out" | grep -E 'error|Error' | head -20 | sed 's/^/    /'
	fi
fi

# A merge left half-done: conflict markers in any tracked file of the project.
if [ -z "${LINT_SRC:-}" ] && git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	if markers=$(git -C "$top" grep -n -E '^(<<<<<<<|>>>>>>>) ' -- . 2>/dev/null); then
		fail "no merge-conflict markers"
		printf '%s\n' "$markers" | sed 's/^/    /'
	else
		pass "no merge-conflict markers"
	fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
