/* The register's snapshot arithmetic: which transactions pg_current_snapshot() text counts as visible. */
#include "events/snapshot.h"
#include "unit.h"

static void test_snapshot_below_xmin_visible(void)
{
	CU_ASSERT_TRUE(snapshot_txid_visible("100:105:100,102", 1));
	CU_ASSERT_TRUE(snapshot_txid_visible("100:105:100,102", 99));
	CU_ASSERT_TRUE(snapshot_txid_visible("100:100:", 99));
}

static void test_snapshot_from_xmax_invisible(void)
{
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:100,102", 105));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:100,102", 106));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:100:", 100));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:", UINT64_MAX));
}

static void test_snapshot_in_progress_invisible(void)
{
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:100,102", 100));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:100,102", 102));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:102", 102));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:100,101,102,103,104", 104));
}

static void test_snapshot_between_not_listed_visible(void)
{
	CU_ASSERT_TRUE(snapshot_txid_visible("100:105:100,102", 101));
	CU_ASSERT_TRUE(snapshot_txid_visible("100:105:100,102", 103));
	CU_ASSERT_TRUE(snapshot_txid_visible("100:105:100,102", 104));
	/* a listed id that merely starts with txid's digits is another id */
	CU_ASSERT_TRUE(snapshot_txid_visible("10:1030:1025", 102));
}

static void test_snapshot_empty_xip(void)
{
	CU_ASSERT_TRUE(snapshot_txid_visible("100:105:", 100));
	CU_ASSERT_TRUE(snapshot_txid_visible("100:105:", 104));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:", 105));
	/* the biggest ids PostgreSQL can print */
	CU_ASSERT_TRUE(snapshot_txid_visible("18446744073709551614:18446744073709551615:", 18446744073709551614ULL));
}

static void test_snapshot_no_snapshot_or_txid(void)
{
	CU_ASSERT_FALSE(snapshot_txid_visible(NULL, 5));
	CU_ASSERT_FALSE(snapshot_txid_visible("", 5));
	/* txid 0: an event recorded outside a transaction is in no snapshot */
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:", 0));
}

static void test_snapshot_malformed(void)
{
	static const char *const bad[] = {
	    "100",          "100:",         "100:105",      ":105:",        "100::",        "abc:105:",
	    "100x:105:",    "100:105x:",    "100:105:abc",  "100:105:101,", "100:105:,101", "100:105:101,,102",
	    "100:105:101;", "100:105:101 ", " 100:105:",    "+100:105:",    "-1:105:",      "100:-1:",
	    "100:105:-101", "105:100:",     "100:105:101:", NULL,
	};
	for (int i = 0; bad[i]; i++) {
		CU_ASSERT_FALSE(snapshot_txid_visible(bad[i], 50));  /* below xmin */
		CU_ASSERT_FALSE(snapshot_txid_visible(bad[i], 103)); /* between, not listed */
	}
}

static void test_snapshot_overflow(void)
{
	/* 2^64 does not fit: strtoull's saturation would make every txid "below xmin" */
	CU_ASSERT_FALSE(snapshot_txid_visible("18446744073709551616:18446744073709551616:", 5));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:18446744073709551616:", 103));
	CU_ASSERT_FALSE(snapshot_txid_visible("100:105:99999999999999999999999", 103));
	CU_ASSERT_TRUE(snapshot_txid_visible("100:18446744073709551615:", 103));
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_snapshot_below_xmin_visible", test_snapshot_below_xmin_visible},
	    {"test_snapshot_from_xmax_invisible", test_snapshot_from_xmax_invisible},
	    {"test_snapshot_in_progress_invisible", test_snapshot_in_progress_invisible},
	    {"test_snapshot_between_not_listed_visible", test_snapshot_between_not_listed_visible},
	    {"test_snapshot_empty_xip", test_snapshot_empty_xip},
	    {"test_snapshot_no_snapshot_or_txid", test_snapshot_no_snapshot_or_txid},
	    {"test_snapshot_malformed", test_snapshot_malformed},
	    {"test_snapshot_overflow", test_snapshot_overflow},
	    {NULL, NULL},
	};
	return unit_run("snapshot", tests);
}
