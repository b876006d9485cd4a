/* Emoji names and codes for statuses; see emoji.h. */
#include "model/emoji.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/uow.h"
#include "core/xalloc.h"
#include "model/emoji_data.h"
#include "model/realm_emoji.h"

static int cmp_name(const void *key, const void *entry)
{
	return strcmp(key, ((const struct emoji_name *)entry)->name);
}

static int cmp_code(const void *key, const void *entry)
{
	return strcmp(key, *(const char *const *)entry);
}

static int cmp_codes(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The codes of emoji_names, sorted, each once (the reference's codepoint_to_name keys): made on first use. */
static const char **codes;
static size_t codes_count;
static pthread_once_t codes_once = PTHREAD_ONCE_INIT;

static void make_codes(void)
{
	codes = xmalloc(emoji_names_count * sizeof(*codes));
	for (size_t i = 0; i < emoji_names_count; i++)
		codes[i] = emoji_names[i].code;
	qsort(codes, emoji_names_count, sizeof(*codes), cmp_codes);
	for (size_t i = 0; i < emoji_names_count; i++)
		if (codes_count == 0 || strcmp(codes[codes_count - 1], codes[i]) != 0)
			codes[codes_count++] = codes[i];
}

const char *emoji_unicode_code(const char *name)
{
	const struct emoji_name *e = bsearch(name, emoji_names, emoji_names_count, sizeof(emoji_names[0]), cmp_name);
	return e ? e->code : NULL;
}

/* The reference's codepoint_to_name membership. */
static bool is_unicode_code(const char *code)
{
	pthread_once(&codes_once, make_codes);
	return bsearch(code, codes, codes_count, sizeof(codes[0]), cmp_code) != NULL;
}

int emoji_data_for_name(struct uow *uow, const char *name, const char **code, const char **reaction_type)
{
	/* The organization's active custom emoji come first: one may override a built-in name. */
	if (uow->realm != NULL) {
		struct realm_emoji *e = realm_emoji_active(uow, name);
		if (e != NULL) {
			*code = arena_printf(&uow->arena, "%lld", (long long)e->id);
			*reaction_type = "realm_emoji";
			return 0;
		}
		if (uow->error != ERR_NONE)
			return -1;
	}
	if (strcmp(name, "zulip") == 0) {
		*code = "zulip";
		*reaction_type = "zulip_extra_emoji";
		return 0;
	}
	if ((*code = emoji_unicode_code(name)) != NULL) {
		*reaction_type = "unicode_emoji";
		return 0;
	}
	return uow_error(uow, ERR_BAD_REQUEST, "Emoji '%s' does not exist", name);
}

/* The reference's check for reaction type realm_emoji: code is the id of one of the organization's emoji. */
static int check_custom(struct uow *uow, const char *name, const char *code)
{
	struct realm_emoji *e = uow->realm != NULL ? realm_emoji_by_code(uow, code) : NULL;
	if (e == NULL)
		return uow->error != ERR_NONE ? -1 : uow_error(uow, ERR_BAD_REQUEST, "Invalid custom emoji.");
	if (strcmp(e->name, name) != 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid custom emoji name.");
	if (e->deactivated)
		return uow_error(uow, ERR_BAD_REQUEST, "This custom emoji has been deactivated.");
	return 0;
}

int emoji_check(struct uow *uow, const char *name, const char *code, const char *reaction_type)
{
	if (strcmp(reaction_type, "realm_emoji") == 0)
		return check_custom(uow, name, code);
	if (strcmp(reaction_type, "zulip_extra_emoji") == 0) {
		if (strcmp(code, "zulip") != 0)
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid emoji code.");
		if (strcmp(name, code) != 0)
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid emoji name.");
		return 0;
	}
	if (strcmp(reaction_type, "unicode_emoji") == 0) {
		if (!is_unicode_code(code))
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid emoji code.");
		const char *named = emoji_unicode_code(name);
		if (named == NULL || strcmp(named, code) != 0)
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid emoji name.");
		return 0;
	}
	return uow_error(uow, ERR_BAD_REQUEST, "Invalid emoji type.");
}
