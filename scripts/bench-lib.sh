# shellcheck shell=bash
# Shared by the benchmark scripts (sourced): guest runs that report the
# device's code path, and the rows of the summary table make bench ends with.
#
# BENCH_TABLE names a file the rows are collected in (bench.sh sets it);
# without it a script run on its own prints its rows only as it goes.
# The sourcing script sets top, the repository's top folder.
# shellcheck disable=SC2154

# bench_vm ARGS...: scripts/vm.sh run ARGS, with the device's start-up trace
# (worker threads and TPC interpreter build of each device) appended to the
# output.
bench_vm() {
	local trace rc=0
	trace=$(mktemp)
	GAUDISIM_QEMU_ARGS="${GAUDISIM_QEMU_ARGS:-} -trace enable=gaudisim_threads,file=$trace" \
		bash "$top/scripts/vm.sh" run "$@" || rc=$?
	cat "$trace"
	rm -f "$trace"
	return "$rc"
}

# bench_vm_path OUTPUT: the code path a bench_vm run took, from its trace
# (the guest has the two vCPUs scripts/vm.sh gives it):
# "core_isa=avx512 mme=openblas-Haswell workers=2 shared_by=8_devices
# guest_vcpus=2 host_cpus=2" (one pool of workers serves every device of the
# QEMU process; mme= is OpenBLAS's kernel set, which OPENBLAS_CORETYPE in
# the environment can pin for the host's PyTorch as well).
bench_vm_path() {
	local lines isa mme workers n
	lines=$(grep 'engine work on [0-9]* worker threads.*TPC interpreter build' <<<"$1" || true)
	n=$(grep -c . <<<"$lines" || true)
	[ "$n" -gt 0 ] || { echo "device path not reported"; return; }
	isa=$(sed -n 's/.*TPC interpreter build \([a-z0-9]*\).*/\1/p' <<<"$lines" | sort -u | paste -sd/)
	mme=$(sed -n 's/.*MME products on \([A-Za-z0-9_-]*\).*/\1/p' <<<"$lines" | sort -u | paste -sd/)
	workers=$(sed -n 's/.*engine work on \([0-9]*\) worker.*/\1/p' <<<"$lines" | sort -u | paste -sd/)
	echo "core_isa=$isa mme=$mme workers=$workers shared_by=${n}_devices guest_vcpus=2 host_cpus=$(nproc)"
}

# bench_met VALUE OP GOAL: "met" or "MISSED" (OP is >= or <=).
bench_met() {
	if awk -v v="$1" -v g="$3" -v op="$2" \
		'BEGIN { exit !((op == ">=" && v >= g) || (op == "<=" && v <= g)) }'; then
		echo met
	else
		echo MISSED
	fi
}

# bench_row ORDER FIGURE MEASURED GOAL VERDICT PATH: one row of the summary
# table, printed now and kept (in ORDER) for the table at the end.
bench_row() {
	printf 'row: %s | %s | %s | %s | %s\n' "$2" "$3" "$4" "$5" "$6"
	[ -z "${BENCH_TABLE:-}" ] ||
		printf '%s\t| %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$6" >>"$BENCH_TABLE"
}

# bench_table: the collected rows, in order, as a table.
bench_table() {
	echo "== summary: the figures, their goals and the code path that ran"
	echo "(ratios measured against references interleaved with them in this run)"
	echo "| figure | measured | goal | verdict | path |"
	echo "|---|---|---|---|---|"
	sort -t$'\t' -k1,1n -s "$BENCH_TABLE" | cut -f2-
}
