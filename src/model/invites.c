/* Invitations; see invites.h. */
#include "model/invites.h"

#include <string.h>

#include "core/buf.h"
#include "core/config.h"
#include "core/crypto.h"
#include "core/html.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/mail.h"
#include "model/realm.h"
#include "model/realm_domains.h"
#include "model/user.h"

/* ---- the daily limit ---------------------------------------------------------------------------------------- */

static struct db_stmt st_lock_realm = DB_STMT("SELECT max_invites FROM realms WHERE id = $1 FOR NO KEY UPDATE");
static struct db_stmt st_recent =
    DB_STMT("SELECT count(*) FROM invites_sent WHERE realm_id = $1 AND sent_at > now() - interval '1 day'");

int invites_failed(struct uow *uow, const char *msg, json_object *errors, bool sent_invitations,
                   bool daily_limit_reached)
{
	uow_error(uow, ERR_INVITATION_FAILED, "%s", msg);
	uow_error_field(uow, "errors", errors);
	uow_error_field(uow, "sent_invitations", json_object_new_boolean(sent_invitations));
	uow_error_field(uow, "license_limit_reached", json_object_new_boolean(false));
	uow_error_field(uow, "daily_limit_reached", json_object_new_boolean(daily_limit_reached));
	return -1;
}

/* Whether the organization may send n more invitation mails today: 1 yes, 0 no, -1 on error. */
static int daily_room(struct uow *uow, int n)
{
	const char *realm_id = db_arg_int(uow, uow->realm->id);
	struct db_res *res = DB_EXEC(uow, &st_lock_realm, realm_id);
	if (res == NULL)
		return -1;
	int64_t limit = db_null(res, 0, 0) ? uow->worker->cfg->invites_daily_max : db_int(res, 0, 0);
	if (db_null(res, 0, 0) && limit <= 0)
		return 1; /* no limit configured */
	struct db_res *recent = DB_EXEC(uow, &st_recent, realm_id);
	if (recent == NULL)
		return -1;
	return n + db_int(recent, 0, 0) <= limit;
}

int invites_check_daily_limit(struct uow *uow, int n)
{
	int room = daily_room(uow, n);
	if (room != 0)
		return room > 0 ? 0 : -1;
	return invites_failed(uow,
	                      "To protect users, Zulip limits the number of invitations you can send in one day. "
	                      "Because you have reached the limit, no invitations were sent.",
	                      json_object_new_array(), false, true);
}

/* The reference's INVITES_MIN_USER_AGE_DAYS (3) rule for organizations anyone may join. */
static struct db_stmt st_too_new = DB_STMT("SELECT date_joined > now() - interval '3 days' FROM users WHERE id = $1");

int invites_check_account_age(struct uow *uow)
{
	if (uow->realm->invite_required || user_is_admin(uow->user))
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_too_new, db_arg_int(uow, uow->user->id));
	if (res == NULL)
		return -1;
	if (!db_bool(res, 0, 0))
		return 0;
	return invites_failed(uow,
	                      "Your account is too new to send invites for this organization. Ask an organization "
	                      "admin, or a more experienced user.",
	                      json_object_new_array(), false, false);
}

/* ---- addresses ---------------------------------------------------------------------------------------------- */

/* The reference's CROSS_REALM_BOT_EMAILS (is_cross_realm_bot_email compares lowercased). */
static bool is_system_bot_email(const char *email)
{
	static const char *const bots[] = {"notification-bot@zulip.com", "welcome-bot@zulip.com",
	                                   "emailgateway@zulip.com"};
	for (size_t i = 0; i < sizeof(bots) / sizeof(bots[0]); i++)
		if (strcasecmp(email, bots[i]) == 0)
			return true;
	return false;
}

static json_object *triple(const char *email, const char *reason, bool deactivated)
{
	json_object *t = json_object_new_array();
	json_object_array_add(t, json_object_new_string(email));
	json_object_array_add(t, json_object_new_string(reason));
	json_object_array_add(t, json_object_new_boolean(deactivated));
	return t;
}

/* The reference's validate_email_is_valid: NULL, or the reason. */
static const char *invalid_reason(const struct realm_email_rules *rules, const char *email)
{
	if (!user_email_is_valid(email))
		return "Invalid address.";
	switch (realm_email_rules_check(rules, email)) {
	case REALM_EMAIL_DOMAIN_NOT_ALLOWED: return "Outside your domain.";
	case REALM_EMAIL_CONTAINS_PLUS: return "Email addresses containing + are not allowed.";
	default: return NULL;
	}
}

