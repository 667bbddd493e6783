// SPDX-License-Identifier: MIT
/*
 * debugfs: peek and poke of known registers, of HBM and SRAM (cross-checked
 * with sysfs and DMA) and of host memory at a device VA, refused addresses,
 * the listings of the compute context (CSs, CBs, userptrs), the MMU walk of
 * a mapped VA against the page's physical address, the state dump, the
 * event history, root only, the accel/<minor index> and habanalabs/hl<minor
 * index> links habanalabs' user space opens, pread() at offsets as it
 * reads, and clk_gate.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_mmu.h"
#include "hw/gaudisim_hw_sync.h"
#include "hw/gaudisim_hw_telemetry.h"
#include "sysfs_util.h"

static char dir[PATH_LEN], path[PATH_LEN + 64];
static char text[64 * 1024];

static const char *const files[] = {
	"addr", "data32", "data64", "engines", "command_submission", "command_buffers",
	"userptr", "mmu", "state_dump", "events", "clk_gate",
};

static void debugfs_setup(void)
{
	debugfs_dir_ok(dir, sizeof(dir));
}

static void compute_debugfs_setup(void)
{
	debugfs_setup();
	compute_setup();
}

static const char *file(const char *name)
{
	join_path(path, sizeof(path), dir, name);
	return path;
}

static const char *cat_ok(const char *name)
{
	int rc = read_text(file(name), text, sizeof(text));

	ck_assert_msg(rc == 0, "read %s: %s", name, strerror(-rc));
	return text;
}

static void set_addr_ok(uint64_t addr)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	ck_assert_int_eq(write_text(file("addr"), buf), 0);
}

/* data64 values need all 64 bits: parsed here, not as a signed number. */
static uint64_t peek_ok(const char *data, uint64_t addr)
{
	char buf[32], *end;
	uint64_t v;
	int rc;

	set_addr_ok(addr);
	rc = read_text(file(data), buf, sizeof(buf));
	ck_assert_msg(rc == 0, "peek %s at 0x%" PRIx64 ": %s", data, addr, strerror(-rc));
	errno = 0;
	v = strtoull(buf, &end, 16);
	ck_assert_msg(!errno && end != buf && *end == '\0', "%s: '%s'", data, buf);
	return v;
}

static void poke_ok(const char *data, uint64_t addr, uint64_t value)
{
	char buf[32];
	int rc;

	set_addr_ok(addr);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, value);
	rc = write_text(file(data), buf);
	ck_assert_msg(rc == 0, "poke %s at 0x%" PRIx64 ": %s", data, addr, strerror(-rc));
}

START_TEST(files_present)
{
	ck_assert_int_eq(access(file(files[_i]), F_OK), 0);
}
END_TEST

/* habanalabs' user space opens accel/<minor index>/: the same folder. */
START_TEST(index_link_is_the_device_folder)
{
	char by_index[PATH_LEN], real_dir[PATH_LEN], real_index[PATH_LEN];

	ck_assert_int_lt(snprintf(by_index, sizeof(by_index), "/sys/kernel/debug/accel/%d",
				  test_device_index()), (int)sizeof(by_index));
	ck_assert_msg(realpath(dir, real_dir) != NULL, "realpath %s: %s", dir, strerror(errno));
	ck_assert_msg(realpath(by_index, real_index) != NULL, "realpath %s: %s", by_index,
		      strerror(errno));
	ck_assert_str_eq(real_index, real_dir);
	join_path(path, sizeof(path), by_index, "data32");
	ck_assert_int_eq(access(path, R_OK | W_OK), 0);
}
END_TEST

/* habanalabs' older user space opens habanalabs/hl<minor index>/: the same folder. */
START_TEST(hl_link_is_the_device_folder)
{
	char by_hl[PATH_LEN], real_dir[PATH_LEN], real_hl[PATH_LEN];

	ck_assert_int_lt(snprintf(by_hl, sizeof(by_hl), "/sys/kernel/debug/habanalabs/hl%d",
				  test_device_index()), (int)sizeof(by_hl));
	ck_assert_msg(realpath(dir, real_dir) != NULL, "realpath %s: %s", dir, strerror(errno));
	ck_assert_msg(realpath(by_hl, real_hl) != NULL, "realpath %s: %s", by_hl,
		      strerror(errno));
	ck_assert_str_eq(real_hl, real_dir);
	join_path(path, sizeof(path), by_hl, "clk_gate");
	ck_assert_int_eq(access(path, R_OK | W_OK), 0);
}
END_TEST

