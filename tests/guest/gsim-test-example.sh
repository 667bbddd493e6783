#!/bin/sh
# The example program of docs/runtime.md (docs/examples/hlrt-train.c),
# compiled from the build tree's hlrt.pc against libhlrt.so and fully
# static, trains on the device in the guest: each build exits 0 with the
# loss below half its first value. Prints "N passed, N failed".
passed=0
failed=0
out=$(mktemp "${TMPDIR:-/tmp}/gsim-example.XXXXXX")
trap 'rm -f "$out"' EXIT
for prog in hlrt-train-example hlrt-train-example-static; do
	if "$prog" > "$out" 2>&1 && grep -q "^trained: loss" "$out"; then
		passed=$((passed + 1))
		echo "ok: $prog: $(grep '^trained' "$out")"
	else
		failed=$((failed + 1))
		echo "FAIL: $prog"
		sed 's/^/  | /' "$out"
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
