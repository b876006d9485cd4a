/*
 * The per-user objects: drafts, saved snippets and navigation views (migrations/0012_personal_objects.sql). Each
 * belongs to one user; the lists here are the owner's, as GET and POST /register show them. The handlers are in
 * src/api/drafts.c, saved_snippets.c and navigation_views.c.
 */
#ifndef CONFAB_PERSONAL_H
#define CONFAB_PERSONAL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;

/* The most drafts POST /register returns (the reference's MAX_DRAFTS_IN_REGISTER_RESPONSE). */
#define PERSONAL_MAX_DRAFTS_IN_REGISTER 1000

/* The column list of a draft as the API shows it (the reference's Draft.to_dict), on `drafts d`: one JSON text. */
#define DRAFT_JSON                                                                                                     \
	"json_build_object('id', d.id, 'type', d.type, 'to', to_json(d.recipients), 'topic', d.topic,"                 \
	" 'content', d.content, 'timestamp', floor(d.last_edit_time)::bigint)::text"
/* A saved snippet (the reference's SavedSnippet.to_api_dict), on `saved_snippets s`. */
#define SAVED_SNIPPET_JSON                                                                                             \
	"json_build_object('id', s.id, 'title', s.title, 'content', s.content,"                                        \
	" 'date_created', floor(extract(epoch FROM s.date_created))::bigint)::text"
/* A navigation view {fragment, is_pinned, name}, on `navigation_views v`. */
#define NAVIGATION_VIEW_JSON "json_build_object('fragment', v.fragment, 'is_pinned', v.is_pinned, 'name', v.name)::text"

/* Whether the user keeps enable_drafts_synchronization on; records "User has disabled synchronizing drafts." and
 * returns -1 when it is off (or -1 for a database failure), else 0. */
int personal_check_drafts_enabled(struct uow *uow, int64_t user_id);

/*
 * The user's drafts: oldest first (GET /drafts), or for_register the newest PERSONAL_MAX_DRAFTS_IN_REGISTER, newest
 * first, and none while the user keeps drafts synchronization off (POST /register); the saved snippets and the
 * navigation views by id. New arrays (the caller owns them), or NULL with the error recorded.
 */
json_object *personal_drafts_json(struct uow *uow, int64_t user_id, bool for_register);
json_object *personal_saved_snippets_json(struct uow *uow, int64_t user_id);
json_object *personal_navigation_views_json(struct uow *uow, int64_t user_id);

/* Records event (the function takes it) for the queues of user_id alone. Returns 0. */
int personal_event(struct uow *uow, json_object *event, int64_t user_id);
/* A new event object {type, op} owned by the unit of work. */
json_object *personal_new_event(struct uow *uow, const char *type, const char *op);
/* Parses JSON text the database wrote (never fails on it); a new object the caller owns. */
json_object *personal_parse(const char *text);

/* s without the leading and trailing white space Python's str.strip() removes; an arena string. */
const char *personal_strip(struct uow *uow, const char *s);

#endif
