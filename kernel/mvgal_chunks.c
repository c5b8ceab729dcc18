// SPDX-License-Identifier: GPL-2.0
/*
 * A buffer's per-chunk records, sparse.
 *
 * The coherence state of every chunk and its bits (enum mvgal_cbit) live
 * in leaves of MVGAL_LEAF_CHUNKS chunks, in an xarray indexed by chunk
 * number >> MVGAL_LEAF_SHIFT. A leaf is allocated by the first operation
 * that may change one of its chunks, at a point where that operation can
 * still fail with nothing changed (mvgal_chunks_ensure()): BEGIN for the
 * chunks it names, the planning of copies, a CPU access. An absent leaf's
 * chunks are all at home with no bit set, which is what a new leaf holds,
 * so readers take an absent leaf for that. Leaves stay until the buffer
 * goes. A lazily allocated buffer's metadata thus grows with what is
 * touched, not with its size: one leaf (about 4.6 KiB) per 64 MiB touched
 * at the default chunk size.
 *
 * Leaves are charged to the memory cgroup of the task that touches them
 * (SLAB_ACCOUNT) and to the allowance of the file that created the buffer
 * (max_file_meta_mb). Chunk states are read and changed under
 * bo->state_lock, bits under bo->lock; the xarray has its own lock, so
 * leaves may be added with neither held.
 */
#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "mvgal_bo.h"

#define MVGAL_LEAF_SHIFT	10
#define MVGAL_LEAF_CHUNKS	BIT(MVGAL_LEAF_SHIFT)
#define MVGAL_LEAF_MASK		(MVGAL_LEAF_CHUNKS - 1)

struct mvgal_leaf {
	struct mvgal_chunk chunk[MVGAL_LEAF_CHUNKS];
	unsigned long bits[MVGAL_CB_COUNT][BITS_TO_LONGS(MVGAL_LEAF_CHUNKS)];
};

/* A cache of their own: a leaf is a little over a page. */
static struct kmem_cache *mvgal_leaf_cache;

int mvgal_chunks_cache_init(void)
{
	mvgal_leaf_cache = kmem_cache_create("mvgal_leaf",
					     sizeof(struct mvgal_leaf), 0,
					     SLAB_ACCOUNT, NULL);
	return mvgal_leaf_cache ? 0 : -ENOMEM;
}

void mvgal_chunks_cache_fini(void)
{
	kmem_cache_destroy(mvgal_leaf_cache);
}

/* A new buffer, with home_loc set: every chunk at home, no leaf. */
void mvgal_chunks_init(struct mvgal_bo *bo)
{
	mvgal_chunk_init(&bo->chunk_home, bo->home_loc);
}

/* Frees every leaf. Return: the bytes they took, to uncharge. */
u64 mvgal_chunks_fini(struct mvgal_bo *bo)
{
	struct mvgal_leaf *leaf;
	unsigned long i;
	u64 n = 0;

	xa_for_each(&bo->leaves, i, leaf) {
		kmem_cache_free(mvgal_leaf_cache, leaf);
		n++;
	}
	xa_destroy(&bo->leaves);
	return n * sizeof(struct mvgal_leaf);
}

static struct mvgal_leaf *mvgal_leaf(struct mvgal_bo *bo, unsigned long c)
{
	return xa_load(&bo->leaves, c >> MVGAL_LEAF_SHIFT);
}

static int mvgal_leaf_add(struct mvgal_bo *bo, unsigned long i)
{
	struct mvgal_leaf *leaf;
	unsigned long c;
	int ret;

	if (bo->quota) {
		ret = mvgal_file_meta_charge(bo->quota, sizeof(*leaf));
		if (ret)
			return ret;
	}
	leaf = kmem_cache_alloc(mvgal_leaf_cache, GFP_KERNEL | __GFP_NOWARN);
	if (!leaf) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	for (c = 0; c < MVGAL_LEAF_CHUNKS; c++)
		leaf->chunk[c] = bo->chunk_home;
	memset(leaf->bits, 0, sizeof(leaf->bits));
	ret = xa_insert(&bo->leaves, i, leaf, GFP_KERNEL_ACCOUNT);
	if (!ret)
		return 0;
	kmem_cache_free(mvgal_leaf_cache, leaf);
	/* Another caller added it meanwhile: it is there all the same. */
	if (ret == -EBUSY)
		ret = 0;
err_uncharge:
	if (bo->quota)
		mvgal_file_meta_uncharge(bo->quota, sizeof(*leaf));
	return ret;
}

