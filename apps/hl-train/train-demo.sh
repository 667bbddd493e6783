#!/bin/sh
# The job `make run` runs in the guest: train the seed model for its 5
# epochs of MNIST on the device, show hl-smi part-way through (the job's
# PID and the HBM it holds), then the result; the profile of the run goes
# to the host share.
#   train-demo [MODEL]   a model name in /usr/share/gaudisim/models (default seed)
model=/usr/share/gaudisim/models/${1:-seed}.json
share=/mnt/host
profile=$share/hl-train-profile.json
log=$(mktemp "${TMPDIR:-/tmp}/train-demo.XXXXXX")
trap 'rm -f "$log"' EXIT

[ -w "$share" ] || profile=/tmp/hl-train-profile.json
hl-train --model "$model" --data mnist --data-dir "$share/data" --profile "$profile" \
	> "$log" 2>&1 &
job=$!
shown=0
while kill -0 "$job" 2>/dev/null; do
	# Show the device once the job is training (its second epoch).
	if [ "$shown" = 0 ] && grep -q '^Epoch 2/' "$log"; then
		cat "$log"
		shown=$(wc -l < "$log")
		echo "--- hl-smi while hl-train (PID $job) trains ---"
		hl-smi
		echo "---"
	fi
	sleep 1
done
wait "$job"
rc=$?
if [ "$shown" = 0 ]; then
	cat "$log"
else
	tail -n +"$((shown + 1))" "$log"
fi
# Where the steps' time went, from the profile.
if [ "$rc" = 0 ] && [ -s "$profile" ]; then
	hl-prof-summary "$profile" | sed -n '/^ops by time/,$p'
fi
exit "$rc"
