/* The Unicode emoji table generated from emoji-datasource-google (model/emoji_names.c) as model/emoji.h uses it. */
#include <string.h>

#include "core/uow.h"
#include "model/emoji.h"
#include "model/emoji_data.h"
#include "model/realm_emoji.h"
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
	/* The reference's own names (its custom name map) win over the data set's and CLDR's. */
	CU_ASSERT_STRING_EQUAL(code_of("+1"), "1f44d");
	CU_ASSERT_STRING_EQUAL(code_of("thumbs_up"), "1f44d");
	CU_ASSERT_STRING_EQUAL(code_of("like"), "1f44d");
	CU_ASSERT_STRING_EQUAL(code_of("-1"), "1f44e");
	CU_ASSERT_STRING_EQUAL(code_of("smile"), "1f604"); /* after the reference's 2024 remap */
	CU_ASSERT_STRING_EQUAL(code_of("slight_smile"), "1f642");
	CU_ASSERT_STRING_EQUAL(code_of("smiling_face"), "263a");
	CU_ASSERT_STRING_EQUAL(code_of("working_on_it"), "1f6e0");
	CU_ASSERT_STRING_EQUAL(code_of("hammer_and_wrench"), "1f6e0");
	CU_ASSERT_STRING_EQUAL(code_of("calendar"), "1f4c5");
	CU_ASSERT_STRING_EQUAL(code_of("date"), "1f4c6");
	CU_ASSERT_STRING_EQUAL(code_of("hurt"), "1f915");
	CU_ASSERT_STRING_EQUAL(code_of("time"), "1f557");
	CU_ASSERT_STRING_EQUAL(code_of("tada"), "1f389");
	CU_ASSERT_STRING_EQUAL(code_of("car"), "1f697");
	/* U+FE0F is dropped: 2764-FE0F, 0023-FE0F-20E3 and 1F3F4-200D-2620-FE0F in the data set. */
	CU_ASSERT_STRING_EQUAL(code_of("heart"), "2764");
	CU_ASSERT_STRING_EQUAL(code_of("hash"), "0023-20e3");
	CU_ASSERT_STRING_EQUAL(code_of("pirate_flag"), "1f3f4-200d-2620");
	/* Named from CLDR: a flag (two regional indicators) and a ZWJ sequence. */
	CU_ASSERT_STRING_EQUAL(code_of("flag_united_states"), "1f1fa-1f1f8");
	CU_ASSERT_STRING_EQUAL(code_of("family_man_woman_boy"), "1f468-200d-1f469-200d-1f466");
	/* A CLDR name with a non-ASCII letter keeps it and gains its ASCII spelling. */
	CU_ASSERT_STRING_EQUAL(code_of("pi\303\261ata"), "1fa85");
	CU_ASSERT_STRING_EQUAL(code_of("pinata"), "1fa85");
	CU_ASSERT_STRING_EQUAL(code_of("zulip"), "zulip");
}

static void test_emoji_unknown_names(void)
{
	CU_ASSERT_STRING_EQUAL(code_of("no_such_emoji"), "Emoji 'no_such_emoji' does not exist");
	CU_ASSERT_EQUAL(req.error, ERR_BAD_REQUEST);
	CU_ASSERT_STRING_EQUAL(code_of(""), "Emoji '' does not exist");
	CU_ASSERT_STRING_EQUAL(code_of("Smile"), "Emoji 'Smile' does not exist");
	/* The data set's short names the reference does not use. */
	CU_ASSERT_STRING_EQUAL(code_of("thumbsup"), "Emoji 'thumbsup' does not exist");
	CU_ASSERT_STRING_EQUAL(code_of("flag-us"), "Emoji 'flag-us' does not exist");
	CU_ASSERT_STRING_EQUAL(code_of("big_smile"), "Emoji 'big_smile' does not exist");
	/* Left out as the reference leaves them out: skin tones alone, most clock faces. */
	CU_ASSERT_STRING_EQUAL(code_of("light_skin_tone"), "Emoji 'light_skin_tone' does not exist");
	CU_ASSERT_STRING_EQUAL(code_of("one_oclock"), "Emoji 'one_oclock' does not exist");
	CU_ASSERT_STRING_EQUAL(code_of("clock1"), "Emoji 'clock1' does not exist");
}

static void test_emoji_check(void)
{
	CU_ASSERT_STRING_EQUAL(check("tada", "1f389"), "");
	CU_ASSERT_STRING_EQUAL(check("flag_united_states", "1f1fa-1f1f8"), "");
	CU_ASSERT_STRING_EQUAL(check("smile", "263a"), "Invalid emoji name.");
	CU_ASSERT_STRING_EQUAL(check("tada", "1f1fa-1f1f8"), "Invalid emoji name.");
	CU_ASSERT_STRING_EQUAL(check("no_such_emoji", "1f389"), "Invalid emoji name.");
	CU_ASSERT_STRING_EQUAL(check("tada", "1F389"), "Invalid emoji code.");
	CU_ASSERT_STRING_EQUAL(check("heart", "2764-fe0f"), "Invalid emoji code.");
	CU_ASSERT_STRING_EQUAL(check("tada", ""), "Invalid emoji code.");
}

/* realm_emoji_check_name's recorded message, or "" for an accepted custom emoji name. */
static const char *custom_name(const char *name)
{
	uow_finish(&req);
	uow_init(&req, NULL, 1);
	return realm_emoji_check_name(&req, name) == 0 ? "" : req.error_msg;
}

static void test_emoji_custom_names(void)
{
	static const char *const letters =
	    "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.";
	CU_ASSERT_STRING_EQUAL(custom_name("green_tick"), "");
	CU_ASSERT_STRING_EQUAL(custom_name("a-1_b2"), "");
	CU_ASSERT_STRING_EQUAL(custom_name("7"), "");
	CU_ASSERT_STRING_EQUAL(custom_name(""), "Emoji name is missing");
	CU_ASSERT_STRING_EQUAL(custom_name("my_emoji_"), "Emoji names must end with either a letter or digit.");
	CU_ASSERT_STRING_EQUAL(custom_name("-"), "Emoji names must end with either a letter or digit.");
	CU_ASSERT_STRING_EQUAL(custom_name("My_emoji"), letters);
	CU_ASSERT_STRING_EQUAL(custom_name("my.emoji"), letters);
	CU_ASSERT_STRING_EQUAL(custom_name("my emoji"), letters);
	CU_ASSERT_STRING_EQUAL(custom_name("my/emoji"), letters);
	CU_ASSERT_STRING_EQUAL(custom_name("caf\303\251"), letters);
	CU_ASSERT_STRING_EQUAL(custom_name("bad_"), "Emoji names must end with either a letter or digit.");
	CU_ASSERT_STRING_EQUAL(custom_name("Bad_"), letters); /* a bad letter wins over the bad end */
}

static void test_emoji_custom_types(void)
{
	CU_ASSERT_STRING_EQUAL(realm_emoji_extension("image/png"), ".png");
	CU_ASSERT_STRING_EQUAL(realm_emoji_extension("IMAGE/GIF"), ".gif");
	CU_ASSERT_STRING_EQUAL(realm_emoji_extension("image/jpeg; charset=x"), ".jpg");
	CU_ASSERT_STRING_EQUAL(realm_emoji_extension("image/webp"), ".webp");
	CU_ASSERT_STRING_EQUAL(realm_emoji_extension("image/avif"), ".avif");
	CU_ASSERT_PTR_NULL(realm_emoji_extension("image/tiff"));
	CU_ASSERT_PTR_NULL(realm_emoji_extension("image/svg+xml"));
	CU_ASSERT_PTR_NULL(realm_emoji_extension("image/pngx"));
	CU_ASSERT_PTR_NULL(realm_emoji_extension(""));
	CU_ASSERT_PTR_NULL(realm_emoji_extension(NULL));
	/* Without an organization, no custom emoji exists. */
	uow_finish(&req);
	uow_init(&req, NULL, 1);
	CU_ASSERT_EQUAL(emoji_check(&req, "green_tick", "1", "realm_emoji"), -1);
	CU_ASSERT_STRING_EQUAL(req.error_msg, "Invalid custom emoji.");
}

/* Sorted strictly (so bsearch finds every entry and no name is there twice), and every name's code accepted. */
static void test_emoji_table_sorted(void)
{
	CU_ASSERT(emoji_names_count > 1800);
	for (size_t i = 1; i < emoji_names_count; i++)
		if (strcmp(emoji_names[i - 1].name, emoji_names[i].name) >= 0)
			CU_FAIL_FATAL("emoji_names not strictly sorted");
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
		{"test_emoji_custom_names", test_emoji_custom_names},
		{"test_emoji_custom_types", test_emoji_custom_types},
		{"test_emoji_table_sorted", test_emoji_table_sorted},
		{NULL, NULL},
	};
	int rc = unit_run("emoji", tests);
	uow_finish(&req);
	return rc;
}
