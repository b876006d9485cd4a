/* Arena and bounded buffer. */
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/buf.h"
#include "unit.h"

static int cleanups;
static void count_cleanup(void *p)
{
	(void)p;
	cleanups++;
}

static void test_arena_alloc_zeroed_and_aligned(void)
{
	struct arena a;
	arena_init(&a);
	for (int i = 1; i < 100; i++) {
		unsigned char *p = arena_alloc(&a, (size_t)i * 37);
		CU_ASSERT_EQUAL((uintptr_t)p % 16, 0);
		CU_ASSERT_EQUAL(p[i * 37 - 1], 0);
	}
	char *big = arena_alloc(&a, 100000);
	CU_ASSERT_PTR_NOT_NULL(big);
	arena_free(&a);
}

static void test_arena_strings(void)
{
	struct arena a;
	arena_init(&a);
	CU_ASSERT_STRING_EQUAL(arena_strndup(&a, "hello world", 5), "hello");
	CU_ASSERT_STRING_EQUAL(arena_printf(&a, "%s-%d", "x", 42), "x-42");
	arena_free(&a);
}

static void test_arena_cleanups_run_once_on_reset(void)
{
	struct arena a;
	arena_init(&a);
	cleanups = 0;
	arena_defer(&a, count_cleanup, &a);
	arena_defer(&a, count_cleanup, &a);
	arena_defer(&a, count_cleanup, NULL);
	arena_reset(&a);
	CU_ASSERT_EQUAL(cleanups, 2);
	arena_reset(&a);
	CU_ASSERT_EQUAL(cleanups, 2);
}

static void test_buf_respects_maximum(void)
{
	struct buf b;
	buf_init(&b, 10);
	CU_ASSERT_EQUAL(buf_adds(&b, "12345"), 0);
	CU_ASSERT_EQUAL(buf_printf(&b, "%d", 6789), 0);
	CU_ASSERT_STRING_EQUAL(buf_str(&b), "123456789");
	CU_ASSERT_EQUAL(buf_adds(&b, "ab"), -1);
	CU_ASSERT_STRING_EQUAL(buf_str(&b), "123456789");
	CU_ASSERT_EQUAL(buf_adds(&b, "a"), 0);
	CU_ASSERT_EQUAL(b.len, 10);
	buf_release(&b);
	CU_ASSERT_STRING_EQUAL(buf_str(&b), "");
}

static void test_arena_charge_respects_limit(void)
{
	struct arena a;
	arena_init(&a);
	CU_ASSERT_EQUAL(arena_charge(&a, (size_t)1 << 40), 0); /* no limit */
	arena_reset(&a);
	CU_ASSERT_EQUAL(arena_held(&a), 0);
	arena_set_limit(&a, 100000);
	CU_ASSERT_EQUAL(arena_charge(&a, 60000), 0);
	CU_ASSERT_EQUAL(arena_charge(&a, 60000), -1); /* counts nothing */
	CU_ASSERT_EQUAL(arena_held(&a), 60000);
	arena_alloc(&a, 30000); /* counted, never refused */
	CU_ASSERT_TRUE(arena_held(&a) >= 90000);
	CU_ASSERT_EQUAL(arena_charge(&a, 20000), -1);
	CU_ASSERT_EQUAL(arena_charge(&a, SIZE_MAX), -1);
	arena_free(&a);
	CU_ASSERT_EQUAL(arena_charge(&a, 100000), 0); /* the limit stays, the count starts again */
	arena_free(&a);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{"test_arena_alloc_zeroed_and_aligned", test_arena_alloc_zeroed_and_aligned},
		{"test_arena_strings", test_arena_strings},
		{"test_arena_cleanups_run_once_on_reset", test_arena_cleanups_run_once_on_reset},
		{"test_buf_respects_maximum", test_buf_respects_maximum},
		{"test_arena_charge_respects_limit", test_arena_charge_respects_limit},
		{NULL, NULL},
	};
	return unit_run("arena", tests);
}
