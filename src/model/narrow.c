/*
 * Narrows: the JSON terms of GET /messages to named SQL parameters; see narrow.h.
 *
 * Reference: Zulip zerver/lib/narrow.py (NarrowParameter, NarrowBuilder, ok_to_include_history,
 * can_access_stream_history) and zerver/lib/narrow_helpers.py (the `with` operator).
 */
#include "model/narrow.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonv.h"
#include "core/uow.h"
#include "db/db.h"
#include "model/channels.h"
#include "model/messages.h"
#include "model/realm.h"
#include "model/user.h"

static void strs_push(struct uow *uow, struct narrow_strs *a, const char *s)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		const char **nv = arena_alloc(&uow->arena, (size_t)a->cap * sizeof(*nv));
		if (a->n)
			memcpy(nv, a->v, (size_t)a->n * sizeof(*nv));
		a->v = nv;
	}
	a->v[a->n++] = s;
}

/* ---- terms --------------------------------------------------------------------------------------------------- */

int narrow_bad(struct uow *uow, const char *fmt, ...)
{
	if (uow->error != ERR_NONE)
		return -1; /* the first error stands, without this one's desc */
	va_list ap;
	va_start(ap, fmt);
	char *desc = arena_vprintf(&uow->arena, fmt, ap);
	va_end(ap);
	uow_error(uow, ERR_BAD_NARROW, "Invalid narrow operator: %s", desc);
	uow_error_field(uow, "desc", json_object_new_string(desc));
	return -1;
}

static int mark_kind(struct uow *uow, struct narrow *nw, bool negated, bool dm)
{
	if (negated)
		return 0;
	*(dm ? &nw->dm_narrow : &nw->channel_narrow) = true;
	if (nw->dm_narrow && nw->channel_narrow)
		return narrow_bad(uow, "No message can be both a channel message and direct message");
	return 0;
}

static void tri(struct narrow *nw, int *field, bool value)
{
	if (*field >= 0 && *field != (int)value)
		nw->impossible = true;
	*field = value;
}

/* str(operand) as the reference prints it in errors; lists as Python shows them ("[1, 2]"). */
static const char *operand_text(struct uow *uow, json_object *operand)
{
	if (json_object_is_type(operand, json_type_string))
		return json_object_get_string(operand);
	if (!json_object_is_type(operand, json_type_array))
		return json_object_get_string(operand);
	/* Measured, then copied once: appending item by item would copy the text so far each time (quadratic). */
	size_t n = json_object_array_length(operand), size = 3;
	for (size_t i = 0; i < n; i++)
		size += strlen(json_object_get_string(json_object_array_get_idx(operand, i))) + 2;
	char *s = arena_alloc(&uow->arena, size), *p = stpcpy(s, "[");
	for (size_t i = 0; i < n; i++)
		p = stpcpy(i ? stpcpy(p, ", ") : p, json_object_get_string(json_object_array_get_idx(operand, i)));
	strcpy(p, "]");
	return s;
}

static int narrow_channel(struct uow *uow, struct narrow *nw, json_object *operand, bool negated)
{
	if (mark_kind(uow, nw, negated, false) < 0)
		return -1;
	const struct channel *c = nw->lookup->channel(uow, operand);
	if (c == NULL)
		return narrow_bad(uow, "unknown channel %s", operand_text(uow, operand));
	ids_push(&uow->arena, negated ? &nw->ch_neg : &nw->ch_pos, c->id);
	if (!negated) { /* the reference's can_access_stream_history; the last channel term decides */
		nw->include_history = (!c->invite_only && !user_is_guest(uow->user)) ||
		                      (c->history_public_to_subscribers && c->content_access);
		nw->history_channel = c;
	}
	return 0;
}

static int narrow_dm(struct uow *uow, struct narrow *nw, json_object *operand, bool negated)
{
	if (mark_kind(uow, nw, negated, true) < 0)
		return -1;
	int64_t *users = NULL;
	int n = 0, rc = 0;
	bool empty = json_object_is_type(operand, json_type_array) && json_object_array_length(operand) == 0;
	if (!empty && (rc = nw->lookup->dm_users(uow, operand, &users, &n)) != 0)
		return rc < 0 ? -1 : narrow_bad(uow, "unknown user in %s", operand_text(uow, operand));
	struct ids all = {0};
	bool self = false;
	for (int i = 0; i < n; i++) {
		ids_push(&uow->arena, &all, users[i]);
		self = self || users[i] == uow->user->id;
	}
	if (!self)
		ids_push(&uow->arena, &all, uow->user->id);
	qsort(all.v, (size_t)all.n, sizeof(*all.v), ids_cmp);
	int64_t id = empty ? 0 : nw->lookup->conversation(uow, all.v, all.n);
	if (id < 0)
		return -1;
	if (id == 0) /* no such conversation: matches nothing */
		nw->impossible = nw->impossible || !negated;
	else
		ids_push(&uow->arena, negated ? &nw->dm_neg : &nw->dm_pos, id);
	return 0;
}

static int narrow_is(struct uow *uow, struct narrow *nw, const char *operand, bool negated)
{
	int bit = strcmp(operand, "dm") == 0 || strcmp(operand, "private") == 0 ? MF_IS_PRIVATE
	          : strcmp(operand, "starred") == 0                             ? MF_STARRED
	          : strcmp(operand, "alerted") == 0                             ? MF_HAS_ALERT_WORD
	                                                                        : 0;
	if (bit == MF_IS_PRIVATE && mark_kind(uow, nw, false, !negated) < 0)
		return -1;
	if (bit)
		*(negated ? &nw->unset : &nw->set) |= bit;
	else if (strcmp(operand, "unread") == 0)
		*(negated ? &nw->set : &nw->unset) |= MF_READ;
	else if (strcmp(operand, "mentioned") == 0 && !negated)
		nw->any |= MF_MENTIONED | MF_STREAM_WILDCARD_MENTIONED | MF_TOPIC_WILDCARD_MENTIONED;
	else if (strcmp(operand, "mentioned") == 0)
		nw->unset |= MF_MENTIONED | MF_STREAM_WILDCARD_MENTIONED | MF_TOPIC_WILDCARD_MENTIONED;
	else if (strcmp(operand, "resolved") == 0)
		tri(nw, &nw->resolved, !negated);
	else if (strcmp(operand, "muted") == 0) /* the opposite of in:home (exclude_muting_conditions) */
		tri(nw, &nw->in_home, negated);
	else if (strcmp(operand, "followed") == 0) /* confab has no followed topics yet */
		nw->impossible = nw->impossible || !negated;
	else
		return narrow_bad(uow, "unknown 'is' operand %s", operand);
	return 0;
}

static int narrow_has(struct uow *uow, struct narrow *nw, const char *operand, bool negated)
{
	if (strcmp(operand, "attachment") == 0)
		tri(nw, &nw->has_attachment, !negated);
	else if (strcmp(operand, "image") == 0)
		tri(nw, &nw->has_image, !negated);
	else if (strcmp(operand, "link") == 0)
		tri(nw, &nw->has_link, !negated);
	else if (strcmp(operand, "reaction") == 0)
		tri(nw, &nw->has_reaction, !negated);
	else
		return narrow_bad(uow, "unknown 'has' operand %s", operand);
	return 0;
}

/* Words of a search ("quoted phrases" stay whole) as ILIKE patterns: %word% with %, _ and \ escaped. */
static void narrow_search(struct uow *uow, struct narrow *nw, const char *operand)
{
	const char *p = operand;
	nw->is_search = true;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		const char *end = NULL, *start = p;
		if (*p == '"' && (end = strchr(p + 1, '"')) != NULL && end > p + 1)
			start = p + 1;
		else
			for (end = p; *end && !isspace((unsigned char)*end); end++)
				;
		char *pat = arena_alloc(&uow->arena, 2 * (size_t)(end - start) + 3), *q = pat;
		*q++ = '%';
		for (const char *c = start; c < end; c++) {
			if (*c == '%' || *c == '_' || *c == '\\')
				*q++ = '\\';
			*q++ = *c;
		}
		strcpy(q, "%");
		strs_push(uow, &nw->search, pat);
		p = *end == '"' ? end + 1 : end;
	}
}

/* Operators taking a user: sender, dm-including, group-pm-with. */
static int narrow_by_user(struct uow *uow, struct narrow *nw, const char *op, json_object *operand, bool negated)
{
	bool sender = strcmp(op, "sender") == 0;
	if (!sender && mark_kind(uow, nw, negated, true) < 0)
		return -1;
	int64_t id = nw->lookup->user(uow, operand);
	if (id == 0)
		return narrow_bad(uow, "unknown user %s", operand_text(uow, operand));
	if (sender)
		ids_push(&uow->arena, negated ? &nw->sender_neg : &nw->sender_pos, id);
	else if (strcmp(op, "dm-including") == 0)
		ids_push(&uow->arena, negated ? &nw->dmi_neg : &nw->dmi_pos, id);
	else if (!negated)
		ids_push(&uow->arena, &nw->gpm, id);
	return 0;
}

static int narrow_id(struct uow *uow, struct narrow *nw, json_object *operand, bool negated)
{
	const char *s = json_object_get_string(operand);
	bool digits = *s != '\0';
	for (const char *c = s; *c; c++)
		digits = digits && isdigit((unsigned char)*c);
	if (!digits || strlen(s) > 10 || strtoll(s, NULL, 10) > 2147483647LL)
		return narrow_bad(uow, "Invalid message ID");
	ids_push(&uow->arena, negated ? &nw->id_neg : &nw->id_pos, strtoll(s, NULL, 10));
	return 0;
}

static int narrow_channels(struct uow *uow, struct narrow *nw, const char *operand, bool negated)
{
	if (mark_kind(uow, nw, negated, false) < 0)
		return -1;
	bool pub = strcmp(operand, "public") == 0;
	if (!pub && strcmp(operand, "web-public") != 0)
		return narrow_bad(uow, "unknown channels operand %s", operand);
	tri(nw, pub ? &nw->public_only : &nw->web_public_only, !negated);
	nw->public_history = nw->public_history || (pub && !negated && !user_is_guest(uow->user));
	return 0;
}

static int narrow_simple(struct uow *uow, struct narrow *nw, const char *op, const char *operand, bool negated)
{
	if (strcmp(op, "is") == 0)
		return narrow_is(uow, nw, operand, negated);
	if (strcmp(op, "has") == 0)
		return narrow_has(uow, nw, operand, negated);
	if (strcmp(op, "in") == 0) {
		if (strcmp(operand, "home") == 0)
			tri(nw, &nw->in_home, !negated);
		else if (strcmp(operand, "all") != 0)
			return narrow_bad(uow, "unknown 'in' operand %s", operand);
		return 0;
	}
	if (strcmp(op, "topic") == 0) {
		if (mark_kind(uow, nw, negated, false) < 0)
			return -1;
		if (!nw->topic_renamed && strcmp(operand, REALM_EMPTY_TOPIC_DISPLAY_NAME) == 0)
			operand = "";
		nw->topic_renamed = true;
		strs_push(uow, negated ? &nw->topic_neg : &nw->topic_pos, operand);
		return 0;
	}
	if (strcmp(op, "channels") == 0 || strcmp(op, "streams") == 0)
		return narrow_channels(uow, nw, operand, negated);
	if (strcmp(op, "search") == 0) {
		narrow_search(uow, nw, operand);
		/* Each word is one more ILIKE on every row the search scans. */
		if (nw->search.n > MESSAGE_MAX_SEARCH_WORDS)
			return narrow_bad(uow, "search has too many words (limit: %d)", MESSAGE_MAX_SEARCH_WORDS);
	} else if (strcmp(op, "near") != 0)
		return narrow_bad(uow, "unknown operator %s", op);
	return 0;
}

/* A refusal of the reference's NarrowParameter "before" validator, a ValueError as typed_endpoint words it. */
static int term_invalid(struct uow *uow, int i, const char *why)
{
	return uow_error(uow, ERR_BAD_REQUEST, "Invalid narrow[%d]: Value error, %s", i, why);
}

/* The reference's NarrowParameter validation of term i: the element's shape, then its fields' types
 * (operator: str, negated: bool), then the operand's type for its operator (check_operand()). */
static int term_parts(struct uow *uow, json_object *e, int i, const char **op, json_object **operand, bool *negated)
{
	json_object *o = NULL, *neg = NULL;
	*negated = false;
	if (jsonv_is(e, JV_LIST)) {
		if (json_object_array_length(e) != 2 || !jsonv_is(json_object_array_get_idx(e, 0), JV_STR) ||
		    !jsonv_is(json_object_array_get_idx(e, 1), JV_STR))
			return term_invalid(uow, i, "element is not a string pair");
		o = json_object_array_get_idx(e, 0);
		*operand = json_object_array_get_idx(e, 1);
	} else if (jsonv_is(e, JV_DICT)) {
		if (!json_object_object_get_ex(e, "operand", operand) || *operand == NULL)
			return term_invalid(uow, i, "operand is missing");
		if (!json_object_object_get_ex(e, "operator", &o) || o == NULL)
			return term_invalid(uow, i, "operator is missing");
		const char *where = arena_printf(&uow->arena, "narrow[%d]", i);
		if (jsonv_check(uow, o, JV_STR, jsonv_key(uow, where, "operator")) < 0 ||
		    jsonv_member(uow, e, where, "negated", JV_BOOL, JV_OPTIONAL, &neg) < 0)
			return -1;
		*negated = neg != NULL && json_object_get_boolean(neg);
	} else {
		return term_invalid(uow, i, "dict or list required");
	}
	*op = json_object_get_string(o);
	return 0;
}

static int check_operand(struct uow *uow, const char *op, json_object *operand)
{
	static const char *const by_id[] = {"channel",       "stream",       "id",   "sender",
	                                    "group-pm-with", "dm-including", "with", NULL};
	bool str = json_object_is_type(operand, json_type_string), num = json_object_is_type(operand, json_type_int);
	for (int i = 0; by_id[i]; i++)
		if (strcmp(op, by_id[i]) == 0)
			return str || num ? 0 : uow_error(uow, ERR_BAD_REQUEST, "operand is not a string or integer");
	if (strcmp(op, "dm") == 0 || strcmp(op, "pm-with") == 0) {
		bool ok = str || json_object_is_type(operand, json_type_array);
		for (size_t i = 0; ok && !str && i < json_object_array_length(operand); i++)
			ok = json_object_is_type(json_object_array_get_idx(operand, i), json_type_int);
		return ok ? 0 : uow_error(uow, ERR_BAD_REQUEST, "operand is not a string or an integer list");
	}
	if (!str)
		return uow_error(uow, ERR_BAD_REQUEST, "operand is not a string");
	if (strcmp(op, "search") == 0 && *arena_strip(&uow->arena, json_object_get_string(operand)) == '\0')
		return uow_error(uow, ERR_BAD_REQUEST, "operand cannot be blank.");
	return 0;
}

static int add_term(struct uow *uow, struct narrow *nw, const char *op, json_object *operand, bool negated)
{
	if (strcmp(op, "channel") == 0 || strcmp(op, "stream") == 0)
		return narrow_channel(uow, nw, operand, negated);
	if (strcmp(op, "dm") == 0 || strcmp(op, "pm-with") == 0)
		return narrow_dm(uow, nw, operand, negated);
	if (strcmp(op, "sender") == 0 || strcmp(op, "dm-including") == 0 || strcmp(op, "group-pm-with") == 0)
		return narrow_by_user(uow, nw, op, operand, negated);
	if (strcmp(op, "id") == 0)
		return narrow_id(uow, nw, operand, negated);
	return narrow_simple(uow, nw, op, json_object_get_string(operand), negated);
}

struct term {
	const char *op;
	json_object *operand;
	bool negated;
};

static bool defines_conversation(const struct term *t, int n)
{
	bool channel = false, topic = false;
	for (int i = 0; i < n; i++) {
		if (strcmp(t[i].op, "dm") == 0 || strcmp(t[i].op, "pm-with") == 0)
			return true;
		channel = channel || strcmp(t[i].op, "stream") == 0 || strcmp(t[i].op, "channel") == 0;
		topic = topic || strcmp(t[i].op, "topic") == 0;
	}
	return channel && topic;
}

/* The message id of a `with` operand, or 0. */
static int64_t with_id(json_object *operand)
{
	if (json_object_is_type(operand, json_type_int))
		return json_object_get_int64(operand);
	const char *s = json_object_get_string(operand);
	char *end;
	long long v = strtoll(s, &end, 10);
	return *s && *end == '\0' ? v : 0;
}

/* Sets *at to the index of the only `with` term (-1: none); two are an error. Returns 0 or -1. */
static int find_with(struct uow *uow, const struct term *t, int n, int *at)
{
	*at = -1;
	for (int i = 0; i < n; i++) {
		if (strcmp(t[i].op, "with") != 0)
			continue;
		if (*at >= 0) {
			uow_error(uow, ERR_BAD_NARROW,
			          "Invalid narrow operator combination: Duplicate 'with' operators.");
			uow_error_field(uow, "desc", json_object_new_string("Duplicate 'with' operators."));
			return -1;
		}
		*at = i;
	}
	return 0;
}

/* The conversation c followed by the terms of rest that name no conversation. */
static void conversation_terms(struct uow *uow, const struct narrow_conversation *c, const struct term *rest, int k,
                               struct term **t, int *n)
{
	static const char *const conversation_ops[] = {"stream", "channel", "topic", "dm", "pm-with", NULL};
	struct term *out = arena_alloc(&uow->arena, (size_t)(k + 2) * sizeof(*out));
	int o = 0;
	if (c->channel_id) {
		out[o++] = (struct term){"channel", uow_own_json(uow, json_object_new_int64(c->channel_id)), false};
		out[o++] = (struct term){"topic", uow_own_json(uow, json_object_new_string(c->topic)), false};
	} else {
		out[o++] = (struct term){"dm", c->dm_user_ids, false};
	}
	for (int i = 0; i < k; i++) {
		bool drop = false;
		for (int j = 0; conversation_ops[j] && !drop; j++)
			drop = strcmp(rest[i].op, conversation_ops[j]) == 0;
		if (!drop)
			out[o++] = rest[i];
	}
	*t = out;
	*n = o;
}

/*
 * The reference's `with` operator: the terms naming a conversation are replaced by the conversation of the
 * message it names, when the user can read that message. *t and *n are updated. Returns 0 or -1.
 */
static int apply_with(struct uow *uow, const struct narrow_lookup *lookup, struct term **t, int *n)
{
	int at;
	if (find_with(uow, *t, *n, &at) < 0)
		return -1;
	if (at < 0)
		return 0;
	int64_t id = with_id((*t)[at].operand);
	struct term *rest = arena_alloc(&uow->arena, (size_t)(*n + 1) * sizeof(*rest));
	int k = 0;
	for (int i = 0; i < *n; i++)
		if (i != at)
			rest[k++] = (*t)[i];
	struct narrow_conversation c = {0};
	int found = id > 0 ? lookup->with_target(uow, id, &c) : 0;
	if (found < 0)
		return -1;
	if (found) {
		conversation_terms(uow, &c, rest, k, t, n);
		return 0;
	}
	if (id <= 0 || !defines_conversation(rest, k))
		return narrow_bad(uow, "Invalid 'with' operator");
	*t = rest;
	*n = k;
	return 0;
}

struct narrow *narrow_parse_with(struct uow *uow, json_object *narrow, const struct narrow_lookup *lookup)
{
	struct narrow *nw = arena_alloc(&uow->arena, sizeof(*nw));
	nw->lookup = lookup;
	nw->resolved = nw->has_attachment = nw->has_image = nw->has_link = nw->has_reaction = -1;
	nw->in_home = nw->public_only = nw->web_public_only = -1;
	if (narrow == NULL)
		return nw;
	if (!json_object_is_type(narrow, json_type_array)) {
		uow_error(uow, ERR_BAD_REQUEST, "narrow is not a list");
		return NULL;
	}
	int n = (int)json_object_array_length(narrow);
	struct term *t = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*t));
	for (int i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(narrow, i);
		if (term_parts(uow, e, i, &t[i].op, &t[i].operand, &t[i].negated) < 0 ||
		    check_operand(uow, t[i].op, t[i].operand) < 0)
			return NULL;
	}
	if (apply_with(uow, lookup, &t, &n) < 0)
		return NULL;
	for (int i = 0; i < n; i++)
		if (add_term(uow, nw, t[i].op, t[i].operand, t[i].negated) < 0)
			return NULL;
	/* The reference's ok_to_include_history: an `is` term (but is:resolved) searches only the user's copies. */
	for (int i = 0; i < n; i++)
		if (strcmp(t[i].op, "is") == 0 && strcmp(json_object_get_string(t[i].operand), "resolved") != 0)
			nw->include_history = nw->public_history = false;
	return nw;
}

/* ---- SQL parameters ------------------------------------------------------------------------------------------ */

/* A PostgreSQL array literal of strings for a text[] parameter: every element quoted, '"' and '\' escaped. */
static const char *pg_texts(struct uow *uow, const char *const *v, int n)
{
	size_t size = 3;
	for (int i = 0; i < n; i++)
		size += 2 * strlen(v[i]) + 3;
	char *s = arena_alloc(&uow->arena, size), *p = s;
	*p++ = '{';
	for (int i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		*p++ = '"';
		for (const char *c = v[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				*p++ = '\\';
			*p++ = *c;
		}
		*p++ = '"';
	}
	strcpy(p, "}");
	return s;
}

void narrow_sql_filter(struct uow *uow, const struct narrow *nw, const int64_t *only_ids, int n_only,
                       struct narrow_sql *out)
{
	out->user_id = db_arg_int(uow, uow->user->id);
	out->realm_id = db_arg_int(uow, uow->realm->id);
	out->channels = db_arg_ids(uow, nw->ch_pos.v, nw->ch_pos.n);
	out->not_channels = db_arg_ids(uow, nw->ch_neg.v, nw->ch_neg.n);
	out->topics = pg_texts(uow, nw->topic_pos.v, nw->topic_pos.n);
	out->not_topics = pg_texts(uow, nw->topic_neg.v, nw->topic_neg.n);
	out->senders = db_arg_ids(uow, nw->sender_pos.v, nw->sender_pos.n);
	out->not_senders = db_arg_ids(uow, nw->sender_neg.v, nw->sender_neg.n);
	out->ids = db_arg_ids(uow, nw->id_pos.v, nw->id_pos.n);
	out->not_ids = db_arg_ids(uow, nw->id_neg.v, nw->id_neg.n);
	out->dms = db_arg_ids(uow, nw->dm_pos.v, nw->dm_pos.n);
	out->not_dms = db_arg_ids(uow, nw->dm_neg.v, nw->dm_neg.n);
	out->dm_including = db_arg_ids(uow, nw->dmi_pos.v, nw->dmi_pos.n);
	out->not_dm_including = db_arg_ids(uow, nw->dmi_neg.v, nw->dmi_neg.n);
	out->group_dm_with = db_arg_ids(uow, nw->gpm.v, nw->gpm.n);
	out->flags_set = db_arg_int(uow, nw->set);
	out->flags_unset = db_arg_int(uow, nw->unset);
	out->flags_any = db_arg_int(uow, nw->any);
	out->resolved = db_arg_int(uow, nw->resolved);
	out->has_attachment = db_arg_int(uow, nw->has_attachment);
	out->has_image = db_arg_int(uow, nw->has_image);
	out->has_link = db_arg_int(uow, nw->has_link);
	out->in_home = db_arg_int(uow, nw->in_home);
	out->public_only = db_arg_int(uow, nw->public_only);
	out->web_public_only = db_arg_int(uow, nw->web_public_only);
	out->search = pg_texts(uow, nw->search.v, nw->search.n);
	out->impossible = nw->impossible ? "true" : "false";
	out->only_ids = only_ids ? db_arg_ids(uow, only_ids, n_only) : NULL;
	out->has_reaction = db_arg_int(uow, nw->has_reaction);
	out->history_channel = nw->history_channel ? db_arg_int(uow, nw->history_channel->id) : NULL;
	out->history_topic = nw->topic_pos.n ? nw->topic_pos.v[0] : NULL;
}

void narrow_sql_range(struct uow *uow, int64_t anchor, bool include_anchor, int before, int after,
                      struct narrow_sql *out)
{
	bool left = anchor == 0, right = anchor >= MESSAGE_ANCHOR_NEWEST, include = include_anchor;
	bool need_before = !left && before > 0, need_after = !right && after > 0;
	int64_t before_anchor = INT64_MAX, after_anchor = 0, after_max = INT64_MAX;
	int before_limit = 0, after_limit = 0;
	if (need_before && need_after) {
		before_anchor = anchor - 1, before_limit = before;
		after_anchor = anchor, after_limit = after + 1;
	} else if (need_before) {
		before_anchor = right ? INT64_MAX : anchor - !include;
		before_limit = before + (right ? 0 : include);
	} else if (need_after) {
		after_anchor = left ? 0 : anchor + !include, after_limit = after + include;
	} else {
		after_anchor = after_max = anchor, after_limit = 1;
	}
	out->before_anchor = db_arg_int(uow, before_anchor);
	out->before_limit = db_arg_int(uow, before_limit);
	out->after_anchor = db_arg_int(uow, after_anchor);
	out->after_max = db_arg_int(uow, after_max);
	out->after_limit = db_arg_int(uow, after_limit);
}

void narrow_sql_positional(const struct narrow_sql *s, const char *p[NARROW_SQL_PARAMS])
{
	const char *const v[] = {
	    s->user_id,
	    s->realm_id,
	    s->channels,
	    s->not_channels,
	    s->topics,
	    s->not_topics,
	    s->senders,
	    s->not_senders,
	    s->ids,
	    s->not_ids,
	    s->dms,
	    s->not_dms,
	    s->dm_including,
	    s->not_dm_including,
	    s->group_dm_with,
	    s->flags_set,
	    s->flags_unset,
	    s->flags_any,
	    s->resolved,
	    s->has_attachment,
	    s->has_image,
	    s->has_link,
	    s->in_home,
	    s->public_only,
	    s->web_public_only,
	    s->search,
	    s->impossible,
	    s->only_ids,
	    s->has_reaction,
	    s->before_anchor,
	    s->before_limit,
	    s->after_anchor,
	    s->after_max,
	    s->after_limit,
	    s->history_channel,
	    s->history_topic,
	};
	_Static_assert(sizeof(v) / sizeof(*v) == NARROW_SQL_PARAMS, "one entry per $n");
	_Static_assert(sizeof(struct narrow_sql) == sizeof(v), "one field of struct narrow_sql per $n");
	memcpy(p, v, sizeof(v));
}
