/* Accepting an invitation; see invite_accept.h. */
#include "model/invite_accept.h"

#include <json-c/json.h>
#include <string.h>

#include "core/crypto.h"
#include "core/uow.h"
#include "db/db.h"
#include "model/channels.h"
#include "model/groups.h"
#include "model/invites.h"
#include "model/messages.h"
#include "model/notify.h"
#include "model/realm.h"
#include "model/user.h"

bool join_key_is_wellformed(const char *key)
{
	return strlen(key) == INVITE_KEY_LEN && strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789") == INVITE_KEY_LEN;
}

/* An invitation still pending past its expires_at has expired, whether or not the reaper has marked it yet; an
 * address confirmation follows its reusable link (revoked or expired with it). */
#define INVITE_SELECT                                                                                                  \
	"SELECT i.id, i.referrer_id, i.email, i.invited_as, i.include_realm_default_subscriptions,"                    \
	"       i.notify_referrer_on_join, i.welcome_message_custom_text,"                                             \
	"       CASE WHEN i.status <> 'pending' THEN i.status WHEN i.expires_at <= now() THEN 'expired'"               \
	"            WHEN p.status = 'revoked' THEN 'revoked'"                                                         \
	"            WHEN p.status = 'expired' OR p.expires_at <= now() THEN 'expired' ELSE 'pending' END,"            \
	"       (SELECT secret FROM server_secret)"                                                                    \
	"  FROM invitations i LEFT JOIN invitations p ON p.id = i.via_multiuse_id"                                     \
	" WHERE i.confirmation_key = $1 AND i.realm_id = $2"
static struct db_stmt st_by_key = DB_STMT(INVITE_SELECT);
static struct db_stmt st_by_key_locked = DB_STMT(INVITE_SELECT " FOR UPDATE OF i");

static enum join_state state_of(const char *status)
{
	return strcmp(status, "expired") == 0   ? JOIN_EXPIRED
	       : strcmp(status, "revoked") == 0 ? JOIN_REVOKED
	       : strcmp(status, "used") == 0    ? JOIN_USED
	                                        : JOIN_PENDING;
}

struct join_invite *join_invite_by_key(struct uow *uow, const char *key, bool for_update)
{
	if (uow->realm == NULL)
		return NULL;
	struct db_res *res =
	    DB_EXEC(uow, for_update ? &st_by_key_locked : &st_by_key, key, db_arg_int(uow, uow->realm->id));
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	struct join_invite *inv = arena_alloc(&uow->arena, sizeof(*inv));
	*inv = (struct join_invite){
	    .id = db_int(res, 0, 0),
	    .referrer_id = db_int(res, 0, 1),
	    .email = db_null(res, 0, 2) ? NULL : arena_strdup(&uow->arena, db_val(res, 0, 2)),
	    .invited_as = (int)db_int(res, 0, 3),
	    .include_realm_default_subscriptions = db_bool(res, 0, 4),
	    .notify_referrer_on_join = db_bool(res, 0, 5),
	    .welcome_message_custom_text = db_null(res, 0, 6) ? NULL : arena_strdup(&uow->arena, db_val(res, 0, 6)),
	    .state = state_of(db_val(res, 0, 7)),
	};
	char *token = arena_alloc(&uow->arena, 65);
	crypto_hmac_hex(db_val(res, 0, 8), key, token);
	inv->csrf_token = token;
	return inv;
}

/* ---- channels and groups ------------------------------------------------------------------------------------ */

/* The invitation's channels that still exist, and the default channels when it asks for them. */
static struct db_stmt st_channels =
    DB_STMT("SELECT c.id FROM channels c, invitations i WHERE i.id = $2 AND c.realm_id = $1 AND NOT c.is_archived"
            "   AND (c.id = ANY (i.stream_ids) OR (i.include_realm_default_subscriptions AND c.is_default))"
            " ORDER BY c.id");
static struct db_stmt st_subscribe =
    DB_STMT("INSERT INTO subscriptions (user_id, channel_id, color)"
            " SELECT $1, (c->>0)::bigint, c->>1 FROM json_array_elements($2::json) c ON CONFLICT DO NOTHING");

/* Subscribes user_id to the invitation's channels (set_up_streams_for_new_human_user), with their events. */
static int join_channels(struct uow *uow, const struct join_invite *inv, int64_t user_id)
{
	struct db_res *res = DB_EXEC(uow, &st_channels, db_arg_int(uow, uow->realm->id), db_arg_int(uow, inv->id));
	if (res == NULL)
		return -1;
	int n = db_rows(res);
	if (n == 0)
		return 0;
	struct channel_changes ch = {.subs = arena_alloc(&uow->arena, (size_t)n * sizeof(*ch.subs))};
	json_object *pairs = uow_own_json(uow, json_object_new_array());
	for (int i = 0; i < n; i++) {
		const struct channel *c = channel_by_id(uow, db_int(res, i, 0));
		if (c == NULL)
			return uow_error(uow, ERR_INTERNAL, NULL);
		ch.subs[ch.nsubs++] = (struct channel_sub){user_id, c};
		json_object *pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_int64(c->id));
		json_object_array_add(pair, json_object_new_string(channel_default_color(c->id)));
		json_object_array_add(pairs, pair);
	}
	if (DB_EXEC(uow, &st_subscribe, db_arg_int(uow, user_id), json_object_to_json_string(pairs)) == NULL)
		return -1;
	return channel_events_subscribe(uow, &ch);
}

