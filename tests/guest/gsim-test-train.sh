#!/bin/sh
# Training on the device (hl-train through libhlrt) against the CPU
# reference trainer (hl-train-ref), in the guest: the per-step losses of
# the seed model (first 50 steps; 20 with LAMB, AdamW and Adagrad), the MLP
# (20) and the CNN
# (10) agree within 1e-4 relative; a checkpoint resumed (SGD and LAMB)
# continues with the same losses, bit for bit; a bad model file, a bad data
# file and a model too large for HBM each fail with a clear message and a
# non-zero exit, after which the device is free and trains again; Ctrl-C
# stops a run cleanly (status 130, device released, last epoch's checkpoint
# whole); after their full recipes the
# seed model's test accuracy lies in [0.87, 0.91] on MNIST and [0.77, 0.81]
# on Fashion-MNIST, the MLP's is at least 0.90, the CNN's (LeNet, 3 epochs)
# at least 0.98, and a BF16 run lands within
# 0.01 of the FP32 one; the seed's CPU-fallback model (a Lambda layer)
# matches its reference, logs ArgMax on the HPU and Equal on the CPU and
# reaches the seed's band; a profile parses with events on the MME, TPC and
# DMA lanes; eager runs (--eager, HLRT_LAZY_MODE=0) give the lazy losses
# bit for bit; --steps-per-execution 8 gives the losses of one step per
# submission, bit for bit. Prints "N passed, N failed".
#   GSIM_TRAIN_DATA   data root (default /mnt/host/data)
#   GSIM_TRAIN_MODELS model folder (default /usr/share/gaudisim/models)
#   GSIM_TRAIN_QUICK=1  skip the full-recipe accuracy runs
models=${GSIM_TRAIN_MODELS:-/usr/share/gaudisim/models}
share_data=${GSIM_TRAIN_DATA:-/mnt/host/data}
work=$(mktemp -d "${TMPDIR:-/tmp}/gsim-train.XXXXXX")
trap 'rm -rf "$work"' EXIT
# One copy of MNIST into the guest's tmpfs: every run reads it from there
# rather than through the host share, which is slow under emulation.
data=$work/data
for dset in mnist fashion-mnist; do
	mkdir -p "$data/$dset"
	if ! cp "$share_data/$dset"/*-ubyte "$data/$dset/"; then
		echo "FAIL: no $dset in $share_data/$dset (make data fetches it)"
		echo "0 passed, 1 failed"
		exit 1
	fi
done
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
# check DESC COMMAND...: the command's output goes to $work/out.
check() {
	desc=$1
	shift
	if "$@" > "$work/out" 2>&1; then pass "$desc"; else fail "$desc"; sed 's/^/  | /' "$work/out"; fi
}
# expect_error DESC PATTERN COMMAND...: non-zero exit, PATTERN in stderr.
expect_error() {
	desc=$1
	pattern=$2
	shift 2
	if "$@" > "$work/out" 2>&1; then
		fail "$desc (exit status 0)"
	elif grep -q -- "$pattern" "$work/out"; then
		pass "$desc: $(grep -- "$pattern" "$work/out" | head -n 1)"
	else
		fail "$desc (no \"$pattern\" in the output)"
		sed 's/^/  | /' "$work/out"
	fi
}
train() { hl-train --data-dir "$data" "$@"; }
train_ref() { hl-train-ref --data-dir "$data" "$@"; }
# Same step count, each loss within 1e-4 relative of the reference's.
losses_agree() { # ref-file dev-file steps
	awk -v steps="$3" '
		/^#/ { next }
		NR == FNR { ref[$1 " " $2] = $3; n++; next }
		{
			k = $1 " " $2; seen++
			if (!(k in ref)) { print "step " k ": no reference"; bad++; next }
			d = $3 - ref[k]; if (d < 0) d = -d
			r = ref[k] < 0 ? -ref[k] : ref[k]
			if (d > 1e-4 * r) { printf "step %s: device %s, reference %s\n", k, $3, ref[k]; bad++ }
			if (d / r > worst) worst = d / r
		}
		END {
			printf "%d steps compared, worst relative difference %.3g\n", seen, worst
			exit (bad > 0 || seen != steps || n != steps)
		}' "$1" "$2"
}
# The "test accuracy: X" of an hl-train output lies in [lo, hi].
accuracy_in() { # file lo hi
	awk -v lo="$2" -v hi="$3" '
		/test accuracy:/ { acc = $NF; found = 1 }
		END { if (found) printf "test accuracy %s\n", acc; exit !(found && acc >= lo && acc <= hi) }' "$1"
}
device_trains() { train --model "$models/seed.json" --max-steps 3 --no-eval; }

# 1. Device against the reference, step by step (FP32). The device run
# goes 10 steps into epoch 2 and saves a checkpoint after epoch 1.
check "seed: 479 device steps, checkpoint after epoch 1" \
	train --model "$models/seed.json" --epochs 2 --max-steps 479 --no-eval \
	--save "$work/ck.safetensors" --dump-losses "$work/dev.txt"
# against_reference NAME STEPS DEVICE-DUMP: the reference's first STEPS
# losses against the device's.
against_reference() {
	check "$1: $2 reference steps" train_ref --model "$models/$1.json" \
		--max-steps "$2" --no-eval --dump-losses "$work/$1-ref.txt"
	head -n "$(($2 + 1))" "$3" > "$work/$1-dev-head.txt"
	check "$1: per-step loss equals the CPU reference within 1e-4 relative" \
		losses_agree "$work/$1-ref.txt" "$work/$1-dev-head.txt" "$2"
	cat "$work/out"
}
against_reference seed 50 "$work/dev.txt"
# steps_per_execution: epoch 1 again, 8 steps per submission
# (hlrt_launch_repeat; 469 steps: 58 groups of 8, a group of 4, the partial
# batch alone), gives every step's loss and correct count of one step per
# submission, bit for bit, so the same final loss and accuracy.
check "seed: one epoch with --steps-per-execution 8" \
	train --model "$models/seed.json" --epochs 1 --no-eval --steps-per-execution 8 \
	--dump-losses "$work/spe8.txt"
awk '$1 == 1' "$work/dev.txt" > "$work/spe1-epoch1.txt"
awk '$1 == 1' "$work/spe8.txt" > "$work/spe8-epoch1.txt"
check "seed: steps_per_execution 8 gives the losses of 1, bit for bit (469 steps)" \
	sh -c "cmp '$work/spe1-epoch1.txt' '$work/spe8-epoch1.txt' &&
	       test \$(wc -l < '$work/spe8-epoch1.txt') -eq 469"
# The MLP (ReLU, two GEMMs through autodiff) and the LeNet-style CNN
# (convolutions, max pooling, momentum) too, for a few steps.
check "mlp: 20 device steps" \
	train --model "$models/mlp.json" --max-steps 20 --no-eval --dump-losses "$work/mlp-dev.txt"
against_reference mlp 20 "$work/mlp-dev.txt"
check "lenet: 10 device steps" \
	train --model "$models/lenet.json" --max-steps 10 --no-eval --dump-losses "$work/lenet-dev.txt"
against_reference lenet 10 "$work/lenet-dev.txt"
# LAMB (optimizer_lamb_f32: the moments, fixed-order norms, the trust ratio).
check "seed-lamb: 20 device steps (LAMB)" \
	train --model "$models/seed-lamb.json" --max-steps 20 --no-eval \
	--dump-losses "$work/seed-lamb-dev.txt"
against_reference seed-lamb 20 "$work/seed-lamb-dev.txt"
# AdamW and Adagrad (optimizer_adamw_f32, optimizer_adagrad_f32).
for opt in adamw adagrad; do
	check "seed-$opt: 20 device steps" \
		train --model "$models/seed-$opt.json" --max-steps 20 --no-eval \
		--dump-losses "$work/seed-$opt-dev.txt"
	against_reference "seed-$opt" 20 "$work/seed-$opt-dev.txt"
done
# Keras's spellings: layers without a bias (Conv2D, Dense), Activation
# (relu, tanh, sigmoid), Softmax and MaxPooling2D, trained with Adam.
cat > "$work/keras.json" <<'EOF'
{ "name": "keras", "input_shape": [28, 28, 1],
  "layers": [ { "type": "Conv2D", "filters": 4, "kernel_size": 5, "use_bias": false },
              { "type": "Activation", "activation": "relu" },
              { "type": "MaxPooling2D", "pool_size": 2 },
              { "type": "Flatten" },
              { "type": "Dense", "units": 16, "activation": "tanh" },
              { "type": "Activation", "activation": "sigmoid" },
              { "type": "Softmax" },
              { "type": "Dense", "units": 10, "use_bias": false } ],
  "training": { "loss": "sparse_categorical_crossentropy", "from_logits": true,
                "optimizer": { "type": "adam", "learning_rate": 0.001 },
                "batch_size": 64, "seed": 3 } }
EOF
check "keras: 10 device steps (no biases, relu, tanh, sigmoid, softmax, MaxPooling2D, Adam)" \
	train --model "$work/keras.json" --max-steps 10 --no-eval --dump-losses "$work/keras-dev.txt"
check "keras: 10 reference steps" train_ref --model "$work/keras.json" --max-steps 10 \
	--no-eval --dump-losses "$work/keras-ref.txt"
check "keras: per-step loss equals the CPU reference within 1e-4 relative" \
	losses_agree "$work/keras-ref.txt" "$work/keras-dev.txt" 10
cat "$work/out"
# The other losses: mse (one-hot rows from equal_i32 on the device) through a
# softmax, and categorical_crossentropy on probabilities (from_logits false:
# the final softmax folded into the loss).
for loss in mse categorical_crossentropy; do
	cat > "$work/loss-$loss.json" <<EOF
{ "name": "loss-$loss", "input_shape": [28, 28, 1],
  "layers": [ { "type": "Flatten" }, { "type": "Dense", "units": 32, "activation": "relu" },
              { "type": "Dense", "units": 10, "activation": "softmax" } ],
  "training": { "loss": "$loss", "optimizer": { "type": "sgd", "learning_rate": 0.5 },
                "batch_size": 64, "seed": 5 } }
EOF
	check "loss-$loss: 10 device steps" train --model "$work/loss-$loss.json" --max-steps 10 \
		--no-eval --dump-losses "$work/loss-$loss-dev.txt"
	check "loss-$loss: 10 reference steps" train_ref --model "$work/loss-$loss.json" \
		--max-steps 10 --no-eval --dump-losses "$work/loss-$loss-ref.txt"
	check "loss-$loss: per-step loss equals the CPU reference within 1e-4 relative" \
		losses_agree "$work/loss-$loss-ref.txt" "$work/loss-$loss-dev.txt" 10
	cat "$work/out"
done
# The seed's CPU-fallback example (a Lambda layer after the Dense layer):
# with INT64 indices ArgMax stays on the HPU and only Equal falls back to
# the CPU; with INT32 ones everything stays on the HPU. The placement log
# comes once per recipe, under a header naming it.
for mdl in seed-fallback seed-fallback-i32; do
	check "$mdl: 20 device steps" \
		train --model "$models/$mdl.json" --max-steps 20 --no-eval \
		--dump-losses "$work/$mdl-dev.txt"
	against_reference "$mdl" 20 "$work/$mdl-dev.txt"
	HLRT_LOG_DEVICE_PLACEMENT=1 train --model "$models/$mdl.json" --max-steps 1 --no-eval \
		> "$work/$mdl-log.txt" 2>&1
	if [ "$mdl" = seed-fallback ]; then equal=CPU; else equal=HPU; fi
	check "$mdl: placement: ArgMax on the HPU, Equal on the $equal, one header per recipe" \
		sh -c "grep -qx 'model/lambda/ArgMax: (ArgMax): /device:HPU:0' '$work/$mdl-log.txt' &&
		       grep -qx 'model/lambda/Equal: (Equal): /device:$equal:0' '$work/$mdl-log.txt' &&
		       [ \$(grep -c '^placement of the train step (batch 128):\$' '$work/$mdl-log.txt') -eq 1 ] &&
		       [ \$(grep -cx 'model/lambda/ArgMax: (ArgMax): /device:HPU:0' '$work/$mdl-log.txt') -eq \
			 \$(grep -c '^placement of ' '$work/$mdl-log.txt') ]"
done

# 2. The checkpoint resumed goes on exactly as the uninterrupted run did.
check "seed: resumed after epoch 1 for 10 steps" \
	train --model "$models/seed.json" --epochs 2 --resume "$work/ck.safetensors" \
	--max-steps 479 --no-eval --dump-losses "$work/resumed.txt"
grep '^2 ' "$work/dev.txt" > "$work/dev-epoch2.txt"
grep '^2 ' "$work/resumed.txt" > "$work/resumed-epoch2.txt"
check "seed: the resumed run's 10 losses are the uninterrupted run's, bit for bit" \
	sh -c "[ \$(wc -l < '$work/resumed-epoch2.txt') -eq 10 ] &&
		cmp '$work/dev-epoch2.txt' '$work/resumed-epoch2.txt'"
# LAMB's moments and update count resume too: epochs of 10 steps (batch 6000).
lamb() { train --model "$models/seed-lamb.json" --batch 6000 --no-eval "$@"; }
check "seed-lamb: 2 epochs of 10 steps" lamb --epochs 2 --dump-losses "$work/lamb-full.txt"
check "seed-lamb: 1 epoch, checkpoint" lamb --epochs 1 --save "$work/lamb.safetensors"
check "seed-lamb: resumed for epoch 2" \
	lamb --epochs 2 --resume "$work/lamb.safetensors" --dump-losses "$work/lamb-resumed.txt"
grep '^2 ' "$work/lamb-full.txt" > "$work/lamb-full2.txt"
grep '^2 ' "$work/lamb-resumed.txt" > "$work/lamb-resumed2.txt"
check "seed-lamb: the resumed epoch's 10 losses are the uninterrupted run's, bit for bit" \
	sh -c "[ \$(wc -l < '$work/lamb-resumed2.txt') -eq 10 ] &&
		cmp '$work/lamb-full2.txt' '$work/lamb-resumed2.txt'"

# 2b. Eager (one submission per node) gives the lazy run's losses, bit for
# bit: --eager on the MLP, HLRT_LAZY_MODE=0 on the seed model.
check "mlp: 5 eager steps (--eager)" \
	train --model "$models/mlp.json" --max-steps 5 --no-eval --eager \
	--dump-losses "$work/mlp-eager.txt"
grep -v '^#' "$work/mlp-dev.txt" | head -n 5 > "$work/mlp-lazy5.txt"
grep -v '^#' "$work/mlp-eager.txt" > "$work/mlp-eager5.txt"
check "mlp: the eager run's 5 losses are the lazy run's, bit for bit" \
	sh -c "[ \$(wc -l < '$work/mlp-eager5.txt') -eq 5 ] &&
		cmp '$work/mlp-lazy5.txt' '$work/mlp-eager5.txt'"
check "seed: 5 eager steps (HLRT_LAZY_MODE=0)" \
	env HLRT_LAZY_MODE=0 hl-train --data-dir "$data" --model "$models/seed.json" \
	--max-steps 5 --no-eval --dump-losses "$work/seed-eager.txt"
grep -v '^#' "$work/dev.txt" | head -n 5 > "$work/seed-lazy5.txt"
grep -v '^#' "$work/seed-eager.txt" > "$work/seed-eager5.txt"
check "seed: the HLRT_LAZY_MODE=0 run's 5 losses are the lazy run's, bit for bit" \
	sh -c "[ \$(wc -l < '$work/seed-eager5.txt') -eq 5 ] &&
		cmp '$work/seed-lazy5.txt' '$work/seed-eager5.txt'"

# 3. Bad input: a clear error, a non-zero exit, and the device still works.
printf '{\n  "name": "broken",\n  "layers": [,]\n}\n' > "$work/broken.json"
expect_error "bad model file" "broken.json:3:14:" train --model "$work/broken.json"
mkdir -p "$work/bad/mnist"
for f in "$data"/mnist/*-ubyte; do ln -s "$f" "$work/bad/mnist/"; done
rm "$work/bad/mnist/train-images-idx3-ubyte"
head -c 1000000 "$data/mnist/train-images-idx3-ubyte" > "$work/bad/mnist/train-images-idx3-ubyte"
expect_error "truncated data file" "truncated file" \
	hl-train --data-dir "$work/bad" --model "$models/seed.json"
# Three 65536-wide hidden layers: about 48 GiB of weights.
cat > "$work/huge.json" <<-EOF
	{ "name": "huge", "input_shape": [28, 28],
	  "layers": [ { "type": "Flatten" },
	    { "type": "Dense", "units": 65536 }, { "type": "Dense", "units": 65536 },
	    { "type": "Dense", "units": 65536 }, { "type": "Dense", "units": 65536 },
	    { "type": "Dense", "units": 10 } ],
	  "training": { "loss": "sparse_categorical_crossentropy", "from_logits": true,
	    "optimizer": { "type": "sgd" } } }
EOF
expect_error "model too large for HBM" "does not fit in device memory" \
	train --model "$work/huge.json"
expect_error "bad flag value" "--epochs: '0' is not an integer" \
	train --model "$models/seed.json" --epochs 0
check "device free and training after the failures" device_trains

# The profile of a run: Chrome trace JSON with events on every engine kind.
check "profile: written by --profile" \
	train --model "$models/seed.json" --max-steps 20 --no-eval --profile "$work/prof.json"
check "profile: parses, with events on the MME, TPC and DMA lanes" \
	hl-prof-summary --require MME --require TPC --require DMA "$work/prof.json"
# One clock: the first launch's engine work starts after the first host
# API call began, not before it on a clock of its own.
hl-prof-summary --require launch "$work/prof.json" > "$work/summary" 2>&1
check "profile: one clock for the host and device lanes, launches on their own lane" \
	awk '/^host API / { h = $(NF - 2) } /^launch \(engines\) / { l = $(NF - 2) }
		/^DMA 0 \(PCI\) / { d = $NF + 0 }
		END { print "host API from", h, "ms, launches from", l, "ms, PCI DMA busy", d "%"
		      exit !(h != "" && l != "" && l + 0.001 >= h + 0 && d < 50) }' "$work/summary"
expect_error "hl-prof-summary on a missing file" "no-such.json: No such file" \
	hl-prof-summary "$work/no-such.json"

# Ctrl-C once epoch 2 has begun: exit status 130, the device released,
# the checkpoint of the last whole epoch intact.
# (hl-train itself in the background, not a subshell running it; more
# epochs than it can train before the once-a-second poll sees epoch 2:
# a seed epoch takes about 0.3 s)
hl-train --data-dir "$data" --model "$models/seed.json" --no-eval --epochs 1000 \
	--save "$work/int.safetensors" > "$work/int.txt" 2>&1 &
job=$!
waited=0
while ! grep -q '^Epoch 2/' "$work/int.txt" && kill -0 "$job" 2>/dev/null &&
	[ "$waited" -lt 300 ]; do
	sleep 1
	waited=$((waited + 1))
done
kill -INT "$job" 2>/dev/null
wait "$job"
rc=$?
check "SIGINT: exit status 130" test "$rc" -eq 130
check "SIGINT: says where it stopped" \
	grep -Eq 'interrupted in epoch ([2-9]|[1-9][0-9]+) after' "$work/int.txt"
check "SIGINT: no process left on the device" \
	sh -c 'hl-smi | grep -q "No running processes found"'
# (--max-steps 1: load it and stop at once)
check "SIGINT: the last whole epoch's checkpoint loads" \
	sh -c "hl-train --data-dir '$data' --model '$models/seed.json' --epochs 1000 --resume \
	'$work/int.safetensors' --max-steps 1 --no-eval | grep -Eq 'resumed from .* after epoch [1-9][0-9]*$'"
check "SIGINT: no temporary checkpoint left" \
	sh -c "! ls '$work'/int.safetensors.tmp.* 2>/dev/null"

# 4. Accuracy after each model's full recipe.
full_run() { # name data lo hi model-file [flag...]
	name=$1 dset=$2 lo=$3 hi=$4 model=$5
	shift 5
	start=$(date +%s)
	train --model "$model" --data "$dset" "$@" > "$work/$name.txt" 2>&1
	rc=$?
	cat "$work/$name.txt"
	echo "$name: full recipe in $(($(date +%s) - start)) s (guest wall time)"
	check "$name: trains on the device" test "$rc" -eq 0
	check "$name: test accuracy in [$lo, $hi]" accuracy_in "$work/$name.txt" "$lo" "$hi"
	cat "$work/out"
}
if [ "${GSIM_TRAIN_QUICK:-0}" != 1 ]; then
	full_run seed mnist 0.87 0.91 "$models/seed.json"
	# the fallback example trains to the seed's band
	full_run seed-fallback mnist 0.87 0.91 "$models/seed-fallback.json"
	full_run mlp mnist 0.90 1.0 "$models/mlp.json"
	# The CNN (convolutions on the MME): its 3-epoch recipe reaches 0.98.
	full_run lenet mnist 0.98 1.0 "$models/lenet.json"
	full_run seed-fashion fashion-mnist 0.77 0.81 "$models/seed.json"
	# BF16 mixed precision lands within 0.01 of the FP32 accuracy.
	fp32=$(awk '/test accuracy:/ { a = $NF } END { print a }' "$work/seed.txt")
	full_run seed-bf16 mnist "$(echo "$fp32" | awk '{ print $1 - 0.01 }')" \
		"$(echo "$fp32" | awk '{ print $1 + 0.01 }')" "$models/seed.json" --bf16
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
