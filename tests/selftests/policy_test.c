// SPDX-License-Identifier: GPL-2.0
/*
 * Placement policy: REPLICATE puts read-only
 * copies on every GPU listed and writes invalidate them; REPLICATED
 * buffers and read-mostly ranges make READ sessions keep replicas rather
 * than read a peer's copy in place; the mirror controller starts and
 * stops replicas from counted reads and writes, with hysteresis; ADVISE
 * validates advice, returns it, and applies the MVGAL document's rules.
 *
 * vgem's driver uses virtio-gpu pools in place, so a vgem READ session on
 * a buffer held in a virtio-gpu pool reads it there unless a policy says
 * to keep a replica: pool_gpu tells which.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

#define PARAM(n) "/sys/module/mvgal/parameters/" n
#define BSZ (4 * CH + 1234)

FIXTURE(policy) {
	COH_FIELDS;
	uint32_t h;
};

FIXTURE_SETUP(policy)
{
	uint8_t *b = malloc(BSZ);

	COH_SETUP(self);
	ASSERT_EQ(0, write_param(PARAM("prefetch"), "N"));
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, host_bo(self->m, BSZ, &self->h));
	fill(b, BSZ, 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, self->h, 0, b, BSZ));
	free(b);
}

FIXTURE_TEARDOWN(policy)
{
	write_param(PARAM("prefetch"), "Y");
	write_param(PARAM("mirror_window_ms"), "1000");
	write_param(PARAM("mirror_start_reads"), "8");
	write_param(PARAM("mirror_stop_writes"), "4");
	write_param(PARAM("mirror_hold_windows"), "2");
	mvgal_bo_destroy(self->m, self->h);
	coh_teardown(self->m, self->pool);
}

static struct drm_mvgal_bo_info info_of(struct mvgal *m, uint32_t h)
{
	struct drm_mvgal_bo_info i;

	memset(&i, 0xff, sizeof(i));
	mvgal_bo_info(m, h, &i);
	return i;
}

/* A READ session of @size bytes at @off of @h on @g: where it read. */
static uint32_t read_at(struct __test_metadata *_metadata, FIXTURE_DATA(policy) *self,
			uint32_t g, uint32_t h, uint64_t off, uint64_t size,
			uint64_t *copied, unsigned int s_pat)
{
	struct drm_mvgal_access a;
	uint32_t s;
	int fence;

	if (begin1(self->m, g, MVGAL_ACCESS_READ, h, off, size, &a, &s, &fence,
		   copied))
		return ~0u;
	if (settle(fence))
		return ~0u;
	EXPECT_EQ(-1, check(self->pool[a.pool_gpu] + a.pool_offset + off,
			    size, off, s_pat));
	mvgal_end(self->m, s, -1, NULL, 0);
	return a.pool_gpu;
}

/* The GPU writes pattern @s_pat over [off, off + len) in its own pool. */
static void gpu_write(struct __test_metadata *_metadata, FIXTURE_DATA(policy) *self,
		      uint32_t g, uint64_t off, uint64_t len, unsigned int s_pat)
{
	struct drm_mvgal_access a;
	uint32_t s;
	int fence;
	uint8_t *p;

	ASSERT_EQ(0, begin1(self->m, g, MVGAL_ACCESS_WRITE | MVGAL_ACCESS_NO_IN_PLACE,
			    self->h, 0, 0, &a, &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(g, a.pool_gpu);
	p = self->pool[g] + a.pool_offset;
	for (uint64_t k = off; k < off + len; k++)
		p[k] = pat(k, s_pat);
	ASSERT_EQ(0, end_written(self->m, s, self->h, off, len, -1));
}

/* ---- REPLICATE ---- */

TEST_F(policy, replicate_rejects_bad_input_and_places_nothing)
{
	uint32_t two[2] = { self->g0, self->g1 }, dup[2] = { self->g0, self->g0 };
	struct drm_mvgal_replicate r;
	struct drm_mvgal_bo_info i;
	int fence;

#define BAD(err, ...) do { \
		r = (struct drm_mvgal_replicate){ .handle = self->h, .size = BSZ, \
			.gpus = (uintptr_t)two, .nr_gpus = 2, .in_fence_fd = -1, \
			__VA_ARGS__ }; \
		errno = 0; \
		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_REPLICATE, &r)); \
		EXPECT_EQ(err, errno); \
	} while (0)
	BAD(EINVAL, .flags = 1);
	BAD(EINVAL, .size = 0);
	BAD(EINVAL, .offset = 1, .size = BSZ);
	BAD(EINVAL, .offset = ~0ULL, .size = 2);
	BAD(EINVAL, .nr_gpus = 0);
	BAD(EINVAL, .nr_gpus = MVGAL_MAX_GPUS + 1);
	BAD(EINVAL, .gpus = (uintptr_t)dup);
	BAD(EINVAL, .priority = MVGAL_PRIO_COUNT);
	BAD(EFAULT, .gpus = 8);
	BAD(EINVAL, .in_fence_fd = 1000);
	BAD(ENOENT, .handle = 0xdead);
	two[1] = MVGAL_MAX_GPUS;
	BAD(EINVAL);
	two[1] = MVGAL_MAX_GPUS - 1;		/* no GPU there */
	BAD(ENODEV);