/*
 * As habanalabs' user space does: pread() the value at offset 0 (and at
 * any other offset, the rest of the text), write() without seeking.
 */
START_TEST(pread_at_offsets)
{
	uint64_t reg = GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_POWER_MAX_MW;
	char buf[64], want[32];
	int fd, gate;
	ssize_t n;

	set_addr_ok(GAUDISIM_CFG_BASE + GAUDISIM_REG_ID);
	fd = open(file("data32"), O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	snprintf(want, sizeof(want), "0x%08x\n", GAUDISIM_ID_MAGIC);
	memset(buf, 0, sizeof(buf));
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_eq(n, (ssize_t)strlen(want));
	ck_assert_str_eq(buf, want);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(pread(fd, buf, sizeof(buf) - 1, 2), (ssize_t)strlen(want) - 2);
	ck_assert_str_eq(buf, want + 2);
	ck_assert_int_eq(pread(fd, buf, sizeof(buf) - 1, 100), 0);
	ck_assert_int_eq(lseek(fd, 4, SEEK_SET), 4);

	/* A write (with the trailing NUL habanalabs' user space sends) sets the value. */
	set_addr_ok(reg);
	ck_assert_int_eq(write(fd, "0x445c0", 8), 8);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_gt(pread(fd, buf, sizeof(buf) - 1, 0), 0);
	ck_assert_str_eq(buf, "0x000445c0\n");
	snprintf(want, sizeof(want), "0x%x", GAUDISIM_TEL_POWER_MAX_DEFAULT_MW);
	ck_assert_int_eq(write(fd, want, strlen(want) + 1), (ssize_t)strlen(want) + 1);
	close(fd);

	gate = open(file("clk_gate"), O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(gate, 0);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(pread(gate, buf, sizeof(buf) - 1, 0), 4);
	ck_assert_str_eq(buf, "0x0\n");
	ck_assert_int_eq(write(gate, "0", 2), 2);
	close(gate);
}
END_TEST

/* The model gates no engine clock: the mask reads 0, only 0 is taken. */
START_TEST(clk_gate_reads_no_gating)
{
	ck_assert_str_eq(cat_ok("clk_gate"), "0x0");
	ck_assert_int_eq(write_text(file("clk_gate"), "0"), 0);
	ck_assert_int_eq(write_text(file("clk_gate"), "0x0"), 0);
	ck_assert_int_eq(write_text(file("clk_gate"), "0x1"), -EOPNOTSUPP);
	ck_assert_int_eq(write_text(file("clk_gate"), "0xffffffffffffffff"), -EOPNOTSUPP);
	ck_assert_int_eq(write_text(file("clk_gate"), "gate"), -EINVAL);
	ck_assert_str_eq(cat_ok("clk_gate"), "0x0");
}
END_TEST

START_TEST(peek_registers)
{
	uint64_t id = GAUDISIM_CFG_BASE + GAUDISIM_REG_ID;
	uint64_t v64 = peek_ok("data64", id);

	ck_assert_uint_eq(peek_ok("data32", id), GAUDISIM_ID_MAGIC);
	ck_assert_uint_eq((uint32_t)v64, GAUDISIM_ID_MAGIC);
	ck_assert_uint_eq((uint32_t)(v64 >> 32) >> 16, GAUDISIM_HW_VERSION_MAJOR);
}
END_TEST

/* POWER_MAX is a harmless RW register that sysfs shows too. */
START_TEST(poke_register)
{
	uint64_t reg = GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_POWER_MAX_MW;
	uint64_t def = peek_ok("data32", reg);
	char max_power[PATH_LEN];

	dev_attr_path(max_power, sizeof(max_power), "max_power");
	poke_ok("data32", reg, 280000);
	ck_assert_int_eq(read_number_ok(max_power), 280000);
	ck_assert_uint_eq(peek_ok("data32", reg), 280000);
	poke_ok("data32", reg, def);
	ck_assert_int_eq(read_number_ok(max_power), (long long)def);
}
END_TEST

START_TEST(peek_poke_hbm)
{
	const uint64_t pattern = 0x0123456789abcdefULL;
	struct host_buf host;
	struct hbm_buf hbm;
	uint64_t got;

	hbm_alloc_ok(dev_fd, &hbm, 2 * MiB);
	host_buf_map_ok(dev_fd, &host, 4096);
	memset_ok(dev_fd, hbm.addr, 0xa5, 4096, QUEUE_H2D);
	ck_assert_uint_eq(peek_ok("data32", hbm.addr + 4), 0xa5a5a5a5);
	ck_assert_uint_eq(peek_ok("data64", hbm.addr + 64), 0xa5a5a5a5a5a5a5a5ULL);

	poke_ok("data64", hbm.addr + 8, pattern);
	poke_ok("data32", hbm.addr + 16, 0xfeedf00d);
	ck_assert_uint_eq(peek_ok("data64", hbm.addr + 8), pattern);
	/* What the engines see is what was poked. */
	dma_ok(dev_fd, hbm.addr, host.va, 4096, QUEUE_D2H);
	memcpy(&got, host.ptr + 8, sizeof(got));
	ck_assert_uint_eq(got, pattern);
	ck_assert_uint_eq(host.ptr[16], 0x0d);
	ck_assert_uint_eq(host.ptr[19], 0xfe);
	ck_assert_uint_eq(host.ptr[20], 0xa5);
	host_buf_release(dev_fd, &host);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/* SRAM through the device's debug memory port: what DMA sees both ways. */
START_TEST(peek_poke_sram)
{
	const uint64_t sram = GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE - 8192;
	const uint64_t pattern = 0x8877665544332211ULL;
	struct host_buf host;
	uint64_t got;

	host_buf_map_ok(dev_fd, &host, 4096);
	memset_ok(dev_fd, sram, 0x3c, 4096, QUEUE_H2D);
	ck_assert_uint_eq(peek_ok("data32", sram + 4), 0x3c3c3c3c);
	ck_assert_uint_eq(peek_ok("data64", sram + 4088), 0x3c3c3c3c3c3c3c3cULL);

	poke_ok("data64", sram + 8, pattern);
	poke_ok("data32", sram + 16, 0xc001d00d);
	ck_assert_uint_eq(peek_ok("data64", sram + 8), pattern);
	ck_assert_uint_eq(peek_ok("data32", sram + 12), 0x88776655);
	dma_ok(dev_fd, sram, host.va, 4096, QUEUE_D2H);
	memcpy(&got, host.ptr + 8, sizeof(got));
	ck_assert_uint_eq(got, pattern);
	ck_assert_uint_eq(host.ptr[16], 0x0d);
	ck_assert_uint_eq(host.ptr[19], 0xc0);
	ck_assert_uint_eq(host.ptr[20], 0x3c);
	host_buf_release(dev_fd, &host);
}
END_TEST

/* Host memory at its device VA: the MMU tables are walked to the page. */
START_TEST(peek_poke_host_va)
{
	const uint64_t pattern = 0x0f1e2d3c4b5a6978ULL;
	struct host_buf host;
	uint64_t got;

	host_buf_map_ok(dev_fd, &host, 3 * 4096);
	memset(host.ptr, 0x77, 3 * 4096);
	memcpy(host.ptr + 4096 + 40, &pattern, sizeof(pattern));
	ck_assert_uint_eq(peek_ok("data32", host.va + 4), 0x77777777);
	ck_assert_uint_eq(peek_ok("data64", host.va + 4096 + 40), pattern);
	ck_assert_uint_eq(peek_ok("data32", host.va + 4096 + 44), (uint32_t)(pattern >> 32));

	poke_ok("data64", host.va + 2 * 4096 + 8, pattern);
	poke_ok("data32", host.va + 4092, 0xabad1dea);
	memcpy(&got, host.ptr + 2 * 4096 + 8, sizeof(got));
	ck_assert_uint_eq(got, pattern);
	ck_assert_uint_eq(*(volatile uint32_t *)(host.ptr + 4092), 0xabad1dea);
	ck_assert_uint_eq(host.ptr[4096], 0x77);

	/* Past the mapping (and its guard page): nothing to reach. */
	set_addr_ok(host.va + 64 * MiB);
	ck_assert_int_eq(read_text(file("data32"), text, sizeof(text)), -EFAULT);
	ck_assert_int_eq(write_text(file("data64"), "0x1"), -EFAULT);
	host_buf_release(dev_fd, &host);
}
END_TEST

static const struct {
	const char *data;
	uint64_t addr;
	int err;
} bad_addrs[] = {
	{ "data32", GAUDISIM_CFG_BASE + 2, -EINVAL },			/* unaligned */
	{ "data64", GAUDISIM_CFG_BASE + 4, -EINVAL },
	{ "data32", GAUDISIM_CFG_BASE + GAUDISIM_CFG_BAR_SIZE, -EINVAL },	/* past the BAR */
	{ "data64", GAUDISIM_CFG_BASE + GAUDISIM_CFG_BAR_SIZE - 4, -EINVAL },
	{ "data32", GAUDISIM_SRAM_BASE + 2, -EINVAL },			/* unaligned */
	{ "data64", GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE - 4, -EINVAL },	/* past SRAM */
	{ "data32", GAUDISIM_HOST_BASE, -EINVAL },	/* host memory, not at a device VA */
	{ "data32", GAUDISIM_MMU_VA_BASE, -EFAULT },			/* no address space */
	{ "data64", 1ULL << 40, -EINVAL },				/* beyond HBM */
};

START_TEST(bad_address_refused)
{
	uint64_t before = peek_ok("data32", GAUDISIM_CFG_BASE + GAUDISIM_REG_ID);
	int rc;

	set_addr_ok(bad_addrs[_i].addr);
	rc = read_text(file(bad_addrs[_i].data), text, sizeof(text));
	ck_assert_msg(rc == bad_addrs[_i].err, "read %s at 0x%" PRIx64 ": %d", bad_addrs[_i].data,
		      bad_addrs[_i].addr, rc);
	rc = write_text(file(bad_addrs[_i].data), "0");
	ck_assert_msg(rc == bad_addrs[_i].err, "write %s at 0x%" PRIx64 ": %d",
		      bad_addrs[_i].data, bad_addrs[_i].addr, rc);
	ck_assert_uint_eq(peek_ok("data32", GAUDISIM_CFG_BASE + GAUDISIM_REG_ID), before);
	device_works_ok();
}
END_TEST

START_TEST(bad_values_refused)
{
	set_addr_ok(GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_POWER_MAX_MW);
	ck_assert_int_eq(write_text(file("data32"), "0x100000000"), -ERANGE);
	ck_assert_int_eq(write_text(file("data32"), "lots"), -EINVAL);
	ck_assert_int_eq(write_text(file("addr"), "nowhere"), -EINVAL);
	ck_assert_int_eq(write_text(file("mmu"), "0x1000"), -EINVAL);	/* not a device VA */
	ck_assert_int_eq(write_text(file("mmu"), "va"), -EINVAL);
	/* Root may open a read-only debugfs file for writing; the write fails. */
	ck_assert_int_eq(write_text(file("engines"), "1"), -EINVAL);
	ck_assert_int_eq(peek_ok("data32", GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_TELEMETRY +
				 GAUDISIM_TEL_POWER_MAX_MW), GAUDISIM_TEL_POWER_MAX_DEFAULT_MW);
}
END_TEST

START_TEST(engines_listed)
{
	const char *names[] = { "DMA0", "DMA7", "MME0", "TPC0", "TPC7" };
	const char *t = cat_ok("engines");
	int lines = 0;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_msg(strstr(t, names[i]) != NULL, "no %s in:\n%s", names[i], t);
	for (; *t; t++)
		lines += *t == '\n';
	ck_assert_int_eq(lines, GAUDISIM_ENGINE_COUNT);	/* a header, one line per engine */
}
END_TEST

START_TEST(no_context)
{
	ck_assert_str_eq(cat_ok("command_submission"), "no compute context");
	ck_assert_str_eq(cat_ok("command_buffers"), "no compute context");
	ck_assert_str_eq(cat_ok("userptr"), "no compute context");
	ck_assert_ptr_nonnull(strstr(cat_ok("mmu"), "no address space"));
	ck_assert_ptr_nonnull(strstr(cat_ok("state_dump"), "context: none"));
}
END_TEST

START_TEST(context_listings)
{
	char want[128];
	struct host_buf host;
	struct test_cb cb;

	cb_create_ok(dev_fd, &cb, 12288);
	host_buf_map_ok(dev_fd, &host, 3 * 4096);

	snprintf(want, sizeof(want), "pid %d asid ", (int)getpid());
	ck_assert_msg(strstr(cat_ok("command_submission"), want) != NULL, "%s", text);
	ck_assert_msg(strstr(cat_ok("command_buffers"), "  12288  ") != NULL, "%s", text);
	snprintf(want, sizeof(want), "0x%016" PRIx64 "  12288 ", host.va);
	ck_assert_msg(strstr(cat_ok("userptr"), want) != NULL, "no '%s' in:\n%s", want, text);
	snprintf(want, sizeof(want), "context: pid %d ", (int)getpid());
	ck_assert_msg(strstr(cat_ok("state_dump"), want) != NULL, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "status: operational"));
	ck_assert_ptr_nonnull(strstr(text, "telemetry: power "));

	host_buf_release(dev_fd, &host);
	cb_destroy_ok(dev_fd, &cb);
	ck_assert_msg(strstr(cat_ok("command_buffers"), "  12288  ") == NULL, "%s", text);
}
END_TEST

/* Physical address of a byte of this process (root reads real PFNs). */
static uint64_t phys_addr_ok(const void *p)
{
	uint64_t entry, va = (uint64_t)(uintptr_t)p;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &entry, sizeof(entry), (off_t)(va / page * 8)), 8);
	close(fd);
	ck_assert_msg(entry >> 63, "page not present");
	return (entry & ((1ULL << 55) - 1)) * page + va % page;
}