/**
 * mvgal_chunks_ensure() - the records of chunks [first, last] exist, so
 * that they can change where nothing may fail any more
 * @bo: the buffer
 * @first: first chunk
 * @last: last chunk, below bo->nchunks
 *
 * Return: 0, -ENOMEM, or -EDQUOT (the creating file's max_file_meta_mb).
 * Leaves added before a failure stay: they hold the initial state.
 */
int mvgal_chunks_ensure(struct mvgal_bo *bo, unsigned long first,
			unsigned long last)
{
	unsigned long i;
	int ret;

	if (WARN_ON_ONCE(first > last || last >= bo->nchunks))
		return -EINVAL;
	for (i = first >> MVGAL_LEAF_SHIFT; i <= last >> MVGAL_LEAF_SHIFT; i++) {
		if (xa_load(&bo->leaves, i))
			continue;
		ret = mvgal_leaf_add(bo, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* mvgal_chunks_ensure() for chunk @base + i of every bit i set in @map. */
int mvgal_chunks_ensure_map(struct mvgal_bo *bo, unsigned long base,
			    const unsigned long *map, unsigned long n)
{
	unsigned long s, e;
	int ret;

	for_each_set_bitrange(s, e, map, n) {
		ret = mvgal_chunks_ensure(bo, base + s, base + e - 1);
		if (ret)
			return ret;
	}
	return 0;
}

size_t mvgal_chunks_leaf_bytes(void)
{
	return sizeof(struct mvgal_leaf);
}

unsigned long mvgal_chunks_leaves(struct mvgal_bo *bo)
{
	struct mvgal_leaf *leaf;
	unsigned long i, n = 0;

	xa_for_each(&bo->leaves, i, leaf)
		n++;
	return n;
}

/*
 * mvgal_chunks_next_leaf() - the chunks [*first, *last] of the first leaf
 * at or after chunk @from that exists, from @from on. Walks that only care
 * for chunks that are not simply at home skip the rest this way.
 * Return: false when there is none.
 */
bool mvgal_chunks_next_leaf(struct mvgal_bo *bo, unsigned long from,
			    unsigned long *first, unsigned long *last)
{
	unsigned long i = from >> MVGAL_LEAF_SHIFT;

	if (from >= bo->nchunks ||
	    !xa_find(&bo->leaves, &i, ULONG_MAX, XA_PRESENT))
		return false;
	*first = max(from, i << MVGAL_LEAF_SHIFT);
	*last = min((i << MVGAL_LEAF_SHIFT) | MVGAL_LEAF_MASK,
		    bo->nchunks - 1);
	return true;
}

/* Chunk @c's state, to read (under state_lock). */
const struct mvgal_chunk *mvgal_chunk_peek(struct mvgal_bo *bo,
					   unsigned long c)
{
	struct mvgal_leaf *leaf = mvgal_leaf(bo, c);

	return leaf ? &leaf->chunk[c & MVGAL_LEAF_MASK] : &bo->chunk_home;
}

/*
 * Chunk @c's state, to change (under state_lock). Its leaf was ensured by
 * whoever planned the change; a change nobody made room for is a bug,
 * warned about and contained in a scratch record.
 */
struct mvgal_chunk *mvgal_chunk_at(struct mvgal_bo *bo, unsigned long c)
{
	struct mvgal_leaf *leaf = mvgal_leaf(bo, c);

	if (WARN_ON_ONCE(!leaf)) {
		bo->chunk_stray = bo->chunk_home;
		return &bo->chunk_stray;
	}
	return &leaf->chunk[c & MVGAL_LEAF_MASK];
}

bool mvgal_cbit_test(struct mvgal_bo *bo, enum mvgal_cbit b, unsigned long c)
{
	struct mvgal_leaf *leaf = mvgal_leaf(bo, c);

	return leaf && test_bit(c & MVGAL_LEAF_MASK, leaf->bits[b]);
}

/* Sets bit @b of chunk @c (its leaf ensured). Return: it was set already. */
bool mvgal_cbit_set(struct mvgal_bo *bo, enum mvgal_cbit b, unsigned long c)
{
	struct mvgal_leaf *leaf = mvgal_leaf(bo, c);

	if (WARN_ON_ONCE(!leaf))
		return true;
	return __test_and_set_bit(c & MVGAL_LEAF_MASK, leaf->bits[b]);
}

/* Sets (leaves ensured) or clears bit @b of chunks [first, last]. */
void mvgal_cbit_assign(struct mvgal_bo *bo, enum mvgal_cbit b,
		       unsigned long first, unsigned long last, bool set)
{
	unsigned long c, end;

	for (c = first; c <= last; c = end + 1) {
		struct mvgal_leaf *leaf = mvgal_leaf(bo, c);

		end = min(last, c | MVGAL_LEAF_MASK);
		if (!leaf) {
			WARN_ON_ONCE(set);
			continue;
		}
		if (set)
			bitmap_set(leaf->bits[b], c & MVGAL_LEAF_MASK,
				   end - c + 1);
		else
			bitmap_clear(leaf->bits[b], c & MVGAL_LEAF_MASK,
				     end - c + 1);
	}
}

void mvgal_cbit_clear_all(struct mvgal_bo *bo, enum mvgal_cbit b)
{
	struct mvgal_leaf *leaf;
	unsigned long i;

	xa_for_each(&bo->leaves, i, leaf)
		bitmap_zero(leaf->bits[b], MVGAL_LEAF_CHUNKS);
}

unsigned long mvgal_cbit_weight(struct mvgal_bo *bo, enum mvgal_cbit b)
{
	struct mvgal_leaf *leaf;
	unsigned long i, n = 0;

	xa_for_each(&bo->leaves, i, leaf)
		n += bitmap_weight(leaf->bits[b], MVGAL_LEAF_CHUNKS);
	return n;
}

/* Has any chunk of [first, last] bit @b? */
bool mvgal_cbit_any(struct mvgal_bo *bo, enum mvgal_cbit b,
		    unsigned long first, unsigned long last)
{
	unsigned long s, e;

	return mvgal_cbit_next_run(bo, b, first, &s, &e) && s <= last;
}

/* Has any chunk @base + i, bit i set in @map (@n bits), bit @b? */
bool mvgal_cbit_any_of(struct mvgal_bo *bo, enum mvgal_cbit b,
		       unsigned long base, const unsigned long *map,
		       unsigned long n)
{
	unsigned long s, e;

	for_each_set_bitrange(s, e, map, n)
		if (mvgal_cbit_any(bo, b, base + s, base + e - 1))
			return true;
	return false;
}

/*
 * mvgal_cbit_next_run() - the first run [*start, *end) of chunks at or
 * after @from with bit @b set, across leaves
 * Return: false when there is none.
 */
bool mvgal_cbit_next_run(struct mvgal_bo *bo, enum mvgal_cbit b,
			 unsigned long from, unsigned long *start,
			 unsigned long *end)
{
	unsigned long i = from >> MVGAL_LEAF_SHIFT, off;
	struct mvgal_leaf *leaf;

	for (;;) {
		leaf = xa_find(&bo->leaves, &i, ULONG_MAX, XA_PRESENT);
		if (!leaf)
			return false;
		/* Only @from's own leaf starts part of the way in. */
		off = i == from >> MVGAL_LEAF_SHIFT ? from & MVGAL_LEAF_MASK : 0;
		off = find_next_bit(leaf->bits[b], MVGAL_LEAF_CHUNKS, off);
		if (off < MVGAL_LEAF_CHUNKS)
			break;
		i++;
	}
	*start = (i << MVGAL_LEAF_SHIFT) + off;
	for (;;) {
		off = find_next_zero_bit(leaf->bits[b], MVGAL_LEAF_CHUNKS, off);
		if (off < MVGAL_LEAF_CHUNKS)
			break;
		/* The run reaches the leaf's end: it may go on in the next. */
		off = 0;
		leaf = xa_load(&bo->leaves, ++i);
		if (!leaf)
			break;
	}
	*end = (i << MVGAL_LEAF_SHIFT) + off;
	return true;
}
