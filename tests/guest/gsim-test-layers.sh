#!/bin/sh
# hl-train's layers with a training and an inference mode (Dropout,
# BatchNormalization) and the convolution and pooling geometries beyond
# the plain ones ("same" padding for any kernel and stride, overlapping
# pool windows), on the device
# against the CPU reference trainer (hl-train-ref): per-step losses within
# 1e-4 relative, the test loss and accuracy after training (inference
# mode: Dropout off, BatchNormalization on its moving statistics) within
# 1e-3 relative; a second device run and an eager one give the same
# losses bit for bit (Dropout's masks are a counter-based hash, not a
# random stream); BF16 stays within 2% of FP32 (the first steps, and the
# mean loss of the last ten).
# Prints "N passed, N failed".
#   GSIM_TRAIN_DATA   data root (default /mnt/host/data)
share_data=${GSIM_TRAIN_DATA:-/mnt/host/data}
work=$(mktemp -d "${TMPDIR:-/tmp}/gsim-layers.XXXXXX")
trap 'rm -rf "$work"' EXIT
data=$work/data
mkdir -p "$data/mnist"
if ! cp "$share_data/mnist"/*-ubyte "$data/mnist/"; then
	echo "FAIL: no mnist in $share_data/mnist (make data fetches it)"
	echo "0 passed, 1 failed"
	exit 1
fi
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
check() {
	desc=$1
	shift
	if "$@" > "$work/out" 2>&1; then pass "$desc"; else fail "$desc"; sed 's/^/  | /' "$work/out"; fi
}
train() { hl-train --data-dir "$data" "$@"; }
train_ref() { hl-train-ref --data-dir "$data" "$@"; }
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
# The "test loss: X - test accuracy: Y" lines of two runs within 1e-3 relative.
eval_agrees() { # ref-output dev-output
	awk '
		/test loss:/ { for (i = 1; i < NF; i++) { if ($i == "loss:") l[FNR == NR] = $(i + 1)
			       if ($i == "accuracy:") a[FNR == NR] = $(i + 1) } }
		END {
			printf "test loss %s (device) %s (reference), accuracy %s %s\n", l[0], l[1], a[0], a[1]
			d = l[0] - l[1]; if (d < 0) d = -d
			e = a[0] - a[1]; if (e < 0) e = -e
			exit !(l[1] > 0 && d <= 1e-3 * l[1] + 1e-4 && e <= 2e-3)
		}' "$1" "$2"
}
# against NAME STEPS: device and reference, per step and after (evaluation).
against() {
	check "$1: $2 device steps" train --model "$work/$1.json" --max-steps "$2" \
		--dump-losses "$work/$1-dev.txt"
	cp "$work/out" "$work/$1-dev.out"
	check "$1: $2 reference steps" train_ref --model "$work/$1.json" --max-steps "$2" \
		--dump-losses "$work/$1-ref.txt"
	cp "$work/out" "$work/$1-ref.out"
	check "$1: per-step loss equals the CPU reference within 1e-4 relative" \
		losses_agree "$work/$1-ref.txt" "$work/$1-dev.txt" "$2"
	cat "$work/out"
	check "$1: the evaluation (inference mode) equals the reference's" \
		eval_agrees "$work/$1-ref.out" "$work/$1-dev.out"
	cat "$work/out"
}

# Dropout and BatchNormalization after a convolution (NHWC, per channel)
# and after a Dense layer (without beta), SGD with momentum.
cat > "$work/bn-dropout.json" <<'JSON'
{ "name": "bn-dropout", "input_shape": [28, 28, 1],
  "layers": [ { "type": "Conv2D", "filters": 4, "kernel_size": 3, "use_bias": false },
              { "type": "BatchNormalization" },
              { "type": "Activation", "activation": "relu" },
              { "type": "MaxPooling2D", "pool_size": 2 },
              { "type": "Flatten" },
              { "type": "Dense", "units": 32 },
              { "type": "BatchNormalization", "momentum": 0.9, "center": false },
              { "type": "ReLU" },
              { "type": "Dropout", "rate": 0.25, "seed": 7 },
              { "type": "Dense", "units": 10 } ],
  "training": { "loss": "sparse_categorical_crossentropy", "from_logits": true,
                "optimizer": { "type": "sgd", "learning_rate": 0.05, "momentum": 0.9 },
                "batch_size": 64, "seed": 3 } }
JSON
against bn-dropout 20
check "bn-dropout: a second device run repeats the losses bit for bit" \
	sh -c "hl-train --data-dir '$data' --model '$work/bn-dropout.json' --max-steps 20 --no-eval \
		--dump-losses '$work/bn-dropout-again.txt' && cmp '$work/bn-dropout-dev.txt' '$work/bn-dropout-again.txt'"
check "bn-dropout: eager (one submission per node) repeats the lazy losses bit for bit" \
	sh -c "hl-train --data-dir '$data' --model '$work/bn-dropout.json' --max-steps 20 --no-eval \
		--eager --dump-losses '$work/bn-dropout-eager.txt' && cmp '$work/bn-dropout-dev.txt' '$work/bn-dropout-eager.txt'"
# BF16: the rounding shows in each of the first steps' losses (within 2%);
# after them the two runs' trajectories part, as any two differently
# rounded runs of SGD with momentum do (single steps later differ by up to
# 4%), so what must agree is where training goes: the mean loss of the
# last ten steps within 2%.
check "bn-dropout: BF16 (GEMM and convolution inputs) within 2% of FP32: steps 1-5, and the mean of steps 11-20" \
	sh -c "hl-train --data-dir '$data' --model '$work/bn-dropout.json' --max-steps 20 --no-eval \
		--bf16 --dump-losses '$work/bn-dropout-bf16.txt' &&
	       awk 'NR == FNR { if (\$1 !~ /^#/) a[\$2] = \$3; next }
		    \$1 !~ /^#/ { n++
			if (\$2 <= 5) { d = \$3 - a[\$2]; if (d < 0) d = -d; if (d > 0.02 * a[\$2]) bad++ }
			if (\$2 > 10) { s16 += \$3; s32 += a[\$2] } }
		    END { d = s16 - s32; if (d < 0) d = -d
			  exit !(n == 20 && !bad && s32 > 0 && d <= 0.02 * s32) }' \
		    '$work/bn-dropout-dev.txt' '$work/bn-dropout-bf16.txt'"

# "same" padding with odd totals (the extra row and column after: pad2d,
# then a "valid" convolution or pool), stride 2, an even kernel, and max
# pooling windows that overlap (3x3 stride 2 "same", 3x3 stride 1), Adam.
cat > "$work/same-overlap.json" <<'JSON'
{ "name": "same-overlap", "input_shape": [28, 28, 1],
  "layers": [ { "type": "Conv2D", "filters": 4, "kernel_size": 3, "strides": 2,
                "padding": "same", "activation": "relu" },
              { "type": "MaxPooling2D", "pool_size": 3, "strides": 2, "padding": "same" },
              { "type": "Conv2D", "filters": 8, "kernel_size": 2, "padding": "same",
                "activation": "relu" },
              { "type": "MaxPooling2D", "pool_size": 3, "strides": 1 },
              { "type": "Flatten" },
              { "type": "Dense", "units": 10 } ],
  "training": { "loss": "sparse_categorical_crossentropy", "from_logits": true,
                "optimizer": { "type": "adam", "learning_rate": 0.002 },
                "batch_size": 64, "seed": 4 } }
JSON
against same-overlap 20

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
