// SPDX-License-Identifier: MIT
/*
 * The two-box job under OpenMPI: one rank per box. Rank 0 makes the job
 * folder in the host folder both guests share and broadcasts it; each
 * rank boots a guest of eight devices whose fabric is cabled to the other
 * box through a socket chardev (rank 0 listens, rank 1 connects) and runs
 * box-job.sh there; the ranks' results are gathered on rank 0, which
 * checks both boxes' link matrices: every in-box pair one link up, every
 * card's three scale-out ports up, and the two boxes alike.
 *   mpirun -np 2 mpi-vm-job TOP SHARE
 * Prints "N passed, N failed".
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_MAX_LEN	512
#define BOXES		2
#define CARDS		8
#define SOCKET_WAIT_S	120

static int copy_file(const char *from, const char *to)
{
	char buf[4096];
	FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
	size_t n;
	int rc = 0;

	if (!in || !out) {
		rc = -1;
		goto out;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)))
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
out:
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

/* The box's link matrix rows ("AIPi cells... module scale-out"), as text. */
static int read_rows(const char *path, char rows[CARDS][128])
{
	char line[128];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < CARDS)
		if (!strncmp(line, "AIP", 3) && line[3] >= '0' && line[3] <= '9')
			memcpy(rows[n++], line, sizeof(line));
	fclose(f);
	return n;
}

/* Every in-box cell of a row is "1" but the diagonal "X"; the last is "3". */
static int row_ok(const char *row, int card)
{
	char cell[CARDS + 3][16];
	int n = sscanf(row, "%*s %15s %15s %15s %15s %15s %15s %15s %15s %15s %15s",
		       cell[0], cell[1], cell[2], cell[3], cell[4], cell[5], cell[6],
		       cell[7], cell[8], cell[9]);
	int j;

	if (n != CARDS + 2)
		return 0;
	for (j = 0; j < CARDS; j++)
		if (strcmp(cell[j], j == card ? "X" : "1"))
			return 0;
	return atoi(cell[CARDS]) == card && !strcmp(cell[CARDS + 1], "3");
}

static int run_box(int rank, const char *top, const char *share, const char *dir)
{
	char sock[PATH_MAX_LEN + 16], qemu[PATH_MAX_LEN + 96], cmd[3 * PATH_MAX_LEN];
	const char *rel = dir + strlen(share) + 1;
	int waited;

	snprintf(sock, sizeof(sock), "%s/fabric.sock", dir);
	if (rank == 0) {
		snprintf(qemu, sizeof(qemu), "-chardev socket,id=so0,path=%s,server=on,wait=off",
			 sock);
	} else {
		/* The client connects once box 0's QEMU listens. */
		for (waited = 0; access(sock, F_OK); waited++) {
			if (waited >= SOCKET_WAIT_S * 10) {
				fprintf(stderr, "rank 1: box 0 never opened %s\n", sock);
				return -1;
			}
			usleep(100000);
		}
		snprintf(qemu, sizeof(qemu), "-chardev socket,id=so0,path=%s", sock);
	}
	setenv("GAUDISIM_DEVICES", "8", 1);
	setenv("GAUDISIM_QEMU_ARGS", qemu, 1);
	setenv("GAUDISIM_FABRIC_ARGS", ",chardev=so0", 1);
	snprintf(cmd, sizeof(cmd),
		 "bash '%s/scripts/vm.sh' run -t 600 -s '%s' -- 'sh /mnt/host/%s/box-job.sh %d' "
		 "> '%s/box%d.log' 2>&1", top, share, rel, rank, dir, rank);
	return system(cmd);
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX_LEN] = "", path[PATH_MAX_LEN + 32], rows[BOXES][CARDS][128];
	int rank, size, rc, status[BOXES], passed = 0, failed = 0, b, i;

	memset(rows, 0, sizeof(rows));

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != BOXES || argc != 3 || strlen(argv[2]) > PATH_MAX_LEN - 32) {
		if (!rank)
			fprintf(stderr, "usage: mpirun -np 2 mpi-vm-job TOP SHARE\n");
		MPI_Finalize();
		return 2;
	}
	if (!rank) {
		snprintf(dir, sizeof(dir), "%s/mpi-job.XXXXXX", argv[2]);
		snprintf(path, sizeof(path), "%s/tests/mpi/box-job.sh", argv[1]);
		if (!mkdtemp(dir)) {
			fprintf(stderr, "rank 0: %s: %s\n", dir, strerror(errno));
			dir[0] = '\0';
		} else {
			char to[PATH_MAX_LEN + 32];

			snprintf(to, sizeof(to), "%s/box-job.sh", dir);
			if (copy_file(path, to)) {
				fprintf(stderr, "rank 0: cannot copy %s\n", path);
				dir[0] = '\0';
			}
		}
	}
	/* The job folder, from rank 0 to every rank. */
	MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
	rc = dir[0] ? run_box(rank, argv[1], argv[2], dir) : -1;
	MPI_Gather(&rc, 1, MPI_INT, status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank) {
		MPI_Finalize();
		return 0;
	}
	for (b = 0; b < BOXES; b++) {
		int n;

		printf("=== box %d (exit status %d)\n", b, status[b]);
		fflush(stdout);
		snprintf(path, sizeof(path), "cat '%s/box%d.log'", dir, b);
		if (system(path))
			printf("(no log)\n");
		if (status[b]) {
			printf("FAIL: box %d: its guest job failed\n", b);
			failed++;
		} else {
			printf("ok: box %d: guest of 8 cards booted, cabled, job done\n", b);
			passed++;
		}
		snprintf(path, sizeof(path), "%s/topo.%d", dir, b);
		n = read_rows(path, rows[b]);
		for (i = 0; i < CARDS && n == CARDS; i++)
			if (!row_ok(rows[b][i], i))
				break;
		if (n == CARDS && i == CARDS) {
			printf("ok: box %d: every in-box pair linked, 3 scale-out links up per card\n",
			       b);
			passed++;
		} else {
			printf("FAIL: box %d: link matrix (%d rows) not as cabled\n", b, n);
			failed++;
		}
	}
	for (i = 0; i < CARDS; i++)
		if (!rows[0][i][0] || strcmp(rows[0][i], rows[1][i]))
			break;
	if (i == CARDS) {
		printf("ok: both boxes see the same links\n");
		passed++;
	} else {
		printf("FAIL: the boxes' link matrices differ\n");
		failed++;
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (dir[0] && system(path))
		fprintf(stderr, "rank 0: cannot remove %s\n", dir);
	printf("%d passed, %d failed\n", passed, failed);
	MPI_Finalize();
	return failed ? 1 : 0;
}
