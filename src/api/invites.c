/*
 * Invitations: send by email, list, revoke, resend, and reusable links.
 * Reference: zerver/views/invite.py (invite_users_backend, get_invitee_emails_set, access_invite_by_id,
 * access_multiuse_invite_by_id, access_streams_for_invite, access_user_groups_for_invite), zerver/actions/invites.py.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/config.h"
#include "core/limits.h"
#include "events/events.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/groups.h"
#include "model/invites.h"
#include "model/permissions.h"
#include "model/realm.h"
#include "model/user.h"

/*
 * Guests are refused by R_NO_GUEST; the reference's check_role_based_permissions. Its two answers differ on
 * purpose: an owner invitation by a non-owner raises OrganizationOwnerRequiredError (UNAUTHORIZED_PRINCIPAL), a
 * role that needs an administrator a plain JsonableError (BAD_REQUEST), not OrganizationAdministratorRequiredError
 * (zerver/views/invite.py; test invites:checks_in_order holds both).
 */
static int check_role_permissions(struct request *req, int invited_as, bool require_admin)
{
	if (invited_as == ROLE_OWNER && !user_is_owner(req->user))
		return api_error(req, ERR_UNAUTHORIZED_PRINCIPAL, "Must be an organization owner");
	if (require_admin && !user_is_admin(req->user))
		return api_error(req, ERR_BAD_REQUEST, "Must be an organization administrator");
	return 0;
}

/* invite_as among the roles (the reference's check_int_in_validator), then the roles the user may invite. */
static int check_invite_as(struct request *req, int64_t invite_as)
{
	if (invite_as != ROLE_OWNER && invite_as != ROLE_ADMIN && invite_as != ROLE_MODERATOR &&
	    invite_as != ROLE_MEMBER && invite_as != ROLE_GUEST)
		return api_error(req, ERR_BAD_REQUEST,
		                 "Invalid invite_as: Value error, Not in the list of possible values");
	return 0;
}

/* invite_expires_in_minutes: an integer, or null for never; not sent: the server's default. */
static int read_expiry(struct request *req, struct invite_spec *spec)
{
	json_object *v = param_json(req, "invite_expires_in_minutes");
	if (!param_present(req, "invite_expires_in_minutes")) {
		spec->expires_in_minutes = req->worker->cfg->invitation_link_validity_minutes;
		return 0;
	}
	if (v == NULL) {
		spec->never_expires = true;
		return 0;
	}
	if (!json_object_is_type(v, json_type_int))
		return api_error(req, ERR_BAD_REQUEST, "invite_expires_in_minutes is not an integer");
	int64_t m = json_object_get_int64(v);
	if (m > INT32_MAX || m < INT32_MIN)
		return api_error(req, ERR_BAD_REQUEST, "invite_expires_in_minutes is too %s",
		                 m > 0 ? "large" : "small");
	spec->expires_in_minutes = m;
	return 0;
}

/* A list parameter's integers (NULL json: none), in the arena. */
static const int64_t *int_list(struct request *req, const char *name, int *n)
{
	json_object *list = param_json(req, name);
	*n = list ? (int)json_object_array_length(list) : 0;
	int64_t *ids = arena_alloc(&req->arena, sizeof(int64_t) * (size_t)(*n + 1));
	for (int i = 0; i < *n; i++)
		ids[i] = json_object_get_int64(json_object_array_get_idx(list, (size_t)i));
	return ids;
}

/* The reference's access_streams_for_invite: each channel readable (and not archived), then every one not a default
 * channel open to the user's adding subscribers. */
static int check_streams(struct request *req, const int64_t *ids, int n)
{
	struct channel **cs = arena_alloc(&req->arena, sizeof(*cs) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		cs[i] = channel_by_id(&req->uow, ids[i]);
		if (req->error)
			return -1;
		if (cs[i] == NULL || !cs[i]->content_access || cs[i]->is_archived)
			return api_error(req, ERR_BAD_REQUEST, "Invalid channel ID %lld. No invites were sent.",
			                 (long long)ids[i]);
	}
	for (int i = 0; i < n; i++)
		if (!cs[i]->is_default && !perm_channel_add_subscribers(&req->uow, cs[i]))
			return req->error
			           ? -1
			           : api_error(req, ERR_BAD_REQUEST,
			                       "You do not have permission to subscribe other users to channels.");
	return 0;
}

/* The reference's access_user_group_for_update with can_add_members_group, for each group: "Invalid user group",
 * "User group is deactivated.", "Insufficient permission". */
