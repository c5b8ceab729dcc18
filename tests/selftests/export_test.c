// SPDX-License-Identifier: GPL-2.0
/*
 * Placement exports (DRM_IOCTL_MVGAL_PLACE_FD): a dma-buf of exactly one
 * buffer's copy in one GPU's pool, for any process. Bytes go in through
 * sessions and come back through the export's own mapping, a vgem import
 * of it and mvgal; every rejection has its errno and changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/dma-buf.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

#define FLAGS (MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID | MVGAL_BO_SHARED)
#define SIZE (3 * CH + 1234)		/* not a page multiple */
#define PAGES(n) ((((n) + 4095) / 4096) * 4096)
#define DMABUF "/sys/module/mvgal/parameters/enable_dmabuf"
#define META "/sys/module/mvgal/parameters/max_file_meta_mb"

FIXTURE(exp) {
	COH_FIELDS;
};

FIXTURE_SETUP(exp)
{
	COH_SETUP(self);
}

FIXTURE_TEARDOWN(exp)
{
	write_param(DMABUF, "1");
	write_param(META, "64");
	coh_teardown(self->m, self->pool);
}

static int place_fd_raw(int fd, struct drm_mvgal_place_fd *p)
{
	return drmIoctl(fd, DRM_IOCTL_MVGAL_PLACE_FD, p) ? -errno : 0;
}

/* The index of the first non-zero byte of @p[0, @n), or -1. */
static long first_nonzero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return i;
	return -1;
}

/*
 * Reads [@off, @off + @len) of dma-buf @fd as an importing device sees it:
 * mvgal's debugfs dmabuf_sg attaches its own device, maps the dma-buf and
 * copies from the pages of the sg table it got. *@sg_bytes: the table's
 * length. Return: 0 or -errno of the request.
 */
static int sg_read(int fd, uint64_t off, uint64_t len, uint8_t *dst,
		   uint64_t *sg_bytes)
{
	size_t cap = len + 64, got = 0;
	char cmd[64], *buf, *nl;
	int d, n, ret = 0;
	ssize_t r;

	d = open("/sys/kernel/debug/mvgal/dmabuf_sg", O_RDWR | O_CLOEXEC);
	if (d < 0)
		return -errno;
	buf = malloc(cap);
	n = snprintf(cmd, sizeof(cmd), "%d %llu %llu", fd,
		     (unsigned long long)off, (unsigned long long)len);
	if (!buf || write(d, cmd, n) != n) {
		ret = buf ? -errno : -ENOMEM;
		goto out;
	}
	while (got < cap && (r = read(d, buf + got, cap - got)) > 0)
		got += r;
	nl = memchr(buf, '\n', got);
	if (!nl || (size_t)(got - (nl + 1 - buf)) != len ||
	    sscanf(buf, "%llu", (unsigned long long *)sg_bytes) != 1) {
		ret = -EPROTO;
		goto out;
	}
	memcpy(dst, nl + 1, len);
out:
	free(buf);
	close(d);
	return ret;
}

/*
 * Does an export of GPU @g's pool map? Where its driver maps at an
 * offset: the VRAM stand-in's (in the stand-in pass), not virtio-gpu's.
 */
static bool pool_maps(struct mvgal *m, int g)
{
	struct drm_mvgal_gpu_info gi;

	return !mvgal_gpu_info(m, g, &gi) && !strcmp(gi.driver, "mvgal_vram");
}

/*
 * The test bed's virtio-gpu pools map through no export: the GEM shmem
 * helpers' fault ignores a mapping's offset, and PLACE_FD's mmap is
 * -ENODEV there (devmem_test maps exports of the VRAM stand-in's pools).
 * So these tests see an export's bytes as an importing device does
 * (sg_read()) and write them as a kernel importer does (mvgal's import of
 * the export, through its vmap): through the export, never around it.
 */
static int xread(int fd, uint8_t *dst, uint64_t n)
{
	uint64_t sg_bytes;

	return sg_read(fd, 0, n, dst, &sg_bytes);
}

/* [@off, @off + @len) of read-write export @fd, written by an importer. */
static int xwrite(int fd, uint64_t off, const void *src, uint64_t len)
{
	struct mvgal *o;
	uint32_t ih;
	int ret;

	ret = mvgal_open(&o);
	if (ret)
		return ret;
	ret = mvgal_bo_import(o, fd, &ih);
	if (!ret)
		ret = mvgal_bo_write(o, ih, off, src, len);
	mvgal_close(o);
	return ret;
}

/* A buffer of @size with pattern @s written from the CPU. */
static int filled_bo(struct mvgal *m, uint64_t size, uint32_t flags,
		     uint32_t gpu, unsigned int s, uint32_t *h)
{
	uint8_t *buf = malloc(size);
	int ret;

	if (!buf)
		return -ENOMEM;
	fill(buf, size, s);
	ret = mvgal_bo_create(m, size, flags, gpu, h);
	if (!ret)
		ret = mvgal_bo_write(m, *h, 0, buf, size);
	free(buf);
	return ret;
}

/* GPU @g may not use @h: sessions, MIGRATE and REPLICATE say -EPERM. */
static void expect_no_gpu_use(struct __test_metadata *_metadata,
			      struct mvgal *m, uint32_t h, uint32_t g)
{
	struct drm_mvgal_access acc = { .handle = h };
	struct drm_mvgal_migrate mig = {
		.handle = h, .size = SIZE, .location = 1 + g, .in_fence_fd = -1,
	};
	struct drm_mvgal_advise adv = {
		.handle = h, .flags = MVGAL_ADVISE_SET | MVGAL_ADVISE_APPLY,
	};
	uint32_t session;
	int fence = -1;

