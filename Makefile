# mvgal: top-level build.
#
#   make            the product only: mvgal.ko (for KDIR), libmvgal, mvgal-info,
#                   the examples, mvgal-vkexec; needs only the build
#                   dependencies (tools/build-deps.sh installs them)
#   make tests      the test programs (fetches the test bed: tools/deps.sh)
#   make check      everything the CI runs (installs what it needs)
#   make demo       boot the test guest and show mvgal-info there
#   make lint       sparse + checkpatch --strict over kernel/ and include/, the layering rule
#   make bench      benchmarks (ratios measured in the guest)
#   make fuzz       the fuzzer on the debug kernel (FUZZ_SECONDS, FUZZ_ARGS)
#   make fuzz-long  make check's fuzzer and stress lanes at their long sizes, the stand-in pass on the debug kernel
#   make install    libmvgal, headers, mvgal-info, mvgal-vkexec, config,
#                   systemd unit, documentation (builds no test)
#   make install-dkms  the module's source for DKMS
#
# KDIR selects the kernel headers; default: the running kernel's if they
# are installed, else Debian's 6.12 headers, else the newest installed.

VERSION   := 0.1.0
SOVERSION := 0
TOP       := $(CURDIR)
B         := $(TOP)/build
CACHE     := $(B)/cache