START_TEST(mmu_walk)
{
	char va[32], want[64];
	struct host_buf host;
	const char *pa;

	host_buf_map_ok(dev_fd, &host, 2 * 4096);
	snprintf(va, sizeof(va), "0x%" PRIx64, host.va + 4096 + 0x123);
	ck_assert_int_eq(write_text(file("mmu"), va), 0);
	cat_ok("mmu");
	ck_assert_msg(strstr(text, "hop4 ") != NULL, "%s", text);
	pa = strstr(text, "pa 0x");
	ck_assert_msg(pa != NULL, "no translation in:\n%s", text);
	/* No IOMMU in the guest: the bus address is the physical address. */
	snprintf(want, sizeof(want), "pa 0x%" PRIx64 " (4 KiB page, writable)",
		 phys_addr_ok(host.ptr + 4096 + 0x123));
	ck_assert_msg(strstr(text, want) != NULL, "no '%s' in:\n%s", want, text);

	/* A VA past the mapping and its guard page is not mapped. */
	snprintf(va, sizeof(va), "0x%" PRIx64, host.va + (uint64_t)(64 * MiB));
	ck_assert_int_eq(write_text(file("mmu"), va), 0);
	ck_assert_msg(strstr(cat_ok("mmu"), "not mapped") != NULL, "%s", text);
	host_buf_release(dev_fd, &host);
}
END_TEST

