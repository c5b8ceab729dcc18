// SPDX-License-Identifier: GPL-2.0
/*
 * DMA-BUF sharing: export to vgem (a real importer), the sharing modes,
 * and import of vgem, virtio-gpu and system dma-heap buffers. Data is
 * written through one driver's mapping and read through the other's.
 *
 * Not in the stand-in pass (run-selftests.sh, helpers.h): what it checks
 * is vgem's and virtio-gpu's importing and exporting, each driver named;
 * the VRAM stand-in's own dma-buf rules are vram_test's and devmem_test's,
 * and its pool as an importer of mvgal's buffers is the other suites'.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define PG 4096
#define HV MVGAL_BO_HOST_VALID
#define GV MVGAL_BO_GPU_VALID
#define DB MVGAL_BO_DMA_BUF
#define SH MVGAL_BO_SHARED

static uint8_t pat(uint64_t i, unsigned int s)
{
	return (uint8_t)(i * 29 + s * 13 + (i >> 11));
}

static void fill(uint8_t *p, uint64_t n, unsigned int s)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = pat(i, s);
}

/* Maps GEM @handle of @fd (a dumb-capable driver) for the CPU. */
static void *map_gem(int fd, uint32_t handle, size_t len)
{
	struct drm_mode_map_dumb m = { .handle = handle };
	void *p;

	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	return p == MAP_FAILED ? NULL : p;
}

FIXTURE(prime) {
	struct mvgal *m;
	int vgem;
	int vgem_gpu;
	int virtio_gpu;
};

FIXTURE_SETUP(prime)
{
	ASSERT_EQ(0, mvgal_open(&self->m));
	reset_state(_metadata, self->m);
	self->vgem = open_card("vgem", NULL, 0);
	ASSERT_GE(self->vgem, 0);
	self->vgem_gpu = find_gpu(self->m, "vgem", ~1U);
	self->virtio_gpu = find_gpu(self->m, "virtio_gpu", ~1U);
	ASSERT_GE(self->vgem_gpu, 0);
	ASSERT_GE(self->virtio_gpu, 0);
}

FIXTURE_TEARDOWN(prime)
{
	close(self->vgem);
	mvgal_close(self->m);
}

/* Export of @h into a vgem file: 0 and the vgem handle, or -errno. */
static int vgem_import(int vgem, int dmabuf, uint32_t *vh)
{
	return drmPrimeFDToHandle(vgem, dmabuf, vh) ? -errno : 0;
}

TEST_F(prime, create_checks_sharing)
{
	uint32_t h;

	EXPECT_EQ(-EINVAL, mvgal_bo_create_shared(self->m, PG, HV | DB, MVGAL_GPU_ANY,
						  MVGAL_SHARING_NONE, &h));
	EXPECT_EQ(-EINVAL, mvgal_bo_create_shared(self->m, PG, HV, MVGAL_GPU_ANY,
						  MVGAL_SHARING_CROSS_VENDOR, &h));
	EXPECT_EQ(-EINVAL, mvgal_bo_create_shared(self->m, PG, HV | DB, MVGAL_GPU_ANY,
						  MVGAL_SHARING_COUNT, &h));
	EXPECT_EQ(-EINVAL, mvgal_bo_create_shared(self->m, PG, HV | DB, MVGAL_GPU_ANY,
						  0xffffffffu, &h));
}

TEST_F(prime, export_needs_dma_buf_flag)
{
	uint32_t h;
	int fd;

	ASSERT_EQ(0, mvgal_bo_create(self->m, PG, HV | GV, MVGAL_GPU_ANY, &h));
	EXPECT_EQ(-EPERM, mvgal_bo_export(self->m, h, &fd));
	mvgal_bo_destroy(self->m, h);
}

