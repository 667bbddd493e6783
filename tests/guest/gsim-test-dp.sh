#!/bin/sh
# Data-parallel hl-train in the guest (two or more devices): the seed model
# at global batch 256 on `--devices 2` gives the per-step losses of one
# device at batch 256 within 1e-4 relative (and its correct counts within
# 1), also when the batch splits
# unequally (255: 127 + 128 samples) and with LAMB; rank 0 alone prints the
# report; two ranks started by hand with HLRT_RANK/HLRT_NRANKS/HLRT_COMM_ID
# (as an external launcher would) give the same losses; --profile writes a
# profile per rank, of its own module, with its collectives lane; Dropout
# and BatchNormalization are refused with a message; a rank that fails
# fails the run with a message naming it; a bad --devices value fails with
# a clear message. Prints "N passed, N failed".
#   GSIM_TRAIN_DATA   data root (default /mnt/host/data)
#   GSIM_TRAIN_MODELS model folder (default /usr/share/gaudisim/models)
. "$(dirname "$0")/gsim-train-prelude.sh" dp 2
# train NAME MODEL ARGS...: a short run, its losses in $work/NAME.losses.
train() {
	name=$1 model=$2
	shift 2
	hl-train --model "$models/$model.json" --data-dir "$data" --no-eval \
		--dump-losses "$work/$name.losses" "$@" > "$work/out" 2>&1
}
# same A B STEPS: both files hold STEPS steps, with the same sample counts,
# losses within 1e-4 relative and correct counts within 1 (the ranks' counts
# travel in the gradients' all-reduce; within 1: a near tie of two logits may
# go the other way on a slice).
same() {
	awk -v steps="$3" '
		FNR == 1 { next }
		NR == FNR { loss[$2] = $3; hit[$2] = $4; count[$2] = $5; n++; next }
		{
			m++
			d = $3 - loss[$2]; if (d < 0) d = -d
			r = d / (loss[$2] < 0 ? -loss[$2] : loss[$2])
			h = $4 - hit[$2]; if (h < 0) h = -h
			if (!($2 in loss) || $5 != count[$2] || r > 1e-4 || h > 1) {
				printf "  step %s: loss %s correct %s count %s vs %s %s %s\n", $2,
					$3, $4, $5, loss[$2], hit[$2], count[$2]
				bad = 1
			}
			if (r > worst) worst = r
		}
		END {
			if (n != steps || m != steps) {
				printf "  %d and %d steps, %d expected\n", n, m, steps
				bad = 1
			}
			printf "  worst relative difference %.3g\n", worst
			exit bad
		}' "$work/$1.losses" "$work/$2.losses"
}
# check DESC A B STEPS: one device's run A against the data-parallel run B.
check() {
	if same "$2" "$3" "$4" > "$work/cmp"; then
		pass "$1: $(tail -n 1 "$work/cmp" | sed 's/^  //')"
	else
		fail "$1"
		sed 's/^/  | /' "$work/cmp"
	fi
}

# 1. Two devices against one at global batch 256.
if train one seed --batch 256 --max-steps 12; then :; else
	fail "one device, batch 256 (exit status $?)"
	show
fi
if train dp seed --batch 256 --max-steps 12 --devices 2; then
	if grep -q "on 2 HPUs, batch 256" "$work/out" &&
	   [ "$(grep -c '^model seed' "$work/out")" -eq 1 ] &&
	   [ "$(grep -c '^data parallel: 2 ranks, .* (ring)$' "$work/out")" -eq 1 ] &&
	   grep -q "samples/s" "$work/out"; then
		pass "--devices 2: one report, rank 0's: $(grep 'samples/s' "$work/out")"
	else
		fail "--devices 2: the report is not rank 0's alone"
		show
	fi
else
	fail "--devices 2, batch 256 (exit status $?)"
	show
fi
check "2 devices = 1 device, seed, batch 256, 12 steps" one dp 12

# 2. A batch that splits unequally: each rank's loss weighs its share.
train one255 seed --batch 255 --max-steps 6 || { fail "one device, batch 255"; show; }
train dp255 seed --batch 255 --max-steps 6 --devices 2 || { fail "--devices 2, batch 255"; show; }
check "2 devices = 1 device, batch 255 (127 + 128)" one255 dp255 6

# 2b. A whole epoch at batch 4096: 14 batches and the last one of 2656
# (1328 a rank); rank 0 alone evaluates.
hl-train --model "$models/seed.json" --data-dir "$data" --epochs 1 --batch 4096 \
	--dump-losses "$work/epoch.losses" > "$work/out" 2>&1 || { fail "one device, an epoch"; show; }
grep '^test loss' "$work/out" > "$work/epoch.eval"
hl-train --model "$models/seed.json" --data-dir "$data" --epochs 1 --batch 4096 --devices 2 \
	--dump-losses "$work/dpepoch.losses" > "$work/out" 2>&1 || { fail "--devices 2, an epoch"; show; }
check "2 devices = 1 device, an epoch at batch 4096 (last batch 2656)" epoch dpepoch 15
grep '^test loss' "$work/out" > "$work/dpepoch.eval"
# one line each; the printed test losses within 1e-3 relative
if [ "$(wc -l < "$work/dpepoch.eval")" -eq 1 ] && [ "$(wc -l < "$work/epoch.eval")" -eq 1 ] &&
   awk 'NR == FNR { l = $3; next }
	{ d = $3 - l; if (d < 0) d = -d; exit !(d <= 1e-3 * l) }' \
	"$work/epoch.eval" "$work/dpepoch.eval"; then
	pass "one evaluation, rank 0's, as one device's: $(grep '^test loss' "$work/out")"
else
	fail "the evaluation after a data-parallel epoch"
	show