/* An internal DMA from an unmapped VA raises an MMU fault event. */
START_TEST(events_recorded)
{
	const uint64_t unmapped = (uint64_t)(GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE - 16 * MiB);
	uint8_t icb_mem[256];
	struct hlthunk_cb_writer icb;
	struct hbm_buf hbm;
	uint32_t status;
	char want[64];
	int i;

	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	hlthunk_cbw_init(&icb, icb_mem, sizeof(icb_mem));
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&icb, unmapped, hbm.addr, 4096, 0, 0), 0);
	ck_assert_int_eq(run_internal_cb(&icb, hbm.addr + 3 * MiB, GAUDISIM_QUEUE_ID_DMA_2_0,
					 QUEUE_H2D, GAUDISIM_SYNC_FIRST_USER_SOB,
					 GAUDISIM_SYNC_FIRST_USER_MON, &status), -EIO);
	snprintf(want, sizeof(want), "0x%016" PRIx64, unmapped);
	/* The event queue is drained by its interrupt thread: give it a moment. */
	for (i = 0; i < 100 && !strstr(cat_ok("events"), "MMU fault"); i++)
		sleep_ms(20);
	ck_assert_msg(strstr(text, "MMU fault") != NULL, "no MMU fault in:\n%s", text);
	ck_assert_msg(strstr(text, want) != NULL, "no fault address %s in:\n%s", want, text);
	ck_assert_ptr_null(strstr(text, "heartbeat"));
}
END_TEST