TEST_F(prime, export_refused_when_dmabuf_disabled)
{
	uint32_t h;
	int fd;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, PG, HV | GV | DB, MVGAL_GPU_ANY,
					    MVGAL_SHARING_CROSS_VENDOR, &h));
	ASSERT_EQ(0, run("echo 0 > /sys/module/mvgal/parameters/enable_dmabuf"));
	EXPECT_EQ(-EPERM, mvgal_bo_export(self->m, h, &fd));
	ASSERT_EQ(0, run("echo 1 > /sys/module/mvgal/parameters/enable_dmabuf"));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/*
 * What an importing device reads through dma-buf @fd's sg table, by its
 * DMA addresses (debugfs dmabuf_sg: mvgal's own device attaches and maps
 * it). Return: 0 or -errno.
 */
static int device_read(int fd, uint64_t off, uint64_t len, uint8_t *dst)
{
	char cmd[64], buf[64 + 4 * PG], *nl;
	ssize_t got = 0, r;
	int d, n, ret = 0;

	d = open("/sys/kernel/debug/mvgal/dmabuf_sg", O_RDWR | O_CLOEXEC);
	if (d < 0)
		return -errno;
	n = snprintf(cmd, sizeof(cmd), "%d %llu %llu", fd,
		     (unsigned long long)off, (unsigned long long)len);
	if (write(d, cmd, n) != n) {
		ret = -errno;
		goto out;
	}
	while (got < (ssize_t)sizeof(buf) && (r = read(d, buf + got, sizeof(buf) - got)) > 0)
		got += r;
	nl = memchr(buf, '\n', got);
	if (!nl || (uint64_t)(got - (nl + 1 - buf)) != len) {
		ret = -EPROTO;
		goto out;
	}
	memcpy(dst, nl + 1, len);
out:
	close(d);
	return ret;
}

/*
 * A device-only buffer is exported only with P2P, and then in place: an
 * importer gets the DMA addresses the pool's own driver gave its device,
 * cut to exactly the buffer's range, and reads the buffer's bytes there.
 */
TEST_F(prime, device_only_export_needs_p2p)
{
	uint8_t data[3 * PG + 1], back[3 * PG + 1];
	uint32_t h, vh;
	int fd;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, 3 * PG, GV | DB | SH, self->virtio_gpu,
					    MVGAL_SHARING_CROSS_VENDOR, &h));
	EXPECT_EQ(-EPERM, mvgal_bo_export(self->m, h, &fd));
	mvgal_bo_destroy(self->m, h);

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, 3 * PG + 1,
					    GV | DB | SH | MVGAL_BO_P2P, self->virtio_gpu,
					    MVGAL_SHARING_CROSS_VENDOR, &h));
	fill(data, sizeof(data), 9);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, sizeof(data)));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	EXPECT_EQ(0, vgem_import(self->vgem, fd, &vh));
	ASSERT_EQ(0, device_read(fd, 0, sizeof(back), back));
	EXPECT_EQ(0, memcmp(data, back, sizeof(back)));
	ASSERT_EQ(0, device_read(fd, PG + 5, 2 * PG - 4, back));
	EXPECT_EQ(0, memcmp(data + PG + 5, back, 2 * PG - 4));
	/* Device memory: no CPU mapping of the dma-buf either. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 0));
	drmCloseBufferHandle(self->vgem, vh);
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/*
 * vgem imports an mvgal buffer: a real driver attachment, DMA-mapped
 * through mvgal's sg table. vgem cannot mmap an imported object
 * (drm_gem_dumb_map_offset refuses imports), so the bytes are read back
 * through the dma-buf vgem's own handle exports again.
 */
