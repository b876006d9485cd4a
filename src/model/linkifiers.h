/*
 * Linkifiers: an organization's patterns (RE2) whose matches in messages and topics become links built from an
 * RFC 6570 URL template. Reference: zerver/models/linkifiers.py (validation), zerver/actions/realm_linkifiers.py
 * (changes and the realm_linkifiers event), zerver/lib/markdown/__init__.py (prepare_linkifier_pattern,
 * LinkifierPattern, topic_links).
 *
 * Compiled patterns are cached per organization in the process, keyed by a version number that the database
 * raises on every change of the organization's linkifiers (migrations/0015_linkifiers.sql), so each unit of work
 * checks with one small read that its process's copy is current, whichever process made the change.
 */
#ifndef CONFAB_LINKIFIERS_H
#define CONFAB_LINKIFIERS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct budget;
struct markdown_link;
struct uow;

/* What POST /realm/filters and PATCH /realm/filters/{id} set; NULL example_input/reverse_template: none. */
struct linkifier_input {
	const char *pattern, *url_template, *example_input, *reverse_template;
	json_object *alternative_url_templates; /* array of strings, or NULL for [] */
};

/*
 * Validates in as the reference's RealmFilter.full_clean() does (pattern and url_template are stripped first) and
 * stores it: a new linkifier (last in order) when id is 0, else the linkifier id of the acting organization. Sends
 * realm_linkifiers to the organization. Returns the linkifier's id, or -1 with the error recorded: "Linkifier not
 * found.", or the first validation message with the `errors` field (field -> messages).
 */
int64_t linkifiers_save(struct uow *uow, int64_t id, const struct linkifier_input *in);
/* Deletes linkifier id of the acting organization ("Linkifier not found."), with the event. 0 or -1. */
int linkifiers_remove(struct uow *uow, int64_t id);
/* PATCH /realm/linkifiers: ids (array of integers) must list every linkifier once. 0 or -1. */
int linkifiers_reorder(struct uow *uow, json_object *ids);
/* The acting organization's linkifiers in order, as the API shows them (a new array), or NULL (error recorded). */
json_object *linkifiers_json(struct uow *uow);

/*
 * Linkifies one run of text for the Markdown renderer (a markdown_lookup linkify callback, ctx the uow): the
 * acting organization's linkifiers applied in order as the reference's inline processor applies them. before and
 * after are the characters the reference's processor sees around the run ('\0': the start or end of its block).
 * Returns the number of links stored in *out (an arena array, in order, not overlapping), 0 when none, or -1 when
 * budget ran out (ticked before each linkifier and each search: budget_tick()).
 */
int linkifiers_linkify(void *uow, const char *text, size_t len, char before, char after, struct budget *budget,
                       struct markdown_link **out);
/* Loads the acting organization's compiled linkifiers into uow (once per unit of work), at the version its row was
 * read with (struct realm; a change reaches the process cache like one of the realm's row). 0, or -1 (recorded). */
int linkifiers_load(struct uow *uow);
/* The topic_links of a channel message's topic: [{text, url}] (a new array; [] when anything fails). */
json_object *linkifiers_topic_links(struct uow *uow, const char *topic);

#endif