#undef BAD
	two[1] = self->g1;
	ASSERT_EQ(0, write_param(MIGRATION, "N"));
	EXPECT_EQ(-EPERM, mvgal_replicate(self->m, self->h, 0, BSZ, two, 2, -1,
					  &fence));
	ASSERT_EQ(0, write_param(MIGRATION, "Y"));
	i = info_of(self->m, self->h);
	for (int l = 1; l < MVGAL_LOC_COUNT; l++)
		EXPECT_EQ(0, i.resident[l]);
}

/*
 * Copies of chunks 1..3 on three GPUs at once; each GPU then reads them
 * from its own pool with nothing to copy. A write on one GPU invalidates
 * the others' copies of exactly the chunk written, and the next read
 * there copies exactly that chunk, with the new bytes. A CPU write does
 * the same.
 */
TEST_F(policy, replicas_on_every_gpu_and_writes_invalidate_them)
{
	uint32_t gpus[3] = { self->g0, self->g1, self->vg };
	uint64_t off = CH + 5, size = 2 * CH + 7, copied;
	struct drm_mvgal_bo_info i;
	uint8_t buf[100];
	int fence;

	ASSERT_EQ(0, mvgal_replicate(self->m, self->h, off, size, gpus, 3, -1,
				     &fence));
	ASSERT_LE(0, fence);
	ASSERT_EQ(0, settle(fence));
	i = info_of(self->m, self->h);
	for (int k = 0; k < 3; k++) {
		EXPECT_EQ(3 * CH, i.valid[1 + gpus[k]]);
		EXPECT_EQ(gpus[k], read_at(_metadata, self, gpus[k], self->h,
					   off, size, &copied, 1));
		EXPECT_EQ(0, copied);
	}
	/* Replicating again copies nothing. */
	ASSERT_EQ(0, mvgal_replicate(self->m, self->h, off, size, gpus, 3, -1,
				     &fence));
	EXPECT_EQ(-1, fence);

	/* GPU 0 writes 100 bytes in chunk 2: the others lose that chunk. */
	gpu_write(_metadata, self, self->g0, 2 * CH + 50, 100, 7);
	i = info_of(self->m, self->h);
	EXPECT_EQ(2 * CH, i.valid[1 + self->g1]);
	EXPECT_EQ(2 * CH, i.valid[1 + self->vg]);
	EXPECT_EQ(CH, i.owned[1 + self->g0]);
	EXPECT_EQ(self->g1, read_at(_metadata, self, self->g1, self->h,
				    2 * CH + 50, 100, &copied, 7));
	EXPECT_EQ(CH, copied);

	/* The CPU writes chunk 1: every GPU copy of it goes. */
	fill(buf, sizeof(buf), 0);
	ASSERT_EQ(0, mvgal_bo_write(self->m, self->h, CH + 10, buf, sizeof(buf)));
	i = info_of(self->m, self->h);
	EXPECT_EQ(BSZ - CH, i.valid[1 + self->g0]);	/* its write session took it all */
	EXPECT_EQ(2 * CH, i.valid[1 + self->g1]);
	EXPECT_EQ(CH, i.valid[1 + self->vg]);
}

/* A REPLICATED buffer: vgem keeps a copy rather than read g0's in place. */
TEST_F(policy, replicated_buffers_keep_replicas)
{
	uint8_t *b = malloc(BSZ);
	uint64_t copied;
	uint32_t r;

	ASSERT_NE(NULL, b);
	gpu_write(_metadata, self, self->g0, 0, BSZ, 2);
	EXPECT_EQ(self->g0, read_at(_metadata, self, self->vg, self->h, 0, BSZ,
				    &copied, 2));
	EXPECT_EQ(0, copied);

	ASSERT_EQ(0, mvgal_bo_create(self->m, BSZ, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID | MVGAL_BO_REPLICATED,
				     MVGAL_GPU_ANY, &r));
	fill(b, BSZ, 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, r, 0, b, BSZ));
	EXPECT_EQ(self->g0, read_at(_metadata, self, self->g0, r, 0, BSZ,
				    &copied, 1));
	EXPECT_EQ(self->vg, read_at(_metadata, self, self->vg, r, 0, BSZ,
				    &copied, 1));
	EXPECT_EQ(4 * CH + 4096, copied);
	EXPECT_EQ(self->vg, read_at(_metadata, self, self->vg, r, 0, BSZ,
				    &copied, 1));
	EXPECT_EQ(0, copied);
	mvgal_bo_destroy(self->m, r);
	free(b);
}

/* ---- ADVISE ---- */

TEST_F(policy, advise_rejects_bad_input_and_changes_nothing)
{
	struct drm_mvgal_advise a;

#define BAD(err, ...) do { \
		a = (struct drm_mvgal_advise){ .handle = self->h, __VA_ARGS__ }; \
		errno = 0; \
		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_ADVISE, &a)); \
		EXPECT_EQ(err, errno); \
	} while (0)
	BAD(EINVAL, .flags = 1u << 4);
	BAD(EINVAL, .flags = MVGAL_ADVISE_SET, .workload = 4);
	BAD(EINVAL, .flags = MVGAL_ADVISE_SET, .preferred = MVGAL_MAX_GPUS);
	BAD(EINVAL, .flags = MVGAL_ADVISE_SET, .preferred = MVGAL_GPU_ANY,
	    .accessed_by = 1u << MVGAL_MAX_GPUS);
	BAD(ENODEV, .flags = MVGAL_ADVISE_SET, .preferred = MVGAL_MAX_GPUS - 1);
	BAD(ENODEV, .flags = MVGAL_ADVISE_SET, .preferred = MVGAL_GPU_ANY,
	    .accessed_by = 1u << (MVGAL_MAX_GPUS - 1));
	BAD(EINVAL, .workload = MVGAL_WORKLOAD_AI);	/* in fields without SET */
	BAD(EINVAL, .accessed_by = 1);
	BAD(EINVAL, .flags = MVGAL_ADVISE_READ_MOSTLY | MVGAL_ADVISE_NOT_READ_MOSTLY,
	    .size = 1);
	BAD(EINVAL, .offset = 1);			/* a range without a flag */
	BAD(EINVAL, .flags = MVGAL_ADVISE_READ_MOSTLY, .size = 0);
	BAD(EINVAL, .flags = MVGAL_ADVISE_READ_MOSTLY, .offset = BSZ, .size = 1);
	BAD(EINVAL, .flags = MVGAL_ADVISE_READ_MOSTLY, .offset = ~0ULL, .size = 2);
	BAD(ENOENT, .handle = 0xdead);
#undef BAD
	/* APPLY with migration off: -EPERM, and the new advice not taken. */
	ASSERT_EQ(0, write_param(MIGRATION, "N"));
	a = (struct drm_mvgal_advise){
		.handle = self->h, .flags = MVGAL_ADVISE_SET | MVGAL_ADVISE_APPLY,
		.workload = MVGAL_WORKLOAD_NONE, .preferred = self->g0,
	};
	EXPECT_EQ(-EPERM, mvgal_advise(self->m, &a));
	ASSERT_EQ(0, write_param(MIGRATION, "Y"));
	EXPECT_EQ(0, info_of(self->m, self->h).resident[1 + self->g0]);
	/* The advice in effect: none. */
	a = (struct drm_mvgal_advise){ .handle = self->h };
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(MVGAL_WORKLOAD_NONE, a.workload);
	EXPECT_EQ(MVGAL_GPU_ANY, a.preferred);
	EXPECT_EQ(0, a.accessed_by);
	EXPECT_EQ(0, a.read_mostly);
	EXPECT_EQ(MVGAL_PLACEMENT_HOST, a.placement);
	EXPECT_EQ(MVGAL_GPU_ANY, a.target);
	EXPECT_EQ(-1, a.out_fence_fd);
}

/*
 * Applying the advice in effect while migration is off is refused, and
 * the refusal writes nothing: not the advice it read, not the outputs.
 */
TEST_F(policy, advise_apply_refused_hands_the_struct_back)
{
	struct drm_mvgal_advise a = {
		.handle = self->h, .flags = MVGAL_ADVISE_SET,
		.workload = MVGAL_WORKLOAD_NONE, .preferred = self->g0,
		.accessed_by = 1u << self->g0 | 1u << self->vg,
	};

	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	ASSERT_EQ(0, write_param(MIGRATION, "N"));
	a = (struct drm_mvgal_advise){
		.handle = self->h, .flags = MVGAL_ADVISE_APPLY,
		.placement = 0x5a5a, .target = 0x6b6b, .read_mostly = 77,
		.out_fence_fd = 1234,
	};
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_ADVISE, &a));
	EXPECT_EQ(EPERM, errno);
	ASSERT_EQ(0, write_param(MIGRATION, "Y"));
	EXPECT_EQ(MVGAL_ADVISE_APPLY, a.flags);
	EXPECT_EQ(0, a.workload);
	EXPECT_EQ(0, a.preferred);
	EXPECT_EQ(0, a.accessed_by);
	EXPECT_EQ(0x5a5a, a.placement);
	EXPECT_EQ(0x6b6b, a.target);
	EXPECT_EQ(77, a.read_mostly);
	EXPECT_EQ(1234, a.out_fence_fd);
	EXPECT_EQ(0, info_of(self->m, self->h).resident[1 + self->g0]);
}

/* Read-mostly chunks are replicated by readers; other chunks are not. */
TEST_F(policy, read_mostly_ranges_keep_replicas)
{
	struct drm_mvgal_advise a = {
		.handle = self->h, .flags = MVGAL_ADVISE_READ_MOSTLY,
		.offset = 2 * CH + 1, .size = 10,
	};
	uint64_t copied;

	gpu_write(_metadata, self, self->g0, 0, BSZ, 3);
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(CH, a.read_mostly);
	EXPECT_EQ(self->g0, read_at(_metadata, self, self->vg, self->h, 0, CH,
				    &copied, 3));
	EXPECT_EQ(self->vg, read_at(_metadata, self, self->vg, self->h,
				    2 * CH + 100, 200, &copied, 3));
	EXPECT_EQ(CH, copied);
	EXPECT_EQ(CH, info_of(self->m, self->h).read_mostly);

	a = (struct drm_mvgal_advise){
		.handle = self->h, .flags = MVGAL_ADVISE_NOT_READ_MOSTLY,
		.offset = 0, .size = BSZ,
	};
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(0, a.read_mostly);
	gpu_write(_metadata, self, self->g0, 2 * CH, 10, 4);
	EXPECT_EQ(self->g0, read_at(_metadata, self, self->vg, self->h,
				    2 * CH, 10, &copied, 4));
}