TEST_F(prime, vgem_imports_an_export)
{
	const uint64_t size = 5 * PG + 100, len = 6 * PG;
	uint8_t data[5 * PG + 100], back[5 * PG + 100];
	struct stat a, b;
	uint8_t *v;
	uint32_t h, vh;
	int fd, vfd;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, size, HV | GV | DB | SH | MVGAL_BO_LAZY_ALLOCATE,
					    MVGAL_GPU_ANY, MVGAL_SHARING_CROSS_VENDOR, &h));
	fill(data, size, 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, size));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(0, vgem_import(self->vgem, fd, &vh));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->vgem, vh, DRM_CLOEXEC | DRM_RDWR, &vfd));
	ASSERT_EQ(0, fstat(fd, &a));
	ASSERT_EQ(0, fstat(vfd, &b));
	EXPECT_EQ(a.st_ino, b.st_ino); /* vgem holds mvgal's dma-buf */
	v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, vfd, 0);
	ASSERT_NE(MAP_FAILED, v);
	EXPECT_EQ(0, memcmp(v, data, size));

	fill(data + 3000, 2 * PG, 2);
	memcpy(v + 3000, data + 3000, 2 * PG);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(0, memcmp(data, back, size));
	munmap(v, len);
	close(vfd);
	drmCloseBufferHandle(self->vgem, vh);
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/* The dma-buf itself maps, at an offset, and syncs. */
TEST_F(prime, dmabuf_mmap_at_offset_and_sync)
{
	struct dma_buf_sync sync = { DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	uint8_t data[4 * PG], back[PG];
	uint8_t *p;
	uint32_t h;
	int fd;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, 4 * PG, HV | GV | DB, MVGAL_GPU_ANY,
					    MVGAL_SHARING_DMA_BUF, &h));
	fill(data, sizeof(data), 3);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, sizeof(data)));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * PG);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync));
	EXPECT_EQ(0, memcmp(p, data + 2 * PG, PG));
	memset(p + 10, 0xab, 20);
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	ASSERT_EQ(0, ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 2 * PG, back, PG));
	memset(data + 2 * PG + 10, 0xab, 20);
	EXPECT_EQ(0, memcmp(back, data + 2 * PG, PG));
	/* Past the end of the dma-buf: refused. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 3 * PG));
	munmap(p, PG);
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/* Importing mvgal's own export gives back the same buffer. */
TEST_F(prime, reimport_is_the_same_buffer)
{
	uint32_t h, again, twice;
	int fd;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, 3 * PG, HV | GV | DB, MVGAL_GPU_ANY,
					    MVGAL_SHARING_DMA_BUF, &h));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	ASSERT_EQ(0, mvgal_bo_import(self->m, fd, &again));
	EXPECT_EQ(h, again);
	ASSERT_EQ(0, mvgal_bo_import(self->m, fd, &twice));
	EXPECT_EQ(h, twice);
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

TEST_F(prime, exclusive_refuses_a_second_importer)
{
	int vgem2 = open_card("vgem", NULL, 0);
	uint32_t h, v1, v2;
	int fd;

	ASSERT_GE(vgem2, 0);
	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, 2 * PG, HV | GV | DB | SH, MVGAL_GPU_ANY,
					    MVGAL_SHARING_EXCLUSIVE, &h));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	ASSERT_EQ(0, vgem_import(self->vgem, fd, &v1));
	EXPECT_EQ(-EBUSY, vgem_import(vgem2, fd, &v2));
	/* Once the first lets go, another may take it. */
	drmCloseBufferHandle(self->vgem, v1);
	EXPECT_EQ(0, vgem_import(vgem2, fd, &v2));
	drmCloseBufferHandle(vgem2, v2);
	close(vgem2);
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/* CONCURRENT: many importers, of the buffer's own GPU's driver only;
 * another driver needs CROSS_VENDOR.
 */
TEST_F(prime, concurrent_and_cross_vendor)
{
	int vgem2 = open_card("vgem", NULL, 0);
	uint32_t h, v1, v2;
	int fd;

	ASSERT_GE(vgem2, 0);
	/* A buffer for the vgem GPU: vgem importers share it (its own GPU:
	 * no SHARED needed).
	 */
	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, PG, HV | GV | DB, self->vgem_gpu,
					    MVGAL_SHARING_CONCURRENT, &h));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	EXPECT_EQ(0, vgem_import(self->vgem, fd, &v1));
	EXPECT_EQ(0, vgem_import(vgem2, fd, &v2));
	drmCloseBufferHandle(self->vgem, v1);
	drmCloseBufferHandle(vgem2, v2);
	close(fd);
	mvgal_bo_destroy(self->m, h);

	/* A buffer for a virtio-gpu: vgem is another driver. */
	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, PG, HV | GV | DB | SH, self->virtio_gpu,
					    MVGAL_SHARING_CONCURRENT, &h));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	EXPECT_EQ(-EPERM, vgem_import(self->vgem, fd, &v1));
	close(fd);
	mvgal_bo_destroy(self->m, h);

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, PG, HV | GV | DB | SH, self->virtio_gpu,
					    MVGAL_SHARING_CROSS_VENDOR, &h));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	EXPECT_EQ(0, vgem_import(self->vgem, fd, &v1));
	EXPECT_EQ(0, vgem_import(vgem2, fd, &v2));
	drmCloseBufferHandle(self->vgem, v1);
	drmCloseBufferHandle(vgem2, v2);
	close(fd);
	mvgal_bo_destroy(self->m, h);
	close(vgem2);
}

