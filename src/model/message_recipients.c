/*
 * The recipients of direct messages (model/messages.h): the users a client names, by id or by API e-mail address,
 * checked as the reference checks them (deactivated users, bots, the organization's direct-message permission).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonx.h"
#include "core/uow.h"
#include "db/db.h"
#include "model/messages.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/user.h"

/* The address clients see for users of the realm: the real one only when everyone may see it (or for bots).
 * $2 of the statement using it must be the organization's placeholder e-mail domain. */
#define API_EMAIL(u)                                                                                                   \
	"CASE WHEN " u ".email_address_visibility = 1 OR " u ".is_bot THEN " u ".delivery_email "                      \
	"ELSE 'user' || " u ".id || '@' || $2 END"

/* ---- direct-message recipients ------------------------------------------------------------------------------- */

#define MESSAGE_USER_COLUMNS "u.id, " API_EMAIL("u") ", u.full_name, u.is_active, u.is_bot, u.role"

static struct db_stmt st_users_by_ids = DB_STMT("SELECT " MESSAGE_USER_COLUMNS " FROM users u"
                                                " WHERE u.realm_id = $1 AND u.id = ANY($3::bigint[]) ORDER BY u.id");
/* Users by the addresses clients see them by (x.i, the last column: the position in the array, from 1). */
static struct db_stmt st_users_by_email =
    DB_STMT("SELECT " MESSAGE_USER_COLUMNS ", x.i FROM json_array_elements_text($3::json) WITH ORDINALITY x(e, i)"
            " JOIN users u ON u.realm_id = $1 AND lower(u.delivery_email) = lower(x.e)"
            "   AND (u.email_address_visibility = 1 OR u.is_bot)");
static struct db_stmt st_users_by_placeholder =
    DB_STMT("SELECT " MESSAGE_USER_COLUMNS ", x.i FROM unnest($3::bigint[]) WITH ORDINALITY x(v, i)"
            " JOIN users u ON u.realm_id = $1 AND u.id = x.v AND u.email_address_visibility <> 1 AND NOT u.is_bot");

static void user_from_res(const struct db_res *res, int row, struct message_user *u)
{
	u->id = db_int(res, row, 0);
	u->api_email = db_val(res, row, 1);
	u->full_name = db_val(res, row, 2);
	u->is_active = db_bool(res, row, 3);
	u->is_bot = db_bool(res, row, 4);
	u->role = (int)db_int(res, row, 5);
}

/* Runs one of the by-address statements; out[at[k]] receives the user at position k of its array. */
static int users_at(struct uow *uow, struct db_stmt *st, const char *arg, const int *at, struct message_user *out)
{
	struct db_res *res =
	    DB_EXEC(uow, st, db_arg_int(uow, uow->realm->id), realm_fake_email_domain(uow, uow->realm), arg);
	if (res == NULL)
		return -1;
	for (int r = 0; r < db_rows(res); r++)
		user_from_res(res, r, &out[at[db_int(res, r, 6) - 1]]);
	return 0;
}

/*
 * A request the reference refuses with BAD_REQUEST, as a message for the caller to record or to word its own way
 * (a narrow): nothing is recorded. Returns 1, which callers pass on (0: fine, -1: failure recorded).
 */
static int refuse(struct uow *uow, const char **refusal, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(struct uow *uow, const char **refusal, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	*refusal = arena_vprintf(&uow->arena, fmt, ap);
	va_end(ap);
	return 1;
}

/* Two statements: by placeholder address, and by real address. */
int message_users_find(struct uow *uow, const char *const *emails, int n, struct message_user *out)
{
	int64_t *pids = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*pids));
	int *at_pid = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*at_pid));
	int *at_email = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*at_email));
	int npid = 0, nemail = 0;
	json_object *addresses = uow_own_json(uow, json_object_new_array());
	for (int i = 0; i < n; i++) {
		out[i].id = 0;
		int64_t pid = user_placeholder_email_id(uow, emails[i]);
		if (pid) {
			at_pid[npid] = i;
			pids[npid++] = pid;
		} else {
			at_email[nemail++] = i;
			json_object_array_add(addresses, json_object_new_string(emails[i]));
		}
	}
	if ((npid && users_at(uow, &st_users_by_placeholder, db_arg_ids(uow, pids, npid), at_pid, out) < 0) ||
	    (nemail && users_at(uow, &st_users_by_email, jsonx_string(addresses), at_email, out) < 0))
		return -1;
	return 0;
}

