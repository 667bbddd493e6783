#!/bin/sh
# Multi-device jobs stop cleanly, in the guest (two or more devices): the
# ranks of `hl-train --devices 2` carry the names "hl-train r0" and
# "hl-train r1"; SIGTERM to the launcher (what a scheduler sends) stops both
# ranks and exits 143 within seconds, after which the next 2-device job opens
# both devices; SIGINT to a launcher a script started in the background
# (SIGINT ignored by inheritance) exits 130; ranks die with a launcher killed
# outright; SIGINT to hl-trials stops its trials, prints the results so far
# and exits 130. Prints "N passed, N failed".
#   GSIM_TRAIN_DATA   data root (default /mnt/host/data)
#   GSIM_TRAIN_MODELS model folder (default /usr/share/gaudisim/models)
. "$(dirname "$0")/gsim-train-prelude.sh" stop 2
seed="--model $models/seed.json --data-dir $data --no-eval"

# Ranks alive now (by their process names).
ranks() { cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^hl-train r[0-9]'; }
# wait_ranks N: up to 120 s for N ranks, then 3 s into their training.
wait_ranks() {
	i=0
	while [ $i -lt 120 ] && [ "$(ranks)" -lt "$1" ]; do
		sleep 1
		i=$((i + 1))
	done
	sleep 3
}
# gone_within S: every rank gone within S seconds.
gone_within() {
	i=0
	while [ $i -lt "$1" ] && [ "$(ranks)" -gt 0 ]; do
		sleep 1
		i=$((i + 1))
	done
	[ "$(ranks)" -eq 0 ]
}
# The next 2-device job opens both devices and trains.
next_job() {
	# shellcheck disable=SC2086
	if hl-train $seed --batch 256 --max-steps 2 --devices 2 > "$work/out" 2>&1; then
		pass "$1: the next 2-device job runs"
	else
		fail "$1: the next 2-device job failed"
		show
	fi
}

# Every job below is stopped by a signal long before it could finish: it
# asks for 1000 epochs, so a faster device cannot end it first.

# 1. SIGTERM to the launcher.
# shellcheck disable=SC2086
hl-train $seed --batch 256 --epochs 1000 --devices 2 > "$work/job.out" 2>&1 &
pid=$!
wait_ranks 2
names=$(cat /proc/[0-9]*/comm 2>/dev/null | grep '^hl-train r' | sort | tr '\n' ',')
if [ "$names" = "hl-train r0,hl-train r1," ]; then
	pass "ranks named: $names"
else
	fail "rank names: '$names'"
fi
t0=$(date +%s)
kill -TERM "$pid"
wait "$pid"
rc=$?
t1=$(date +%s)
if [ "$rc" -eq 143 ] && [ $((t1 - t0)) -le 15 ] && gone_within 1; then
	pass "SIGTERM: launcher and ranks gone in $((t1 - t0)) s, exit status 143"
else
	fail "SIGTERM: exit status $rc after $((t1 - t0)) s, $(ranks) ranks left"
	sed 's/^/  | /' "$work/job.out" | tail -n 5
fi
next_job "after SIGTERM"

# 2. SIGINT to a launcher started in the background by a script: a
# non-interactive shell starts it with SIGINT ignored.
# shellcheck disable=SC2086
hl-train $seed --batch 256 --epochs 1000 --devices 2 > "$work/job.out" 2>&1 &
pid=$!
wait_ranks 2
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ] && gone_within 10; then
	pass "SIGINT to a background launcher: exit status 130, ranks gone"
else
	fail "SIGINT to a background launcher: exit status $rc, $(ranks) ranks left"
	sed 's/^/  | /' "$work/job.out" | tail -n 5
fi

# 3. The launcher killed outright: the ranks die with it.
# shellcheck disable=SC2086
hl-train $seed --batch 256 --epochs 1000 --devices 2 > "$work/job.out" 2>&1 &
pid=$!
wait_ranks 2
kill -KILL "$pid"
wait "$pid" 2>/dev/null
if gone_within 10; then
	pass "SIGKILL to the launcher: the ranks died with it"
else
	fail "SIGKILL to the launcher: $(ranks) ranks still running"
fi
next_job "after SIGKILL"

# 4. SIGINT to hl-trials: the trials stop, the results so far are printed.
hl-trials --model "$models/seed.json" --data-dir "$data" --epochs 1000 --lr 0.1,0.01 \
	--modules 0-1 --parallel 2 --no-eval --no-asha > "$work/out" 2>&1 &
pid=$!
i=0
while [ $i -lt 120 ] && ! grep -q "epoch 1 loss" "$work/out"; do
	sleep 1
	i=$((i + 1))
done
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ] && grep -q "^hl-trials: interrupted by" "$work/out" &&
   [ "$(awk '$1 ~ /^[0-9]+$/ && $6 == "interrupted"' "$work/out" | wc -l)" -eq 2 ]; then
	pass "SIGINT to hl-trials: exit status 130, partial results: $(grep -c 'interrupted' "$work/out") lines"
else
	fail "SIGINT to hl-trials (exit status $rc)"
	show
fi
next_job "after hl-trials"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
