#!/bin/sh
# One box's part of the two-box job, run in its guest: wait until the
# scale-out cable is up on every card (hl-smi topo -c: 3 scale-out links
# per card), keep the box's link matrix in the job folder, then wait for
# the other box to get there too, so the cable stays up while it checks.
#   box-job.sh BOX    (0 or 1; the job folder is this script's folder)
box=$1
here=$(cd "$(dirname "$0")" && pwd)
other=$((1 - box))
all_up() {
	hl-smi topo -c > "$here/topo.$box.tmp" 2>&1 &&
		awk '$1 ~ /^AIP[0-9]/ { n++; if ($NF != "3") bad = 1 } END { exit bad || n != 8 }' \
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
i=0
until [ -e "$here/up.$other" ]; do
	i=$((i + 1))
	if [ "$i" -ge 240 ]; then
		echo "box $box: box $other never reported its links up"
		exit 1
	fi
	sleep 0.5
done
# Both boxes up: give the other one a moment to finish reading its links.
sleep 2
echo "box $box: done"
