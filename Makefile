# gaudisim top-level build.
#
#   make run     set up everything on first need, boot the VM, train the seed model
#   make test    set up everything on first need, run every test suite
#   make vm      interactive shell in the guest (driver loaded, hl-smi on PATH);
#                GAUDISIM_ROOTFS=debian: in the Debian userland (python3, PyTorch)
#   make run-torch  boot the Debian userland, train the seed PyTorch script on the hpu
#   make bench   benchmarks (ratios against references measured in the same run)
#
# Every step is incremental: set-up steps keep stamps in build/stamps,
# QEMU is built once in build/qemu and rebuilt by ninja only where the
# device sources changed, the module and user space rebuild on change.

SHELL := /bin/bash
TOP := $(abspath .)
B := $(TOP)/build
CC ?= cc
JOBS ?= 2

KVER = $(shell cat $(B)/guest-kernel/version 2>/dev/null)
KDIR = $(B)/guest-kernel/root/usr/src/linux-headers-$(KVER)

CFLAGS_HOST := -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(TOP)/include -I$(TOP)/qemu-device/core
# The MME runs FP32 GEMMs through the host's OpenBLAS.
CORE_LIBS = -DGSIM_HAVE_OPENBLAS $$(pkg-config --cflags --libs openblas) -lm
CORE_SRCS := $(wildcard qemu-device/core/*.c)
# The TPC assembler library (runtime/tpc), linked into the unit tests.
TPC_ASM_SRCS := runtime/tpc/tpc_asm.c runtime/tpc/tpc_isa.c
CORE_HDRS := $(wildcard qemu-device/core/*.h) $(wildcard include/hw/*.h)
# The reference ops the tests and benchmarks check the device against.
REF_SRCS := $(wildcard tests/ref/*.c)
REF_FLAGS := -I$(TOP)/tests/ref

GUEST_ROOT := $(B)/guest-root
INITRAMFS := $(B)/vm/initramfs.cpio
MODULE := $(B)/kernel/gaudisim.ko
QEMU := $(B)/qemu/qemu-system-x86_64

.PHONY: all setup qemu module user initramfs vm-deps run vm test bench bench-build fuzz clean data lint \
	test-unit test-host test-runtime test-trainer test-fuzz test-qtest test-guest FORCE
.PHONY: mpi-test pytorch debian run-torch test-torch-host

all: vm-deps

# ---- set-up (packages, QEMU source, guest kernel): stamps in build/stamps
setup: $(B)/stamps/setup-done
$(B)/stamps/setup-done: scripts/setup.sh
	@bash scripts/setup.sh
	@touch $@

# ---- QEMU with the gaudisim device (ninja decides what to rebuild)
qemu: setup
	@bash scripts/build-qemu.sh

# ---- kernel module, built out of the source tree in build/kernel
KERNEL_SRCS := $(wildcard kernel/*.c kernel/*.h) kernel/Kbuild
module: $(MODULE)
$(MODULE): $(KERNEL_SRCS) $(wildcard include/hw/*.h include/uapi/drm/*.h) | setup
	@mkdir -p $(B)/kernel
	@ln -sfn ../include $(B)/include
	@for f in $(KERNEL_SRCS); do ln -sf $(TOP)/$$f $(B)/kernel/; done
	$(MAKE) -C $(KDIR) M=$(B)/kernel modules

# ---- user space: libhlthunk, hl-smi, apps and the guest test suite
user: setup
	$(MAKE) -C libhlthunk O=$(B)/libhlthunk
	$(MAKE) -C runtime/tpc O=$(B)/runtime/tpc
	$(MAKE) -C runtime O=$(B)/runtime
	$(MAKE) -C smi O=$(B)/smi
	$(MAKE) -C apps O=$(B)/apps
	$(MAKE) -C apps/hl-train O=$(B)/apps
	$(MAKE) -C apps/hl-trials O=$(B)/apps
	$(MAKE) -C tests/guest O=$(B)/tests/guest
	@bash scripts/stage-guest.sh $(GUEST_ROOT)

# ---- training data (MNIST, Fashion-MNIST) in build/share/data, fetched once
data: $(B)/stamps/data-mnist $(B)/stamps/data-fashion-mnist
$(B)/stamps/data-%: | setup
	@bash scripts/fetch-data.sh $*

# ---- guest initramfs
initramfs: $(INITRAMFS)
$(INITRAMFS): $(MODULE) user scripts/mkinitramfs.sh scripts/guest/init FORCE
	@if [ ! -e $@ ] || [ -n "$$(find $(MODULE) $(GUEST_ROOT) scripts/mkinitramfs.sh scripts/guest/init -newer $@ -print -quit)" ]; then \
		echo "  INITRAMFS $@"; bash scripts/mkinitramfs.sh $(MODULE) $(GUEST_ROOT) $@; fi

vm-deps: qemu initramfs

# ---- the hpu bridge for PyTorch (runtime/pytorch) and the Debian userland
pytorch: user
	$(MAKE) -C runtime/pytorch O=$(B)/pytorch
debian: vm-deps pytorch
	@bash scripts/stage-debian.sh

# ---- the main job
# The main job: train the seed model on MNIST on the device (train-demo).
run: vm-deps data
	@bash scripts/vm.sh run -t 900 -- 'train-demo'

# The seed recipe as a PyTorch script, on the hpu in the Debian userland.
run-torch: debian data
	@GAUDISIM_ROOTFS=debian bash scripts/vm.sh run -t 3600 -- \
		'hl-smi -l 60 & python3 /usr/share/gaudisim/examples/pytorch/hello_world.py; rc=$$?; kill $$!; exit $$rc'

vm: $(if $(filter debian,$(GAUDISIM_ROOTFS)),debian,vm-deps)
	@bash scripts/vm.sh shell

# Two guests of eight devices under OpenMPI's mpirun, cabled NIC to NIC.
mpi-test: vm-deps
	@bash scripts/mpi-job.sh

# ---- tests
UNIT_DEPS := $(CORE_SRCS) $(CORE_HDRS) $(REF_SRCS) $(wildcard tests/ref/*.h) \
	$(wildcard tests/unit/*.c tests/unit/*.h runtime/tpc/*.[ch] tests/lib/*.[ch])
UNIT_BUILD = $(CC) $(CFLAGS_HOST) $(REF_FLAGS) -I$(TOP)/runtime/tpc -o $@ $(CORE_SRCS) $(REF_SRCS) \
	$(TPC_ASM_SRCS) -I$(TOP)/tests/lib tests/lib/check_runner.c $(wildcard tests/unit/*.c) \
	$$(pkg-config --cflags --libs check)
$(B)/tests/unit-core: $(UNIT_DEPS) | setup
	@mkdir -p $(dir $@)
	$(UNIT_BUILD) $(CORE_LIBS)
# The same tests on the MME's portable kernels (QEMU built without OpenBLAS).
$(B)/tests/unit-core-portable: $(UNIT_DEPS) | setup
	@mkdir -p $(dir $@)
	$(UNIT_BUILD) -lm

test-unit: $(B)/tests/unit-core $(B)/tests/unit-core-portable
# Relative spelling of the same target, for convenience.
build/tests/unit-core: $(B)/tests/unit-core
test-host: setup
	$(MAKE) -C tests/host O=$(B)/tests/host
# libhlrt's host tests: compiler, kernels and launch on the in-process device core.
test-runtime: setup
	$(MAKE) -C tests/runtime O=$(B)/tests/runtime
# The trainers' host tests (IDX, model files, safetensors, CPU reference).
test-trainer: setup
	$(MAKE) -C tests/trainer O=$(B)/tests/trainer APPS_O=$(B)/apps
# The fuzz suite needs Debian's clang with libFuzzer: checked on every run.
test-fuzz: setup
	@bash scripts/setup.sh packages
test-qtest: qemu
test-guest: vm-deps data debian
# The hpu bridge's host tests: the extension on the in-process device core.
test-torch-host: pytorch
	$(MAKE) -C tests/pytorch O=$(B)/tests/pytorch

test: test-unit test-host test-runtime test-trainer test-torch-host test-fuzz test-qtest test-guest
	@bash scripts/run-tests.sh

# checkpatch --strict and sparse on the kernel module (a suite of make test).
lint: setup
	@bash scripts/lint.sh

# Long fuzzing runs (FUZZ_SECONDS per harness, default 600).
fuzz: setup
	@bash scripts/run-fuzz.sh long $${FUZZ_SECONDS:-600}

# Host benchmarks: the device core through its queues (bench_dev.c), the
# reference ops, the TPC assembler. mme-bench-portable is mme-bench on the
# MME's portable kernels (the reference stays OpenBLAS).
BENCH_HOST := $(B)/bench/mme-bench $(B)/bench/mme-bench-portable $(B)/bench/tpc-bench \
	$(B)/bench/hbm-touch $(B)/bench/host-memcpy $(B)/bench/conv-bench
BENCH_LIB := tests/bench/bench_dev.c tests/bench/bench_ref.c tests/bench/bench_stats.c
BENCH_DEPS := $(BENCH_LIB) $(wildcard tests/bench/*.h) $(CORE_SRCS) $(CORE_HDRS) $(REF_SRCS) \
	$(TPC_ASM_SRCS)
BENCH_BUILD = $(CC) $(CFLAGS_HOST) $(REF_FLAGS) -pthread -I$(TOP)/runtime/tpc -o $@ $< \
	$(BENCH_LIB) $(CORE_SRCS) $(REF_SRCS) $(TPC_ASM_SRCS)
$(B)/bench/mme-bench-portable: tests/bench/mme-bench.c $(BENCH_DEPS) | setup
	@mkdir -p $(dir $@)
	$(BENCH_BUILD) $$(pkg-config --cflags --libs openblas) -lm
$(B)/bench/%: tests/bench/%.c $(BENCH_DEPS) | setup
	@mkdir -p $(dir $@)
	$(BENCH_BUILD) $(CORE_LIBS)

# The host benchmark programs alone (lint checks they still build).
bench-build: $(BENCH_HOST)

bench: vm-deps $(BENCH_HOST)
	@bash scripts/bench.sh

clean:
	rm -rf $(B)/kernel $(B)/libhlthunk $(B)/smi $(B)/apps $(B)/tests $(B)/guest-root $(B)/vm \
		$(B)/pytorch $(B)/guest-debian

FORCE:
