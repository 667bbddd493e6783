#!/bin/sh
# The multi-device guest programs (a machine booted with GAUDISIM_DEVICES
# of 4 or more), through run-all.sh: its report and kernel-log check, and
# a missing program counting as a failure.
#   run-multi.sh [PROGRAM...]   default: every multi-device program
dir=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
	exec "$dir/run-all.sh" "$@"
fi
missing=0
set --
for t in multi nic coll dp trials stop; do
	if [ -x "$dir/gsim-test-$t" ]; then
		set -- "$@" "$dir/gsim-test-$t"
	elif [ -x "$dir/gsim-test-$t.sh" ]; then
		set -- "$@" "$dir/gsim-test-$t.sh"
	else
		echo "=== gsim-test-$t"
		echo "gsim-test-$t: expected test program missing from $dir"
		missing=$((missing + 1))
	fi
done
# With none present, run-all.sh would run its own default list.
if [ $# -eq 0 ]; then
	echo "0 passed, $missing failed"
	exit 1
fi
# run-all.sh prints the total; fold the missing programs into it.
out=$("$dir/run-all.sh" "$@")
rc=$?
printf '%s\n' "$out" | sed '$d'
last=$(printf '%s\n' "$out" | tail -n 1)
p=${last%% passed*}
f=${last#*passed, }
f=${f%% failed*}
case "$p$f" in
*[!0-9]*|'') echo "$last"; echo "0 passed, $((missing + 1)) failed"; exit 1 ;;
esac
f=$((f + missing))
echo "$p passed, $f failed"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
