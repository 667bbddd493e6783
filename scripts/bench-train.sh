#!/usr/bin/env bash
# Training benchmark: a model's full recipe (the seed model: 5 epochs of
# MNIST) trained by hl-train on the device in the VM, against PyTorch on
# the host (Debian's python3-torch, BENCH_TRAIN_THREADS threads, default
# 2, OMP_WAIT_POLICY=PASSIVE) on the same data and recipe, and the CPU
# reference trainer
# hl-train-ref on the host. The runs are interleaved, round by round; each
# side's figure is its best round's training time (the epochs, without
# start-up or evaluation), and the ratio is hl-train over PyTorch.
# Then "launch": the per-step launch overhead in the guest, hl-step-bench
# (the seed model's step lazy and eager, a one-op recipe, that op eager
# and lazy in a session, each against a bare NOP CS measured in the same
# run, interleaved).
#   scripts/bench-train.sh [MODEL...|launch]   default: seed mlp launch
# Environment: BENCH_TRAIN_ROUNDS (default 2), BENCH_TRAIN_THREADS,
# BENCH_STEPS_PER_EXECUTION (hl-train's --steps-per-execution, 1..32;
# default 8, which measured faster than 1 on the seed row),
# BENCH_LAUNCH_COUNT (samples per round, default 200), BENCH_LAUNCH_ROUNDS
# (default 5).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${BENCH_TRAIN_ROUNDS:-2}
threads=${BENCH_TRAIN_THREADS:-2}
spe=${BENCH_STEPS_PER_EXECUTION:-8}
data=$top/build/share/data
ref=$top/build/apps/hl-train-ref
# Debian's interpreter, where python3-torch is installed (the python3
# first on PATH may be another one).
python=/usr/bin/python3
# shellcheck source=scripts/bench-lib.sh
. "$top/scripts/bench-lib.sh"

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Per-launch cost in the guest: hl-step-bench prints one line per series
# ("step_launch_seed median_us=... p99_us=... ratio_to_nop_cs=...").
launch_bench() {
	local count=${BENCH_LAUNCH_COUNT:-200} rounds=${BENCH_LAUNCH_ROUNDS:-5} out
	[ -x "$top/build/apps/hl-step-bench" ] ||
		{ echo "bench-train: hl-step-bench missing; run 'make user initramfs'" >&2; exit 2; }
	echo "== launch overhead in the VM: hl-step-bench, $rounds rounds of $count samples"
	out=$(bench_vm -t 600 -- "hl-step-bench -n $count -r $rounds")
	echo "$out" | grep -E '^(step_|op_|nop_cs|info_ioctl)' ||
		{ echo "$out" | tail -n 20 >&2; echo "bench-train: hl-step-bench printed no figures" >&2
		  exit 1; }
	# The summary's row: the seed model's step (lazy) against the NOP CS.
	local step nop ratio
	step=$(sed -n 's/^step_launch_seed median_us=\([0-9.]*\) .*/\1/p' <<<"$out" | head -n 1)
	ratio=$(sed -n 's/^step_launch_seed .* ratio_to_nop_cs=\([0-9.]*\) .*/\1/p' <<<"$out" | head -n 1)
	nop=$(sed -n 's/^nop_cs median_us=\([0-9.]*\) .*/\1/p' <<<"$out" | head -n 1)
	[ -n "$step" ] && [ -n "$ratio" ] ||
		{ echo "bench-train: no step_launch_seed figure" >&2; exit 1; }
	bench_row 3 "one seed step's launch in the guest (hl-step-bench) vs a NOP CS, medians" \
		"$step us vs ${nop:-?} us = ${ratio}x" "<= 5x" "$(bench_met "$ratio" '<=' 5)" \
		"$(bench_vm_path "$out")"
}

models=() launch=0
for arg in "$@"; do
	if [ "$arg" = launch ]; then launch=1; else models+=("$arg"); fi