static int check_groups(struct request *req, const int64_t *ids, int n)
{
	for (int i = 0; i < n; i++) {
		struct group *g = group_by_id_or_error(&req->uow, ids[i], true);
		if (g == NULL)
			return -1;
		if (g->deactivated)
			return api_error(req, ERR_BAD_REQUEST, "User group is deactivated.");
		if (g->is_system_group)
			return api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
		if (perm_realm(&req->uow, RS_MANAGE_ALL_GROUPS) ||
		    group_setting_allows(&req->uow, g->setting[GP_MANAGE], group_permission_flags[GP_MANAGE]) ||
		    group_setting_allows(&req->uow, g->setting[GP_ADD_MEMBERS], group_permission_flags[GP_ADD_MEMBERS]))
			continue;
		return req->error ? -1 : api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	}
	return 0;
}

/* The parameters POST /invites and POST /invites/multiuse share, into spec, with the errors the reference's parameter
 * validation gives (before any permission check); check_spec() checks them against the user's permissions. */
static int read_spec(struct request *req, struct invite_spec *spec)
{
	if (check_invite_as(req, param_int(req, "invite_as")) < 0)
		return -1;
	spec->invited_as = (int)param_int(req, "invite_as");
	spec->include_realm_default_subscriptions = param_bool(req, "include_realm_default_subscriptions");
	spec->stream_ids = int_list(req, "stream_ids", &spec->nstreams);
	spec->group_ids = int_list(req, "group_ids", &spec->ngroups);
	spec->welcome_message_custom_text =
	    param_present(req, "welcome_message_custom_text") ? param_str(req, "welcome_message_custom_text") : NULL;
	return read_expiry(req, spec);
}

static int check_spec(struct request *req, const struct invite_spec *spec)
{
	if (check_streams(req, spec->stream_ids, spec->nstreams) < 0 ||
	    check_groups(req, spec->group_ids, spec->ngroups) < 0)
		return -1;
	if (spec->welcome_message_custom_text != NULL && !user_is_admin(req->user))
		return api_error(req, ERR_BAD_REQUEST, "Must be an organization administrator");
	return 0;
}

static bool requires_admin(int invited_as)
{
	return invited_as == ROLE_OWNER || invited_as == ROLE_ADMIN || invited_as == ROLE_MODERATOR;
}

struct address {
	const char *s;
	int pos;
};

static int cmp_address(const void *a, const void *b)
{
	const struct address *x = a, *y = b;
	int c = strcmp(x->s, y->s);
	return c ? c : x->pos - y->pos;
}

static int cmp_pos(const void *a, const void *b)
{
	return ((const struct address *)a)->pos - ((const struct address *)b)->pos;
}

/* One entry of invitee_emails: the address inside the first "<" and the last ">" after it, if any, stripped. */
static const char *parse_entry(struct request *req, const char *s, size_t len)
{
	const char *lt = memchr(s, '<', len);
	if (lt != NULL) {
		const char *gt = NULL;
		for (const char *p = lt + 1; p < s + len; p++)
			if (*p == '>')
				gt = p;
		if (gt != NULL)
			s = lt + 1, len = (size_t)(gt - lt - 1);
	}
	return arena_strip(&req->arena, arena_strndup(&req->arena, s, len));
}