/* message_users_find(), refusing "Invalid email 'x'" for the first unknown one. */
static int users_by_emails(struct uow *uow, const char *const *emails, int n, struct message_user *out,
                           const char **refusal)
{
	if (message_users_find(uow, emails, n, out) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (out[i].id == 0)
			return refuse(uow, refusal, "Invalid email '%s'", emails[i]);
	return 0;
}

/* The row of res (ascending ids in column 0) with id, or -1. */
static int row_of_id(const struct db_res *res, int64_t id)
{
	int lo = 0, hi = db_rows(res);
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (db_int(res, mid, 0) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < db_rows(res) && db_int(res, lo, 0) == id ? lo : -1;
}

/* Looks up users by id: "Invalid user ID N" for the first unknown one. */
static int users_by_ids(struct uow *uow, const int64_t *ids, int n, struct message_user *out, const char **refusal)
{
	struct db_res *res = DB_EXEC(uow, &st_users_by_ids, db_arg_int(uow, uow->realm->id),
	                             realm_fake_email_domain(uow, uow->realm), db_arg_ids(uow, ids, n));
	if (res == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		int row = row_of_id(res, ids[i]);
		if (row < 0)
			return refuse(uow, refusal, "Invalid user ID %lld", (long long)ids[i]);
		user_from_res(res, row, &out[i]);
	}
	return 0;
}

/*
 * The reference's extract_private_recipients: `to` as a JSON value, or a plain string split at commas. Returns 0
 * with *list set, 1 with *refusal set (more items than a message may have), or -1 with the error recorded. What the
 * list costs is charged before it is built (uow_parse_client_json(), and the count of a plain string's items).
 */
static int recipients_json(struct uow *uow, const char *to, const char **refusal, json_object **list)
{
	json_object *data = NULL;
	int rc = uow_parse_client_json(uow, to, strlen(to), &data);
	if (rc < 0)
		return -1;
	if (rc == 0 && !json_object_is_type(data, json_type_string)) {
		*list = data;
		return 0;
	}
	const char *s = data ? json_object_get_string(data) : to;
	size_t items = 1;
	for (const char *p = s; (p = strchr(p, ',')) != NULL; p++)
		items++;
	if (items > MESSAGE_MAX_RECIPIENTS)
		return refuse(uow, refusal, "Too many recipients (limit: %d)", MESSAGE_MAX_RECIPIENTS);
	*list = uow_own_json(uow, json_object_new_array());
	for (const char *p = s;; p++) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		json_object_array_add(*list, json_object_new_string_len(p, (int)n));
		if (comma == NULL)
			break;
		p = comma;
	}
	return 0;
}

/* A string and where it was asked, for removing repeats in n log n. */
struct asked {
	const char *s;
	int at;
};

static int cmp_asked(const void *a, const void *b)
{
	const struct asked *x = a, *y = b;
	int c = strcmp(x->s, y->s);
	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Removes the repeats of v[0..*n), keeping the first of each in place. */
static void strings_unique_in_order(struct uow *uow, const char **v, int *n)
{
	struct asked *sorted = arena_alloc(&uow->arena, (size_t)(*n + 1) * sizeof(*sorted));
	for (int i = 0; i < *n; i++)
		sorted[i] = (struct asked){v[i], i};
	qsort(sorted, (size_t)*n, sizeof(*sorted), cmp_asked);
	bool *repeat = arena_alloc(&uow->arena, (size_t)*n + 1);
	for (int k = 1; k < *n; k++)
		repeat[sorted[k].at] = strcmp(sorted[k].s, sorted[k - 1].s) == 0;
	int kept = 0;
	for (int i = 0; i < *n; i++)
		if (!repeat[i])
			v[kept++] = v[i];
	*n = kept;
}

/* Removes the repeats of a, keeping the first of each in place. */
static void ids_unique_in_order(struct uow *uow, struct ids *a)
{
	int64_t *sorted = arena_alloc(&uow->arena, (size_t)(a->n + 1) * sizeof(*sorted));
	memcpy(sorted, a->v, (size_t)a->n * sizeof(*sorted));
	qsort(sorted, (size_t)a->n, sizeof(*sorted), ids_cmp);
	bool *taken = arena_alloc(&uow->arena, (size_t)a->n + 1); /* per value: its first occurrence was kept */
	int kept = 0;
	for (int i = 0; i < a->n; i++) {
		int64_t *at = bsearch(&a->v[i], sorted, (size_t)a->n, sizeof(*sorted), ids_cmp);
		while (at > sorted && at[-1] == a->v[i]) /* bsearch may land on any of the equal ones */
			at--;
		if (!taken[at - sorted])
			a->v[kept++] = a->v[i];
		taken[at - sorted] = true;
	}
	a->n = kept;
}

/* The e-mail addresses of list: stripped, empty ones dropped, duplicates removed (first kept). */
static int list_emails(struct uow *uow, json_object *list, const char ***out, int *n, const char **refusal)
{
	size_t len = json_object_array_length(list);
	const char **v = arena_alloc(&uow->arena, (len + 1) * sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < len; i++) {
		json_object *e = json_object_array_get_idx(list, i);
		if (!json_object_is_type(e, json_type_string))
			return refuse(uow, refusal, "Recipient lists may contain emails or user IDs, but not both.");
		const char *s = arena_strip(&uow->arena, json_object_get_string(e));
		if (*s != '\0')
			v[(*n)++] = s;
	}
	strings_unique_in_order(uow, v, n);
	*out = v;
	return 0;
}

/* The user ids of list, duplicates removed (first kept). */
static int list_ids(struct uow *uow, json_object *list, struct ids *out, const char **refusal)
{
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);
		if (!json_object_is_type(e, json_type_int))
			return refuse(uow, refusal, "Recipient lists may contain emails or user IDs, but not both.");
		ids_push(&uow->arena, out, json_object_get_int64(e));
	}
	ids_unique_in_order(uow, out);
	return 0;
}