/* Existing accounts among the addresses (1-based positions in the JSON list $2), compared case-insensitively. */
static struct db_stmt st_existing =
    DB_STMT("SELECT e.ord, u.is_active FROM json_array_elements_text($2::json) WITH ORDINALITY e(addr, ord)"
            " JOIN users u ON u.realm_id = $1 AND lower(u.delivery_email) = lower(e.addr)");

/* The reference's get_existing_user_errors for the addresses with ok[i]: clears ok[i] and adds a triple for each. */
static int existing_errors(struct uow *uow, const char *const *emails, int n, bool *ok, json_object *skipped)
{
	json_object *list = uow_own_json(uow, json_object_new_array());
	int *pos = arena_alloc(&uow->arena, sizeof(int) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		if (ok[i]) {
			pos[json_object_array_length(list)] = i;
			json_object_array_add(list, json_object_new_string(emails[i]));
		}
	struct db_res *res =
	    DB_EXEC(uow, &st_existing, db_arg_int(uow, uow->realm->id), json_object_to_json_string(list));
	if (res == NULL)
		return -1;
	const char **reason = arena_alloc(&uow->arena, sizeof(char *) * (size_t)(n + 1));
	bool *deactivated = arena_alloc(&uow->arena, sizeof(bool) * (size_t)(n + 1));
	memset(deactivated, 0, sizeof(bool) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		reason[i] = ok[i] && is_system_bot_email(emails[i]) ? "Reserved for system bots." : NULL;
	for (int r = 0; r < db_rows(res); r++) {
		int i = pos[db_int(res, r, 0) - 1];
		if (reason[i] == NULL) {
			deactivated[i] = !db_bool(res, r, 1);
			reason[i] = deactivated[i] ? "Account has been deactivated." : "Already has an account.";
		}
	}
	for (int i = 0; i < n; i++)
		if (reason[i] != NULL) {
			ok[i] = false;
			json_object_array_add(skipped, triple(emails[i], reason[i], deactivated[i]));
		}
	return 0;
}

int invites_check_emails(struct uow *uow, const char *const *emails, int n, bool *ok, json_object **skipped)
{
	struct realm_email_rules *rules = realm_email_rules_load(uow, uow->realm);
	if (rules == NULL)
		return -1;
	json_object *errors = json_object_new_array();
	for (int i = 0; i < n; i++) {
		const char *reason = *emails[i] ? invalid_reason(rules, emails[i]) : NULL;
		ok[i] = *emails[i] != '\0' && reason == NULL;
		if (reason != NULL)
			json_object_array_add(errors, triple(emails[i], reason, false));
	}
	json_object *taken = json_object_new_array();
	uow_own_json(uow, taken);
	if (existing_errors(uow, emails, n, ok, taken) < 0) {
		json_object_put(errors);
		return -1;
	}
	if (json_object_array_length(errors) > 0) {
		for (size_t i = 0; i < json_object_array_length(taken); i++)
			json_object_array_add(errors, json_object_get(json_object_array_get_idx(taken, i)));
		return invites_failed(uow, "Some emails did not validate, so we didn't send any invitations.", errors,
		                      false, false);
	}
	json_object_put(errors);
	size_t nskipped = json_object_array_length(taken);
	if (nskipped > 0 && nskipped == (size_t)n)
		return invites_failed(uow, "We weren't able to invite anyone.", json_object_get(taken), false, false);
	*skipped = nskipped > 0 ? taken : NULL;
	return 0;
}

/* ---- creation and mail -------------------------------------------------------------------------------------- */

static struct db_stmt st_insert = DB_STMT(
    "INSERT INTO invitations (realm_id, referrer_id, email, is_multiuse, invited_as, stream_ids, group_ids,"
    " include_realm_default_subscriptions, notify_referrer_on_join, welcome_message_custom_text, confirmation_key,"
    " expires_at) VALUES ($1, $2, $3, $3::text IS NULL, $4, ARRAY(SELECT DISTINCT unnest($5::bigint[]) ORDER BY 1),"
    " ARRAY(SELECT DISTINCT unnest($6::bigint[]) ORDER BY 1), $7, $8, $9, $10,"
    " CASE WHEN $11::bigint IS NULL THEN NULL ELSE now() + make_interval(mins => $11::int) END) RETURNING id");

/* A new accept link key: INVITE_KEY_LEN random characters of [a-z0-9] (an arena string). */
static char *new_key(struct uow *uow)
{
	char *k = arena_alloc(&uow->arena, INVITE_KEY_LEN + 1);
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	for (int i = 0; i < INVITE_KEY_LEN; i++)
		k[i] = alphabet[crypto_random_below(sizeof(alphabet) - 1)];
	k[INVITE_KEY_LEN] = '\0';
	return k;
}

int64_t invite_create(struct uow *uow, const struct invite_spec *spec, const char *email, const char **key)
{
	char *k = new_key(uow);
	struct db_res *res = DB_EXEC(
	    uow, &st_insert, db_arg_int(uow, uow->realm->id), db_arg_int(uow, uow->user->id), email,
	    db_arg_int(uow, spec->invited_as), db_arg_ids(uow, spec->stream_ids, spec->nstreams),
	    db_arg_ids(uow, spec->group_ids, spec->ngroups), spec->include_realm_default_subscriptions ? "t" : "f",
	    spec->notify_referrer_on_join ? "t" : "f", spec->welcome_message_custom_text, k,
	    spec->never_expires ? NULL : db_arg_int(uow, spec->expires_in_minutes));
	if (res == NULL)
		return 0;
	*key = k;
	return db_int(res, 0, 0);
}

const char *invite_link(struct uow *uow, const char *key)
{
	return arena_printf(&uow->arena, "%s/join/%s/", realm_url(uow, uow->realm), key);
}

/* What the mail of an invitation says; columns: email, key, inviter's name and address, expiry text (NULL: never). */
static struct db_stmt st_mail_data =
    DB_STMT("SELECT i.email, i.confirmation_key, u.full_name, u.delivery_email,"
            " to_char(i.expires_at AT TIME ZONE 'UTC', 'FMMonth FMDD, YYYY, HH24:MI \"UTC\"')"
            " FROM invitations i JOIN users u ON u.id = i.referrer_id WHERE i.id = $1 AND i.realm_id = $2");
static struct db_stmt st_count_sent = DB_STMT("INSERT INTO invites_sent (realm_id) VALUES ($1)");

int invite_send_mail(struct uow *uow, int64_t id)
{
	const char *realm_id = db_arg_int(uow, uow->realm->id);
	struct db_res *res = DB_EXEC(uow, &st_mail_data, db_arg_int(uow, id), realm_id);
	if (res == NULL || DB_EXEC(uow, &st_count_sent, realm_id) == NULL)
		return -1;
	const char *inviter = db_val(res, 0, 2), *inviter_email = db_val(res, 0, 3), *org = uow->realm->name;
	const char *link = invite_link(uow, db_val(res, 0, 1));
	const char *expiry = db_null(res, 0, 4)
	                         ? "This invitation does not expire."
	                         : arena_printf(&uow->arena, "This invitation expires on %s.", db_val(res, 0, 4));
	struct mail_draft m = {
	    .realm_id = uow->realm->id,
	    .from_name = "Zulip",
	    .to = db_val(res, 0, 0),
	    .subject = arena_printf(&uow->arena, "%s has invited you to join %s", inviter, org),
	    .text = arena_printf(&uow->arena,
	                         "Hi there,\n\n%s (%s) invites you to join the organization %s.\n\n"
	                         "Open this link to choose your name and password:\n    <%s>\n\n%s\n",
	                         inviter, inviter_email, org, link, expiry),
	    .html = arena_printf(&uow->arena,
	                         "<p>Hi there,</p>\n<p>%s (<a href=\"mailto:%s\">%s</a>) invites you to join the "
	                         "organization <b>%s</b>.</p>\n<p><a href=\"%s\">Complete registration</a></p>\n"
	                         "<p>%s</p>\n",
	                         html_escape(&uow->arena, inviter), html_escape(&uow->arena, inviter_email),
	                         html_escape(&uow->arena, inviter_email), html_escape(&uow->arena, org),
	                         html_escape(&uow->arena, link), html_escape(&uow->arena, expiry)),
	};
	return mail_enqueue(uow, &m) ? 0 : -1;
}

/* ---- address confirmations of reusable links ---------------------------------------------------------------- */

/* The confirmations of the last day to address $2 of the organization, and through link $3. */
static struct db_stmt st_confirm_count =
    DB_STMT("SELECT count(*) FILTER (WHERE lower(email) = lower($2)), count(*) FILTER (WHERE via_multiuse_id = $3)"
            " FROM invitations WHERE realm_id = $1 AND via_multiuse_id IS NOT NULL"
            " AND invited_at > now() - interval '1 day'");
/* least() skips a NULL: a link that never expires gives the confirmation its own day. */
static struct db_stmt st_confirm_insert = DB_STMT(
    "INSERT INTO invitations (realm_id, referrer_id, email, invited_as, stream_ids, group_ids,"
    " include_realm_default_subscriptions, notify_referrer_on_join, welcome_message_custom_text, confirmation_key,"
    " expires_at, via_multiuse_id)"
    " SELECT realm_id, referrer_id, $3, invited_as, stream_ids, group_ids, include_realm_default_subscriptions,"
    " notify_referrer_on_join, welcome_message_custom_text, $4,"
    " least(now() + make_interval(hours => $5), expires_at), id"
    " FROM invitations WHERE id = $1 AND realm_id = $2 AND is_multiuse"
    " RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'FMMonth FMDD, YYYY, HH24:MI \"UTC\"')");

/* The mail that carries a confirmation's link to the address it confirms. */
static int confirmation_mail(struct uow *uow, const char *email, const char *link, const char *expiry)
{
	const char *org = uow->realm->name;
	struct mail_draft m = {
	    .realm_id = uow->realm->id,
	    .from_name = "Zulip",
	    .to = email,
	    .subject = "Activate your Zulip account",
	    .text = arena_printf(&uow->arena,
	                         "Hi there,\n\nSomeone, probably you, asked to join the organization %s as %s with "
	                         "its invitation link.\n\nOpen this link to confirm the address and choose your name "
	                         "and password:\n    <%s>\n\nThe link works once and expires on %s. If you did not ask "
	                         "to join, ignore this mail: no account is made without the link.\n",
	                         org, email, link, expiry),
	    .html = arena_printf(&uow->arena,
	                         "<p>Hi there,</p>\n<p>Someone, probably you, asked to join the organization <b>%s</b> "
	                         "as %s with its invitation link.</p>\n<p><a href=\"%s\">Confirm and complete "
	                         "registration</a></p>\n<p>The link works once and expires on %s. If you did not ask "
	                         "to join, ignore this mail: no account is made without the link.</p>\n",
	                         html_escape(&uow->arena, org), html_escape(&uow->arena, email),
	                         html_escape(&uow->arena, link), html_escape(&uow->arena, expiry)),
	};
	return mail_enqueue(uow, &m) ? 0 : -1;
}

int invite_confirm_address(struct uow *uow, int64_t link_id, const char *email)
{
	const char *realm_id = db_arg_int(uow, uow->realm->id);
	struct db_res *count = DB_EXEC(uow, &st_confirm_count, realm_id, email, db_arg_int(uow, link_id));
	if (count == NULL)
		return -1;
	if (db_int(count, 0, 0) >= INVITE_CONFIRM_MAX_PER_DAY)
		return INVITE_CONFIRM_LIMIT;
	if (db_int(count, 0, 1) >= INVITE_CONFIRM_MAX_PER_LINK_DAY)
		return INVITE_CONFIRM_LINK_LIMIT;
	const char *key = new_key(uow);
	struct db_res *res = DB_EXEC(uow, &st_confirm_insert, db_arg_int(uow, link_id), realm_id, email, key,
	                             db_arg_int(uow, INVITE_CONFIRM_HOURS));
	if (res == NULL)
		return -1;
	if (db_rows(res) != 1) /* the caller holds the link locked: it is there */
		return uow_error(uow, ERR_INTERNAL, NULL);
	return confirmation_mail(uow, email, invite_link(uow, key), db_val(res, 0, 0));
}

/* ---- events, lookups, revocation ---------------------------------------------------------------------------- */

/* The reference's realm.get_admin_users_and_bots(): active administrators and owners, bots included. */
static struct db_stmt st_admins = DB_STMT("SELECT id FROM users WHERE realm_id = $1 AND is_active AND role <= 200"
                                          " AND NOT is_system_bot UNION SELECT $2::bigint WHERE $2::bigint <> 0"
                                          " ORDER BY 1");

int invites_notify(struct uow *uow, int64_t referrer_id)
{
	struct db_res *res = DB_EXEC(uow, &st_admins, db_arg_int(uow, uow->realm->id), db_arg_int(uow, referrer_id));
	int n = 0;
	int64_t *ids = db_ids(uow, res, 0, &n);
	if (ids == NULL)
		return -1;
	return events_add_some(uow, events_new(uow, "invites_changed", NULL), ids, n);
}

static struct db_stmt st_by_id =
    DB_STMT("SELECT id, referrer_id, is_multiuse, invited_as, status FROM invitations WHERE id = $1 AND realm_id = $2"
            " AND via_multiuse_id IS NULL");

struct invitation *invite_by_id(struct uow *uow, int64_t id)
{
	struct db_res *res = DB_EXEC(uow, &st_by_id, db_arg_int(uow, id), db_arg_int(uow, uow->realm->id));
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	struct invitation *inv = arena_alloc(&uow->arena, sizeof(*inv));
	*inv = (struct invitation){.id = db_int(res, 0, 0),
	                           .referrer_id = db_int(res, 0, 1),
	                           .is_multiuse = db_bool(res, 0, 2),
	                           .invited_as = (int)db_int(res, 0, 3),
	                           .status = arena_strdup(&uow->arena, db_val(res, 0, 4))};
	return inv;
}

static struct db_stmt st_revoke = DB_STMT("UPDATE invitations SET status = 'revoked' WHERE id = $1");

int invite_revoke(struct uow *uow, int64_t id, int64_t referrer_id)
{
	if (DB_EXEC(uow, &st_revoke, db_arg_int(uow, id)) == NULL)
		return -1;
	return invites_notify(uow, referrer_id);
}

/* ---- GET /invites ------------------------------------------------------------------------------------------- */

/* $3: the user may manage every invitation of the organization. */
static struct db_stmt st_list =
    DB_STMT("SELECT id, referrer_id, is_multiuse, invited_as, email, notify_referrer_on_join, confirmation_key,"
            " floor(extract(epoch FROM invited_at))::bigint, floor(extract(epoch FROM expires_at))::bigint"
            " FROM invitations WHERE realm_id = $1 AND ($3 OR referrer_id = $2) AND status = 'pending'"
            " AND via_multiuse_id IS NULL"
            " AND (expires_at IS NULL OR expires_at >= now()) ORDER BY is_multiuse, id");

static json_object *invite_json(struct uow *uow, const struct db_res *res, int r)
{
	json_object *o = json_object_new_object();
	bool multiuse = db_bool(res, r, 2);
	if (!multiuse)
		json_object_object_add(o, "email", json_object_new_string(db_val(res, r, 4)));
	json_object_object_add(o, "invited_by_user_id", json_object_new_int64(db_int(res, r, 1)));
	json_object_object_add(o, "invited", json_object_new_int64(db_int(res, r, 7)));
	json_object_object_add(o, "expiry_date", db_null(res, r, 8) ? NULL : json_object_new_int64(db_int(res, r, 8)));
	json_object_object_add(o, "id", json_object_new_int64(db_int(res, r, 0)));
	if (multiuse)
		json_object_object_add(o, "link_url", json_object_new_string(invite_link(uow, db_val(res, r, 6))));
	json_object_object_add(o, "invited_as", json_object_new_int64(db_int(res, r, 3)));
	json_object_object_add(o, "is_multiuse", json_object_new_boolean(multiuse));
	if (!multiuse)
		json_object_object_add(o, "notify_referrer_on_join", json_object_new_boolean(db_bool(res, r, 5)));
	return o;
}

json_object *invites_list_json(struct uow *uow)
{
	struct db_res *res = DB_EXEC(uow, &st_list, db_arg_int(uow, uow->realm->id), db_arg_int(uow, uow->user->id),
	                             user_is_admin(uow->user) ? "t" : "f");
	if (res == NULL)
		return NULL;
	json_object *list = uow_own_json(uow, json_object_new_array());
	for (int r = 0; r < db_rows(res); r++)
		json_object_array_add(list, invite_json(uow, res, r));
	return list;
}

/* ---- expiry ------------------------------------------------------------------------------------------------- */

static struct db_stmt st_expire =
    DB_STMT("UPDATE invitations SET status = 'expired' WHERE id IN (SELECT id FROM invitations WHERE status = 'pending'"
            " AND expires_at IS NOT NULL AND expires_at < now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)"
            " RETURNING id");
static struct db_stmt st_forget_sent = DB_STMT("DELETE FROM invites_sent WHERE sent_at < now() - interval '1 day'");

int invites_expire_due(struct uow *uow, int max)
{
	struct db_res *res = DB_EXEC(uow, &st_expire, db_arg_int(uow, max));
	if (res == NULL || DB_EXEC(uow, &st_forget_sent) == NULL)
		return -1;
	return db_rows(res);
}
