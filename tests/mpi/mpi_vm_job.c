// SPDX-License-Identifier: MIT
/*
 * The two-box job under OpenMPI: one rank per box. Rank 0 makes the job
 * folder in the host folder both guests share and broadcasts it; each
 * rank boots a guest of eight devices whose fabric is cabled to the other
 * box through a socket chardev (rank 0 listens, rank 1 connects) and runs
 * box-job.sh there: box b runs ranks 8b..8b+7 of a 16-rank collective job
 * (all-reduce INT32 and FP32, all-gather, broadcast, checked against the
 * exact results) whose rendezvous id rank 0 made and broadcast with the
 * folder. The ranks' results are gathered on rank 0, which checks both
 * boxes' link matrices (every in-box pair one link up, every card's three
 * scale-out ports up, the two boxes alike) and collective results.
 *   mpirun -np 2 mpi-vm-job TOP SHARE
 * Prints "N passed, N failed".
 */
#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PATH_MAX_LEN	512
#define BOXES		2
#define CARDS		8
#define SOCKET_WAIT_S	120
#define COLL_OPS	4	/* the lines of coll-bench -c */

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

/* A nonce no earlier job's leftovers share: time and pid. */
static uint64_t job_nonce(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec) * 0x9e3779b97f4a7c15ull ^
	       (uint64_t)getpid();
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

/*
 * The box's collective results: every "check OP ...: ok|FAIL" line of
 * coll.BOX printed and counted; a missing op counts as failed.
 */
static void count_coll(const char *dir, int box, int *passed, int *failed)
{
	char path[PATH_MAX_LEN + 32], line[256];
	int ok = 0, bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/coll.%d", dir, box);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (strncmp(line, "check ", 6))
			continue;
		while (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > 4 && !strcmp(line + n - 4, ": ok")) {
			printf("ok: box %d: %s\n", box, line + 6);
			ok++;
		} else {
			printf("FAIL: box %d: %s\n", box, line + 6);
			bad++;
		}
	}
	if (f)
		fclose(f);
	if (ok + bad < COLL_OPS) {
		printf("FAIL: box %d: %d of %d collective checks reported\n", box, ok + bad,
		       COLL_OPS);
		bad += COLL_OPS - ok - bad;
	}
	*passed += ok;
	*failed += bad;
}

static int run_box(int rank, const char *top, const char *share, const char *dir,
		   const char *comm_id)
{
	char sock[PATH_MAX_LEN + 16], qemu[PATH_MAX_LEN + 96], cmd[5 * PATH_MAX_LEN];
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
		/*
		 * Connecting from the main loop (reconnect-ms) rather than while
		 * the chardev is created keeps the cable's "up" after machine
		 * init and reset, as on box 0, whose client comes later.
		 */
		snprintf(qemu, sizeof(qemu), "-chardev socket,id=so0,path=%s,reconnect-ms=1000",
			 sock);
	}
	setenv("GAUDISIM_DEVICES", "8", 1);
	setenv("GAUDISIM_QEMU_ARGS", qemu, 1);
	setenv("GAUDISIM_FABRIC_ARGS", ",chardev=so0", 1);
	snprintf(cmd, sizeof(cmd),
		 "bash '%s/scripts/vm.sh' run -t 900 -s '%s' -- "
		 "'sh /mnt/host/%s/box-job.sh %d %s' > '%s/box%d.log' 2>&1",
		 top, share, rel, rank, comm_id, dir, rank);
	return system(cmd);
}

int main(int argc, char **argv)
{
	/* The job folder, then the rendezvous id, from rank 0 to every rank. */
	struct {
		char dir[PATH_MAX_LEN], comm_id[PATH_MAX_LEN];
	} job = { "", "" };
	char *dir = job.dir, *comm_id = job.comm_id;
	char path[PATH_MAX_LEN + 32], rows[BOXES][CARDS][128];
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
		snprintf(dir, PATH_MAX_LEN, "%s/mpi-job.XXXXXX", argv[2]);
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
			/* Rendezvous in the job folder as the guests see it. */
			snprintf(comm_id, PATH_MAX_LEN, "hlrt1:%016" PRIx64 ":/mnt/host/%s/rdv",
				 job_nonce(), dir + strlen(argv[2]) + 1);
		}
	}
	MPI_Bcast(&job, sizeof(job), MPI_CHAR, 0, MPI_COMM_WORLD);
	rc = dir[0] ? run_box(rank, argv[1], argv[2], dir, comm_id) : -1;
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
		count_coll(dir, b, &passed, &failed);
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