/* DMA_BUF mode, no GPU_VALID, or not SHARED with another GPU: no attach. */
TEST_F(prime, no_device_attach_without_permission)
{
	static const struct { uint32_t flags, sharing; int for_virtio; } c[] = {
		{ HV | GV | DB | SH, MVGAL_SHARING_DMA_BUF, 0 },	/* mode */
		{ HV | DB | SH, MVGAL_SHARING_CROSS_VENDOR, 0 },	/* no GPU_VALID */
		{ HV | GV | DB, MVGAL_SHARING_CROSS_VENDOR, 0 },	/* not SHARED */
		{ HV | GV | DB, MVGAL_SHARING_CROSS_VENDOR, 1 },	/* not SHARED */
	};
	uint32_t h, vh;
	unsigned int i;
	int fd;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ASSERT_EQ(0, mvgal_bo_create_shared(self->m, PG, c[i].flags,
						    c[i].for_virtio ? (uint32_t)self->virtio_gpu
								    : MVGAL_GPU_ANY,
						    c[i].sharing, &h));
		ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
		EXPECT_EQ(-EPERM, vgem_import(self->vgem, fd, &vh)) TH_LOG("case %u", i);
		close(fd);
		mvgal_bo_destroy(self->m, h);
	}
}

/* A foreign dma-buf @fd of @len bytes whose CPU view is @p: imported, its
 * size is the dma-buf's, its bytes are the foreign buffer's, both ways.
 */
static void check_import(struct __test_metadata *_metadata, struct mvgal *m,
			 int fd, uint8_t *p, uint64_t len, unsigned int seed)
{
	struct drm_mvgal_bo_info info;
	uint8_t *data = malloc(len), *back = malloc(len), *q;
	uint32_t h, again;

	ASSERT_TRUE(data && back);
	fill(data, len, seed);
	memcpy(p, data, len);
	ASSERT_EQ(0, mvgal_bo_import(m, fd, &h));
	ASSERT_EQ(0, mvgal_bo_info(m, h, &info));
	EXPECT_EQ(len, info.size);
	ASSERT_EQ(0, mvgal_bo_read(m, h, 0, back, len));
	EXPECT_EQ(0, memcmp(data, back, len));
	/* Writes through mvgal, at an odd offset, show in the foreign view. */
	fill(data + 777, PG, seed + 1);
	ASSERT_EQ(0, mvgal_bo_write(m, h, 777, data + 777, PG));
	EXPECT_EQ(0, memcmp(p, data, len));
	/* And through mvgal's own mapping of the import. */
	ASSERT_EQ(0, mvgal_bo_map(m, h, (void **)&q));
	EXPECT_EQ(0, memcmp(q, data, len));
	munmap(q, len);
	ASSERT_EQ(0, mvgal_bo_import(m, fd, &again));
	EXPECT_EQ(h, again);
	EXPECT_EQ(-EINVAL, mvgal_bo_read(m, h, 1, back, len));
	mvgal_bo_destroy(m, h);
	free(data);
	free(back);
}

static int dumb_export(int fd, uint32_t pages, uint32_t *handle, uint8_t **p)
{
	struct drm_mode_create_dumb c = { .bpp = 32, .width = 1024, .height = pages };
	int dmabuf;

	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		return -errno;
	if (drmPrimeHandleToFD(fd, c.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf))
		return -errno;
	*handle = c.handle;
	*p = map_gem(fd, c.handle, c.size);
	return *p ? dmabuf : -ENOMEM;
}