fi

# 3. LAMB: the optimizer's state and update count on the summed gradients.
train lamb seed-lamb --batch 256 --max-steps 6 || { fail "one device, LAMB"; show; }
train dplamb seed-lamb --batch 256 --max-steps 6 --devices 2 || { fail "--devices 2, LAMB"; show; }
check "2 devices = 1 device, LAMB, batch 256" lamb dplamb 6

# 4. Two ranks started by hand, as an external launcher (mpirun) would.
id="hlrt1:0123456789abcdef:$work/rendezvous"
HABANA_VISIBLE_MODULES=1 HLRT_RANK=1 HLRT_NRANKS=2 HLRT_COMM_ID=$id \
	hl-train --model "$models/seed.json" --data-dir "$data" --no-eval --batch 256 \
	--max-steps 6 --dump-losses "$work/rank1.losses" > "$work/rank1.out" 2>&1 &
rank1=$!
(
	export HABANA_VISIBLE_MODULES=0 HLRT_RANK=0 HLRT_NRANKS=2 HLRT_COMM_ID="$id"
	train ext seed --batch 256 --max-steps 6
)
st0=$?
wait "$rank1"
st1=$?
if [ "$st0" -eq 0 ] && [ "$st1" -eq 0 ] && [ ! -s "$work/rank1.out" ] &&
   [ ! -e "$work/rank1.losses" ]; then
	pass "ranks from an external launcher: rank 1 quiet, rank 0 reports"
else
	fail "ranks from an external launcher (status $st0 and $st1)"
	show
	sed 's/^/  1| /' "$work/rank1.out"
fi
head -n 7 "$work/one.losses" > "$work/one6.losses"
check "external launcher = 1 device, 6 steps" one6 ext 6

# 4b. --profile: every rank profiles its own device, rank R into FILE.rankR.
if train prof seed --batch 256 --max-steps 4 --devices 2 --profile "$work/dp.json" &&
   grep -q "profile: $work/dp.json (ranks 1..1: $work/dp.json.rankR)" "$work/out" &&
   hl-prof-summary --require MME --require launch --require Collectives "$work/dp.json" \
	> "$work/out" 2>&1 &&
   hl-prof-summary --require MME --require launch --require Collectives "$work/dp.json.rank1" \
	> "$work/out" 2>&1 &&
   grep -q '"device (module 0)"' "$work/dp.json" &&
   grep -q '"device (module 1)"' "$work/dp.json.rank1"; then
	pass "--profile with 2 devices: a profile per rank, each of its own module and its collectives lane"
else
	fail "--profile with 2 devices"
	show
fi

# 5. A failing rank (no Fashion-MNIST here) fails the run, by name.
if train bad seed --batch 256 --max-steps 4 --devices 2 --data fashion-mnist; then
	fail "a failing rank: the run succeeded"
	show
elif grep -q "rank [01] failed" "$work/out"; then
	pass "a failing rank: $(grep 'rank [01] failed' "$work/out" | head -n 1)"
else
	fail "a failing rank: no message naming it"
	show
fi

# 6. Bad --devices values and environments.
bad() {
	desc=$1 want=$2
	shift 2
	if "$@" > "$work/out" 2>&1; then
		fail "$desc: exit status 0"
		show
	elif grep -q -- "$want" "$work/out"; then
		pass "$desc: $(grep -- "$want" "$work/out" | head -n 1)"
	else
		fail "$desc: no '$want' message"
		show
	fi
}
seed="--model $models/seed.json --data-dir $data --max-steps 1 --no-eval"
# shellcheck disable=SC2086
bad "--devices $((ndev + 1))" "only $ndev devices are visible" \
	hl-train $seed --devices $((ndev + 1))
# shellcheck disable=SC2086
bad "--devices 0" "--devices: '0' is not an integer" hl-train $seed --devices 0
# shellcheck disable=SC2086
bad "--devices two" "--devices: 'two' is not an integer" hl-train $seed --devices two
# shellcheck disable=SC2086
bad "--batch 1 --devices 2" "smaller than --devices 2" hl-train $seed --batch 1 --devices 2
# shellcheck disable=SC2086
bad "--devices with a module mask" "does not take HABANA_VISIBLE_MODULES" \
	env HABANA_VISIBLE_MODULES=1 hl-train $seed --devices 2
# shellcheck disable=SC2086
bad "HLRT_RANK without HLRT_COMM_ID" "HLRT_COMM_ID is not" \
	env HLRT_RANK=0 HLRT_NRANKS=2 hl-train $seed
# shellcheck disable=SC2086
bad "--devices 2 in a 3-rank job" "HLRT_NRANKS is 3" \
	env HLRT_RANK=0 HLRT_NRANKS=3 HLRT_COMM_ID="$id" hl-train $seed --devices 2
# shellcheck disable=SC2086
bad "hl-train-ref --devices 2" "need the device" hl-train-ref $seed --devices 2
cat > "$work/dropout.json" <<'JSON'
{ "input_shape": [28, 28],
  "layers": [ { "type": "Flatten" }, { "type": "Dropout", "rate": 0.2 },
              { "type": "Dense", "units": 10 } ],
  "training": { "loss": "sparse_categorical_crossentropy", "from_logits": true,
                "optimizer": { "type": "sgd" }, "batch_size": 64 } }
JSON
bad "Dropout with --devices 2" "does not support Dropout or BatchNormalization" \
	hl-train --model "$work/dropout.json" --data-dir "$data" --max-steps 1 --no-eval --devices 2
# After all that, the devices are free: one device trains again.
if train again seed --batch 256 --max-steps 2; then
	pass "the devices are free afterwards"
else
	fail "one device after the failures (exit status $?)"
	show
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