	EXPECT_EQ(-EPERM, mvgal_begin(m, g, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL, -1, &acc, 1,
				      &session, &fence, NULL));
	EXPECT_EQ(-EPERM, mvgal_begin(m, g, MVGAL_ACCESS_WRITE, MVGAL_PRIO_NORMAL, -1, &acc, 1,
				      &session, &fence, NULL));
	EXPECT_EQ(-EPERM, mvgal_migrate(m, &mig));
	EXPECT_EQ(-EPERM, mvgal_replicate(m, h, 0, SIZE, &g, 1, -1, &fence));
	EXPECT_EQ(-1, fence);
	adv.preferred = g;
	EXPECT_EQ(-EPERM, mvgal_advise(m, &adv));
	adv = (struct drm_mvgal_advise) {
		.handle = h, .flags = MVGAL_ADVISE_SET, .preferred = MVGAL_GPU_ANY,
		.accessed_by = 1U << g,
	};
	EXPECT_EQ(-EPERM, mvgal_advise(m, &adv));
}

/* Every rejection, with its errno; none makes a placement. */
TEST_F(exp, rejections)
{
	struct drm_mvgal_place_fd p;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_gpu_info gi;
	uint32_t g;
	uint32_t h, nosh, nogv, devo, shared, ro;
	struct mvgal *other;
	int fd, rofd;
	void *va;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 1, &h));
	p = (struct drm_mvgal_place_fd) { .handle = h, .gpu = self->g0, .flags = 2 };
	EXPECT_EQ(-EINVAL, place_fd_raw(self->fd, &p));
	p = (struct drm_mvgal_place_fd) { .handle = h, .gpu = self->g0, .pad = 1 };
	EXPECT_EQ(-EINVAL, place_fd_raw(self->fd, &p));
	p = (struct drm_mvgal_place_fd) { .handle = h, .gpu = self->g0, .pad2 = 1 };
	EXPECT_EQ(-EINVAL, place_fd_raw(self->fd, &p));
	EXPECT_EQ(-EINVAL, mvgal_place_fd(self->m, h, MVGAL_MAX_GPUS, 0, &fd, NULL));
	EXPECT_EQ(-EINVAL, mvgal_place_fd(self->m, h, ~0U, 0, &fd, NULL));
	EXPECT_EQ(-ENOENT, mvgal_place_fd(self->m, h + 1000, self->g0, 0, &fd, NULL));
	EXPECT_EQ(-ENOENT, mvgal_place_fd(self->m, 0, self->g0, 0, &fd, NULL));
	/* Another file's handle is no handle here. */
	ASSERT_EQ(0, mvgal_open(&other));
	EXPECT_EQ(-ENOENT, mvgal_place_fd(other, h, self->g0, 0, &fd, NULL));
	/*
	 * A buffer for one GPU reaches another only when SHARED: not by an
	 * export, a session, a migration or a replica.
	 */
	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS & ~MVGAL_BO_SHARED,
			       self->g0, 1, &nosh));
	EXPECT_EQ(-EPERM, mvgal_place_fd(self->m, nosh, self->g1, 0, &fd, NULL));
	expect_no_gpu_use(_metadata, self->m, nosh, self->g1);
	/* Nor one without GPU_VALID any GPU. */
	ASSERT_EQ(0, filled_bo(self->m, SIZE, MVGAL_BO_HOST_VALID, MVGAL_GPU_ANY,
			       1, &nogv));
	EXPECT_EQ(-EPERM, mvgal_place_fd(self->m, nogv, self->g0, 0, &fd, NULL));
	expect_no_gpu_use(_metadata, self->m, nogv, self->g0);
	/* A device-only buffer lives in its own GPU's pool only. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, MVGAL_BO_GPU_VALID |
				     MVGAL_BO_SHARED, self->g0, &devo));
	EXPECT_EQ(-EINVAL, mvgal_place_fd(self->m, devo, self->g1, 0, &fd, NULL));
	/* A slot without a GPU. */
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		if (mvgal_gpu_info(self->m, g, &gi) != -ENODEV)
			continue;
		EXPECT_EQ(-ENODEV, mvgal_place_fd(self->m, h, g, 0, &fd, NULL));
		break;
	}
	/* The module's switch. */
	ASSERT_EQ(0, write_param(DMABUF, "0"));
	EXPECT_EQ(-EPERM, mvgal_place_fd(self->m, h, self->g0, 0, &fd, NULL));
	ASSERT_EQ(0, write_param(DMABUF, "1"));
	/* A read-only handle (a read-only dma-buf imported) reads only. */
	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, SIZE, FLAGS | MVGAL_BO_DMA_BUF,
					    MVGAL_GPU_ANY, MVGAL_SHARING_CROSS_VENDOR,
					    &shared));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->fd, shared, O_CLOEXEC, &rofd));
	ASSERT_EQ(0, mvgal_bo_import(other, rofd, &ro));
	close(rofd);
	EXPECT_EQ(-EACCES, mvgal_place_fd(other, ro, self->g0, MVGAL_PLACE_FD_RDWR,
					  &fd, NULL));
	/* Nothing was placed by any of them. */
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.resident[1 + self->g0]);
	ASSERT_EQ(0, mvgal_bo_info(self->m, shared, &info));
	EXPECT_EQ(0, info.resident[1 + self->g0]);
	ASSERT_EQ(0, mvgal_bo_info(self->m, nosh, &info));
	EXPECT_EQ(0, info.resident[1 + self->g1]);
	ASSERT_EQ(0, mvgal_bo_info(self->m, nogv, &info));
	EXPECT_EQ(0, info.resident[1 + self->g0]);
	/* Its own GPU may: the export is there, bytes and all. */
	ASSERT_EQ(0, mvgal_place_fd(self->m, nosh, self->g0, 0, &fd, NULL));
	close(fd);

	/*
	 * Read-only: never mapped writable. A virtio-gpu pool maps through
	 * no export (its exporter's fault ignores the offset): -ENODEV; a
	 * stand-in's (the stand-in pass) maps read-only.
	 */
	ASSERT_EQ(0, mvgal_place_fd(other, ro, self->g0, 0, &fd, NULL));
	va = mmap(NULL, PAGES(SIZE), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, va);
	EXPECT_EQ(EACCES, errno);
	errno = 0;
	va = mmap(NULL, PAGES(SIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pool_maps(self->m, self->g0)) {
		EXPECT_NE(MAP_FAILED, va);
		if (va != MAP_FAILED)
			munmap(va, PAGES(SIZE));
	} else {
		EXPECT_EQ(MAP_FAILED, va);
		EXPECT_EQ(ENODEV, errno);
	}
	close(fd);
	/* A mapping beyond the size, or private, is refused. */
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR, &fd, NULL));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGES(SIZE) + 4096, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   PAGES(SIZE)));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0));
	close(fd);
	mvgal_close(other);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, nosh);
	mvgal_bo_destroy(self->m, nogv);
	mvgal_bo_destroy(self->m, devo);
	mvgal_bo_destroy(self->m, shared);
}

