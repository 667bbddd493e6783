#!/usr/bin/env bash
# Benchmark of hl-trials (part of make bench): the seed's sweep, eight
# learning rates of the seed model on MNIST, each trial on a card of its
# own, in one guest of eight devices: hl-trials' default schedule (as many
# at once as the CPUs hold, the others queued; it says how many) against
# one after the other, then all eight forced at once (--parallel 8) for
# comparison. ASHA is off, so every run does the same work (8 trials x
# EPOCHS epochs); the figure is the ratio of the wall times, each side's
# best of two rounds run in turn (default, in turn, default, in turn), as
# this host's speed drifts between runs. A first pass of
# one epoch per card, not timed, warms every card (its first HBM touches and
# first submissions cost far more than later ones), so neither run pays it.
#   BENCH_TRIAL_EPOCHS  epochs per trial (default 2)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
epochs=${BENCH_TRIAL_EPOCHS:-2}
# shellcheck source=scripts/bench-lib.sh
. "$top/scripts/bench-lib.sh"
lrs=0.001,0.002,0.005,0.01,0.02,0.05,0.1,0.2

echo "== hl-trials: 8 trials of the seed model ($epochs epochs), the default schedule vs in turn, best of two rounds each (and 8 forced at once)"
bash "$top/scripts/fetch-data.sh" mnist >/dev/null
out=$(GAUDISIM_DEVICES=8 bench_vm -t 1800 -- \
	"mkdir -p /tmp/d/mnist && cp /mnt/host/data/mnist/*-ubyte /tmp/d/mnist/ &&
	 hl-trials --model /usr/share/gaudisim/models/seed.json --data-dir /tmp/d \
		--epochs 1 --lr $lrs --no-asha --quiet --no-eval > /dev/null || exit 1
	 for p in '' '--parallel 1' '' '--parallel 1' '--parallel 8'; do
		hl-trials --model /usr/share/gaudisim/models/seed.json --data-dir /tmp/d \
			--epochs $epochs --lr $lrs --no-asha --quiet \$p || exit 1
	 done")
secs=$(sed -n 's/^8 trials in \([0-9.]*\) s$/\1/p' <<<"$out")
par=$(sed -n '1p;3p' <<<"$secs" | sort -g | head -n 1)
seq=$(sed -n '2p;4p' <<<"$secs" | sort -g | head -n 1)
all=$(sed -n 5p <<<"$secs")
best=$(grep '^best:' <<<"$out" | head -n 1)
if [ -z "$par" ] || [ -z "$seq" ] || [ -z "$all" ] || [ "$(grep -c '^best:' <<<"$out")" -ne 5 ] ||
	[ "$(grep -cE '^[0-9]+ +[0-9]+ +[0-9.]+ .* done ' <<<"$out")" -ne 40 ]; then
	echo "$out" | tail -n 30 >&2
	echo "bench-trials: no timings from the guest" >&2
	exit 1
fi
# The runs' headers, tables and totals, so the figure can be checked.
grep -E '^(hl-trials:|trial +module|[0-9]+ +[0-9]+ +[0-9.]+ |8 trials in)' <<<"$out"
echo "$best"
r=$(printf '%.2f' "$(echo "$seq / $par" | bc -l)")
at_once=$(sed -n 's/^hl-trials: 8 trials of .*, \([0-9]*\) at once on .*/\1/p' <<<"$out" | head -n 1)
printf 'trials_8 default_s=%.2f (%s at once) sequential_s=%.2f speedup=%s forced_8_at_once_s=%.2f speedup=%.2f\n' \
	"$par" "$at_once" "$seq" "$r" "$all" "$(echo "$seq / $all" | bc -l)"
bench_row 8 "8 hl-trials (seed, $epochs epochs), hl-trials' schedule vs the same 8 one after another" \
	"$par s ($at_once at once) vs $seq s = ${r}x (8 forced at once: $all s)" ">= 1.0x" \
	"$(bench_met "$r" '>=' 1.0)" "$(bench_vm_path "$out") trials_at_once=$at_once"
