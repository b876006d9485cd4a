/*
 * The Unicode emoji table of model/emoji.c, generated from the emoji-datasource-google data set by
 * scripts/gen-emoji into emoji_names.c (see there for the version and the rules).
 */
#ifndef CONFAB_EMOJI_DATA_H
#define CONFAB_EMOJI_DATA_H

#include <stddef.h>

struct emoji_name {
	const char *name;
	const char *code; /* lowercase hex codepoints joined by '-', as the reference's emoji_code */
};

/* Every name (canonical and aliases), sorted by name (strcmp), each once. */
extern const struct emoji_name emoji_names[];
extern const size_t emoji_names_count;

#endif