/*
 * The export is the buffer's copy at the GPU: a session makes the named
 * chunks current there (the CPU's pattern shows through the export's own
 * mapping), chunks no session brought read as cleared, never as anything
 * else; what is written through it during a WRITE session is the buffer's
 * after END. The placement stays while the export lives.
 */
TEST_F(exp, sessions_fill_and_take_the_export)
{
	static uint8_t buf[SIZE];
	struct drm_mvgal_access a;
	struct drm_mvgal_bo_info info;
	uint64_t size, off = CH + 5, len = 2 * CH;
	static uint8_t va[PAGES(SIZE)];
	uint32_t h, sess;
	int fd, fence;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 1, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR, &fd, &size));
	EXPECT_EQ(PAGES(SIZE), size);
	EXPECT_EQ((off_t)PAGES(SIZE), lseek(fd, 0, SEEK_END));
	ASSERT_EQ(0, xread(fd, va, size));
	/* Made now and cleared: nothing of a former owner. */
	EXPECT_EQ(-1, first_nonzero(va, size));

	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, off, len, &a, &sess,
			    &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	ASSERT_EQ(0, xread(fd, va, size));
	/* The named chunks (1 to 3) are current; chunk 0 was never brought. */
	EXPECT_EQ(-1, check(va + CH, SIZE - CH, CH, 1));
	EXPECT_EQ(-1, first_nonzero(va, CH));
	/* The "GPU" writes through the export; END hands it over. */
	fill(buf, len, 2);
	ASSERT_EQ(0, xwrite(fd, off, buf, len));
	EXPECT_EQ(0, end_written(self->m, sess, h, off, len, -1));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, buf, SIZE));
	EXPECT_EQ(-1, check(buf, off, 0, 1));
	EXPECT_EQ(-1, check(buf + off, len, 0, 2));
	EXPECT_EQ(-1, check(buf + off + len, SIZE - off - len, off + len, 1));

	/* Pinned: not freed under the export; freed once it is gone. */
	EXPECT_EQ(-EBUSY, mvgal_place_free(self->m, h, self->g0));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(PAGES(SIZE), info.resident[1 + self->g0]);
	close(fd);
	EXPECT_EQ(0, mvgal_place_free(self->m, h, self->g0));
	mvgal_bo_destroy(self->m, h);
}

/*
 * vgem imports the export (attach and map), and its re-export is the same
 * dma-buf: what is written through it during a WRITE session, with a vgem
 * fence on the import standing for the GPU work and taken out as the
 * session's fence, reaches another GPU's pool (a READ session there waits
 * for the fence) and the CPU.
 */
TEST_F(exp, vgem_imports_it_and_its_fence_orders_the_next_gpu)
{
	static uint8_t buf[SIZE];
	struct drm_vgem_fence_attach fa = { .flags = VGEM_FENCE_WRITE };
	struct dma_buf_export_sync_file es = { .flags = DMA_BUF_SYNC_RW };
	struct drm_vgem_fence_signal sig = { 0 };
	struct drm_mvgal_access a, b;
	uint32_t h, vh, s1, s2;
	int vgem, fd, vfd, fence;
	struct stat st1, st2;
	static uint8_t vv[PAGES(SIZE)];
	uint64_t size;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 3, &h));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &s1, &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR, &fd, &size));
	vgem = open_card("vgem", NULL, 0);
	ASSERT_LE(0, vgem);
	ASSERT_EQ(0, drmPrimeFDToHandle(vgem, fd, &vh));
	ASSERT_EQ(0, drmPrimeHandleToFD(vgem, vh, DRM_CLOEXEC | DRM_RDWR, &vfd));
	ASSERT_EQ(0, fstat(fd, &st1));
	ASSERT_EQ(0, fstat(vfd, &st2));
	EXPECT_EQ(st1.st_ino, st2.st_ino);	/* vgem holds the export */
	close(fd);
	/* The import's dma-buf shows the session's bytes, and takes new ones. */
	ASSERT_EQ(0, xread(vfd, vv, size));
	EXPECT_EQ(-1, check(vv, SIZE, 0, 3));
	fill(buf, SIZE, 4);
	ASSERT_EQ(0, xwrite(vfd, 0, buf, SIZE));
	/* The "GPU work": a vgem fence on the import, as a sync_file. */
	fa.handle = vh;
	ASSERT_EQ(0, drmIoctl(vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &fa));
	ASSERT_EQ(0, ioctl(vfd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &es));
	ASSERT_EQ(0, mvgal_end(self->m, s1, es.fd, NULL, 0));
	close(es.fd);
	/* GPU 1 reads after the "GPU" work is done. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &b, &s2, &fence, NULL));
	ASSERT_LE(0, fence);
	EXPECT_EQ(-ETIME, mvgal_fence_wait(fence, 0));
	sig.fence = fa.out_fence;
	ASSERT_EQ(0, drmIoctl(vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sig));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->g1] + b.pool_offset, SIZE, 0, 4));
	EXPECT_EQ(0, mvgal_end(self->m, s2, -1, NULL, 0));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, buf, SIZE));
	EXPECT_EQ(-1, check(buf, SIZE, 0, 4));
	close(vfd);
	drmCloseBufferHandle(vgem, vh);
	close(vgem);
	/* The export is gone with vgem's import: the placement may go. */
	EXPECT_EQ(0, mvgal_place_free(self->m, h, self->g0));
	mvgal_bo_destroy(self->m, h);
}

