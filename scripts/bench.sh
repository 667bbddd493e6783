#!/usr/bin/env bash
# Benchmarks (make bench). Every figure is printed next to a reference
# measured in the same run, interleaved with it, because this machine's
# speed drifts and other work shares it; each line also says which code
# path ran and with how many threads.
#   - MME GEMM through the device path (CB on the MME queue -> completion
#     through the sync manager) against the host's OpenBLAS sgemm: the
#     device's overhead, and BF16 against FP32 sgemm; then the MME's
#     portable kernels against OpenBLAS;
#   - MME convolutions (forward, dedx, dedw) on LeNet's two layers and a
#     3x3 64-channel layer against the host's im2col + OpenBLAS sgemm;
#   - TPC relu over 64 MiB of HBM on the 8 TPCs, through their queues,
#     against host memcpy, once per build of the TPC interpreter (AVX-512,
#     AVX2, SSE2) the CPU runs;
#   - HBM first touch: LIN_DMA memset into fresh HBM against host memset;
#   - boot to shell (host wall time, against the 10 s target);
#   - in the guest: DMA host<->HBM through the whole stack against guest
#     memcpy (interleaved there) and host memcpy (measured right before and
#     right after the guest run), and the NOP CS round trip beside a bare
#     INFO ioctl round trip;
#   - the CNN's (LeNet) training samples/s in the guest against the CPU
#     reference trainer on the host, measured before and after it.
# Environment: BENCH_THREADS (device worker threads and OpenBLAS threads,
# default: online CPUs), BENCH_ROUNDS (host benchmarks, default 7).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/bench
threads=${BENCH_THREADS:-$(nproc)}
rounds=${BENCH_ROUNDS:-7}
mib=64

# The host programs are built by `make bench` (build/bench/).
for prog in mme-bench mme-bench-portable tpc-bench hbm-touch host-memcpy conv-bench; do
	[ -x "$bin/$prog" ] || { echo "bench: $bin/$prog missing; run 'make bench'" >&2; exit 2; }
done
cd "$top"

echo "== MME GEMM 1024^3 through the device path vs the host's OpenBLAS sgemm"
"$bin/mme-bench" -s 1024 -r "$rounds" -j "$threads"

echo "== MME portable kernels (QEMU without OpenBLAS) vs OpenBLAS sgemm, 512^3"
"$bin/mme-bench-portable" -s 512 -r "$rounds" -j "$threads"

for layer in 1 2 3; do
	echo "== MME convolution (layer $layer) through the device path vs host im2col + OpenBLAS sgemm"
	"$bin/conv-bench" -l "$layer" -r "$rounds" -j "$threads"
done

echo "== TPC relu FP32 over $mib MiB in HBM, 8 TPCs through their queues, vs host memcpy"
# Once per build of the TPC interpreter (host vector ISA); a build this CPU
# cannot run is reported, not measured.
for isa in avx512 avx2 sse2; do
	if ! out=$(GSIM_TPC_ISA=$isa "$bin/tpc-bench" -s "$mib" -r "$rounds" -j "$threads" 2>&1); then
		if grep -q 'cannot run' <<<"$out"; then
			echo "tpc_relu core_isa=$isa skipped: this CPU cannot run it"
			continue
		fi
		echo "$out" >&2
		exit 1
	fi
	echo "$out"
done

echo "== HBM first touch: LIN_DMA memset into fresh HBM vs host memset"
"$bin/hbm-touch" -s "$mib" -r "$rounds" -j "$threads"

echo "== boot to shell"
boot=()
for i in 1 2 3; do
	t0=$(date +%s.%N)
	bash "$top/scripts/vm.sh" run -t 120 -- true >/dev/null
	t1=$(date +%s.%N)
	boot+=("$(echo "$t1 - $t0" | bc -l)")
done
boot_med=$(printf '%s\n' "${boot[@]}" | sort -n | sed -n 2p)
printf 'boot_to_shell_s median=%.2f of 3 (includes power-off) target=10\n' "$boot_med"

echo "== in the guest: DMA through the stack ($mib MiB) and CS round trip"
before=$("$bin/host-memcpy" -s "$mib")
guest_out=$(bash "$top/scripts/vm.sh" run -t 900 -- \
	"dma-bench -s $mib -r $rounds && cs-latency -n 1000")
after=$("$bin/host-memcpy" -s "$mib")
echo "$guest_out"
echo "host before: $before"
echo "host after:  $after"
h2d=$(sed -n 's/.*dma_h2d_MiBps=\([0-9.]*\).*/\1/p' <<<"$guest_out")
d2h=$(sed -n 's/.*dma_d2h_MiBps=\([0-9.]*\).*/\1/p' <<<"$guest_out")
[ -n "$h2d" ] && [ -n "$d2h" ] || { echo "bench: no DMA figures from the guest" >&2; exit 1; }
grep -q '^cs_latency_us ' <<<"$guest_out" ||
	{ echo "bench: no CS latency figures from the guest" >&2; exit 1; }
