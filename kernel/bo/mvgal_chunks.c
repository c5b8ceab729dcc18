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
 * touched, not with its size: one leaf (4,752 bytes) per 64 MiB touched
 * at the default chunk size. A buffer's last leaf covers only the chunks
 * it has: a one-chunk buffer's takes 60 bytes.
 *
 * Leaves are charged to the memory cgroup of the task that touches them
 * (SLAB_ACCOUNT) and to the allowance of the file that created the buffer
 * (max_file_meta_mb). Leaves are added under bo->lock, so that two calls
 * never both charge for one; whether one exists is seen without it.
 * Chunk states are read and changed under bo->state_lock, bits under
 * bo->lock; lookups need neither (RCU).
 */

#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "core/mvgal_chunk.h"
#include "dev/mvgal_quota.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"

#define MVGAL_LEAF_SHIFT	10

#define MVGAL_LEAF_CHUNKS	BIT(MVGAL_LEAF_SHIFT)

#define MVGAL_LEAF_MASK		(MVGAL_LEAF_CHUNKS - 1)

struct mvgal_leaf {
	unsigned int nr;		/* chunks it covers */
	unsigned int words;		/* longs per bitmap */
	struct mvgal_chunk *chunk;	/* @nr states, after the bitmaps */
	unsigned long bits[];		/* MVGAL_CB_COUNT bitmaps of @nr bits */
};

static size_t mvgal_leaf_size(unsigned long nr)
{
	return struct_size_t(struct mvgal_leaf, bits,
			     MVGAL_CB_COUNT * BITS_TO_LONGS(nr)) +
	       nr * sizeof(struct mvgal_chunk);
}

static unsigned long *mvgal_leaf_bits(struct mvgal_leaf *leaf,
				      enum mvgal_cbit b)
{
	return leaf->bits + b * leaf->words;
}

/* Full leaves come from a cache of their own: a little over a page. */
static struct kmem_cache *mvgal_leaf_cache;

int mvgal_chunks_cache_init(void)
{
	mvgal_leaf_cache = kmem_cache_create("mvgal_leaf",
					     mvgal_leaf_size(MVGAL_LEAF_CHUNKS),
					     0, SLAB_ACCOUNT, NULL);
	return mvgal_leaf_cache ? 0 : -ENOMEM;
}

static void mvgal_leaf_free(struct mvgal_leaf *leaf)
{
	if (leaf->nr == MVGAL_LEAF_CHUNKS)
		kmem_cache_free(mvgal_leaf_cache, leaf);
	else
		kfree(leaf);
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
	u64 bytes = 0;

	xa_for_each(&bo->leaves, i, leaf) {
		bytes += mvgal_leaf_size(leaf->nr);
		mvgal_leaf_free(leaf);
	}
	xa_destroy(&bo->leaves);
	return bytes;
}

static struct mvgal_leaf *mvgal_leaf(struct mvgal_bo *bo, unsigned long c)
{
	return xa_load(&bo->leaves, c >> MVGAL_LEAF_SHIFT);
}

static int mvgal_leaf_add(struct mvgal_bo *bo, unsigned long i)
{
	unsigned long c, nr = min(MVGAL_LEAF_CHUNKS,
				  bo->nchunks - (i << MVGAL_LEAF_SHIFT));
	size_t size = mvgal_leaf_size(nr);
	struct mvgal_leaf *leaf;
	int ret;

	if (bo->quota) {
		ret = mvgal_file_meta_charge(bo->quota, size);
		if (ret)
			return ret;
	}
	if (nr == MVGAL_LEAF_CHUNKS)
		leaf = kmem_cache_alloc(mvgal_leaf_cache,
					GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	else
		leaf = kmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!leaf) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	leaf->nr = nr;
	leaf->words = BITS_TO_LONGS(nr);
	memset(leaf->bits, 0, MVGAL_CB_COUNT * leaf->words * sizeof(long));
	leaf->chunk = (struct mvgal_chunk *)(leaf->bits +
					     MVGAL_CB_COUNT * leaf->words);
	for (c = 0; c < nr; c++)
		leaf->chunk[c] = bo->chunk_home;
	ret = xa_insert(&bo->leaves, i, leaf, GFP_KERNEL_ACCOUNT);
	if (!ret)
		return 0;
	mvgal_leaf_free(leaf);
err_uncharge:
	if (bo->quota)
		mvgal_file_meta_uncharge(bo->quota, size);
	return ret;
}

/**
 * mvgal_chunks_ensure() - the records of chunks [first, last] exist, so
 * that they can change where nothing may fail any more
 * @bo: the buffer; caller holds bo->lock
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

	lockdep_assert_held(&bo->lock);
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

/* Do the records of chunks [first, last] exist? Needs no lock. */
static bool mvgal_chunks_present(struct mvgal_bo *bo, unsigned long first,
				 unsigned long last)
{
	unsigned long i;

	for (i = first >> MVGAL_LEAF_SHIFT; i <= last >> MVGAL_LEAF_SHIFT; i++)
		if (!xa_load(&bo->leaves, i))
			return false;
	return true;
}

/*
 * mvgal_chunks_ensure() for chunk @base + i of every bit i set in @map.
 * Takes bo->lock only when a leaf is missing (a BEGIN on chunks touched
 * before, the common case, takes none).
 */