/*
 * A kernel importer that maps the export into its own address space (vmap)
 * rather than a device: mvgal itself, importing it as a buffer of another
 * file, reads the session's bytes through it and writes new ones, which the
 * export's own mapping shows; CPU access brackets (DMA_BUF_IOCTL_SYNC) work.
 */
TEST_F(exp, an_importer_vmaps_it)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	static uint8_t got[SIZE], buf[SIZE];
	uint64_t off = CH - 7, len = CH + 4099, size;
	struct drm_mvgal_access a;
	uint32_t h, ih, sess;
	static uint8_t va[PAGES(SIZE)];
	struct mvgal *other;
	int fd, fence;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 5, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR,
				    &fd, &size));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &sess, &fence,
			    NULL));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync));
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	EXPECT_EQ(0, ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync));

	ASSERT_EQ(0, mvgal_open(&other));
	ASSERT_EQ(0, mvgal_bo_import(other, fd, &ih));
	ASSERT_EQ(0, mvgal_bo_read(other, ih, off, got, len));
	EXPECT_EQ(-1, check(got, len, off, 5));
	/* The "GPU" writes through the importer's mapping of the pool. */
	fill(buf, len, 6);
	ASSERT_EQ(0, mvgal_bo_write(other, ih, off, buf, len));
	ASSERT_EQ(0, xread(fd, va, size));
	EXPECT_EQ(0, memcmp(va + off, buf, len));
	EXPECT_EQ(-1, check(va, off, 0, 5));
	EXPECT_EQ(-1, check(va + off + len, SIZE - off - len, off + len, 5));
	/* END hands the GPU's bytes over: the CPU reads them through mvgal. */
	EXPECT_EQ(0, end_written(self->m, sess, h, off, len, -1));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, off, got, len));
	EXPECT_EQ(0, memcmp(got, buf, len));
	mvgal_bo_destroy(other, ih);
	mvgal_close(other);
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/*
 * In a child of another user: a buffer of pattern 9 is copied into
 * @gpu's pool, then freed. Its pool offset goes to @out. Exit 0 on success.
 */
static void secret_owner(uint32_t gpu, int out)
{
	struct drm_mvgal_access a;
	struct mvgal *m;
	uint32_t h, sess;
	int fence;

	if (mvgal_open(&m) || setresgid(65533, 65533, 65533) ||
	    setresuid(65533, 65533, 65533) ||
	    filled_bo(m, SIZE, FLAGS, MVGAL_GPU_ANY, 9, &h) ||
	    begin1(m, gpu, MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0,
		   &a, &sess, &fence, NULL) || settle(fence) ||
	    mvgal_end(m, sess, -1, NULL, 0) ||
	    write(out, &a.pool_offset, sizeof(a.pool_offset)) != sizeof(a.pool_offset))
		_exit(1);
	mvgal_bo_destroy(m, h);
	mvgal_close(m);
	_exit(0);
}

/*
 * Another process's freed pool range, reused for this buffer, shows none
 * of its bytes through the new export: cleared, then this buffer's own.
 */
