# Sourced by the multi-device training tests (gsim-test-dp.sh,
# gsim-test-trials.sh): their scratch folder, pass/fail counters, MNIST
# copied into the guest's tmpfs, and the device count they need.
#   . gsim-train-prelude.sh NAME MIN_DEVICES
#   GSIM_TRAIN_DATA   data root (default /mnt/host/data)
#   GSIM_TRAIN_MODELS model folder (default /usr/share/gaudisim/models)
models=${GSIM_TRAIN_MODELS:-/usr/share/gaudisim/models}
share_data=${GSIM_TRAIN_DATA:-/mnt/host/data}
work=$(mktemp -d "${TMPDIR:-/tmp}/gsim-$1.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
show() { sed 's/^/  | /' "$work/out"; }

# MNIST into the guest's tmpfs: the host share is slow under emulation.
data=$work/data
mkdir -p "$data/mnist"
if ! cp "$share_data/mnist"/*-ubyte "$data/mnist/"; then
	echo "FAIL: no mnist in $share_data/mnist (make data fetches it)"
	echo "0 passed, 1 failed"
	exit 1
fi
ndev=$(ls -d /sys/class/accel/accel* 2>/dev/null | wc -l)
if [ "$ndev" -lt "$2" ]; then
	echo "FAIL: $ndev devices; this test needs $2 (GAUDISIM_DEVICES=$2)"
	echo "0 passed, 1 failed"
	exit 1
fi
