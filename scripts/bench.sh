#!/usr/bin/env bash
# Benchmarks. Each figure is printed next to a reference measured in the
# same run, because this machine's absolute speed drifts:
#   - DMA host->HBM and HBM->host through the whole stack (guest user space,
#     driver, device), as a ratio to host memcpy of the same size;
#   - command-submission round trip (NOP CS, submit -> wait) in the guest;
#   - MME GEMM (FP32, BF16) against the host's OpenBLAS sgemm;
#   - TPC relu over 64 MiB in HBM against host memcpy;
#   - boot-to-shell: host wall time from starting QEMU until the guest runs
#     its first command, as a ratio to the 10 s target.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
size=$((64 << 20))
mkdir -p "$build/bench"

# The host programs are built by `make bench` (build/bench/).
for prog in host-memcpy mme-bench tpc-bench; do
	[ -x "$build/bench/$prog" ] || { echo "bench: $build/bench/$prog missing; run 'make bench'" >&2; exit 2; }
done

echo "== MME GEMM 1024^3 vs the host's OpenBLAS sgemm (same thread count)"
"$build/bench/mme-bench" 1024 10 "$(nproc)"

echo "== TPC relu FP32 over 64 MiB in HBM (8 TPCs) vs host memcpy"
(cd "$top" && "$build/bench/tpc-bench")

echo "== boot to shell"
boot_best=
for i in 1 2 3; do
	t0=$(date +%s.%N)
	bash "$top/scripts/vm.sh" run -t 120 -- true >/dev/null
	t1=$(date +%s.%N)
	t=$(echo "$t1 - $t0" | bc -l)
	if [ -z "$boot_best" ] || [ "$(echo "$t < $boot_best" | bc -l)" = 1 ]; then boot_best=$t; fi
done
printf 'boot_to_shell_s=%.2f (best of 3, includes power-off) target<=10 ratio=%.2f\n' \
	"$boot_best" "$(echo "$boot_best / 10" | bc -l)"

echo "== DMA through the stack vs host memcpy ($((size >> 20)) MiB)"
guest_out=$(bash "$top/scripts/vm.sh" run -t 600 -- "dma-bench -s $((size >> 20)) && cs-latency -n 1000")
echo "$guest_out"
memcpy_out=$("$build/bench/host-memcpy" "$size" 8)
echo "$memcpy_out"
memcpy=${memcpy_out#memcpy_MiBps=}
h2d=$(sed -n 's/.*dma_h2d_MiBps=\([0-9.]*\).*/\1/p' <<<"$guest_out")
d2h=$(sed -n 's/.*dma_d2h_MiBps=\([0-9.]*\).*/\1/p' <<<"$guest_out")
[ -n "$h2d" ] && [ -n "$d2h" ] || { echo "bench: no DMA figures from the guest" >&2; exit 1; }
printf 'dma_h2d ratio_to_memcpy=%.2f\n' "$(echo "$h2d / $memcpy" | bc -l)"
printf 'dma_d2h ratio_to_memcpy=%.2f\n' "$(echo "$d2h / $memcpy" | bc -l)"
