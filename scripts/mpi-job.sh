#!/usr/bin/env bash
# The two-box job (make mpi-test): OpenMPI's mpirun starts one rank per box
# on this host; each boots a guest of eight devices, the two fabrics cabled
# NIC to NIC (ports 7..9) through a socket chardev in the shared host
# folder, checks the links from inside, then runs its half (ranks 8*box..)
# of a 16-rank all-reduce/all-gather/broadcast job checked against the
# exact results (tests/mpi/mpi_vm_job.c, tests/mpi/box-job.sh).
# Prints "N passed, N failed".
# Environment: GAUDISIM_SHARE (default build/share), as for vm.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/tests/mpi
share=${GAUDISIM_SHARE:-$top/build/share}
for tool in mpicc mpirun; do
	command -v "$tool" >/dev/null || {
		echo "mpi-job: $tool is missing: install openmpi-bin and libopenmpi-dev" \
			"(scripts/setup.sh packages)" >&2
		echo "0 passed, 1 failed"
		exit 1
	}
done
mkdir -p "$out" "$share"
share=$(cd "$share" && pwd)
src=$top/tests/mpi/mpi_vm_job.c
if [ ! -x "$out/mpi-vm-job" ] || [ "$src" -nt "$out/mpi-vm-job" ]; then
	mpicc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$out/mpi-vm-job" "$src"
fi
# Root (CI containers) needs --allow-run-as-root; two ranks on a small
# host need --oversubscribe.
exec mpirun --allow-run-as-root --oversubscribe -np 2 "$out/mpi-vm-job" "$top" "$share"