static int cmp_user(const void *a, const void *b)
{
	return ids_cmp(&((const struct message_user *)a)->id, &((const struct message_user *)b)->id);
}

int message_parse_direct(struct uow *uow, const char *to, struct message_recipients *r, const char **refusal)
{
	*r = (struct message_recipients){0};
	json_object *list = NULL;
	int parsed = recipients_json(uow, to, refusal, &list);
	if (parsed != 0)
		return parsed;
	json_object *first = json_object_is_type(list, json_type_array) ? json_object_array_get_idx(list, 0) : NULL;
	if (!json_object_is_type(list, json_type_array) ||
	    (first != NULL && !json_object_is_type(first, json_type_string) &&
	     !json_object_is_type(first, json_type_int)))
		return refuse(uow, refusal, "Invalid data type for recipients");
	if (json_object_array_length(list) > MESSAGE_MAX_RECIPIENTS)
		return refuse(uow, refusal, "Too many recipients (limit: %d)", MESSAGE_MAX_RECIPIENTS);
	struct ids ids = {0};
	r->by_email = first != NULL && json_object_is_type(first, json_type_string);
	int rc = 0;
	if (first != NULL && (rc = r->by_email ? list_emails(uow, list, &r->emails, &r->n, refusal)
	                                       : list_ids(uow, list, &ids, refusal)) != 0)
		return rc;
	if (!r->by_email) {
		r->ids = ids.v;
		r->n = ids.n;
	}
	if (r->n == 0)
		return refuse(uow, refusal, "Message must have recipients");
	return 0;
}

int message_lookup_direct(struct uow *uow, const char *to, struct message_user **out, int *n, const char **refusal)
{
	struct message_recipients r;
	int rc = message_parse_direct(uow, to, &r, refusal);
	if (rc != 0)
		return rc;
	*n = r.n;
	*out = arena_alloc(&uow->arena, (size_t)*n * sizeof(**out));
	if ((rc = r.by_email ? users_by_emails(uow, r.emails, *n, *out, refusal)
	                     : users_by_ids(uow, r.ids, *n, *out, refusal)) != 0)
		return rc;
	qsort(*out, (size_t)*n, sizeof(**out), cmp_user);
	int k = 0; /* the same user by two addresses counts once */
	for (int i = 0; i < *n; i++)
		if (k == 0 || (*out)[k - 1].id != (*out)[i].id)
			(*out)[k++] = (*out)[i];
	*n = k;
	return 0;
}