/* The invitation's groups that are still active (system groups follow from the role). */
static struct db_stmt st_groups =
    DB_STMT("SELECT g.id FROM user_groups g, invitations i WHERE i.id = $2 AND g.realm_id = $1"
            "   AND g.id = ANY (i.group_ids) AND NOT g.deactivated AND NOT g.is_system_group ORDER BY g.id");

static int join_groups(struct uow *uow, const struct join_invite *inv, int64_t user_id)
{
	struct db_res *res = DB_EXEC(uow, &st_groups, db_arg_int(uow, uow->realm->id), db_arg_int(uow, inv->id));
	if (res == NULL)
		return -1;
	json_object *ids = uow_own_json(uow, json_object_new_array());
	json_object_array_add(ids, json_object_new_int64(user_id));
	for (int i = 0; i < db_rows(res); i++) {
		int64_t gid = db_int(res, i, 0);
		struct group_access *before = group_access_before(uow, gid);
		if (before == NULL || group_add_members(uow, gid, ids) < 0 ||
		    group_events_members(uow, gid, "add_members", ids, before) < 0)
			return -1;
	}
	return 0;
}

/* ---- messages ----------------------------------------------------------------------------------------------- */

/* The referrer's notice (skipped for a deactivated referrer, as the reference does). */
static int notify_referrer(struct uow *uow, const struct join_invite *inv, const struct user *member)
{
	if (!inv->notify_referrer_on_join)
		return 0;
	const struct user *referrer = user_by_id(uow, uow->realm->id, inv->referrer_id);
	if (referrer == NULL || !referrer->is_active)
		return uow->error ? -1 : 0;
	const char *content =
	    arena_printf(&uow->arena, "%s accepted your invitation to join Zulip!", notify_mention(uow, member));
	return notify_direct(uow, referrer->id, content) ? 0 : -1;
}

/* The Welcome Bot's greeting, then the invitation's custom text (an empty one sends nothing more). */
static int welcome(struct uow *uow, const struct join_invite *inv, const struct user *member)
{
	const char *greeting = arena_printf(&uow->arena,
	                                    "Welcome to **%s**, %s!\n\n"
	                                    "Your account is ready: pick a channel in the left sidebar to read along, "
	                                    "or start a conversation with a new topic.",
	                                    uow->realm->name, notify_mention(uow, member));
	if (notify_direct_as(uow, NOTIFY_WELCOME_BOT, member->id, greeting) == 0)
		return -1;
	const char *custom = inv->welcome_message_custom_text;
	if (custom == NULL || *custom == '\0')
		return 0;
	return notify_direct_as(uow, NOTIFY_WELCOME_BOT, member->id, custom) ? 0 : -1;
}

/* ---- acceptance --------------------------------------------------------------------------------------------- */

static struct db_stmt st_used = DB_STMT("UPDATE invitations SET status = 'used', used_at = now(), used_by_user_id = $2"
                                        " WHERE id = $1 AND NOT is_multiuse");
/* The reference revokes the address's other invitations once an account has it. */
static struct db_stmt st_revoke_others =
    DB_STMT("UPDATE invitations SET status = 'revoked' WHERE realm_id = $1 AND lower(email) = lower($2)"
            "   AND status = 'pending' AND id <> $3");

static int mark_used(struct uow *uow, const struct join_invite *inv, const struct user *member)
{
	if (DB_EXEC(uow, &st_used, db_arg_int(uow, inv->id), db_arg_int(uow, member->id)) == NULL ||
	    DB_EXEC(uow, &st_revoke_others, db_arg_int(uow, uow->realm->id), member->delivery_email,
	            db_arg_int(uow, inv->id)) == NULL)
		return -1;
	return invites_notify(uow, inv->referrer_id);
}

int64_t join_accept(struct uow *uow, const struct join_invite *inv, const struct user_new *spec)
{
	struct user_new s = *spec;
	s.role = inv->invited_as;
	s.bot_type = 0;
	s.no_default_channels = true;
	int64_t id = user_create(uow, uow->realm->id, &s);
	struct user *member = id ? user_by_id(uow, uow->realm->id, id) : NULL;
	if (member == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL); /* keeps the error recorded first */
		return 0;
	}
	uow->user = member;
	if (user_events_created(uow, id) < 0 || join_channels(uow, inv, id) < 0 || join_groups(uow, inv, id) < 0 ||
	    notify_referrer(uow, inv, member) < 0 || welcome(uow, inv, member) < 0 || mark_used(uow, inv, member) < 0)
		return 0;
	return id;
}