TEST_F(exp, reused_pool_range_never_shows_a_former_owner)
{
	struct drm_mvgal_access a;
	uint64_t size, theirs;
	uint32_t h, sess;
	static uint8_t va[PAGES(SIZE)];
	int p[2], st, fd, fence;
	long bad = -1;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		secret_owner(self->g0, p[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, st);
	ASSERT_EQ(sizeof(theirs), read(p[0], &theirs, sizeof(theirs)));
	close(p[0]);
	close(p[1]);

	/* This buffer was never written: its bytes are the poison byte. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR,
				    &fd, &size));
	ASSERT_EQ(0, xread(fd, va, size));
	EXPECT_EQ(-1, first_nonzero(va, size));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &sess, &fence,
			    NULL));
	EXPECT_EQ(0, settle(fence));
	/* The very range the other process's buffer had. */
	EXPECT_EQ(theirs, a.pool_offset);
	ASSERT_EQ(0, xread(fd, va, size));
	/* Past the end, in the last page: cleared, or this buffer's own. */
	for (uint64_t i = 0; i < size && bad < 0; i++)
		if (va[i] != MVGAL_BO_POISON && (i < SIZE || va[i]))
			bad = i;
	EXPECT_EQ(-1, bad);
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/*
 * An export pins its placement: room for others is decided with it in
 * place (-ENOSPC, nothing evicted); once closed it may go.
 */
TEST_F(exp, an_export_pins_its_placement_against_eviction)
{
	struct drm_mvgal_gpu_info gi;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	uint32_t h1, h2, sess;
	uint64_t big;
	int fd1, fd2, fence;

	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g0, &gi));
	/* Two buffers that do not fit the pool together. */
	big = (gi.pool_size / 5 * 3) & ~4095ULL;
	ASSERT_EQ(0, mvgal_bo_create(self->m, big, FLAGS | MVGAL_BO_LAZY_ALLOCATE,
				     MVGAL_GPU_ANY, &h1));
	ASSERT_EQ(0, mvgal_bo_create(self->m, big, FLAGS | MVGAL_BO_LAZY_ALLOCATE,
				     MVGAL_GPU_ANY, &h2));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h1, self->g0, 0, &fd1, NULL));
	EXPECT_EQ(-ENOSPC, mvgal_place_fd(self->m, h2, self->g0, 0, &fd2, NULL));
	EXPECT_EQ(-ENOSPC, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
				  MVGAL_ACCESS_NO_IN_PLACE, h2, 0, 4096, &a,
				  &sess, &fence, NULL));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h1, &info));
	EXPECT_EQ(big, info.resident[1 + self->g0]);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h2, &info));
	EXPECT_EQ(0, info.resident[1 + self->g0]);
	/* Closed: the first placement may be evicted for the second. */
	close(fd1);
	ASSERT_EQ(0, mvgal_place_fd(self->m, h2, self->g0, 0, &fd2, NULL));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h2, &info));
	EXPECT_EQ(big, info.resident[1 + self->g0]);
	close(fd2);
	mvgal_bo_destroy(self->m, h1);
	mvgal_bo_destroy(self->m, h2);
}

/* Where a buffer's bytes are, as BO_INFO reports it. */
struct where {
	uint64_t resident[MVGAL_LOC_COUNT];
	uint64_t valid[MVGAL_LOC_COUNT];
	uint64_t owned[MVGAL_LOC_COUNT];
};

static int where_is(struct mvgal *m, uint32_t h, struct where *w)
{
	struct drm_mvgal_bo_info info;
	int ret = mvgal_bo_info(m, h, &info);

	if (ret)
		return ret;
	memcpy(w->resident, info.resident, sizeof(w->resident));
	memcpy(w->valid, info.valid, sizeof(w->valid));
	memcpy(w->owned, info.owned, sizeof(w->owned));
	return 0;
}

/*
 * The export's fd is O_CLOEXEC, opened read-write only when asked: a
 * read-write handle exported without MVGAL_PLACE_FD_RDWR gives a
 * read-only dma-buf, whose shared writable mapping is -EACCES and whose
 * read mapping shows the bytes a session brought and never becomes
 * writable.
 */
TEST_F(exp, export_is_cloexec_and_read_only_unless_asked)
{
	struct drm_mvgal_access a;
	uint32_t h, sess;
	static uint8_t va[PAGES(SIZE)];
	int rw, ro, fence;
	uint64_t size;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 7, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR,
				    &rw, &size));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, 0, &ro, NULL));
	EXPECT_EQ(FD_CLOEXEC, fcntl(rw, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(FD_CLOEXEC, fcntl(ro, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_RDWR, fcntl(rw, F_GETFL) & O_ACCMODE);
	EXPECT_EQ(O_RDONLY, fcntl(ro, F_GETFL) & O_ACCMODE);

	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &sess,
			    &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));

	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, ro, 0));
	EXPECT_EQ(EACCES, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, ro, CH));
	EXPECT_EQ(EACCES, errno);
	/* Both read the same bytes; only the read-write one takes writes. */
	ASSERT_EQ(0, xread(ro, va, size));
	EXPECT_EQ(-1, check(va, SIZE, 0, 7));
	EXPECT_EQ(-EACCES, xwrite(ro, 0, va, 1));
	ASSERT_EQ(0, xread(rw, va, size));
	EXPECT_EQ(-1, check(va, SIZE, 0, 7));
	ASSERT_EQ(0, xwrite(rw, 0, va, SIZE));
	close(ro);
	close(rw);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A mapping that reaches past the export's size (at offset 0, at a
 * non-zero offset, starting at the end) and a private mapping (of a
 * read-write and of a read-only export) are -EINVAL: the dma-buf core
 * checks the range, the export's mmap refuses copy-on-write mappings.
 * Mappings ending exactly at the size work.
 */
TEST_F(exp, mappings_past_the_end_or_private_are_einval)
{
	uint64_t size;
	uint32_t h;
	int rw, ro;
	void *va;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 1, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR,
				    &rw, &size));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, 0, &ro, NULL));
	ASSERT_EQ(PAGES(SIZE), size);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, size + 4096, PROT_READ, MAP_SHARED, rw, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, size - 4096, PROT_READ, MAP_SHARED, rw, 8192));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, rw, size));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, ro, size));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, rw, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, rw, 4096));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, ro, 0));
	EXPECT_EQ(EINVAL, errno);
	/*
	 * Up to the end exactly, from a non-zero offset: past the core's
	 * checks, to the pool's exporter, which maps it where its driver
	 * maps at an offset (the stand-in pass: the bytes an importing
	 * device sees there), and virtio-gpu's does not (-ENODEV).
	 */
	errno = 0;
	va = mmap(NULL, size - 8192, PROT_READ, MAP_SHARED, rw, 8192);
	if (pool_maps(self->m, self->g0)) {
		static uint8_t sg[PAGES(SIZE)];
		uint64_t sg_bytes;

		ASSERT_NE(MAP_FAILED, va);
		ASSERT_EQ(0, sg_read(rw, 8192, size - 8192, sg, &sg_bytes));
		EXPECT_EQ(0, memcmp(va, sg, size - 8192));
		munmap(va, size - 8192);
	} else {
		EXPECT_EQ(MAP_FAILED, va);
		EXPECT_EQ(ENODEV, errno);
	}
	close(ro);
	close(rw);
	mvgal_bo_destroy(self->m, h);
}