# The guest kernel: the 6.12 version tools/deps.sh fetched (same as the
# installed 6.12 headers).
GUEST_KVER := $(shell cat $(CACHE)/kver 2>/dev/null || \
	ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
KVER_61    := $(shell ls -d /usr/src/linux-headers-6.1.0-*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
GUEST_KDIR := /lib/modules/$(GUEST_KVER)/build
KDIR_61    := /lib/modules/$(KVER_61)/build
RUN_KDIR   := /lib/modules/$(shell uname -r)/build
NEWEST_KDIR := $(shell for d in /lib/modules/*/build; do [ -f "$$d/Makefile" ] && echo "$$d"; done | sort -V | tail -n 1)
KDIR       ?= $(if $(wildcard $(RUN_KDIR)/Makefile),$(RUN_KDIR),$(if $(wildcard $(GUEST_KDIR)/Makefile),$(GUEST_KDIR),$(NEWEST_KDIR)))

CC       ?= cc
CFLAGS   ?= -O2 -g
WFLAGS   := -Wall -Wextra -Werror -Wno-unused-parameter
# kselftest_harness.h is written for -Wall only.
WFLAGS_T := -Wall -Werror
DRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null)
DRM_LIBS   := $(shell pkg-config --libs libdrm 2>/dev/null || echo -ldrm)
URING_LIBS := $(shell pkg-config --libs liburing 2>/dev/null || echo -luring)
CPPFLAGS_U := -D_GNU_SOURCE -I$(TOP)/include -I$(TOP)/include/uapi -I$(TOP)/kernel $(DRM_CFLAGS)
HARNESS    := $(CACHE)/src/tools/testing/selftests

LIB_SRCS := lib/mvgal.c lib/config.c lib/gpu.c lib/bo.c lib/count.c lib/error.c lib/session.c lib/ring.c lib/watch.c kernel/core/mvgal_conf.c kernel/core/mvgal_path.c kernel/core/mvgal_chunk.c kernel/core/mvgal_evict.c kernel/core/mvgal_predict.c kernel/core/mvgal_mirror.c
LIB_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRCS))
LIB_SO   := $(B)/lib/libmvgal.so.$(VERSION)
LIB_A    := $(B)/lib/libmvgal.a
PC       := $(B)/lib/mvgal.pc
INFO     := $(B)/bin/mvgal-info
EXAMPLE  := $(B)/bin/mvgal-example
RING_EX  := $(B)/bin/mvgal-ring
VULKAN   := $(B)/bin/mvgal-vulkan
VKEXEC   := $(B)/bin/mvgal-vkexec
VK_ROOT  := $(B)/vm/vulkan
VK_LIBS  := $(shell pkg-config --libs vulkan 2>/dev/null || echo -lvulkan)
SPV_H    := $(B)/gen/mvgal-transform.spv.h $(B)/gen/mvgal-reduce.spv.h
UNIT     := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(wildcard tests/unit/test_*.c)) \
	    $(B)/tests/unit/test_abi_v1
SELF     := $(patsubst tests/selftests/%.c,$(B)/tests/selftests/%,$(wildcard tests/selftests/*_test.c)) \
	    $(B)/tests/selftests/abi_test
BENCH    := $(B)/tests/bench/mvgal_bench
VKBENCH  := $(B)/tests/bench/mvgal_vkbench
FUZZ     := $(B)/tests/fuzz/mvgal_fuzz
STRESS   := $(B)/tests/stress/mvgal_stress
HDRS     := $(wildcard include/mvgal/*.h include/uapi/drm/*.h kernel/core/*.h lib/*.h)

# tools/build-module.sh runs the kernel's make, which under `make -jN`
# finds the jobserver's descriptors closed (its rule is not a recursive
# make: `make -n` must not run it) and warns, and build-module.sh fails on
# any warning: it runs without the jobserver, with -jN of its own.
BUILD_MODULE = MAKEFLAGS='$(filter-out --jobserver-auth=% --jobserver-fds=%,$(MAKEFLAGS))' tools/build-module.sh

KMOD_DIR  = $(B)/kmod/$(subst /,_,$(patsubst /%,%,$(1)))
MODULE    := $(call KMOD_DIR,$(KDIR))/mvgal.ko
GUEST_KO  := $(call KMOD_DIR,$(GUEST_KDIR))/mvgal.ko
# The test bed's VRAM stand-in GPU (tests/vram), built for the guest only.
GUEST_VRAM := $(call KMOD_DIR,$(GUEST_KDIR))-vram/mvgal_vram.ko
# Its software memcpy DMA engine (tests/dmaeng), likewise.
GUEST_DMAENG := $(call KMOD_DIR,$(GUEST_KDIR))-dmaeng/mvgal_dmaeng.ko
INITRAMFS := $(B)/vm/initramfs.cpio

prefix     ?= /usr
libdir     ?= $(prefix)/lib/$(shell $(CC) -print-multiarch 2>/dev/null)
includedir ?= $(prefix)/include
bindir     ?= $(prefix)/bin
docdir     ?= $(prefix)/share/doc/mvgal
DESTDIR    ?=

.PHONY: all module userspace tests build-deps deps check demo lint bench fuzz fuzz-long vm vm-debug \
	debug-kernel install \
	install-dkms dkms-check clean FORCE
.SECONDARY:

# The product only: nothing reachable from here or from install may run
# tools/deps.sh or need what only it provides (the kselftest harness, QEMU,
# busybox, backported Mesa); tests/host/test_install.sh checks that.
all: module userspace

# The product's build dependencies (root; tools/build-deps.sh --dkms for DKMS too).
build-deps:
	@tools/build-deps.sh

# The test bed's, the product's included.
deps:
	@tools/deps.sh

module: FORCE
	@[ -f "$(KDIR)/Makefile" ] || { echo "make: no kernel headers at '$(KDIR)': install them (tools/build-deps.sh) or set KDIR" >&2; exit 1; }
	@$(BUILD_MODULE) $(KDIR) $(call KMOD_DIR,$(KDIR))
	@echo "  KO      $(MODULE)"

userspace: $(LIB_SO) $(LIB_A) $(PC) $(INFO) $(EXAMPLE) $(RING_EX) $(VULKAN) $(VKEXEC)

tests: $(UNIT) $(SELF) $(BENCH) $(VKBENCH) $(FUZZ) $(STRESS)

$(B)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -fPIC -fvisibility=hidden -c $< -o $@

$(LIB_SO): $(LIB_OBJS) lib/libmvgal.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libmvgal.so.$(SOVERSION) \
		-Wl,--version-script=lib/libmvgal.map -Wl,--no-undefined \
		-o $@ $(LIB_OBJS) $(DRM_LIBS) $(URING_LIBS)
	ln -sf libmvgal.so.$(VERSION) $(B)/lib/libmvgal.so.$(SOVERSION)
	ln -sf libmvgal.so.$(SOVERSION) $(B)/lib/libmvgal.so

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(PC): lib/mvgal.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@prefix@|$(prefix)|' -e 's|@libdir@|$(libdir)|' \
	    -e 's|@includedir@|$(includedir)|' -e 's|@VERSION@|$(VERSION)|' $< >$@

$(INFO): tools/mvgal-info/mvgal-info.c $(LIB_SO) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS)

$(EXAMPLE): tools/examples/mvgal-example.c $(LIB_SO) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS)

$(RING_EX): tools/examples/mvgal-ring.c $(LIB_SO) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS)

# The Vulkan example's compute shaders, compiled to SPIR-V as C arrays.
$(B)/gen/%.spv.h: tools/examples/%.comp
	@mkdir -p $(dir $@)
	glslangValidator -V --target-env vulkan1.1 --vn $(subst -,_,$*)_spv -o $@ $<

$(VULKAN): tools/examples/mvgal-vulkan.c $(SPV_H) $(LIB_SO) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -I$(B)/gen -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS) $(VK_LIBS)

$(HARNESS)/kselftest_harness.h:
	@tools/deps.sh

# Unit tests link the static library, so they reach the core directly.
$(B)/tests/unit/%: tests/unit/%.c $(LIB_A) $(HDRS) $(HARNESS)/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS_T) $(CPPFLAGS_U) -I$(HARNESS) -DMVGAL_TOP=\"$(TOP)\" -o $@ $< $(LIB_A) $(DRM_LIBS) $(URING_LIBS)

# Guest selftests link the shared library, as applications do.
$(BENCH): tests/bench/mvgal_bench.c tests/bench/bench_time.h tests/common/write_param.h tests/selftests/standin.h tests/vram/mvgal_vram_drm.h $(LIB_SO) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS)

# The copy executor on a GPU's own copy engine, through Vulkan.
$(VKEXEC): tools/vkexec/mvgal-vkexec.c $(LIB_SO) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS) $(VK_LIBS) -lpthread

# The Vulkan round trip shares the example's code.
$(VKBENCH): tests/bench/mvgal_vkbench.c tests/bench/bench_time.h tools/examples/mvgal-vulkan.c $(SPV_H) $(LIB_SO) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -I$(B)/gen -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS) $(VK_LIBS)

# The fuzzer needs only libdrm, liburing and the uapi: it makes the calls itself.
$(FUZZ): tests/fuzz/mvgal_fuzz.c tests/common/rand.h $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -o $@ $< $(DRM_LIBS) -luring -lpthread

$(STRESS): tests/stress/mvgal_stress.c tests/common/rand.h tests/common/scm_fd.h $(LIB_SO) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS_U) -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS)

$(B)/tests/selftests/%: tests/selftests/%.c $(LIB_SO) $(HDRS) $(wildcard tests/selftests/*.h tests/common/*.h tests/vram/*_drm.h) $(HARNESS)/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS_T) $(CPPFLAGS_U) -I$(HARNESS) -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS) $(URING_LIBS)

# Programs as they were built against ABI 1: the stored headers of that
# version (tests/abi/v1), none of today's, and today's libmvgal.so.
CPPFLAGS_V1 := -D_GNU_SOURCE -I$(TOP)/tests/abi/v1 $(DRM_CFLAGS) -I$(HARNESS)
ABI_DEPS    := tests/abi/abi.h lib/abi_v1.h $(wildcard tests/abi/v1/*/*.h) $(LIB_SO) $(HARNESS)/kselftest_harness.h

$(B)/tests/unit/test_abi_v1: tests/abi/abi_host_test.c $(ABI_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS_T) $(CPPFLAGS_V1) -o $@ $< -L$(B)/lib -Wl,-rpath,$(B)/lib -lmvgal $(DRM_LIBS)

$(B)/tests/selftests/abi_test: tests/abi/abi_test.c $(ABI_DEPS) $(wildcard tests/selftests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS_T) $(CPPFLAGS_V1) -o $@ $< -L$(B)/lib -lmvgal $(DRM_LIBS)

guest-module: FORCE
	@$(BUILD_MODULE) $(GUEST_KDIR) $(call KMOD_DIR,$(GUEST_KDIR))
	@$(BUILD_MODULE) --vram $(GUEST_KDIR) $(dir $(GUEST_VRAM))
	@$(BUILD_MODULE) --dmaeng $(GUEST_KDIR) $(dir $(GUEST_DMAENG))

GUEST_FILES = \
	/usr/lib/x86_64-linux-gnu/libmvgal.so.$(SOVERSION)=$(LIB_SO) \
	/usr/bin/mvgal-info=$(INFO) \
	/usr/bin/mvgal-example=$(EXAMPLE) \
	/usr/bin/mvgal-ring=$(RING_EX) \
	$(foreach t,$(SELF) $(BENCH) $(FUZZ) $(STRESS),/usr/libexec/mvgal/$(notdir $(t))=$(t)) \
	$(foreach t,$(wildcard tests/selftests/*.sh),/usr/libexec/mvgal/$(notdir $(t))=$(TOP)/$(t)) \
	/usr/libexec/mvgal/vulkan/vulkan_test.sh=$(TOP)/tests/vulkan/vulkan_test.sh \
	/usr/libexec/mvgal/vulkan/as-user.sh=$(TOP)/tests/vulkan/as-user.sh

vm: guest-module userspace tests
	@mkdir -p $(B)/vm
	@tools/vm/mkinitramfs.sh $(INITRAMFS) $(GUEST_KVER) $(CACHE)/guest $(GUEST_KO):$(GUEST_VRAM):$(GUEST_DMAENG) $(GUEST_FILES)
	@tools/vm/vulkan-root.sh $(VK_ROOT) $(VULKAN) $(VKBENCH) $(VKEXEC)

# The debug guest kernel (built once per machine, cached outside the tree)
# and the guest image for it: mvgal.ko built against that kernel's tree.
debug-kernel: FORCE
	@tools/vm/debug-kernel.sh >/dev/null

vm-debug: userspace tests
	@dk=$$(tools/vm/debug-kernel.sh) && \
	$(BUILD_MODULE) $$dk/build $(B)/kmod/debug && \
	$(BUILD_MODULE) --vram $$dk/build $(B)/kmod/debug-vram && \
	$(BUILD_MODULE) --dmaeng $$dk/build $(B)/kmod/debug-dmaeng && \
	mkdir -p $(B)/vm && \
	tools/vm/mkinitramfs.sh $(B)/vm/initramfs-debug.cpio $$(cat $$dk/kver) \
		$$dk/modroot $(B)/kmod/debug/mvgal.ko:$(B)/kmod/debug-vram/mvgal_vram.ko:$(B)/kmod/debug-dmaeng/mvgal_dmaeng.ko $(GUEST_FILES)

# make fuzz [FUZZ_SECONDS=N] [FUZZ_SEED=N] [FUZZ_ARGS=...]: the fuzzer in
# the debug guest, the VRAM stand-ins' pools attached too; any kernel
# report or leak fails it (tools/vm/run).
FUZZ_SECONDS ?= 300
FUZZ_SEED    ?= $(shell date +%s)
fuzz: vm-debug
	@MVGAL_VM_NOBUILD=1 MVGAL_VM_ALLOW='$(FUZZ_ALLOW)' tools/vm/run --debug-kernel \
		--file tests/fuzz/guest.conf:/etc/mvgal/mvgal.conf \
		--timeout $$(( $(FUZZ_SECONDS) + 900 )) -- sh -c \
		'modprobe mvgal_vram; mvgal-info --attach >/dev/null 2>&1; chmod 666 /dev/dri/*; /usr/libexec/mvgal/mvgal_fuzz --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) $(FUZZ_ARGS)'

# make fuzz-long: the fuzzer and stress lanes make check ran before it
# made them shorter (fuzzer seeds 1, 2 and 3 at 20,000 calls, seed 3 with
# 5% fault injection; stress 60 s), each in a debug guest boot of its own,
# one TAP line each, then every selftest's stand-in pass on the debug kernel
# (tests/fuzz/fuzz-long.sh; about 22 minutes on 2 cores).
fuzz-long: vm-debug
	@tests/fuzz/fuzz-long.sh

# The one kernel report outside mvgal that fault injection, and the VRAM
# stand-ins' xe mode, cause: dma_buf_vmap() warns when an exporter's vmap
# fails.
FUZZ_ALLOW := at drivers/dma-buf/dma-buf.c:[0-9]+ dma_buf_vmap\+

lint: FORCE
	@tools/lint.sh

dkms-check: vm FORCE
	@MVGAL_VM_NOBUILD=1 tools/dkms-check.sh $(VERSION) $(GUEST_KVER)

check: deps
	@$(MAKE) --no-print-directory all tests vm
	@tests/run-check.sh

demo: deps
	@$(MAKE) --no-print-directory -s userspace vm
	@MVGAL_VM_NOBUILD=1 tools/vm/run --vulkan -- sh -c 'echo "# guest: $$(uname -r), DRM nodes: $$(ls /dev/dri | tr "\n" " ")"; echo "# mvgal-info --attach (the boot step: attach every GPU, then report)"; mvgal-info --attach; echo; echo "# mvgal-example (tools/examples/mvgal-example.c)"; mvgal-example; echo; echo "# mvgal-ring (tools/examples/mvgal-ring.c: 64 migrations and sessions through one io_uring)"; mvgal-ring; echo; echo "# mvgal-vulkan (tools/examples/mvgal-vulkan.c: Vulkan compute on two GPUs through placement exports; lavapipe stands in for each GPU and imports by mmap, which the virtio-gpus exports lack: the VRAM stand-ins are loaded and attached for it), as an ordinary user"; modprobe mvgal_vram && mvgal-info --attach >/dev/null; sh /usr/libexec/mvgal/vulkan/as-user.sh sh -c "echo \"# uid \$$(id -u)\"; /opt/vulkan/run mvgal-vulkan"; echo; echo "# mvgal-info --json"; mvgal-info --json'

bench: deps
	@$(MAKE) --no-print-directory all tests vm
	@MVGAL_VM_NOBUILD=1 MVGAL_VM_BENCH=1 tools/vm/run --vulkan --timeout 1500 -- sh -c \
		"/usr/libexec/mvgal/mvgal_bench && modprobe mvgal_vram && mvgal-info --attach >/dev/null && /opt/vulkan/run mvgal_vkbench && /opt/vulkan/run mvgal_vkbench --pwrite"

# README.md refers to the docs as docs/*.md: they keep that path.
DOCS := $(wildcard docs/*.md)

install: userspace
	install -d $(DESTDIR)$(libdir)/pkgconfig $(DESTDIR)$(includedir)/mvgal/drm \
		$(DESTDIR)$(bindir) $(DESTDIR)/etc/mvgal
	install -m 0755 $(LIB_SO) $(DESTDIR)$(libdir)/
	ln -sf libmvgal.so.$(VERSION) $(DESTDIR)$(libdir)/libmvgal.so.$(SOVERSION)
	ln -sf libmvgal.so.$(SOVERSION) $(DESTDIR)$(libdir)/libmvgal.so
	install -m 0644 $(LIB_A) $(DESTDIR)$(libdir)/
	install -m 0644 $(PC) $(DESTDIR)$(libdir)/pkgconfig/
	install -m 0644 include/mvgal/mvgal.h $(DESTDIR)$(includedir)/mvgal/
	install -m 0644 include/uapi/drm/mvgal_drm.h $(DESTDIR)$(includedir)/mvgal/drm/
	install -m 0755 $(INFO) $(VKEXEC) $(DESTDIR)$(bindir)/
	[ -e $(DESTDIR)/etc/mvgal/mvgal.conf ] || install -m 0644 etc/mvgal.conf $(DESTDIR)/etc/mvgal/
	install -d $(DESTDIR)/lib/systemd/system $(DESTDIR)/etc/modules-load.d
	install -m 0644 etc/systemd/mvgal-attach.service $(DESTDIR)/lib/systemd/system/
	install -m 0644 etc/modules-load.d/mvgal.conf $(DESTDIR)/etc/modules-load.d/
	install -d $(DESTDIR)$(docdir)/docs
	install -m 0644 README.md $(DESTDIR)$(docdir)/
	$(if $(DOCS),install -m 0644 $(DOCS) $(DESTDIR)$(docdir)/docs/)
	@if [ -z "$(DESTDIR)" ]; then ldconfig || echo "install: ldconfig failed: run it as root" >&2; fi

install-dkms:
	install -d $(DESTDIR)/usr/src/mvgal-$(VERSION)
	cp -R Kbuild dkms.conf kernel include $(DESTDIR)/usr/src/mvgal-$(VERSION)/

clean:
	rm -rf $(B)/obj $(B)/lib $(B)/bin $(B)/tests $(B)/kmod $(B)/vm $(B)/lint

FORCE:
