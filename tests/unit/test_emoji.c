/* The Unicode emoji table generated from emoji-datasource-google (model/emoji_data.c) as model/emoji.h uses it. */
#include <string.h>

#include "core/uow.h"
#include "model/emoji.h"
#include "model/emoji_data.h"
#include "unit.h"

static struct uow req;

/* The code of name as emoji_data_for_name gives it, or the recorded message. */
static const char *code_of(const char *name)
{
	uow_finish(&req);
	uow_init(&req, NULL, 1);
	const char *code, *type;
	if (emoji_data_for_name(&req, name, &code, &type) != 0)
		return req.error_msg;
	CU_ASSERT_STRING_EQUAL(type, strcmp(name, "zulip") == 0 ? "zulip_extra_emoji" : "unicode_emoji");
	return code;
}

/* emoji_check's recorded message, or "" when (name, code) is accepted as a Unicode emoji. */
static const char *check(const char *name, const char *code)
{
	uow_finish(&req);
	uow_init(&req, NULL, 1);
	return emoji_check(&req, name, code, "unicode_emoji") == 0 ? "" : req.error_msg;
}

static void test_emoji_known_names(void)
{
	CU_ASSERT_STRING_EQUAL(code_of("+1"), "1f44d");
	CU_ASSERT_STRING_EQUAL(code_of("thumbsup"), "1f44d"); /* an alias */
	CU_ASSERT_STRING_EQUAL(code_of("-1"), "1f44e");
	CU_ASSERT_STRING_EQUAL(code_of("smile"), "1f604");
	CU_ASSERT_STRING_EQUAL(code_of("tada"), "1f389");
	CU_ASSERT_STRING_EQUAL(code_of("car"), "1f697");
	/* U+FE0F is dropped: 2764-FE0F, 0023-FE0F-20E3 and 1F3F4-200D-2620-FE0F in the data set. */
	CU_ASSERT_STRING_EQUAL(code_of("heart"), "2764");
	CU_ASSERT_STRING_EQUAL(code_of("hash"), "0023-20e3");
	CU_ASSERT_STRING_EQUAL(code_of("pirate_flag"), "1f3f4-200d-2620");
	/* A flag (two regional indicators) and a ZWJ sequence without skin tone. */
	CU_ASSERT_STRING_EQUAL(code_of("flag-us"), "1f1fa-1f1f8");
	CU_ASSERT_STRING_EQUAL(code_of("man-woman-boy"), "1f468-200d-1f469-200d-1f466");
	CU_ASSERT_STRING_EQUAL(code_of("zulip"), "zulip");
}

static void test_emoji_unknown_names(void)
{
	CU_ASSERT_STRING_EQUAL(code_of("no_such_emoji"), "Emoji 'no_such_emoji' does not exist");
	CU_ASSERT_EQUAL(req.error, ERR_BAD_REQUEST);
	CU_ASSERT_STRING_EQUAL(code_of(""), "Emoji '' does not exist");
	CU_ASSERT_STRING_EQUAL(code_of("Smile"), "Emoji 'Smile' does not exist");
	/* Left out as the reference leaves them out: skin tones alone, most clock faces. */
	CU_ASSERT_STRING_EQUAL(code_of("skin-tone-2"), "Emoji 'skin-tone-2' does not exist");
	CU_ASSERT_STRING_EQUAL(code_of("clock1"), "Emoji 'clock1' does not exist");
	CU_ASSERT_STRING_EQUAL(code_of("clock8"), "1f557");
}

static void test_emoji_check(void)
{
	CU_ASSERT_STRING_EQUAL(check("tada", "1f389"), "");
	CU_ASSERT_STRING_EQUAL(check("us", "1f1fa-1f1f8"), "");
	CU_ASSERT_STRING_EQUAL(check("tada", "1f1fa-1f1f8"), "Invalid emoji name.");
	CU_ASSERT_STRING_EQUAL(check("no_such_emoji", "1f389"), "Invalid emoji name.");
	CU_ASSERT_STRING_EQUAL(check("tada", "1F389"), "Invalid emoji code.");
	CU_ASSERT_STRING_EQUAL(check("heart", "2764-fe0f"), "Invalid emoji code.");
	CU_ASSERT_STRING_EQUAL(check("tada", ""), "Invalid emoji code.");
}

/* Sorted strictly (so bsearch finds every entry and no name is there twice), and every code in emoji_codes. */
static void test_emoji_table_sorted(void)
{
	CU_ASSERT(emoji_names_count > 1800);
	CU_ASSERT(emoji_codes_count > 1800 && emoji_codes_count <= emoji_names_count);
	for (size_t i = 1; i < emoji_names_count; i++)
		if (strcmp(emoji_names[i - 1].name, emoji_names[i].name) >= 0)
			CU_FAIL_FATAL("emoji_names not strictly sorted");
	for (size_t i = 1; i < emoji_codes_count; i++)
		if (strcmp(emoji_codes[i - 1], emoji_codes[i]) >= 0)
			CU_FAIL_FATAL("emoji_codes not strictly sorted");
	for (size_t i = 0; i < emoji_names_count; i++)
		if (strcmp(code_of(emoji_names[i].name), emoji_names[i].code) != 0 ||
		    strcmp(check(emoji_names[i].name, emoji_names[i].code), "") != 0)
			CU_FAIL_FATAL("a name of the table is not found");
}

int main(void)
{
	uow_init(&req, NULL, 1);
	static const struct unit_test tests[] = {
		{"test_emoji_known_names", test_emoji_known_names},
		{"test_emoji_unknown_names", test_emoji_unknown_names},
		{"test_emoji_check", test_emoji_check},
		{"test_emoji_table_sorted", test_emoji_table_sorted},
		{NULL, NULL},
	};
	int rc = unit_run("emoji", tests);
	uow_finish(&req);
	return rc;
}
