#!/usr/bin/env bash
# PyTorch benchmarks (run by scripts/bench.sh; alone after `make debian`):
#   - the seed script (runtime/pytorch/examples/hello_world.py, 5 epochs,
#     lazy mode) on the hpu in the VM's Debian userland against the same
#     script on the host's CPU with PyTorch (2 threads), measured right
#     before and right after the guest run; the ratio of the training
#     times is printed with its goal (<= 2x);
#   - per-step host overhead of lazy mode: the seed script's step in the VM
#     against hl-train's step on the same model (models/seed.json), both
#     200 steps in the same boot;
#   - the Debian userland's boot time (to the command, /proc/uptime, and
#     the wall time of a whole `vm.sh run -- true`).
# Each line names the device's TPC interpreter build (the widest the CPU
# runs, or GSIM_TPC_ISA) and the threads.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
data=$top/build/share/data/mnist
seed=$top/runtime/pytorch/examples/hello_world.py
host_threads=2

bash "$top/scripts/fetch-data.sh" mnist >/dev/null
if [ -n "${GSIM_TPC_ISA:-}" ]; then
	isa=$GSIM_TPC_ISA
elif grep -qw avx512f /proc/cpuinfo; then
	isa=avx512
elif grep -qw avx2 /proc/cpuinfo; then
	isa=avx2
else
	isa=sse2
fi
vm_cpus=$(sed -n 's/.*-smp \([0-9]*\).*/\1/p' "$top/scripts/vm.sh" | head -n 1)
path="tpc_isa=$isa device_threads=${BENCH_THREADS:-auto} guest_vcpus=${vm_cpus:-?}"

vm_debian() { # timeout command
	GAUDISIM_ROOTFS=debian bash "$top/scripts/vm.sh" run -t "$1" -- "$2"
}

# "epoch 5/5: loss L (T s)" -> T
train_s() {
	sed -n 's/^epoch [0-9]*\/[0-9]*: loss [0-9.]* (\([0-9.]*\)s)$/\1/p' | tail -n 1
}

host_seed() {
	OMP_NUM_THREADS=$host_threads /usr/bin/python3 -c \
		"import runpy, sys, torch; torch.set_num_threads($host_threads); \
sys.argv = ['hello_world.py'] + sys.argv[1:]; runpy.run_path('$seed', run_name='__main__')" \
		--device cpu --data "$data" "$@" | train_s
}

echo "== seed PyTorch script, 5 epochs: hpu in the VM (lazy) vs the host's CPU ($host_threads threads)"
before=$(host_seed)
guest=$(vm_debian 7200 'PT_HPU_LAZY_MODE=1 python3 /usr/share/gaudisim/examples/pytorch/hello_world.py' |
	train_s)
after=$(host_seed)
[ -n "$before" ] && [ -n "$guest" ] && [ -n "$after" ] ||
	{ echo "bench-torch: no training times (host $before/$after, guest $guest)" >&2; exit 1; }
host=$(echo "($before + $after) / 2" | bc -l)
printf 'torch_seed_5_epochs hpu_vm_s=%.1f host_cpu_s=%.1f (before %.1f, after %.1f) ratio=%.2f goal<=2 %s host_torch_threads=%d\n' \
	"$guest" "$host" "$before" "$after" "$(echo "$guest / $host" | bc -l)" "$path" "$host_threads"

echo "== per-step host overhead: the seed script's lazy step vs hl-train's step (models/seed.json), 200 steps each, same boot"
out=$(vm_debian 3600 \
	'mkdir -p /tmp/d/mnist && cp /mnt/host/data/mnist/*-ubyte /tmp/d/mnist/ &&
	 hl-train --data-dir /tmp/d --model /usr/share/gaudisim/models/seed.json --max-steps 200 --no-eval &&
	 PT_HPU_LAZY_MODE=1 python3 /usr/share/gaudisim/examples/pytorch/hello_world.py --steps 200 --epochs 1')
sps=$(sed -n 's/.*: \([0-9.]*\) samples\/s.*/\1/p' <<<"$out" | tail -n 1)
torch_s=$(train_s <<<"$out")
[ -n "$sps" ] && [ -n "$torch_s" ] ||
	{ echo "$out" | tail -n 20 >&2; echo "bench-torch: no step times" >&2; exit 1; }
hl_ms=$(echo "128 / $sps * 1000" | bc -l)
torch_ms=$(echo "$torch_s / 200 * 1000" | bc -l)
printf 'torch_lazy_step_ms=%.1f hl_train_step_ms=%.1f overhead_ms=%.1f ratio=%.2f %s\n' \
	"$torch_ms" "$hl_ms" "$(echo "$torch_ms - $hl_ms" | bc -l)" \
	"$(echo "$torch_ms / $hl_ms" | bc -l)" "$path"

echo "== Debian userland boot"
up=() wall=()
for i in 1 2 3; do
	t0=$(date +%s.%N)
	u=$(vm_debian 300 'cut -d" " -f1 /proc/uptime' | grep -E '^[0-9]+\.[0-9]+$' | tail -n 1)
	t1=$(date +%s.%N)
	up+=("$u")
	wall+=("$(echo "$t1 - $t0" | bc -l)")
done
printf 'debian_boot_to_command_s median=%.2f of 3 (guest /proc/uptime) wall_run_s median=%.2f (includes power-off) %s\n' \
	"$(printf '%s\n' "${up[@]}" | sort -n | sed -n 2p)" \
	"$(printf '%s\n' "${wall[@]}" | sort -n | sed -n 2p)" "$path"
