// SPDX-License-Identifier: MIT
/*
 * HBM first touch: a LIN_DMA memset into HBM that nothing has touched yet
 * (what a fresh allocation sees), through the HBM-DMA queues (one packet
 * per engine, as many engines as worker threads), against host memset
 * measured in the same run, interleaved round by round:
 *   host memset into memory it has already touched (the speed of memset),
 *   host memset into a fresh anonymous mapping on small pages (what a
 *   first touch costs without huge pages), and into one on transparent
 *   huge pages (what it costs with them, as HBM is backed).
 * Every round uses a fresh HBM region and a fresh host mapping; round 0
 * warms up. Medians:
 *   hbm_first_touch ... ratio_vs_memset=T_memset/T_device
 *                       ratio_vs_fresh_4k_memset=T_fresh4k/T_device
 *                       ratio_vs_fresh_thp_memset=T_freshthp/T_device
 * The filled HBM is checked byte for byte.
 *
 * Usage: hbm-touch [-r ROUNDS] [-j THREADS] [-s MIB]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_dev.h"
#include "bench_stats.h"
#include "hw/gaudisim_hw_queues.h"

#define USAGE	"usage: hbm-touch [-r ROUNDS<=40] [-j THREADS<=6] [-s MIB<=256]\n"
#define SOB	102u
#define HBM_DMA_ENGINES	6u

/* Host memset of bytes into a fresh mapping, on huge pages or not: seconds. */
static double fresh_memset(uint64_t bytes, uint8_t value, bool huge)
{
	const uint64_t align = 2ull << 20;
	uint8_t *map, *p;
	double t;

	map = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		perror("hbm-touch: mmap");
		exit(1);
	}
	p = (uint8_t *)(((uintptr_t)map + align - 1) & ~(uintptr_t)(align - 1));
	madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	t = bench_now();
	memset(p, value, bytes);
	t = bench_now() - t;
	munmap(map, bytes + align);
	return t;
}

static bool all_bytes(const uint8_t *p, uint64_t n, uint8_t v)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 7, threads = (unsigned long)sysconf(_SC_NPROCESSORS_ONLN), mib = 64;
	double *t_dev, *t_warm, *t_fresh, *t_thp, m_dev, m_warm, m_fresh, m_thp;
	uint32_t signals = 0;
	struct bench_dev *d;
	struct bench_cb cb;
	uint64_t bytes, piece;
	unsigned int engines, e;
	uint8_t *warm;
	unsigned long r;
	int c;

	while ((c = getopt(argc, argv, "r:j:s:")) != -1) {
		if (c == 'r')
			rounds = bench_arg(optarg, 40, USAGE);
		else if (c == 'j')
			threads = bench_arg(optarg, 64, USAGE);
		else if (c == 's')
			mib = bench_arg(optarg, 256, USAGE);
		else
			return fprintf(stderr, USAGE), 2;
	}
	if (optind != argc || threads < 1)
		return fprintf(stderr, USAGE), 2;
	bytes = (uint64_t)mib << 20;
	engines = threads < HBM_DMA_ENGINES ? (unsigned int)threads : HBM_DMA_ENGINES;
	piece = bytes / engines;

	/* Room for a fresh region per round (sparse: untouched HBM costs nothing). */
	d = bench_dev_new((BENCH_DATA_BASE + (rounds + 1) * bytes + (1ull << 30)) &
			  ~((1ull << 30) - 1), (unsigned int)threads);
	warm = malloc(bytes);
	t_dev = calloc(rounds, sizeof(double));
	t_warm = calloc(rounds, sizeof(double));
	t_fresh = calloc(rounds, sizeof(double));
	t_thp = calloc(rounds, sizeof(double));
	if (!warm || !t_dev || !t_warm || !t_fresh || !t_thp)
		return fprintf(stderr, "hbm-touch: out of memory\n"), 1;
	memset(warm, 1, bytes);
	bench_sob_clear(d, SOB);

	for (r = 0; r <= rounds; r++) {
		uint64_t region = BENCH_DATA_BASE + r * bytes;
		uint8_t value = (uint8_t)(0xa5 + r);
		double t0, t1, t2, t3, t4;

		t0 = bench_now();
		for (e = 0; e < engines; e++) {
			bench_cb_reset(&cb);
			bench_cb_memset(&cb, region + e * piece, value,
					(uint32_t)(e + 1 == engines ? bytes - e * piece : piece));
			bench_cb_signal(&cb, SOB);
			bench_submit(d, GAUDISIM_QUEUE_ID_DMA_2_0 + e * GAUDISIM_STREAMS_PER_QMAN, &cb);
		}
		signals += engines;
		bench_wait_sob(d, SOB, signals, 600);
		t1 = bench_now();
		memset(warm, value, bytes);
		t2 = bench_now();
		t3 = fresh_memset(bytes, value, false);
		t4 = fresh_memset(bytes, value, true);
		if (!all_bytes(bench_hbm(d, region, bytes), bytes, value)) {
			fprintf(stderr, "hbm-touch: HBM does not hold the memset value\n");
			return 1;
		}
		if (r) {
			t_dev[r - 1] = t1 - t0;
			t_warm[r - 1] = t2 - t1;
			t_fresh[r - 1] = t3;
			t_thp[r - 1] = t4;
		}
	}
	m_dev = bench_median(t_dev, rounds);
	m_warm = bench_median(t_warm, rounds);
	m_fresh = bench_median(t_fresh, rounds);
	m_thp = bench_median(t_thp, rounds);
	printf("hbm_touch: engines=%u device_threads=%u core_isa=%s mib=%lu rounds=%lu\n",
	       engines, gsim_core_threads(bench_core(d)), bench_build_isa(), mib, rounds);
	printf("hbm_first_touch: device_MiBps=%.0f memset_MiBps=%.0f fresh_4k_memset_MiBps=%.0f "
	       "fresh_thp_memset_MiBps=%.0f ratio_vs_memset=%.3f goal>=0.5 "
	       "ratio_vs_fresh_4k_memset=%.3f ratio_vs_fresh_thp_memset=%.3f checked=all\n",
	       mib / m_dev, mib / m_warm, mib / m_fresh, mib / m_thp, m_warm / m_dev,
	       m_fresh / m_dev, m_thp / m_dev);
	free(warm);
	free(t_dev);
	free(t_warm);
	free(t_fresh);
	free(t_thp);
	bench_dev_free(d);
	return 0;
}
