/* Channel names: the reference's check_stream_name, shared by channel creation and sending to a channel by name. */
#include <string.h>

#include "core/uow.h"
#include "model/channels.h"
#include "model/traffic.h"
#include "unit.h"

static struct uow req;

/* Checks name; returns the recorded message ("" when the name is accepted). */
static const char *check(const char *name)
{
	uow_finish(&req);
	uow_init(&req, NULL, 1);
	return channel_check_name(&req, name) == 0 ? "" : req.error_msg;
}

static void test_channels_name_accepted(void)
{
	CU_ASSERT_STRING_EQUAL(check("general"), "");
	CU_ASSERT_STRING_EQUAL(check("a b\xe2\x9c\x94"), ""); /* inner space, U+2714 */
	/* 60 code points, not bytes: 60 x U+00E9. */
	char name[256] = "";
	for (int i = 0; i < 60; i++)
		strcat(name, "\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(check(name), "");
	strcat(name, "x");
	CU_ASSERT_STRING_EQUAL(check(name), "Channel name too long (limit: 60 characters).");
	CU_ASSERT_EQUAL(req.error, ERR_BAD_REQUEST);
}

static void test_channels_name_empty(void)
{
	CU_ASSERT_STRING_EQUAL(check(""), "Channel name can't be empty.");
	/* Python's strip() takes Unicode white space too: U+3000, U+00A0. */
	CU_ASSERT_STRING_EQUAL(check(" \t"), "Channel name can't be empty.");
	CU_ASSERT_STRING_EQUAL(check("\xe3\x80\x80\xc2\xa0"), "Channel name can't be empty.");
}

static void test_channels_name_unprintable(void)
{
	/* Positions count code points from 1. */
	CU_ASSERT_STRING_EQUAL(check("ab\x01"), "Invalid character in channel name, at position 3.");
	CU_ASSERT_STRING_EQUAL(check("\xc3\xa9\xc3\xa9\x7f"), "Invalid character in channel name, at position 3.");
	/* C1 controls (Cc) and noncharacters, which the reference refuses too. */
	CU_ASSERT_STRING_EQUAL(check("a\xc2\x85"), "Invalid character in channel name, at position 2.");
	CU_ASSERT_STRING_EQUAL(check("a\xc2\x9f"), "Invalid character in channel name, at position 2.");
	CU_ASSERT_STRING_EQUAL(check("\xef\xb7\x90x"), "Invalid character in channel name, at position 1."); /* FDD0 */
	CU_ASSERT_STRING_EQUAL(check("x\xef\xbf\xbe"), "Invalid character in channel name, at position 2.");   /* FFFE */
	CU_ASSERT_STRING_EQUAL(check("xy\xf0\x9f\xbf\xbf"), "Invalid character in channel name, at position 3."); /* 1FFFF */
	/* Bytes that are not UTF-8 (a surrogate encoded, a stray continuation byte). */
	CU_ASSERT_STRING_EQUAL(check("a\xed\xa0\x80"), "Invalid character in channel name, at position 2.");
	CU_ASSERT_STRING_EQUAL(check("\x80"), "Invalid character in channel name, at position 1.");
	/* U+00A0 inside a name is printable; the first bad character is reported. */
	CU_ASSERT_STRING_EQUAL(check("a\xc2\xa0" "b\x02\x03"), "Invalid character in channel name, at position 4.");
}

/* stream_weekly_traffic's rounding to 2 significant digits, ties to even like Python's round(n, 2 - len(str(n))). */
static void test_channels_traffic_round(void)
{
	static const int64_t cases[][2] = {
	    {0, 0},           {1, 1},           {9, 9},       {10, 10},     {99, 99},     {100, 100},
	    {104, 100},       {105, 100},       {106, 110},   {115, 120},   {125, 120},   {135, 140},
	    {308, 310},       {995, 1000},      {985, 980},   {999, 1000},  {1234, 1200}, {1250, 1200},
	    {1251, 1300},     {1350, 1400},     {9950, 10000}, {12500, 12000}, {13500, 14000},
	    {123456789, 120000000}, {125000000, 120000000}, {125000001, 130000000},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CU_ASSERT_EQUAL(traffic_round(cases[i][0]), cases[i][1]);
}

int main(void)
{
	uow_init(&req, NULL, 1);
	static const struct unit_test tests[] = {
		{"test_channels_name_accepted", test_channels_name_accepted},
		{"test_channels_name_empty", test_channels_name_empty},
		{"test_channels_name_unprintable", test_channels_name_unprintable},
		{"test_channels_traffic_round", test_channels_traffic_round},
		{NULL, NULL},
	};
	int rc = unit_run("channels", tests);
	uow_finish(&req);
	return rc;
}
