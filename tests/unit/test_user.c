/* The checks of model/user.h on a person's name and address: table-driven, each row what a client sends and the
 * verdict (the reference's message, or NULL / true for one that passes). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "model/user.h"
#include "unit.h"

static void test_user_full_name_problem(void)
{
	static const struct {
		const char *name, *want;
	} rows[] = {
	    {"Ada Lovelace", NULL},
	    {"\xc3\x89mile Zola", NULL},                                                    /* é */
	    {"\xd9\x85\xdb\x8c\xe2\x80\x8c\xd8\xae\xd9\x88\xd8\xa7\xd9\x87\xd9\x85", NULL}, /* Persian with U+200C */
	    {"Fam \xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7", NULL}, /* an emoji sequence with U+200D */
	    {"A", "Name too short!"},
	    {"Ad\xe2\x80\xaemin", "Invalid characters in name!"}, /* U+202E */
	    {"Ad\xe2\x80\x8bmin", "Invalid characters in name!"}, /* U+200B */
	    {"Ad\xef\xbb\xbfmin", "Invalid characters in name!"}, /* U+FEFF */
	    {"Ad\xc2\x85min", "Invalid characters in name!"},     /* U+0085 */
	    {"Ad\xe2\x80\xa8min", "Invalid characters in name!"}, /* U+2028 */
	    {"Ad\xe2\x80\xa9min", "Invalid characters in name!"}, /* U+2029 */
	    {"Ad\xe2\x81\xa6min", "Invalid characters in name!"}, /* U+2066 */
	    {"Ad\xc2\xadmin", "Invalid characters in name!"},     /* U+00AD */
	    {"Ad\xee\x80\x80min", "Invalid characters in name!"}, /* U+E000 */
	    {"Ad\xef\xb7\x90min", "Invalid characters in name!"}, /* U+FDD0, a noncharacter */
	    {"Ad\x01min", "Invalid characters in name!"},
	    {"Ad\xffmin", "Invalid characters in name!"}, /* not UTF-8 */
	    {"Ad\xc3min", "Invalid characters in name!"}, /* a cut sequence */
	    {"Ad*min", "Invalid characters in name!"},
	    {"Ad@min", "Invalid characters in name!"},
	    {"Name|15", "Invalid format!"},
	    {"Name|x15", NULL},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *got = user_full_name_problem(rows[i].name);
		CU_ASSERT_TRUE(rows[i].want == NULL ? got == NULL : got != NULL && strcmp(got, rows[i].want) == 0);
	}
	char long_name[202];
	memset(long_name, 0, sizeof(long_name));
	for (int i = 0; i < 100; i++)
		memcpy(long_name + 2 * i, "\xc3\xa9", 2); /* 100 characters, 200 bytes */
	CU_ASSERT_PTR_NULL(user_full_name_problem(long_name));
	long_name[200] = 'x';
	CU_ASSERT_STRING_EQUAL(user_full_name_problem(long_name), "Name too long!");
}

static void test_user_email_is_valid(void)
{
	static const struct {
		const char *email;
		bool want;
	} rows[] = {
	    {"ada@example.com", true},
	    {"a.b+c_d-e'f@sub.example.co.uk", true},
	    {"ada@localhost", true},
	    {"ada@xn--exmple-4nf.com", true},
	    {"zw\xe2\x80\x8bsp@example.com", false},
	    {"ada@exa\xe2\x80\x8bmple.com", false},
	    {"ada@ex\xd0\xb0mple.com", false}, /* Cyrillic а */
	    {"ada@example.com\xef\xbb\xbf", false},
	    {"caf\xc3\xa9@example.com", false},
	    {".ada@example.com", false},
	    {"ada.@example.com", false},
	    {"a..da@example.com", false},
	    {"ada@example", false},
	    {"ada@example.c", false},
	    {"ada@-example.com", false},
	    {"ada@example-.com", false},
	    {"ada@example..com", false},
	    {"ada@example.com.", false},
	    {"@example.com", false},
	    {"ada", false},
	    {"a da@example.com", false},
	    {"a\"da@example.com", false},
	    {"ada@exa_mple.com", false},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_ASSERT_EQUAL(user_email_is_valid(rows[i].email), rows[i].want);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"user_full_name_problem", test_user_full_name_problem},
	    {"user_email_is_valid", test_user_email_is_valid},
	    {NULL, NULL},
	};
	return unit_run("user", tests);
}