/* The MVGAL document's rules, queried and applied. */
TEST_F(policy, placement_rules)
{
	struct drm_mvgal_gpu_info g1_before, gi;
	struct drm_mvgal_advise a;
	struct drm_mvgal_bo_info i;
	uint32_t big, dev;

	/* Graphics, small, two GPUs: replicated to both. */
	a = (struct drm_mvgal_advise){
		.handle = self->h, .flags = MVGAL_ADVISE_SET | MVGAL_ADVISE_APPLY,
		.workload = MVGAL_WORKLOAD_GRAPHICS, .preferred = MVGAL_GPU_ANY,
		.accessed_by = (1u << self->g0) | (1u << self->g1),
	};
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(MVGAL_PLACEMENT_REPLICATE, a.placement);
	EXPECT_EQ(self->g0 < self->g1 ? self->g0 : self->g1, a.target);
	ASSERT_LE(0, a.out_fence_fd);
	ASSERT_EQ(0, settle(a.out_fence_fd));
	i = info_of(self->m, self->h);
	EXPECT_EQ(BSZ, i.valid[1 + self->g0]);
	EXPECT_EQ(BSZ, i.valid[1 + self->g1]);
	EXPECT_EQ(MVGAL_WORKLOAD_GRAPHICS, i.workload);
	EXPECT_EQ(a.accessed_by, i.accessed_by);
	/* The query returns it. */
	a = (struct drm_mvgal_advise){ .handle = self->h };
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(MVGAL_WORKLOAD_GRAPHICS, a.workload);
	EXPECT_EQ(MVGAL_PLACEMENT_REPLICATE, a.placement);

	/* Graphics, 64 MiB: pinned to the preferred GPU, never evicted. */
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g1, &g1_before));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 64 << 20, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID | MVGAL_BO_LAZY_ALLOCATE |
				     MVGAL_BO_ZERO_INITIALIZED, MVGAL_GPU_ANY, &big));
	a = (struct drm_mvgal_advise){
		.handle = big, .flags = MVGAL_ADVISE_SET | MVGAL_ADVISE_APPLY,
		.workload = MVGAL_WORKLOAD_GRAPHICS, .preferred = self->g1,
		.accessed_by = (1u << self->g0) | (1u << self->g1),
	};
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(MVGAL_PLACEMENT_PIN, a.placement);
	EXPECT_EQ(self->g1, a.target);
	ASSERT_EQ(0, settle(a.out_fence_fd));
	i = info_of(self->m, big);
	EXPECT_EQ(1u << self->g1, i.pinned);
	EXPECT_EQ(64 << 20, i.valid[1 + self->g1]);
	/* New advice, not applied: the pin goes with the old. */
	a = (struct drm_mvgal_advise){
		.handle = big, .flags = MVGAL_ADVISE_SET,
		.workload = MVGAL_WORKLOAD_COMPUTE, .preferred = MVGAL_GPU_ANY,
	};
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(0, info_of(self->m, big).pinned);
	mvgal_bo_destroy(self->m, big);
	/*
	 * A buffer that had a placement ends in a worker: wait (20 s at
	 * most) until its 64 MiB have left g1's pool, which the next rule
	 * weighs.
	 */
	for (int n = 0; n < 2000; n++) {
		ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g1, &gi));
		if (gi.pool_used <= g1_before.pool_used)
			break;
		usleep(10000);
	}
	EXPECT_LE(gi.pool_used, g1_before.pool_used);

	/* Compute: the GPU with the most free pool, here g1 (g0 is half full). */
	ASSERT_EQ(0, mvgal_bo_create(self->m, 32 << 20, MVGAL_BO_GPU_VALID,
				     self->g0, &dev));
	mvgal_place_free(self->m, self->h, self->g1);
	a = (struct drm_mvgal_advise){
		.handle = self->h, .flags = MVGAL_ADVISE_SET,
		.workload = MVGAL_WORKLOAD_COMPUTE, .preferred = MVGAL_GPU_ANY,
		.accessed_by = (1u << self->g0) | (1u << self->g1),
	};
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(MVGAL_PLACEMENT_MOST_FREE, a.placement);
	EXPECT_EQ(self->g1, a.target);
	a.workload = MVGAL_WORKLOAD_AI;
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(self->g1, a.target);
	mvgal_bo_destroy(self->m, dev);

	/* Others: the first named (the preferred one); none named: home. */
	a = (struct drm_mvgal_advise){
		.handle = self->h, .flags = MVGAL_ADVISE_SET,
		.workload = MVGAL_WORKLOAD_NONE, .preferred = self->vg,
		.accessed_by = 1u << self->g0,
	};
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(MVGAL_PLACEMENT_FIRST, a.placement);
	EXPECT_EQ(self->vg, a.target);
	a = (struct drm_mvgal_advise){
		.handle = self->h, .flags = MVGAL_ADVISE_SET | MVGAL_ADVISE_APPLY,
		.preferred = MVGAL_GPU_ANY,
	};
	ASSERT_EQ(0, mvgal_advise(self->m, &a));
	EXPECT_EQ(MVGAL_PLACEMENT_HOST, a.placement);
	EXPECT_EQ(-1, a.out_fence_fd);
}