/* Write text to a sysfs file of the PCI core (asserting). */
static void pci_write_ok(const char *path, const char *text)
{
	int rc = write_text(path, text);

	ck_assert_msg(rc == 0, "write %s to %s: %s", text, path, strerror(-rc));
}

/*
 * Files held open while the driver lets go of the device: reads fail
 * cleanly instead of touching freed state, and the device comes back.
 */
START_TEST(open_files_across_unbind)
{
	char link[PATH_LEN], target[PATH_LEN], hwmon[PATH_LEN], p[PATH_LEN + 32];
	const char *pci;
	int fds[3], i;
	ssize_t n;

	dev_attr_path(link, sizeof(link), "");
	link[strlen(link) - 1] = '\0';
	n = readlink(link, target, sizeof(target) - 1);
	ck_assert_int_gt(n, 0);
	target[n] = '\0';
	pci = strrchr(target, '/') + 1;

	fds[0] = open(file("state_dump"), O_RDONLY);
	fds[1] = open(file("data32"), O_RDWR);
	hwmon_dir_ok(hwmon, sizeof(hwmon));
	join_path(p, sizeof(p), hwmon, "temp1_input");
	fds[2] = open(p, O_RDONLY);
	for (i = 0; i < 3; i++)
		ck_assert_int_ge(fds[i], 0);

	pci_write_ok("/sys/bus/pci/drivers/gaudisim/unbind", pci);
	for (i = 0; i < 3; i++) {
		ck_assert_int_lt(pread(fds[i], text, sizeof(text), 0), 0);
		close(fds[i]);
	}
	pci_write_ok("/sys/bus/pci/drivers/gaudisim/bind", pci);
	for (i = 0; i < 100 && access("/dev/accel/accel_controlD0", F_OK); i++)
		sleep_ms(50);
	debugfs_dir_ok(dir, sizeof(dir));
	ck_assert_ptr_nonnull(strstr(cat_ok("state_dump"), "status: operational"));
	device_works_ok();
}
END_TEST