done
[ $# -gt 0 ] || { models=(seed mlp); launch=1; }
if [ ${#models[@]} -gt 0 ]; then
	[ -x "$ref" ] || { echo "bench-train: $ref missing; run 'make user'" >&2; exit 2; }
	bash "$top/scripts/fetch-data.sh" mnist
	if ! "$python" -c 'import torch' 2>/dev/null; then
		echo "bench-train: installing python3-torch"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends python3-torch
	fi
fi

# "N samples in S s" of an hl-train run -> S
train_seconds() { sed -n 's/^[0-9]* samples in \([0-9.]*\) s:.*/\1/p' | tail -n 1; }
accuracy() { sed -n 's/.*test accuracy:\{0,1\} \([0-9.]*\).*/\1/p' | tail -n 1; }
best() { printf '%s\n' "$@" | sort -g | head -n 1; }

for model in "${models[@]}"; do
	file=$top/models/$model.json
	[ -f "$file" ] || { echo "bench-train: no model $file" >&2; exit 2; }
	echo "== training: model $model, full recipe, hl-train in the VM vs PyTorch" \
		"($threads threads) and hl-train-ref on the host"
	dev=() torch=() cpu=()
	for r in $(seq "$rounds"); do
		# Passive OpenMP waits: spinning threads on a shared 2-core machine
		# make PyTorch's small steps ten times slower than it can run.
		out=$(OMP_WAIT_POLICY=PASSIVE "$python" "$top/scripts/bench-train.py" \
			--model "$file" --data-dir "$data/mnist" --threads "$threads")
		echo "round $r $out"
		torch+=("$(echo "$out" | sed -n 's/.* epochs in \([0-9.]*\) s.*/\1/p')")
		torch_acc=$(echo "$out" | accuracy)

		out=$(bench_vm -t 3000 -- \
			"hl-train --model /usr/share/gaudisim/models/$model.json --data mnist \
			--steps-per-execution $spe")
		path=$(bench_vm_path "$out")
		echo "$out" | grep -E 'samples in|test accuracy' | sed "s/^/round $r hl-train (VM): /"
		dev+=("$(echo "$out" | train_seconds)")
		dev_acc=$(echo "$out" | accuracy)

		out=$("$ref" --model "$file" --data-dir "$data")
		echo "$out" | grep -E 'samples in|test accuracy' | sed "s/^/round $r hl-train-ref: /"
		cpu+=("$(echo "$out" | train_seconds)")
		cpu_acc=$(echo "$out" | accuracy)
	done
	d=$(best "${dev[@]}") t=$(best "${torch[@]}") c=$(best "${cpu[@]}")
	[ -n "$d" ] && [ -n "$t" ] && [ -n "$c" ] ||
		{ echo "bench-train: a run of model $model printed no time" >&2; exit 1; }
	printf 'train_%s_s hl-train=%.2f (accuracy %s, spe=%s) pytorch=%.2f (accuracy %s) ratio=%.2f target<=1.0; cpu-reference=%.2f (accuracy %s, %.2fx pytorch)\n' \
		"$model" "$d" "$dev_acc" "$spe" "$t" "$torch_acc" "$(echo "$d / $t" | bc -l)" \
		"$c" "$cpu_acc" "$(echo "$c / $t" | bc -l)"
	r=$(printf '%.2f' "$(echo "$d / $t" | bc -l)")
	case $model in
	seed) order=1 what="seed model" ;;
	mlp) order=2 what="MLP 784-128-10" ;;
	*) order=2 what="model $model" ;;
	esac
	bench_row "$order" "$what, full recipe, hl-train in the VM vs PyTorch ($threads threads) on the host" \
		"$d s vs $t s = ${r}x" "<= 1.0x" "$(bench_met "$r" '<=' 1.0)" "$path pytorch_threads=$threads spe=$spe"
done
[ "$launch" -eq 0 ] || launch_bench