host=$(echo "(${before#memcpy_MiBps=} + ${after#memcpy_MiBps=}) / 2" | bc -l)
printf 'dma_h2d ratio_to_host_memcpy=%.3f dma_d2h ratio_to_host_memcpy=%.3f (host memcpy %.0f MiB/s)\n' \
	"$(echo "$h2d / $host" | bc -l)" "$(echo "$d2h / $host" | bc -l)" "$host"

# The CNN's training steps: hl-train on the device in the VM against the
# CPU reference trainer on the host (the same model, data and steps),
# measured right before and right after the guest run.
echo "== CNN training steps (models/lenet.json, MNIST): device in the VM vs the CPU reference on the host"
cnn_ref() {
	"$top/build/apps/hl-train-ref" --data-dir "$top/build/share/data" \
		--model "$top/models/lenet.json" --max-steps 40 --no-eval |
		sed -n 's/.*: \([0-9.]*\) samples\/s$/\1/p'
}
bash "$top/scripts/fetch-data.sh" mnist >/dev/null
ref_before=$(cnn_ref)
cnn_out=$(bash "$top/scripts/vm.sh" run -t 900 -- \
	'mkdir -p /tmp/d/mnist && cp /mnt/host/data/mnist/*-ubyte /tmp/d/mnist/ &&
	 hl-train --data-dir /tmp/d --model /usr/share/gaudisim/models/lenet.json --max-steps 200 --no-eval')
ref_after=$(cnn_ref)
dev=$(sed -n 's/.*: \([0-9.]*\) samples\/s.*/\1/p' <<<"$cnn_out" | tail -n 1)
[ -n "$dev" ] && [ -n "$ref_before" ] && [ -n "$ref_after" ] ||
	{ echo "$cnn_out" | tail -n 20 >&2; echo "bench: no CNN samples/s" >&2; exit 1; }
ref=$(echo "($ref_before + $ref_after) / 2" | bc -l)
printf 'cnn_train samples_per_s=%.0f cpu_reference_samples_per_s=%.0f ratio_to_reference=%.2f\n' \
	"$dev" "$ref" "$(echo "$dev / $ref" | bc -l)"

# All-reduce over the NIC links of an eight-device VM: bus bandwidth (what
# each link carried, nccl-tests' busbw) against host memcpy measured right
# before and right after the guest run.
echo "== all-reduce, 8 ranks on one fabric (16 MiB FP32): bus bandwidth vs host memcpy"
before=$("$bin/host-memcpy" -s 16)
coll_out=$(GAUDISIM_DEVICES=8 bash "$top/scripts/vm.sh" run -t 900 -- \
	'coll-bench -n 8 -s 16777216 -i 5 -t fp32 && coll-bench -n 8 -s 1048576 -i 5 -t fp32')
after=$("$bin/host-memcpy" -s 16)
echo "$coll_out" | grep '^allreduce ' ||
	{ echo "$coll_out" | tail -n 20 >&2; echo "bench: no all-reduce figures" >&2; exit 1; }
host=$(echo "(${before#memcpy_MiBps=} + ${after#memcpy_MiBps=}) / 2" | bc -l)
while read -r line; do
	bytes=$(sed -n 's/.* bytes=\([0-9]*\).*/\1/p' <<<"$line")
	busbw=$(sed -n 's/.*busbw_GBps=\([0-9.]*\).*/\1/p' <<<"$line")
	printf 'allreduce bytes=%s busbw_GBps=%s ratio_to_host_memcpy=%.4f (host memcpy %.0f MiB/s)\n' \
		"$bytes" "$busbw" "$(echo "$busbw * 1000000000 / 1048576 / $host" | bc -l)" "$host"
done < <(grep '^allreduce ' <<<"$coll_out")

# Data-parallel scaling: one epoch of the seed model at global batch 1024
# on 1, 2, 4 and 8 devices of one VM (hl-train --devices N), each run's
# samples/s against the one-device run of the same guest boot.
echo "== data-parallel hl-train, seed model, global batch 1024: samples/s on 1, 2, 4, 8 devices"
dp_out=$(GAUDISIM_DEVICES=8 bash "$top/scripts/vm.sh" run -t 1800 -- \
	'for n in 1 2 4 8; do
		echo "dp_devices=$n";
		hl-train --model /usr/share/gaudisim/models/seed.json --data mnist --epochs 1 \
			--batch 1024 --devices $n | grep "samples/s";
	 done')
echo "$dp_out"
one=
while read -r n; do
	sps=$(awk -v n="$n" '$0 == "dp_devices=" n { getline; sub(/ samples\/s.*/, ""); print $NF }' <<<"$dp_out")
	[ -n "$sps" ] || { echo "bench: no samples/s for $n devices" >&2; exit 1; }
	[ -n "$one" ] || one=$sps
	printf 'dp_train devices=%s samples_per_s=%.0f speedup_vs_1=%.2f\n' \
		"$n" "$sps" "$(echo "$sps / $one" | bc -l)"
done < <(printf '%s\n' 1 2 4 8)

bash "$top/scripts/bench-train.sh"
bash "$top/scripts/bench-trials.sh"
bash "$top/scripts/bench-torch.sh"
