/* Emoji names and codes for statuses; see emoji.h. */
#include "model/emoji.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/uow.h"

struct emoji_name {
	const char *name;
	const char *code;
};

/* Sorted by name (strcmp) for bsearch. Canonical names and aliases alike. */
static const struct emoji_name unicode_names[] = {
    {"+1", "1f44d"},
    {"-1", "1f44e"},
    {"airplane", "2708"},
    {"alarm_clock", "23f0"},
    {"bus", "1f68c"},
    {"calendar", "1f4c5"},
    {"car", "1f697"},
    {"coffee", "2615"},
    {"computer", "1f4bb"},
    {"grinning", "1f600"},
    {"happy", "1f600"},
    {"headphones", "1f3a7"},
    {"heart", "2764"},
    {"hello", "1f44b"},
    {"hi", "1f44b"},
    {"house", "1f3e0"},
    {"hurt", "1f915"},
    {"like", "1f44d"},
    {"octopus", "1f419"},
    {"office", "1f3e2"},
    {"palm_tree", "1f334"},
    {"sick", "1f912"},
    {"sleeping", "1f634"},
    {"slight_smile", "1f642"},
    {"smile", "263a"},
    {"tada", "1f389"},
    {"thinking", "1f914"},
    {"thumbs_down", "1f44e"},
    {"thumbs_up", "1f44d"},
    {"wave", "1f44b"},
    {"working_on_it", "1f6e0"},
    {"zzz", "1f4a4"},
};
#define NUNICODE (sizeof(unicode_names) / sizeof(unicode_names[0]))

static int cmp_name(const void *key, const void *entry)
{
	return strcmp(key, ((const struct emoji_name *)entry)->name);
}

/* The reference's name_to_codepoint: the code of a Unicode emoji name, or NULL. */
static const char *unicode_code(const char *name)
{
	const struct emoji_name *e = bsearch(name, unicode_names, NUNICODE, sizeof(unicode_names[0]), cmp_name);
	return e ? e->code : NULL;
}

/* The reference's codepoint_to_name membership (a linear scan of a short table). */
static bool is_unicode_code(const char *code)
{
	for (size_t i = 0; i < NUNICODE; i++)
		if (strcmp(unicode_names[i].code, code) == 0)
			return true;
	return false;
}

int emoji_data_for_name(struct uow *uow, const char *name, const char **code, const char **reaction_type)
{
	/* Custom emoji would come first; an organization has none yet. */
	if (strcmp(name, "zulip") == 0) {
		*code = "zulip";
		*reaction_type = "zulip_extra_emoji";
		return 0;
	}
	if ((*code = unicode_code(name)) != NULL) {
		*reaction_type = "unicode_emoji";
		return 0;
	}
	return uow_error(uow, ERR_BAD_REQUEST, "Emoji '%s' does not exist", name);
}

int emoji_check(struct uow *uow, const char *name, const char *code, const char *reaction_type)
{
	if (strcmp(reaction_type, "realm_emoji") == 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid custom emoji.");
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
		const char *named = unicode_code(name);
		if (named == NULL || strcmp(named, code) != 0)
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid emoji name.");
		return 0;
	}
	return uow_error(uow, ERR_BAD_REQUEST, "Invalid emoji type.");
}