int mvgal_chunks_ensure_map(struct mvgal_bo *bo, unsigned long base,
			    const unsigned long *map, unsigned long n)
{
	unsigned long s, e;
	int ret = 0;

	for_each_set_bitrange(s, e, map, n) {
		if (mvgal_chunks_present(bo, base + s, base + e - 1))
			continue;
		mutex_lock(&bo->lock);
		ret = mvgal_chunks_ensure(bo, base + s, base + e - 1);
		mutex_unlock(&bo->lock);
		if (ret)
			break;
	}
	return ret;
}

/* How many leaves @bo has, and their bytes. */
unsigned long mvgal_chunks_leaves(struct mvgal_bo *bo, u64 *bytes)
{
	struct mvgal_leaf *leaf;
	unsigned long i, n = 0;

	*bytes = 0;
	xa_for_each(&bo->leaves, i, leaf) {
		*bytes += mvgal_leaf_size(leaf->nr);
		n++;
	}
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

/*
 * The first chunk of [c, last] that @loc does not hold, or last + 1; one
 * lookup per leaf. Caller holds state_lock.
 */
unsigned long mvgal_chunks_find_missing(struct mvgal_bo *bo, unsigned long c,
					unsigned long last, unsigned int loc)
{
	while (c <= last) {
		struct mvgal_leaf *leaf = mvgal_leaf(bo, c);
		unsigned long end = min(last, c | MVGAL_LEAF_MASK);

		if (!leaf) {
			if (!mvgal_chunk_valid_at(&bo->chunk_home, loc))
				return c;
			c = end + 1;
			continue;
		}
		for (; c <= end; c++)
			if (!mvgal_chunk_valid_at(&leaf->chunk[c & MVGAL_LEAF_MASK],
						  loc))
				return c;
	}
	return c;
}

/* Chunk @c's state, to read (under state_lock). */
const struct mvgal_chunk *mvgal_chunk_peek(struct mvgal_bo *bo,
					   unsigned long c)
{
	struct mvgal_leaf *leaf = mvgal_leaf(bo, c);

	return leaf ? &leaf->chunk[c & MVGAL_LEAF_MASK] : &bo->chunk_home;
}

/*
 * Chunk @c's record to change, or NULL when it has none (it is at home
 * alone, as every chunk without one). Under state_lock; allocates
 * nothing, so that an MMU notifier may call it.
 */
struct mvgal_chunk *mvgal_chunk_find(struct mvgal_bo *bo, unsigned long c)
{
	struct mvgal_leaf *leaf = mvgal_leaf(bo, c);

	return leaf ? &leaf->chunk[c & MVGAL_LEAF_MASK] : NULL;
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

	return leaf && test_bit(c & MVGAL_LEAF_MASK, mvgal_leaf_bits(leaf, b));
}

/* Sets bit @b of chunk @c (its leaf ensured). Return: it was set already. */
bool mvgal_cbit_set(struct mvgal_bo *bo, enum mvgal_cbit b, unsigned long c)
{
	struct mvgal_leaf *leaf = mvgal_leaf(bo, c);

	if (WARN_ON_ONCE(!leaf))
		return true;
	return __test_and_set_bit(c & MVGAL_LEAF_MASK, mvgal_leaf_bits(leaf, b));
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
			bitmap_set(mvgal_leaf_bits(leaf, b), c & MVGAL_LEAF_MASK,
				   end - c + 1);
		else
			bitmap_clear(mvgal_leaf_bits(leaf, b), c & MVGAL_LEAF_MASK,
				     end - c + 1);
	}
}

void mvgal_cbit_clear_all(struct mvgal_bo *bo, enum mvgal_cbit b)
{
	struct mvgal_leaf *leaf;
	unsigned long i;

	xa_for_each(&bo->leaves, i, leaf)
		bitmap_zero(mvgal_leaf_bits(leaf, b), leaf->nr);
}

unsigned long mvgal_cbit_weight(struct mvgal_bo *bo, enum mvgal_cbit b)
{
	struct mvgal_leaf *leaf;
	unsigned long i, n = 0;

	xa_for_each(&bo->leaves, i, leaf)
		n += bitmap_weight(mvgal_leaf_bits(leaf, b), leaf->nr);
	return n;
}

/* Has any chunk of [first, last] bit @b? Looks at those leaves only. */
bool mvgal_cbit_any(struct mvgal_bo *bo, enum mvgal_cbit b,
		    unsigned long first, unsigned long last)
{
	unsigned long i, lo, hi, fi = first >> MVGAL_LEAF_SHIFT;
	unsigned long li = last >> MVGAL_LEAF_SHIFT;
	struct mvgal_leaf *leaf;

	xa_for_each_range(&bo->leaves, i, leaf, fi, li) {
		lo = i == fi ? first & MVGAL_LEAF_MASK : 0;
		hi = i == li ? last & MVGAL_LEAF_MASK : leaf->nr - 1;
		if (find_next_bit(mvgal_leaf_bits(leaf, b), hi + 1, lo) <= hi)
			return true;
	}
	return false;
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
		off = find_next_bit(mvgal_leaf_bits(leaf, b), leaf->nr, off);
		if (off < leaf->nr)
			break;
		i++;
	}
	*start = (i << MVGAL_LEAF_SHIFT) + off;
	for (;;) {
		/* Only the last leaf is short: a run ends at its end. */
		off = find_next_zero_bit(mvgal_leaf_bits(leaf, b), leaf->nr,
					 off);
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