/*
 * POOL_LRU lists an exported placement PERSISTENT (never evicted) while
 * the export lives, with its size; once the export is closed the mark is
 * gone (the buffer is neither PERSISTENT nor pinned).
 */
TEST_F(exp, pool_lru_marks_the_exported_placement_persistent)
{
	struct drm_mvgal_lru_entry e[64];
	struct drm_mvgal_pool_lru lru;
	struct drm_mvgal_bo_info info;
	uint32_t h, i, found;
	int fd;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 1, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, 0, &fd, NULL));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	ASSERT_NE(0, info.id);
	memset(e, 0, sizeof(e));
	lru = (struct drm_mvgal_pool_lru) { .gpu = self->g0, .count = 64 };
	ASSERT_EQ(0, mvgal_pool_lru(self->m, self->g0, e, &lru));
	ASSERT_GE(64, lru.count);
	for (i = 0, found = 0; i < lru.count; i++) {
		if (e[i].bo_id != info.id)
			continue;
		found++;
		EXPECT_EQ(MVGAL_LRU_PERSISTENT, e[i].flags & MVGAL_LRU_PERSISTENT);
		EXPECT_EQ(info.resident[1 + self->g0], e[i].bytes);
		EXPECT_LE(PAGES(SIZE), e[i].bytes);
	}
	EXPECT_EQ(1, found);
	close(fd);
	memset(e, 0, sizeof(e));
	lru = (struct drm_mvgal_pool_lru) { .gpu = self->g0, .count = 64 };
	ASSERT_EQ(0, mvgal_pool_lru(self->m, self->g0, e, &lru));
	for (i = 0, found = 0; i < lru.count && i < 64; i++) {
		if (e[i].bo_id != info.id)
			continue;
		found++;
		EXPECT_EQ(0, e[i].flags & MVGAL_LRU_PERSISTENT);
	}
	EXPECT_EQ(1, found);
	mvgal_bo_destroy(self->m, h);
}

/*
 * Bytes outside a session: a session filled the export and ended; the
 * CPU then writes part of one chunk through mvgal (BO_PWRITE). As the
 * uapi says, the export's copy of that chunk is stale: it still shows
 * the old bytes, and BO_INFO counts the chunk no longer valid at the GPU.
 * The next BEGIN on that GPU naming the chunk copies exactly that chunk
 * and the export shows the CPU's bytes, the rest unchanged.
 */
TEST_F(exp, cpu_writes_outside_a_session_reach_the_export_at_the_next_begin)
{
	const uint64_t off = 2 * CH + 77, len = 1000;
	struct where before, after;
	struct drm_mvgal_access a;
	uint8_t buf[1000];
	static uint8_t va[PAGES(SIZE)];
	uint64_t size, copied;
	uint32_t h, sess;
	int fd, fence;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 1, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR,
				    &fd, &size));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &sess,
			    &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	ASSERT_EQ(0, xread(fd, va, size));
	EXPECT_EQ(-1, check(va, SIZE, 0, 1));
	ASSERT_EQ(0, where_is(self->m, h, &before));
	EXPECT_EQ(SIZE, before.valid[1 + self->g0]);

	/* Chunk 2, written by the CPU: the export's copy of it is stale. */
	fill(buf, len, 3);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, off, buf, len));
	ASSERT_EQ(0, xread(fd, va, size));
	EXPECT_EQ(-1, check(va, SIZE, 0, 1));
	ASSERT_EQ(0, where_is(self->m, h, &after));
	EXPECT_EQ(SIZE - CH, after.valid[1 + self->g0]);
	EXPECT_EQ(SIZE, after.valid[MVGAL_LOC_HOST]);

	/* The next BEGIN there brings that chunk, and only it. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, CH, 2 * CH, &a, &sess,
			    &fence, &copied));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(CH, copied);
	ASSERT_EQ(0, xread(fd, va, size));
	EXPECT_EQ(-1, check(va, off, 0, 1));
	EXPECT_EQ(0, memcmp(va + off, buf, len));
	EXPECT_EQ(-1, check(va + off + len, SIZE - off - len, off + len, 1));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	ASSERT_EQ(0, where_is(self->m, h, &after));
	EXPECT_EQ(SIZE, after.valid[1 + self->g0]);
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/*
 * GPU_DETACH of a GPU while an export of its pool lives is -EBUSY and
 * changes nothing: the GPU stays, the buffer's bytes stay where they were
 * (BO_INFO) and read the same through the export and through mvgal. With
 * the export closed and the session ended, the detach drains the
 * placement home (every byte) and works; the GPU, attached again, takes
 * a new export that a session fills with the same bytes.
 */