int message_resolve_direct(struct uow *uow, const char *to, struct message_user **out, int *n)
{
	const char *refusal = NULL;
	int rc = message_lookup_direct(uow, to, out, n, &refusal);
	return rc > 0 ? uow_error(uow, ERR_BAD_REQUEST, "%s", refusal) : rc;
}

/* Users of ids the sender may not see: neither bots, nor sharing a channel or a conversation with them. */
static struct db_stmt st_inaccessible = DB_STMT(
    "SELECT count(*) FROM users u WHERE u.id = ANY($1::bigint[]) AND NOT (u.is_bot OR u.id = $2"
    " OR EXISTS (SELECT 1 FROM subscriptions a JOIN subscriptions b ON b.channel_id = a.channel_id"
    "   WHERE a.user_id = $2 AND b.user_id = u.id AND a.active AND b.active)"
    " OR EXISTS (SELECT 1 FROM direct_conversations dc WHERE dc.realm_id = $3 AND dc.user_ids @> ARRAY[$2, u.id]))");
/* Whether a participant may authorize the conversation, whether that group is role:nobody, and whether the
 * conversation already has messages. */
static struct db_stmt st_dm_permission =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM confab_group_members(r.direct_message_permission_group_id) m"
            "   WHERE m.user_id = ANY($2::bigint[])),"
            " (SELECT g.name = 'role:nobody' AND g.is_system_group FROM user_groups g"
            "   WHERE g.id = r.direct_message_permission_group_id),"
            " EXISTS (SELECT 1 FROM direct_conversations dc JOIN messages m ON m.direct_conversation_id = dc.id"
            "   WHERE dc.realm_id = r.id AND dc.user_ids = $2::bigint[])"
            " FROM realms r WHERE r.id = $1");

/* The reference's check_can_send_direct_message. */
static int check_dm_permission(struct uow *uow, const struct message_user *users, int n, const char *ids)
{
	bool only_bots_or_self = true;
	for (int i = 0; i < n; i++)
		only_bots_or_self = only_bots_or_self && (users[i].is_bot || users[i].id == uow->user->id);
	if (uow->user->is_bot || only_bots_or_self)
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_dm_permission, db_arg_int(uow, uow->realm->id), ids);
	if (res == NULL)
		return -1;
	if (!db_bool(res, 0, 0))
		return uow_error(uow, ERR_BAD_REQUEST, "%s",
		                 db_bool(res, 0, 1)
		                     ? "Direct messages are disabled in this organization."
		                     : "This conversation does not include any users who can authorize it.");
	if (perm_realm(uow, RS_DM_INITIATOR) || db_bool(res, 0, 2))
		return 0;
	return uow_error(uow, ERR_BAD_REQUEST, "You do not have permission to initiate direct message conversations.");
}

int message_check_direct(struct uow *uow, const struct message_user *users, int n, int64_t **participants, int *np)
{
	struct ids all = {0};
	for (int i = 0; i < n; i++)
		if (users[i].id != uow->user->id)
			ids_push(&uow->arena, &all, users[i].id);
	if (!perm_realm(uow, RS_ACCESS_ALL_USERS) && all.n > 0) {
		struct db_res *res = DB_EXEC(uow, &st_inaccessible, db_arg_ids(uow, all.v, all.n),
		                             db_arg_int(uow, uow->user->id), db_arg_int(uow, uow->realm->id));
		if (res == NULL)
			return -1;
		if (db_int(res, 0, 0) > 0)
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "You do not have permission to access some of the recipients.");
	}
	if (uow->error)
		return -1;
	for (int i = 0; i < n; i++)
		if (!users[i].is_active)
			return uow_error(uow, ERR_BAD_REQUEST, "'%s' is no longer using Zulip.", users[i].api_email);
	ids_push(&uow->arena, &all, uow->user->id);
	qsort(all.v, (size_t)all.n, sizeof(*all.v), ids_cmp);
	if (check_dm_permission(uow, users, n, db_arg_ids(uow, all.v, all.n)) < 0)
		return -1;
	*participants = all.v;
	*np = all.n;
	return 0;
}