/* ---- the mirror controller ---- */

/*
 * Window 3 s, start at 3 remote reads, stop at 2 writes, no hold. (The
 * window is long so that four reads fit in one even on the debug kernel,
 * where a read under KASAN and lockdep takes a few hundred ms.) vgem
 * reads g0's copy in place until a window with 3 such reads closes; then
 * its reads keep a replica. Four writes in a window (twice the stop
 * threshold) stop it at once: vgem reads in place again.
 */
TEST_F(policy, mirror_controller_starts_and_stops_replicas)
{
	uint64_t copied;

	ASSERT_EQ(0, write_param(PARAM("mirror_window_ms"), "3000"));
	ASSERT_EQ(0, write_param(PARAM("mirror_start_reads"), "3"));
	ASSERT_EQ(0, write_param(PARAM("mirror_stop_writes"), "2"));
	ASSERT_EQ(0, write_param(PARAM("mirror_hold_windows"), "0"));
	gpu_write(_metadata, self, self->g0, 0, BSZ, 5);
	usleep(3500 * 1000);	/* the window of the write closes */
	for (int k = 0; k < 4; k++)
		EXPECT_EQ(self->g0, read_at(_metadata, self, self->vg, self->h,
					    0, BSZ, &copied, 5));
	EXPECT_EQ(0, info_of(self->m, self->h).mirrored);
	usleep(3500 * 1000);
	/* This read closes the window: replicas for vgem from now on. */
	EXPECT_EQ(self->g0, read_at(_metadata, self, self->vg, self->h, 0, BSZ,
				    &copied, 5));
	EXPECT_EQ(1u << self->vg, info_of(self->m, self->h).mirrored);
	EXPECT_EQ(self->vg, read_at(_metadata, self, self->vg, self->h, 0, BSZ,
				    &copied, 5));
	EXPECT_EQ(4 * CH + 4096, copied);

	/* The copies churn: stopped at the fourth write. */
	for (int k = 0; k < 4; k++)
		gpu_write(_metadata, self, self->g0, 0, 100, 6 + k);
	EXPECT_EQ(0, info_of(self->m, self->h).mirrored);
	EXPECT_EQ(2, info_of(self->m, self->h).mirror_changes);
	EXPECT_EQ(self->g0, read_at(_metadata, self, self->vg, self->h, 0, 100,
				    &copied, 9));
}

/* With a hold of 10 windows, the same churn right after a start does not stop it. */
TEST_F(policy, mirror_controller_holds_against_flapping)
{
	uint64_t copied;

	/* Windows as long as above, for the same reason. */
	ASSERT_EQ(0, write_param(PARAM("mirror_window_ms"), "3000"));
	ASSERT_EQ(0, write_param(PARAM("mirror_start_reads"), "3"));
	ASSERT_EQ(0, write_param(PARAM("mirror_stop_writes"), "2"));
	ASSERT_EQ(0, write_param(PARAM("mirror_hold_windows"), "10"));
	gpu_write(_metadata, self, self->g0, 0, BSZ, 5);
	usleep(3500 * 1000);
	for (int k = 0; k < 4; k++)
		read_at(_metadata, self, self->vg, self->h, 0, BSZ, &copied, 5);
	usleep(3500 * 1000);
	read_at(_metadata, self, self->vg, self->h, 0, BSZ, &copied, 5);
	EXPECT_EQ(1u << self->vg, info_of(self->m, self->h).mirrored);
	for (int k = 0; k < 4; k++)
		gpu_write(_metadata, self, self->g0, 0, 100, 6 + k);
	EXPECT_EQ(1u << self->vg, info_of(self->m, self->h).mirrored);
	EXPECT_EQ(1, info_of(self->m, self->h).mirror_changes);
	/* Still replicating: the read copies the written chunk. */
	EXPECT_EQ(self->vg, read_at(_metadata, self, self->vg, self->h, 0, 100,
				    &copied, 9));
	EXPECT_EQ(CH, copied);
}