START_TEST(root_only)
{
	ck_assert_int_eq(open_errno_as_nobody(file(files[_i]), O_RDONLY), EACCES);
}
END_TEST

static Suite *debugfs_suite(void)
{
	Suite *s = suite_create("debugfs");
	TCase *plain = fixture_tcase("device", debugfs_setup, NULL, TCASE_TIMEOUT_DMA);
	TCase *ctx = fixture_tcase("context", compute_debugfs_setup, compute_teardown,
				   TCASE_TIMEOUT_DMA);
	TCase *unbind;
	int n = (int)(sizeof(files) / sizeof(files[0]));

	tcase_add_loop_test(plain, files_present, 0, n);
	tcase_add_test(plain, index_link_is_the_device_folder);
	tcase_add_test(plain, hl_link_is_the_device_folder);
	tcase_add_test(plain, pread_at_offsets);
	tcase_add_test(plain, clk_gate_reads_no_gating);
	tcase_add_test(plain, peek_registers);
	tcase_add_test(plain, poke_register);
	tcase_add_loop_test(plain, bad_address_refused, 0,
			    (int)(sizeof(bad_addrs) / sizeof(bad_addrs[0])));
	tcase_add_test(plain, bad_values_refused);
	tcase_add_test(plain, engines_listed);
	tcase_add_test(plain, no_context);
	tcase_add_loop_test(plain, root_only, 0, n);
	tcase_add_test(ctx, peek_poke_hbm);
	tcase_add_test(ctx, peek_poke_sram);
	tcase_add_test(ctx, peek_poke_host_va);
	tcase_add_test(ctx, context_listings);
	tcase_add_test(ctx, mmu_walk);
	tcase_add_test(ctx, events_recorded);
	suite_add_tcase(s, plain);
	suite_add_tcase(s, ctx);
	/* Last: the device is unbound and bound again. */
	unbind = fixture_tcase("unbind", debugfs_setup, NULL, TCASE_TIMEOUT_DMA);
	tcase_add_test(unbind, open_files_across_unbind);
	suite_add_tcase(s, unbind);
	return s;
}

int main(void)
{
	return run_suite(debugfs_suite());
}