TEST_F(prime, import_vgem_buffer)
{
	uint32_t vh;
	uint8_t *p;
	int fd = dumb_export(self->vgem, 3, &vh, &p);

	ASSERT_GE(fd, 0);
	check_import(_metadata, self->m, fd, p, 3 * PG, 5);
	munmap(p, 3 * PG);
	close(fd);
	drmCloseBufferHandle(self->vgem, vh);
}

/*
 * enable_dmabuf off: the module refuses an import (-EPERM), makes no
 * buffer, and leaves the foreign bytes alone; switched back on, the same
 * dma-buf imports.
 */
TEST_F(prime, import_refused_when_dmabuf_disabled)
{
	uint8_t *p, before[3 * PG];
	uint32_t vh, h = 0, n = 0, n2 = 0;
	int fd = dumb_export(self->vgem, 3, &vh, &p);

	ASSERT_GE(fd, 0);
	fill(p, 3 * PG, 8);
	memcpy(before, p, sizeof(before));
	ASSERT_EQ(0, mvgal_bo_list(self->m, NULL, &n));
	ASSERT_EQ(0, run("echo 0 > /sys/module/mvgal/parameters/enable_dmabuf"));
	EXPECT_EQ(-EPERM, mvgal_bo_import(self->m, fd, &h));
	ASSERT_EQ(0, run("echo 1 > /sys/module/mvgal/parameters/enable_dmabuf"));
	EXPECT_EQ(0, h);
	ASSERT_EQ(0, mvgal_bo_list(self->m, NULL, &n2));
	EXPECT_EQ(n, n2);
	EXPECT_EQ(0, memcmp(before, p, sizeof(before)));
	check_import(_metadata, self->m, fd, p, 3 * PG, 9);
	munmap(p, 3 * PG);
	close(fd);
	drmCloseBufferHandle(self->vgem, vh);
}

TEST_F(prime, import_virtio_gpu_buffer)
{
	int card = open_card("virtio_gpu", NULL, 0);
	uint32_t vh;
	uint8_t *p;
	int fd;

	ASSERT_GE(card, 0);
	fd = dumb_export(card, 4, &vh, &p);
	ASSERT_GE(fd, 0);
	check_import(_metadata, self->m, fd, p, 4 * PG, 6);
	munmap(p, 4 * PG);
	close(fd);
	drmCloseBufferHandle(card, vh);
	close(card);
}

TEST_F(prime, import_system_heap_buffer)
{
	struct dma_heap_allocation_data a = {
		.len = 5 * PG, .fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	uint8_t *p;

	ASSERT_GE(heap, 0);
	ASSERT_EQ(0, ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a));
	p = mmap(NULL, 5 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	check_import(_metadata, self->m, a.fd, p, 5 * PG, 7);
	munmap(p, 5 * PG);
	close(a.fd);
	close(heap);
}

/* Copies between an import and mvgal's own buffers. */
TEST_F(prime, copy_between_import_and_pool)
{
	uint32_t vh, h, d;
	uint8_t *p, back[2 * PG];
	int fd = dumb_export(self->vgem, 3, &vh, &p);

	ASSERT_GE(fd, 0);
	fill(p, 3 * PG, 9);
	ASSERT_EQ(0, mvgal_bo_import(self->m, fd, &h));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 2 * PG, GV, self->virtio_gpu, &d));
	ASSERT_EQ(0, mvgal_bo_copy(self->m, d, 5, h, PG + 3, 2 * PG - 5));
	ASSERT_EQ(0, mvgal_bo_read(self->m, d, 5, back, 2 * PG - 5));
	EXPECT_EQ(0, memcmp(back, p + PG + 3, 2 * PG - 5));
	mvgal_bo_destroy(self->m, d);
	mvgal_bo_destroy(self->m, h);
	munmap(p, 3 * PG);
	close(fd);
	drmCloseBufferHandle(self->vgem, vh);
}

TEST_HARNESS_MAIN