/* The reference's get_invitee_emails_set: split on commas and newlines, repeats once, first-seen order. */
static const char **parse_invitees(struct request *req, const char *raw, int *n)
{
	int cap = 1;
	for (const char *p = raw; *p; p++)
		cap += *p == ',' || *p == '\n';
	if (cap > PARAM_MAX_ITEMS)
		return api_error(req, ERR_BAD_REQUEST, "invitee_emails is too long (limit: %d items)", PARAM_MAX_ITEMS),
		       NULL;
	struct address *a = arena_alloc(&req->arena, sizeof(*a) * (size_t)cap);
	int k = 0;
	for (const char *p = raw;; k++) {
		size_t len = strcspn(p, ",\n");
		a[k] = (struct address){parse_entry(req, p, len), k};
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	k++;
	qsort(a, (size_t)k, sizeof(*a), cmp_address);
	int m = 0;
	for (int i = 0; i < k; i++)
		if (m == 0 || strcmp(a[m - 1].s, a[i].s) != 0)
			a[m++] = a[i];
	qsort(a, (size_t)m, sizeof(*a), cmp_pos);
	const char **out = arena_alloc(&req->arena, sizeof(char *) * (size_t)(m + 1));
	for (int i = 0; i < m; i++)
		out[i] = a[i].s;
	*n = m;
	return out;
}

/* The reference's do_invite_users: the daily limit, the account's age, the addresses, then one invitation and one
 * mail per address; *skipped: the taken addresses (NULL: none). */
static int invite_users(struct request *req, const struct invite_spec *spec, const char **emails, int n,
                        json_object **skipped)
{
	bool *ok = arena_alloc(&req->arena, sizeof(bool) * (size_t)(n + 1));
	if (invites_check_daily_limit(&req->uow, n) < 0 || invites_check_account_age(&req->uow) < 0 ||
	    invites_check_emails(&req->uow, emails, n, ok, skipped) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *key;
		int64_t id = ok[i] ? invite_create(&req->uow, spec, emails[i], &key) : -1;
		if (id == 0 || (id > 0 && invite_send_mail(&req->uow, id) < 0))
			return -1;
	}
	return invites_notify(&req->uow, req->user->id);
}

/* POST /api/v1/invites */
int invites_create(struct request *req)
{
	struct invite_spec spec = {.notify_referrer_on_join = param_bool(req, "notify_referrer_on_join")};
	if (read_spec(req, &spec) < 0)
		return -1;
	if (!perm_realm(&req->uow, RS_INVITE_USERS))
		return req->error ? -1 : api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	if (check_role_permissions(req, spec.invited_as, requires_admin(spec.invited_as)) < 0)
		return -1;
	const char *raw = param_str(req, "invitee_emails");
	if (*raw == '\0')
		return api_error(req, ERR_BAD_REQUEST, "You must specify at least one email address.");
	int n;
	const char **emails = parse_invitees(req, raw, &n);
	json_object *skipped = NULL;
	if (emails == NULL || check_spec(req, &spec) < 0 || invite_users(req, &spec, emails, n, &skipped) < 0)
		return -1;
	if (skipped == NULL)
		return 0;
	/* Some were sent: the reference commits them (and their events), then answers with an error. */
	if (events_commit_step(&req->uow) < 0)
		return -1;
	return invites_failed(&req->uow,
	                      "Some of those addresses are already using Zulip, so we didn't send them an invitation. "
	                      "We did send invitations to everyone else!",
	                      json_object_get(skipped), true, false);
}

/* GET /api/v1/invites */
int invites_list(struct request *req)
{
	json_object *list = invites_list_json(&req->uow);
	if (list == NULL)
		return -1;
	json_object_object_add(request_result(req), "invites", json_object_get(list));
	return 0;
}

/* The reference's access_invite_by_id (a revoked invitation is gone, as when revoking deleted it). */
static struct invitation *email_invite_for_change(struct request *req)
{
	struct invitation *inv = invite_by_id(&req->uow, param_int(req, "invite_id"));
	if (req->error)
		return NULL;
	if (inv == NULL || inv->is_multiuse || strcmp(inv->status, "revoked") == 0) {
		api_error(req, ERR_BAD_REQUEST, "No such invitation");
		return NULL;
	}
	if (inv->referrer_id != req->user->id && check_role_permissions(req, inv->invited_as, true) < 0)
		return NULL;
	return inv;
}

/* DELETE /api/v1/invites/{invite_id} */
int invites_revoke(struct request *req)
{
	struct invitation *inv = email_invite_for_change(req);
	return inv == NULL ? -1 : invite_revoke(&req->uow, inv->id, inv->referrer_id);
}

/* POST /api/v1/invites/{invite_id}/resend */
int invites_resend(struct request *req)
{
	struct invitation *inv = email_invite_for_change(req);
	if (inv == NULL || invites_check_daily_limit(&req->uow, 1) < 0)
		return -1;
	return invite_send_mail(&req->uow, inv->id);
}

/* POST /api/v1/invites/multiuse */
int invites_multiuse_create(struct request *req)
{
	struct invite_spec spec = {.notify_referrer_on_join = true};
	if (read_spec(req, &spec) < 0)
		return -1;
	if (!perm_realm(&req->uow, RS_CREATE_MULTIUSE_INVITE))
		return req->error ? -1 : api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	if (check_role_permissions(req, spec.invited_as, requires_admin(spec.invited_as)) < 0 ||
	    check_spec(req, &spec) < 0)
		return -1;
	const char *key;
	if (invite_create(&req->uow, &spec, NULL, &key) == 0 || invites_notify(&req->uow, req->user->id) < 0)
		return -1;
	json_object_object_add(request_result(req), "invite_link", json_object_new_string(invite_link(&req->uow, key)));
	return 0;
}

/* DELETE /api/v1/invites/multiuse/{invite_id} (the reference's access_multiuse_invite_by_id) */
int invites_multiuse_revoke(struct request *req)
{
	struct invitation *inv = invite_by_id(&req->uow, param_int(req, "invite_id"));
	if (req->error)
		return -1;
	if (inv == NULL || !inv->is_multiuse)
		return api_error(req, ERR_BAD_REQUEST, "No such invitation");
	if (inv->referrer_id != req->user->id && check_role_permissions(req, inv->invited_as, true) < 0)
		return -1;
	if (strcmp(inv->status, "revoked") == 0)
		return api_error(req, ERR_BAD_REQUEST, "Invitation has already been revoked");
	return invite_revoke(&req->uow, inv->id, inv->referrer_id);
}