TEST_F(exp, detach_is_busy_while_an_export_lives)
{
	const uint64_t off = CH + 5, len = 2 * CH;
	struct drm_mvgal_gpu_info gb, ga;
	struct where before, after;
	struct drm_mvgal_access a;
	struct mvgal_config cfg;
	static uint8_t buf[SIZE], va[PAGES(SIZE)];
	uint64_t size;
	uint32_t h, sess;
	int fd, fence, g;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 1, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR,
				    &fd, &size));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, off, len, &a, &sess,
			    &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	fill(buf, len, 2);
	ASSERT_EQ(0, xwrite(fd, off, buf, len));
	/* A live session and an export: busy. */
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, self->g0));
	EXPECT_EQ(0, end_written(self->m, sess, h, off, len, -1));

	/* The export alone: busy, and nothing changed. */
	ASSERT_EQ(0, where_is(self->m, h, &before));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g0, &gb));
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, self->g0));
	EXPECT_EQ(NR_GPUS, gpu_count(self->m));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g0, &ga));
	EXPECT_EQ(gb.pool_used, ga.pool_used);
	EXPECT_EQ(gb.pool_allocations, ga.pool_allocations);
	ASSERT_EQ(0, where_is(self->m, h, &after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(PAGES(SIZE), after.resident[1 + self->g0]);
	ASSERT_EQ(0, xread(fd, va, size));
	EXPECT_EQ(0, memcmp(va + off, buf, len));
	EXPECT_EQ(-1, check(va + off + len, SIZE - off - len, off + len, 1));

	/* Closed: the detach takes the GPU's bytes home and works. */
	close(fd);
	ASSERT_EQ(0, mvgal_gpu_detach(self->m, self->g0));
	EXPECT_EQ(NR_GPUS - 1, gpu_count(self->m));
	EXPECT_EQ(-ENODEV, mvgal_gpu_info(self->m, self->g0, &ga));
	ASSERT_EQ(0, where_is(self->m, h, &after));
	EXPECT_EQ(0, after.resident[1 + self->g0]);
	EXPECT_EQ(SIZE, after.valid[MVGAL_LOC_HOST]);
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, buf, SIZE));
	EXPECT_EQ(-1, check(buf, off, 0, 1));
	EXPECT_EQ(-1, check(buf + off, len, 0, 2));
	EXPECT_EQ(-1, check(buf + off + len, SIZE - off - len, off + len, 1));

	/* Attached again, as the other tests expect it. */
	config_64(&cfg);
	ASSERT_LE(0, mvgal_attach_all(self->m, &cfg, NULL, NULL));
	ASSERT_EQ(NR_GPUS, gpu_count(self->m));
	g = find_gpu(self->m, "virtio_gpu", 0);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, g, 0, &fd, &size));
	ASSERT_EQ(0, begin1(self->m, g, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &sess,
			    &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	ASSERT_EQ(0, xread(fd, va, size));
	EXPECT_EQ(0, memcmp(va, buf, SIZE));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/*
 * Leaves of chunk records made in a new lazy 16 GiB buffer of @m (one
 * byte written every 1024 chunks, a leaf each) until the file's allowance
 * refuses one: how many it took, the room the allowance had in leaves
 * (to less than a leaf). The buffer comes back in *@h; -1 on any other
 * failure.
 */
static int fill_allowance(struct mvgal *m, uint32_t *h)
{
	const uint64_t lazy = 16ULL << 30;
	struct drm_mvgal_bo_info info;
	uint64_t span;
	uint8_t b = 1;
	int n, ret;

	if (mvgal_bo_create(m, lazy, MVGAL_BO_HOST_VALID | MVGAL_BO_LAZY_ALLOCATE,
			    MVGAL_GPU_ANY, h) || mvgal_bo_info(m, *h, &info))
		return -1;
	span = 1024ULL * info.chunk_size;
	for (n = 0; (uint64_t)n * span < lazy; n++) {
		ret = mvgal_bo_write(m, *h, (uint64_t)n * span + 99, &b, 1);
		if (ret)
			return ret == -EDQUOT ? n : -1;
	}
	return -1;
}

#define NEXP 128
#define BIG ((8ULL << 20) + 1234)	/* 2,049 pages */
#define LEAF 4752			/* bytes of a leaf of 1024 chunks */
/* An export's own records: the dma-buf core's and mvgal's, 1 KiB at most. */
#define MOST_LEAVES ((NEXP * 1024) / LEAF + 1)
/* ... and at least 128 bytes (struct dma_buf alone is more). */
#define LEAST_LEAVES ((NEXP * 128) / LEAF)

/*
 * What exports hold in the kernel counts against the exporting file's
 * max_file_meta_mb: each export its own records, whatever the size of the
 * placement (nothing per page: the importers' tables are the pool
 * driver's). With a 1 MiB allowance: filled to less than a leaf, a few
 * exports of an 8 MiB placement fit and then one is -EDQUOT, and one that
 * would have made a placement leaves none; emptied, 128 exports of it,
 * their fds kept open, all work and read the buffer's bytes; the
 * allowance then has room for fewer leaves by 128 to 1024 bytes per
 * export, not more; all closed, it has the room it had. An export of a
 * file that closed reads on and goes after it.
 */
TEST_F_TIMEOUT(exp, exports_are_charged_to_the_file, 600)
{
	static int xfd[NEXP], few[64];
	static uint8_t got[BIG];
	uint8_t *ref = malloc(BIG);
	struct drm_mvgal_access a;
	int n1, n2, n3, nfew, fd, fence, i, ret;
	struct drm_mvgal_bo_info info;
	uint32_t h, hs, hn, l, sess;
	struct mvgal *other;
	uint64_t size;

	ASSERT_NE(NULL, ref);
	fill(ref, BIG, 11);
	ASSERT_EQ(0, write_param(META, "1"));
	/* A placement at a non-zero offset of the pool, after another. */
	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 1, &hs));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, hs, 0, 0, &a, &sess,
			    &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	ASSERT_EQ(0, filled_bo(self->m, BIG, FLAGS, MVGAL_GPU_ANY, 11, &h));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &sess,
			    &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	EXPECT_NE(0, a.pool_offset);
	ASSERT_EQ(0, mvgal_bo_create(self->m, BIG, FLAGS | MVGAL_BO_LAZY_ALLOCATE,
				     MVGAL_GPU_ANY, &hn));

	/*
	 * Full to less than a leaf: a few exports fit (a leaf's room at
	 * 128 bytes or more each), then -EDQUOT; the refused export of a
	 * buffer never placed leaves it unplaced.
	 */
	n1 = fill_allowance(self->m, &l);
	ASSERT_LT(MOST_LEAVES, n1);
	for (nfew = 0; nfew < 64; nfew++) {
		ret = mvgal_place_fd(self->m, h, self->g0, 0, &few[nfew], NULL);
		if (ret)
			break;
	}
	EXPECT_EQ(-EDQUOT, ret);
	EXPECT_GE(LEAF / 128, nfew);
	ret = mvgal_place_fd(self->m, hn, self->g0, 0, &fd, NULL);
	EXPECT_EQ(-EDQUOT, ret);
	if (!ret)
		close(fd);
	ASSERT_EQ(0, mvgal_bo_info(self->m, hn, &info));
	EXPECT_EQ(0, info.resident[1 + self->g0]);
	for (i = 0; i < nfew; i++)
		close(few[i]);
	mvgal_bo_destroy(self->m, l);

	for (i = 0; i < NEXP; i++) {
		ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, 0, &xfd[i], &size))
			TH_LOG("export %d", i);
		EXPECT_EQ(PAGES(BIG), size);
	}
	for (i = 0; i < NEXP; i += NEXP / 4) {
		memset(got, 0, BIG);
		ASSERT_EQ(0, xread(xfd[i], got, BIG));
		EXPECT_EQ(0, memcmp(got, ref, BIG)) TH_LOG("export %d", i);
	}
	n2 = fill_allowance(self->m, &l);
	TH_LOG("room: %d leaves, %d with %d exports", n1, n2, NEXP);
	EXPECT_LE(LEAST_LEAVES, n1 - n2);
	EXPECT_GE(MOST_LEAVES, n1 - n2);
	mvgal_bo_destroy(self->m, l);
	for (i = 0; i < NEXP; i++)
		close(xfd[i]);
	n3 = fill_allowance(self->m, &l);
	EXPECT_EQ(n1, n3);
	mvgal_bo_destroy(self->m, l);
	/* Nothing exports the placement any more: it may go. */
	EXPECT_EQ(0, mvgal_place_free(self->m, h, self->g0));

	/* A file closed under its export: the export reads on, then goes. */
	ASSERT_EQ(0, mvgal_open(&other));
	ASSERT_EQ(0, filled_bo(other, SIZE, FLAGS, MVGAL_GPU_ANY, 12, &l));
	ASSERT_EQ(0, begin1(other, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, l, 0, 0, &a, &sess,
			    &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, mvgal_end(other, sess, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_place_fd(other, l, self->g0, 0, &fd, &size));
	mvgal_close(other);
	ASSERT_EQ(0, xread(fd, got, size));
	EXPECT_EQ(-1, check(got, SIZE, 0, 12));
	close(fd);
	mvgal_bo_destroy(self->m, hn);
	mvgal_bo_destroy(self->m, hs);
	mvgal_bo_destroy(self->m, h);
	free(ref);
}

/*
 * An importing device's sg table holds exactly the placement: its length
 * is the export's size, its pages show the bytes of the session (from any
 * offset, any length), and a write into the pool where BEGIN said the
 * buffer lies shows through it; a range past the end is refused.
 */
TEST_F(exp, an_importers_sg_table_holds_exactly_the_placement)
{
	static uint8_t got[SIZE];
	uint64_t off = CH - 3, len = CH + 4101, size, sg_bytes = 0;
	struct drm_mvgal_access a;
	uint32_t h, sess;
	int fd, fence;

	ASSERT_EQ(0, filled_bo(self->m, SIZE, FLAGS, MVGAL_GPU_ANY, 7, &h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->g0, MVGAL_PLACE_FD_RDWR,
				    &fd, &size));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &sess, &fence,
			    NULL));
	EXPECT_EQ(0, settle(fence));
	ASSERT_EQ(self->g0, a.pool_gpu);

	ASSERT_EQ(0, sg_read(fd, 0, SIZE, got, &sg_bytes));
	EXPECT_EQ(PAGES(SIZE), sg_bytes);
	EXPECT_EQ(-1, check(got, SIZE, 0, 7));
	memset(got, 0, sizeof(got));
	ASSERT_EQ(0, sg_read(fd, off, len, got, &sg_bytes));
	EXPECT_EQ(-1, check(got, len, off, 7));

	/* The "GPU" writes into its pool: the importer's pages are those. */
	fill(self->pool[self->g0] + a.pool_offset + off, len, 8);
	ASSERT_EQ(0, sg_read(fd, off, len, got, &sg_bytes));
	EXPECT_EQ(-1, check(got, len, 0, 8));

	EXPECT_EQ(-EINVAL, sg_read(fd, PAGES(SIZE) - 10, 11, got, &sg_bytes));
	EXPECT_EQ(0, end_written(self->m, sess, h, off, len, -1));
	memset(got, 0, sizeof(got));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, got, SIZE));
	EXPECT_EQ(-1, check(got, off, 0, 7));
	EXPECT_EQ(-1, check(got + off, len, 0, 8));
	EXPECT_EQ(-1, check(got + off + len, SIZE - off - len, off + len, 7));
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

TEST_HARNESS_MAIN
