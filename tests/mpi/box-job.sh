#!/bin/sh
# One box's part of the two-box job, run in its guest: wait until the
# scale-out cable is up on every card (hl-smi topo -c: 3 scale-out links
# per card; the rows, not the header, start with AIPn), keep the box's link matrix in the job folder, wait for the
# other box to get there too, then run ranks 8*BOX..8*BOX+7 of a 16-rank
# job checking all-reduce, all-gather and broadcast (coll-bench -c; its
# lines in coll.BOX), and wait for the other box to finish too, so the
# cable stays up while it needs it.
#   box-job.sh BOX COMM_ID    (BOX 0 or 1; the job folder is this
#                              script's folder; COMM_ID hlrt1:<nonce>:<dir>)
box=$1
comm_id=$2
here=$(cd "$(dirname "$0")" && pwd)
other=$((1 - box))
# Waits for the other box's FILE, at most $2 half-seconds.
wait_other() {
	i=0
	until [ -e "$here/$1.$other" ]; do
		i=$((i + 1))
		if [ "$i" -ge "$2" ]; then
			echo "box $box: box $other never reported $1"
			return 1
		fi
		sleep 0.5
	done
}
all_up() {
	hl-smi topo -c > "$here/topo.$box.tmp" 2>&1 &&
		awk '$1 ~ /^AIP[0-9]/ && $2 !~ /^AIP/ { n++; if ($NF != "3") bad = 1 }
			END { exit bad || n != 8 }' \
			"$here/topo.$box.tmp"
}
i=0
until all_up; do
	i=$((i + 1))
	if [ "$i" -ge 120 ]; then
		echo "box $box: the scale-out links did not come up in 120 s"
		cat "$here/topo.$box.tmp"
		exit 1
	fi
	sleep 1
done
mv "$here/topo.$box.tmp" "$here/topo.$box"
echo "box $box: 8 cards, scale-out links up"
cat "$here/topo.$box"
touch "$here/up.$box"
wait_other up 240 || exit 1
# Both boxes up: the 16-rank job, bounded (the rendezvous waits 120 s at
# most for the other box's ranks, the job 300 s).
rc=0
HLRT_COMM_ID=$comm_id HLRT_BOX_ID=$box HLRT_COMM_TIMEOUT_MS=120000 \
	timeout 300 coll-bench -c -N 16 -b $((8 * box)) -n 8 -s 4000 \
	> "$here/coll.$box.tmp" 2>&1 || rc=$?
mv "$here/coll.$box.tmp" "$here/coll.$box"
cat "$here/coll.$box"
echo "box $box: 16-rank job exit status $rc"
touch "$here/finished.$box"
wait_other finished 720 || exit 1
echo "box $box: done"
exit "$rc"
