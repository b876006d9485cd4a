/* The id-set helpers of model/channels.h: stable grouping by key (ids_group_order) and sorted pairs; and core/hash's
 * FNV-1a, against the published test vectors. */
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/hash.h"
#include "model/channels.h"
#include "unit.h"

/* The grouping of keys must be want (n positions). */
static void check_order(const int64_t *keys, int n, const int *want)
{
	struct arena a;
	arena_init(&a);
	int *order = ids_group_order(&a, keys, n);
	for (int i = 0; i < n; i++)
		CU_ASSERT_EQUAL(order[i], want[i]);
	arena_free(&a);
}

static void test_group_order_first_appearance(void)
{
	/* Groups in the order their keys first appear (7, then 3, then 9), positions ascending within each. */
	int64_t keys[] = {7, 3, 7, 9, 3, 7};
	check_order(keys, 6, (int[]){0, 2, 5, 1, 4, 3});
	/* Negative and extreme keys; one group; all distinct (the identity). */
	int64_t extreme[] = {INT64_MAX, -1, INT64_MIN, -1, INT64_MAX};
	check_order(extreme, 5, (int[]){0, 4, 1, 3, 2});
	int64_t same[] = {5, 5, 5};
	check_order(same, 3, (int[]){0, 1, 2});
	int64_t distinct[] = {9, 8, 7, 1};
	check_order(distinct, 4, (int[]){0, 1, 2, 3});
	check_order(NULL, 0, NULL);
}

/* Against the quadratic definition on a larger input: for each position not yet taken, it and every later
 * position with its key. */
static void test_group_order_matches_quadratic(void)
{
	enum { N = 2000 };
	static int64_t keys[N];
	static int want[N];
	static char taken[N];
	uint32_t x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		keys[i] = (int64_t)(x >> 16) % 97 - 48;
	}
	int n = 0;
	for (int i = 0; i < N; i++) {
		if (taken[i])
			continue;
		for (int j = i; j < N; j++)
			if (keys[j] == keys[i]) {
				want[n++] = j;
				taken[j] = 1;
			}
	}
	CU_ASSERT_EQUAL(n, N);
	check_order(keys, N, want);
}

static void test_pairs(void)
{
	struct id_pair p[] = {{3, 10, 0}, {1, 20, 1}, {3, 2, 2}, {1, 5, 3}, {INT64_MAX, INT64_MIN, 4}};
	id_pairs_sort(p, 5);
	CU_ASSERT_EQUAL(p[0].user, 1);
	CU_ASSERT_EQUAL(p[0].channel, 5);
	CU_ASSERT_EQUAL(p[3].channel, 10);
	const struct id_pair *f = id_pairs_find(p, 5, 3, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->row, 2);
	CU_ASSERT_PTR_NOT_NULL(id_pairs_find(p, 5, INT64_MAX, INT64_MIN));
	CU_ASSERT_PTR_NULL(id_pairs_find(p, 5, 2, 10)); /* the ids exist, not the pair */
	CU_ASSERT_PTR_NULL(id_pairs_find(p, 5, 10, 3));
	CU_ASSERT_PTR_NULL(id_pairs_find(NULL, 0, 1, 5));
}

/* The FNV-1a vectors of the algorithm's authors (draft-eastlake-fnv): "", "a" and "foobar", in 32 and 64 bits. */
static void test_fnv1a_vectors(void)
{
	CU_ASSERT_EQUAL(hash_fnv1a32(HASH_FNV32_INIT, "", 0), 0x811c9dc5u);
	CU_ASSERT_EQUAL(hash_fnv1a32(HASH_FNV32_INIT, "a", 1), 0xe40c292cu);
	CU_ASSERT_EQUAL(hash_fnv1a32(HASH_FNV32_INIT, "foobar", 6), 0xbf9cf968u);
	CU_ASSERT_EQUAL(hash_fnv1a64(HASH_FNV64_INIT, "", 0), 0xcbf29ce484222325ULL);
	CU_ASSERT_EQUAL(hash_fnv1a64(HASH_FNV64_INIT, "a", 1), 0xaf63dc4c8601ec8cULL);
	CU_ASSERT_EQUAL(hash_fnv1a64(HASH_FNV64_INIT, "foobar", 6), 0x85944171f73967e8ULL);
	/* Continued in pieces, as the route table's layout is hashed. */
	CU_ASSERT_EQUAL(hash_fnv1a64(hash_fnv1a64(HASH_FNV64_INIT, "foo", 3), "bar", 3), 0x85944171f73967e8ULL);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"group_order_first_appearance", test_group_order_first_appearance},
	    {"group_order_matches_quadratic", test_group_order_matches_quadratic},
	    {"pairs", test_pairs},
	    {"fnv1a_vectors", test_fnv1a_vectors},
	    {NULL, NULL},
	};
	return unit_run("ids", tests);
}