/* ---- NUMA ---- */

/* Waits until the buffer's pages are all on @node; the node they are on. */
static uint32_t pages_settle(struct mvgal *m, uint32_t h, uint32_t node)
{
	struct drm_mvgal_bo_info i;

	for (int k = 0; k < 5000; k++) {
		if (mvgal_bo_info(m, h, &i))
			return ~0u;
		if (i.numa_node == node)
			break;
		usleep(1000);
	}
	return i.numa_node;
}

/*
 * The guest has a virtio-gpu on node 0 (g0) and one on node 1 (g1). The
 * buffer's pages follow the GPU whose sessions use it most: to node 1
 * after three sessions of g1, back to node 0 once g0 used it more; its
 * bytes are the same after each move, read by the CPU and by a GPU.
 */
TEST_F(policy, host_pages_follow_the_gpu_that_uses_them_most)
{
	standin_skip("the pages follow GPUs on NUMA nodes 0 and 1; the stand-in has no node");
	struct drm_mvgal_stats st0, st;
	uint8_t *b = malloc(BSZ);
	uint64_t copied;

	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	for (int k = 0; k < 3; k++)
		EXPECT_EQ(self->g1, read_at(_metadata, self, self->g1, self->h,
					    0, BSZ, &copied, 1));
	EXPECT_EQ(1, pages_settle(self->m, self->h, 1));
	ASSERT_EQ(0, mvgal_bo_read(self->m, self->h, 0, b, BSZ));
	EXPECT_EQ(-1, check(b, BSZ, 0, 1));
	for (int k = 0; k < 4; k++)
		EXPECT_EQ(self->g0, read_at(_metadata, self, self->g0, self->h,
					    0, BSZ, &copied, 1));
	EXPECT_EQ(0, pages_settle(self->m, self->h, 0));
	ASSERT_EQ(0, mvgal_bo_read(self->m, self->h, 0, b, BSZ));
	EXPECT_EQ(-1, check(b, BSZ, 0, 1));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st));
	EXPECT_LE(st0.numa_moved + (BSZ + 4095) / 4096, st.numa_moved);

	/* A CPU write after the move lands in the new pages, seen by a GPU. */
	fill(b, BSZ, 2);
	ASSERT_EQ(0, mvgal_bo_write(self->m, self->h, 0, b, BSZ));
	EXPECT_EQ(self->g1, read_at(_metadata, self, self->g1, self->h, 0, BSZ,
				    &copied, 2));
	free(b);
}

/* A lazy buffer's pages move, and the pages it never touched stay unmade. */
TEST_F(policy, moving_a_lazy_buffer_allocates_nothing)
{
	uint8_t b[100];
	uint64_t copied;
	uint32_t h;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 16 * CH, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID | MVGAL_BO_LAZY_ALLOCATE,
				     MVGAL_GPU_ANY, &h));
	fill(b, sizeof(b), 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, b, sizeof(b)));
	for (int k = 0; k < 3; k++)
		EXPECT_EQ(self->g1, read_at(_metadata, self, self->g1, h, 0, 100,
					    &copied, 1));
	EXPECT_EQ(1, pages_settle(self->m, h, 1));
	EXPECT_EQ(CH, info_of(self->m, h).resident[MVGAL_LOC_HOST]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, b, sizeof(b)));
	EXPECT_EQ(-1, check(b, sizeof(b), 0, 1));
	mvgal_bo_destroy(self->m, h);
}

TEST_HARNESS_MAIN
