#!/bin/sh
# Telemetry follows the work, in the guest: while hl-train runs on device 0,
# hl-smi's utilization (share of the sample with work in flight) rises above
# 50 % on several samples, an engine class shows activity, the power drawn
# rises above idle and the die temperature (hl-smi and hwmon) climbs; after
# the run utilization is back near 0, the power at idle and the die cools.
# Prints "N passed, N failed".
#   GSIM_TRAIN_DATA   data root (default /mnt/host/data)
#   GSIM_TRAIN_MODELS model folder (default /usr/share/gaudisim/models)
models=${GSIM_TRAIN_MODELS:-/usr/share/gaudisim/models}
share_data=${GSIM_TRAIN_DATA:-/mnt/host/data}
work=$(mktemp -d "${TMPDIR:-/tmp}/gsim-busy.XXXXXX")
train_pid=
cleanup() {
	[ -n "$train_pid" ] && kill "$train_pid" 2>/dev/null && wait "$train_pid"
	rm -rf "$work"
}
trap cleanup EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
smi=${HL_SMI:-hl-smi}

data=$work/data
mkdir -p "$data/mnist"
if ! cp "$share_data/mnist"/*-ubyte "$data/mnist/"; then
	echo "FAIL: no mnist in $share_data/mnist (make data fetches it)"
	echo "0 passed, 1 failed"
	exit 1
fi
hwmon=$(ls -d /sys/class/accel/accel0/device/hwmon/hwmon* 2>/dev/null | head -n 1)

# One sample: "util power_W temp_C hwmon_mC hwmon_uW" (hl-smi samples for 100 ms).
sample() {
	line=$("$smi" -i 0 --query-aip=utilization.aip,power.draw,temperature.aip \
		--format=csv,noheader,nounits 2>&1)
	echo "$line" | tr -d ' ' | tr ',' ' ' | tr '\n' ' '
	if [ -n "$hwmon" ]; then
		echo "$(cat "$hwmon/temp1_input") $(cat "$hwmon/power1_input")"
	else
		echo "- -"
	fi
}

before=$(sample)
echo "idle: $before (util % / W / C / hwmon mC / hwmon uW)"
idle_temp=$(echo "$before" | awk '{ print $4 }')
idle_w=$(echo "$before" | awk '{ print $2 }')

# LeNet keeps MME and TPC busy; stopped with SIGINT once sampled.
hl-train --data-dir "$data" --model "$models/lenet.json" --epochs 3 \
	> "$work/train.out" 2>&1 &
train_pid=$!
# Past start-up (data load, compile): the first sample with work in flight.
i=0
while [ $i -lt 120 ] && [ "$(sample | awk '{ print ($1 > 0) }')" != 1 ]; do
	sleep 1
	i=$((i + 1))
done
: > "$work/busy"
i=0
while [ $i -lt 8 ]; do
	s=$(sample)
	echo "training: $s"
	echo "$s" >> "$work/busy"
	sleep 1
	i=$((i + 1))
done
classes=$("$smi" -i 0 -q -d UTILIZATION 2>&1)
kill -INT "$train_pid" 2>/dev/null
wait "$train_pid"
train_pid=

if [ "$(awk '$1 > 50' "$work/busy" | wc -l)" -ge 4 ]; then
	pass "utilization above 50 % on $(awk '$1 > 50' "$work/busy" | wc -l) of 8 samples"
else
	fail "utilization above 50 % on fewer than 4 of 8 samples"
	sed 's/^/  | /' "$work/train.out" | tail -n 5
fi
if echo "$classes" | grep -Eq "(MME|TPC) Util +: *([1-9][0-9]*) %"; then
	pass "an engine class active: $(echo "$classes" | grep -E "(MME|TPC) Util" | tr -s ' ' | tr '\n' ';')"
else
	fail "no MME or TPC activity in hl-smi -q -d UTILIZATION"
	echo "$classes" | sed 's/^/  | /'
fi
if awk -v idle="$idle_w" '$2 > idle + 10 { n++ } END { exit !(n >= 4) }' "$work/busy"; then
	pass "power above idle ($idle_w W) by 10 W on 4+ samples"
else
	fail "power stayed near idle ($idle_w W)"
fi
peak=$(awk 'BEGIN { m = 0 } $4 > m { m = $4 } END { print m }' "$work/busy")
if [ "$peak" -gt $((idle_temp + 1000)) ]; then
	pass "hwmon die temperature climbed from $idle_temp to $peak mC"
else
	fail "hwmon die temperature did not climb ($idle_temp -> $peak mC)"
fi
hot=$(awk 'BEGIN { m = 0 } $3 > m { m = $3 } END { print m }' "$work/busy")
cold=$(echo "$before" | awk '{ print $3 }')
if [ "$hot" -gt "$cold" ]; then
	pass "hl-smi temperature climbed from $cold to $hot C"
else
	fail "hl-smi temperature did not climb ($cold -> $hot C)"
fi

# After the run: idle again within a few seconds, and cooling.
sleep 3
: > "$work/after"
i=0
while [ $i -lt 3 ]; do
	s=$(sample)
	echo "after: $s"
	echo "$s" >> "$work/after"
	sleep 1
	i=$((i + 1))
done
if awk '$1 > 5 { bad++ } END { exit bad > 0 }' "$work/after"; then
	pass "utilization back at or below 5 % after the run"
else
	fail "utilization still above 5 % after the run"
fi
if awk -v idle="$idle_w" '$2 > idle + 2 { bad++ } END { exit bad > 0 }' "$work/after"; then
	pass "power back at idle ($idle_w W) after the run"
else
	fail "power above idle after the run"
fi
last=$(tail -n 1 "$work/after" | awk '{ print $4 }')
if [ "$last" -lt "$peak" ]; then
	pass "die cooling after the run: $peak -> $last mC"
else
	fail "die not cooling after the run ($peak -> $last mC)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
