#!/bin/sh
# hl-trials in the guest (four or more devices): four trials of the seed
# model on four cards at once finish, each on its own card, and the best
# configuration is the one with the highest accuracy; a trial whose trainer
# crashes is reported and the others finish; trials in turn with falling
# learning rates are stopped at the first rung by ASHA (deterministic in
# sequence); by default no more trials run at once than the CPUs hold (one
# CPU a trial), the others queue and the output says so; bad usage fails
# with a clear message. Prints "N passed, N failed".
#   GSIM_TRAIN_DATA   data root (default /mnt/host/data)
#   GSIM_TRAIN_MODELS model folder (default /usr/share/gaudisim/models)
. "$(dirname "$0")/gsim-train-prelude.sh" trials 4
trials() { hl-trials --model "$models/seed.json" --data-dir "$data" "$@"; }
# The table's rows: "trial module lr batch seed state epochs loss accuracy ..."
rows() { awk '$1 == "trial" && $2 == "module" { t = 1; next } t && NF == 0 { t = 0 } t' "$work/out"; }

# 1. Four learning rates on cards 0-3 at once.
if trials --epochs 3 --lr 0.0003,0.003,0.03,0.3 --modules 0-3 --parallel 4 --log-dir "$work/logs" \
	> "$work/out" 2>&1; then
	pass "4 trials on 4 cards: $(grep '^4 trials in' "$work/out")"
else
	fail "4 trials on 4 cards (exit status $?)"
	show
fi
if [ "$(rows | awk '{ print $2 }' | sort -u | tr '\n' ' ')" = "0 1 2 3 " ]; then
	pass "each trial ran on a card of its own"
else
	fail "the trials' cards are not 0, 1, 2, 3"
	show
fi
# All four started before any ended: they ran at the same time.
if awk '/: started on/ { s++ } /: (done|stopped|failed|crashed)/ { if (s < 4) bad = 1 }
	END { exit bad || s != 4 }' "$work/out"; then
	pass "the four trials ran at once"
else
	fail "a trial ended before all four had started"
	show
fi
best_acc=$(rows | awk '$6 == "done" && $9 > m { m = $9; lr = $3 } END { print lr }')
if grep -q "^best: trial 3: lr=0.3 accuracy" "$work/out" && [ "$best_acc" = 0.3 ]; then
	pass "best: $(grep '^best:' "$work/out")"
else
	fail "the best is not lr 0.3, the most accurate (table says $best_acc)"
	show
fi
if [ "$(ls "$work/logs" | wc -l)" -eq 4 ] && grep -q "^Epoch 1/3" "$work/logs/trial-3.log"; then
	pass "a log per trial"
else
	fail "the per-trial logs are missing"
fi

# 2. A trainer that crashes for one configuration.
cat > "$work/crashy" <<'CRASHY'
#!/bin/sh
case " $* " in *" --lr 0.05 "*) echo "Epoch 1/2"; kill -SEGV $$ ;; esac
exec hl-train "$@"
CRASHY
chmod +x "$work/crashy"
if trials --trainer "$work/crashy" --epochs 2 --lr 0.1,0.05,0.2,0.01 --modules 0-3 --parallel 4 \
	--no-eval \
	> "$work/out" 2>&1 &&
	rows | awk '$3 == "0.05" && $6 == "crashed" { c++ } $6 == "done" { d++ }
		END { exit !(c == 1 && d >= 1) }' &&
	grep -q "^trial 1: crashed (signal 11" "$work/out" &&
	grep -q "^best: trial 2: lr=0.2" "$work/out"; then
	pass "a crashing trial is reported, the others go on: $(grep '^trial 1: crashed' "$work/out")"
else
	fail "the crashing trial"
	show
fi

# 3. In turn, falling learning rates: every later trial is below the first's rung.
if trials --epochs 2 --grace 1 --eta 2 --parallel 1 --lr 0.3,0.03,0.003 --modules 0-3 \
	--no-eval > "$work/out" 2>&1 &&
	[ "$(rows | awk '$6 == "stopped" && $7 <= 2 { n++ } END { print n + 0 }')" = 2 ] &&
	rows | awk 'NR == 1 { exit $6 != "done" }'; then
	pass "ASHA stops the two trials below the rung's cutoff"
else
	fail "ASHA in sequence"
	show
fi

# 4. The default on this machine: as many at once as its CPUs hold (one a
#    trial, at least one), the others queue, and the output says so. A
#    stand-in trainer that ends at once (no epoch, so no best configuration
#    and exit status 1): only the scheduling is looked at.
cat > "$work/quick" <<'QUICK'
#!/bin/sh
echo "Epoch 1/1"
QUICK
chmod +x "$work/quick"
cpus=$(nproc 2>/dev/null || grep -c "^processor" /proc/cpuinfo)
fit=$cpus
[ "$fit" -ge 1 ] || fit=1
[ "$fit" -le 4 ] || fit=4
trials --trainer "$work/quick" --epochs 1 --lr 0.1,0.2,0.3,0.4 --modules 0-3 --no-asha \
	--no-eval > "$work/out" 2>&1
if grep -q "^hl-trials: 4 trials of .*, $fit at once on 4 cards" "$work/out" &&
	{ [ "$fit" -eq 4 ] || grep -q "^hl-trials: 4 cards but $cpus CPUs: $fit trials* at once, the others queue" "$work/out"; } &&
	awk -v fit="$fit" '/: started on/ { s++; if (s - e > fit) bad = 1 }
		/: (done|stopped|failed|crashed)/ { e++ } END { exit bad || s != 4 }' "$work/out"; then
	pass "$cpus CPUs: $fit at once by default, the others queue"
else
	fail "the default trials at once on $cpus CPUs (expected $fit)"
	show
fi
# Asking for more at once than that runs them, with a note.
[ "$fit" -ge 4 ] ||
	trials --trainer "$work/quick" --epochs 1 --lr 0.1,0.2,0.3,0.4 --modules 0-3 --no-asha \
		--no-eval --parallel 4 > "$work/out" 2>&1
if [ "$fit" -lt 4 ] &&
	grep -q "^hl-trials: 4 trials at once on $cpus CPUs: they share the CPUs" "$work/out" &&
	grep -q "^hl-trials: 4 trials of .*, 4 at once on 4 cards" "$work/out"; then
	pass "--parallel 4 on $cpus CPUs runs 4 at once and says they share the CPUs"
elif [ "$fit" -lt 4 ]; then
	fail "--parallel 4 on $cpus CPUs"
	show
fi

# 5. Bad usage.
expect_usage() { # desc pattern args...
	desc=$1
	pattern=$2
	shift 2
	hl-trials "$@" > "$work/out" 2>&1
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "$pattern" "$work/out"; then
		pass "$desc: $(grep -- "$pattern" "$work/out" | head -n 1)"
	else
		fail "$desc (exit status $rc)"
		show
	fi
}
expect_usage "a card given twice" "given twice" --model "$models/seed.json" --epochs 1 --modules 0,0
expect_usage "no model" "required" --epochs 1
expect_usage "a bad learning rate" "lr: 'x'" --model "$models/seed.json" --epochs 1 --lr 0.1,x
expect_usage "a bad reduction factor" "--eta" --model "$models/seed.json" --epochs 1 --eta 1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
