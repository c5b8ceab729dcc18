// SPDX-License-Identifier: MIT
/*
 * mvgal-example: one buffer's trip through every GPU.
 *
 * A host buffer is filled through the CPU, copied into a device-only
 * buffer on each attached GPU in turn (at a different offset each time),
 * and copied back; the bytes that come home must be the bytes that left.
 * Build: cc mvgal-example.c $(pkg-config --cflags --libs mvgal)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <mvgal/mvgal.h>

#define SIZE (1024 * 1024 + 123)	/* not a whole number of pages */

static int fail(const char *what, int err)
{
	fprintf(stderr, "mvgal-example: %s: %s\n", what, strerror(-err));
	return 1;
}

int main(void)
{
	uint32_t gpus[MVGAL_MAX_GPUS], host, dev[MVGAL_MAX_GPUS], prev;
	struct drm_mvgal_bo_info info;
	uint64_t prev_off = 0;
	struct mvgal *m;
	uint8_t *cpu, *back;
	int n, i, ret;

	ret = mvgal_open(&m);
	if (ret)
		return fail("mvgal_open (is the module loaded?)", ret);
	n = mvgal_gpu_list(m, gpus, MVGAL_MAX_GPUS);
	if (n < 0)
		return fail("listing GPUs", n);
	printf("%d GPU(s) attached\n", n);

	/* 1. A host buffer for the first GPU, filled by the CPU. */
	ret = mvgal_bo_create(m, SIZE, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			      n ? gpus[0] : MVGAL_GPU_ANY, &host);
	if (ret)
		return fail("creating the host buffer", ret);
	ret = mvgal_bo_map(m, host, (void **)&cpu);
	if (ret)
		return fail("mapping it", ret);
	for (i = 0; i < SIZE; i++)
		cpu[i] = (uint8_t)(i * 7 + 3);

	/* 2. Through every GPU's pool: host -> GPU a -> GPU b -> ... */
	prev = host;
	for (i = 0; i < n; i++) {
		uint64_t off = 4096 * (i + 1) + 17 * i;

		ret = mvgal_bo_create(m, SIZE + off, MVGAL_BO_GPU_VALID, gpus[i], &dev[i]);
		if (ret)
			return fail("creating a device-only buffer", ret);
		ret = mvgal_bo_copy(m, dev[i], off, prev, prev_off, SIZE);
		if (ret)
			return fail("copying into the next GPU", ret);
		printf("  copied %d bytes into GPU %u's pool at offset %llu\n",
		       SIZE, gpus[i], (unsigned long long)off);
		prev = dev[i];
		prev_off = off;
	}

	/* 3. Home again, into a second buffer, and compared. */
	back = malloc(SIZE);
	if (!back)
		return fail("malloc", -ENOMEM);
	ret = mvgal_bo_read(m, prev, prev_off, back, SIZE);
	if (ret)
		return fail("reading back", ret);
	if (memcmp(back, cpu, SIZE)) {
		fprintf(stderr, "mvgal-example: the bytes changed on the way\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		ret = mvgal_bo_info(m, dev[i], &info);
		if (ret)
			return fail("reading statistics", ret);
		printf("  GPU %u buffer: %llu bytes written, %llu read, %llu accesses, %llu bytes in its pool\n",
		       gpus[i], (unsigned long long)info.bytes_written,
		       (unsigned long long)info.bytes_read,
		       (unsigned long long)info.access_total,
		       (unsigned long long)info.resident[1 + gpus[i]]);
		mvgal_bo_destroy(m, dev[i]);
	}
	printf("example: OK, %d bytes went through %d GPU pool(s) and came back unchanged\n",
	       SIZE, n);
	munmap(cpu, (SIZE + 4095) & ~4095);
	free(back);
	mvgal_bo_destroy(m, host);
	mvgal_close(m);
	return 0;
}
