/*
 * Invitations: POST /invites (every check in the reference's order, INVITATION_FAILED in its variants, the daily
 * limit, allowed domains), the invitation mail read from the SMTP sink, GET /invites, DELETE /invites/{id},
 * POST /invites/{id}/resend, reusable links (POST and DELETE /invites/multiuse), invites_changed and its
 * recipients, and expiry by the reaper.
 * Reference: Zulip zerver/views/invite.py, zerver/actions/invites.py, zerver/lib/invites.py,
 * zerver/lib/email_validation.py, zerver/tests/test_invite.py; shapes from shared/reference/zulip-openapi.yaml
 * (/invites*, Invite, InvitationFailedError, invites_changed). Every test uses an organization of its own.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itest.h"

/* A fresh organization: owner o, administrator d, members m and m2, guest g. */
struct org {
	struct user *o, *d, *m, *m2, *g;
	int64_t channel; /* a public channel o created (and is subscribed to) */
};

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.o->realm_id = atoll(psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)z.o->id));
	z.d = new_user_in(z.o->realm, "admin", NULL);
	z.m = new_user_in(z.o->realm, "member", NULL);
	z.m2 = new_user_in(z.o->realm, "member", NULL);
	z.g = new_user_in(z.o->realm, "guest", NULL);
	z.channel = create_channel_with(z.o, unique_channel_name("invite"), NULL);
	return z;
}

static struct resp *invite(const struct user *u, const char *emails, const char *extra)
{
	bool streams = extra != NULL && strstr(extra, "stream_ids=") != NULL;
	return api_post(u, "/invites",
	                fmt("invitee_emails=%s%s%s%s", url_encode(emails), streams ? "" : "&stream_ids=%5B%5D",
	                    extra ? "&" : "", extra ? extra : ""));
}

static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* INVITATION_FAILED with msg and these fields (errors as JSON text). */
static void expect_failed(const struct resp *r, const char *msg, const char *errors, bool sent, bool daily, int line)
{
	expect_error(r, 400, "INVITATION_FAILED", msg, __FILE__, line);
	CHECK(r->json && strcmp(text(jget(r->json, "errors")), errors) == 0, "line %d: errors %s, want %s", line,
	      r->json ? text(jget(r->json, "errors")) : "?", errors);
	expect_bool(r->json, "sent_invitations", sent, __FILE__, line);
	expect_bool(r->json, "daily_limit_reached", daily, __FILE__, line);
	expect_bool(r->json, "license_limit_reached", false, __FILE__, line);
}
#define EXPECT_FAILED(r, msg, errors, sent, daily) expect_failed((r), (msg), (errors), (sent), (daily), __LINE__)

/* The invitations of the organization in psql, "email|status" per row, by id. */
static const char *rows(const struct user *o)
{
	return psql_ok("SELECT coalesce(string_agg(coalesce(email, '*') || '|' || status, ',' ORDER BY id), '')"
	               " FROM invitations WHERE realm_id = %lld",
	               (long long)o->realm_id);
}

/* The invitations GET /invites shows u. */
static json_object *listed(const struct user *u)
{
	struct resp *r = api_get(u, "/invites");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "invites");
	return jget(r->json, "invites");
}

/* An email invitation by u; returns its id. */
static int64_t invited(const struct user *u, const char *email)
{
	EXPECT_SUCCESS(invite(u, email, NULL));
	char *id = psql_ok("SELECT max(id) FROM invitations WHERE email = '%s'", email);
	return atoll(id);
}

/* The mail and its link: a whole invitation as a client sees it. */
static void test_send_and_mail(void)
{
	struct org z = new_org();
	struct queue *qd = queue_register(z.d, NULL), *qm = queue_register(z.m, NULL);
	char *a = unique_email("alice"), *b = unique_email("bob");
	struct resp *r = invite(z.o, fmt("%s,\nBob Example <%s> ", a, b),
	                        fmt("stream_ids=%s", url_encode(fmt("[%lld]", (long long)z.channel))));
	EXPECT_SUCCESS(r);
	EXPECT_EVENTS(qd, "[{\"type\":\"invites_changed\"}]");
	EXPECT_NO_EVENTS(qm);
	CHECK(strcmp(rows(z.o), fmt("%s|pending,%s|pending", a, b)) == 0, "rows: %s", rows(z.o));
	char *key = psql_ok("SELECT confirmation_key FROM invitations WHERE email = '%s'", b);
	CHECK(strlen(key) == 24 && strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789") == 24, "key %s", key);
	char *mail = wait_for_mail(b, 10);
	REQUIRE(mail != NULL, "no invitation mail for %s", b);
	char *link = fmt("http://%s.%s/join/%s/", z.o->realm, itest_hostport, key);
	char *org = psql_ok("SELECT name FROM realms WHERE id = %lld", (long long)z.o->realm_id);
	const char *subject = mail_header(mail, "Subject");
	CHECK(subject && strcmp(subject, fmt("Itest Realm Owner has invited you to join %s", org)) == 0, "Subject: %s",
	      subject);
	const char *from = mail_header(mail, "From");
	CHECK(from && strncmp(from, "Zulip <noreply@", 15) == 0, "From: %s", from);
	char *plain = mail_part(mail, "text/plain"), *html = mail_part(mail, "text/html");
	REQUIRE(plain && html, "both parts: %s", mail);
	CHECK(strstr(plain, fmt("<%s>", link)) && strstr(plain, "Itest Realm Owner") && strstr(plain, z.o->email) &&
	          strstr(plain, org) && strstr(plain, "This invitation expires on "),
	      "text part: %s (link %s)", plain, link);
	CHECK(strstr(html, fmt("href=\"%s\"", link)) && strstr(html, "Itest Realm Owner") && strstr(html, org) &&
	          strstr(html, "This invitation expires on "),
	      "html part: %s", html);
	CHECK(wait_for_mail(a, 10) != NULL, "no mail for %s", a);
}

/* The decorator, then parameter validation, then each check of the view in the reference's order. */
static void test_checks_in_order(void)
{
	struct org z = new_org();
	struct user *bot = new_user_in(z.o->realm, "member", (const char *const[]){"--bot", NULL});
	char *a = unique_email("x");
	EXPECT_ERROR(invite(z.g, a, NULL), 400, "BAD_REQUEST", "Not allowed for guest users");
	EXPECT_ERROR(invite(bot, a, NULL), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	EXPECT_ERROR(api_post(z.m, "/invites", fmt("invitee_emails=%s", a)), 400, "REQUEST_VARIABLE_MISSING",
	             "Missing 'stream_ids' argument");
	EXPECT_ERROR(invite(z.m, a, "invite_as=10"), 400, "BAD_REQUEST",
	             "Invalid invite_as: Value error, Not in the list of possible values");
	EXPECT_ERROR(invite(z.m, a, "invite_expires_in_minutes=%22x%22"), 400, "BAD_REQUEST",
	             "invite_expires_in_minutes is not an integer");
	EXPECT_ERROR(invite(z.d, a, fmt("welcome_message_custom_text=%s", repeat('w', 8001))), 400, "BAD_REQUEST",
	             "welcome_message_custom_text is too long (limit: 8000 characters)");
	EXPECT_ERROR(invite(z.m, a, "invite_as=100"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
	EXPECT_ERROR(invite(z.d, a, "invite_as=100"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
	EXPECT_ERROR(invite(z.m, a, "invite_as=200"), 400, "BAD_REQUEST", "Must be an organization administrator");
	EXPECT_ERROR(invite(z.m, a, "invite_as=300"), 400, "BAD_REQUEST", "Must be an organization administrator");
	EXPECT_ERROR(invite(z.m, "", NULL), 400, "BAD_REQUEST", "You must specify at least one email address.");
	EXPECT_ERROR(invite(z.m, a, "stream_ids=%5B999999999%5D"), 400, "BAD_REQUEST",
	             "Invalid channel ID 999999999. No invites were sent.");
	EXPECT_ERROR(invite(z.m, a, "group_ids=%5B999999999%5D"), 400, "BAD_REQUEST", "Invalid user group");
	char *members = psql_ok("SELECT id FROM user_groups WHERE realm_id = %lld AND name = 'role:members'",
	                        (long long)z.o->realm_id);
	EXPECT_ERROR(invite(z.m, a, fmt("group_ids=%%5B%s%%5D", members)), 400, "BAD_REQUEST", "Insufficient permission");
	EXPECT_ERROR(invite(z.m, a, "welcome_message_custom_text=Hi"), 400, "BAD_REQUEST",
	             "Must be an organization administrator");
	/* Only members of can_invite_users_group may invite. */
	psql_ok("UPDATE realms SET can_invite_users_group_id = (SELECT id FROM user_groups WHERE realm_id = %lld AND"
	        " name = 'role:administrators') WHERE id = %lld",
	        (long long)z.o->realm_id, (long long)z.o->realm_id);
	EXPECT_ERROR(invite(z.m, a, "invite_as=200"), 400, "BAD_REQUEST", "Insufficient permission");
	CHECK(strcmp(rows(z.o), "") == 0, "nothing is created: %s", rows(z.o));
	EXPECT_SUCCESS(invite(z.d, a, "invite_as=300&welcome_message_custom_text=Welcome%21"));
	CHECK(strcmp(psql_ok("SELECT invited_as, welcome_message_custom_text FROM invitations WHERE email = '%s'", a),
	             "300|Welcome!") == 0,
	      "stored");
}

/* Channels: a private one the member cannot see is invalid; one they may not add subscribers to is refused unless
 * it is a default channel. */
static void test_channel_permissions(void)
{
	struct org z = new_org();
	int64_t priv = create_channel_with(z.o, unique_channel_name("priv"), "invite_only=true");
	EXPECT_ERROR(invite(z.m, unique_email("p"), fmt("stream_ids=%%5B%lld%%5D", (long long)priv)), 400, "BAD_REQUEST",
	             fmt("Invalid channel ID %lld. No invites were sent.", (long long)priv));
	psql_ok("UPDATE realms SET can_add_subscribers_group_id = (SELECT id FROM user_groups WHERE realm_id = %lld AND"
	        " name = 'role:administrators') WHERE id = %lld",
	        (long long)z.o->realm_id, (long long)z.o->realm_id);
	const char *streams = fmt("stream_ids=%%5B%lld%%5D", (long long)z.channel);
	EXPECT_ERROR(invite(z.m, unique_email("c"), streams), 400, "BAD_REQUEST",
	             "You do not have permission to subscribe other users to channels.");
	psql_ok("UPDATE channels SET is_default = true WHERE id = %lld", (long long)z.channel);
	EXPECT_SUCCESS(invite(z.m, unique_email("c"), fmt("%s&include_realm_default_subscriptions=true", streams)));
}

/* Invalid addresses: nothing is sent, the taken ones are listed too. */
static void test_invalid_addresses(void)
{
	struct org z = new_org();
	char *good = unique_email("good");
	struct resp *r = invite(z.o, fmt("noatsign.com, %s, %s", good, z.m->email), NULL);
	EXPECT_FAILED(r, "Some emails did not validate, so we didn't send any invitations.",
	              fmt("[[\"noatsign.com\",\"Invalid address.\",false],[\"%s\",\"Already has an account.\",false]]",
	                  z.m->email),
	              false, false);
	CHECK(strcmp(rows(z.o), "") == 0, "nothing is created: %s", rows(z.o));
	CHECK(strcmp(psql_ok("SELECT count(*) FROM mail_outbox WHERE to_address = '%s'", good), "0") == 0, "no mail");
}

/* Every address taken: "We weren't able to invite anyone."; deactivated accounts say so. Some taken: the others are
 * invited and the answer is still an error, with sent_invitations. */
static void test_existing_accounts(void)
{
	struct org z = new_org();
	deactivate_user(z.m2);
	EXPECT_FAILED(invite(z.o, fmt("%s\n%s", z.m->email, z.m2->email), NULL), "We weren't able to invite anyone.",
	              fmt("[[\"%s\",\"Already has an account.\",false],[\"%s\",\"Account has been deactivated.\",true]]",
	                  z.m->email, z.m2->email),
	              false, false);
	EXPECT_FAILED(invite(z.o, "Notification-Bot@zulip.com", NULL), "We weren't able to invite anyone.",
	              "[[\"Notification-Bot@zulip.com\",\"Reserved for system bots.\",false]]", false, false);
	char *fresh = unique_email("fresh");
	struct queue *qd = queue_register(z.d, NULL);
	EXPECT_FAILED(invite(z.o, fmt("%s, %s", z.m->email, fresh), NULL),
	              "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did "
	              "send invitations to everyone else!",
	              fmt("[[\"%s\",\"Already has an account.\",false]]", z.m->email), true, false);
	CHECK(strcmp(rows(z.o), fmt("%s|pending", fresh)) == 0, "the other one is invited: %s", rows(z.o));
	EXPECT_EVENTS(qd, "[{\"type\":\"invites_changed\"}]");
	CHECK(wait_for_mail(fresh, 10) != NULL, "no mail for %s", fresh);
}

/* emails_restricted_to_domains: other domains and '+' are refused. */
static void test_allowed_domains(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(api_post(z.o, "/realm/domains", "domain=allowed.example&allow_subdomains=false"));
	psql_ok("UPDATE realms SET emails_restricted_to_domains = true WHERE id = %lld", (long long)z.o->realm_id);
	EXPECT_FAILED(invite(z.o, "a@other.example, b+c@allowed.example, ok@allowed.example", NULL),
	              "Some emails did not validate, so we didn't send any invitations.",
	              "[[\"a@other.example\",\"Outside your domain.\",false],"
	              "[\"b+c@allowed.example\",\"Email addresses containing + are not allowed.\",false]]",
	              false, false);
	EXPECT_SUCCESS(invite(z.o, "ok@allowed.example", NULL));
}

/* The daily limit per organization counts every mail, resends included. */
static void test_daily_limit(void)
{
	struct org z = new_org();
	psql_ok("UPDATE realms SET max_invites = 2 WHERE id = %lld", (long long)z.o->realm_id);
	const char *msg = "To protect users, Zulip limits the number of invitations you can send in one day. Because you "
	                  "have reached the limit, no invitations were sent.";
	EXPECT_FAILED(invite(z.o, fmt("%s,%s,%s", unique_email("l"), unique_email("l"), unique_email("l")), NULL), msg,
	              "[]", false, true);
	int64_t id = invited(z.o, unique_email("l"));
	EXPECT_SUCCESS(api_post(z.o, fmt("/invites/%lld/resend", (long long)id), NULL));
	EXPECT_FAILED(api_post(z.o, fmt("/invites/%lld/resend", (long long)id), NULL), msg, "[]", false, true);
	EXPECT_FAILED(invite(z.o, unique_email("l"), NULL), msg, "[]", false, true);
	psql_ok("UPDATE invites_sent SET sent_at = now() - interval '25 hours' WHERE realm_id = %lld",
	        (long long)z.o->realm_id);
	EXPECT_SUCCESS(invite(z.o, unique_email("l"), NULL));
}

/* An open organization: members who joined less than 3 days ago may not invite; administrators may. */
static void test_new_account(void)
{
	struct org z = new_org();
	psql_ok("UPDATE realms SET invite_required = false WHERE id = %lld", (long long)z.o->realm_id);
	EXPECT_FAILED(invite(z.m, unique_email("n"), NULL),
	              "Your account is too new to send invites for this organization. Ask an organization admin, or a "
	              "more experienced user.",
	              "[]", false, false);
	EXPECT_SUCCESS(invite(z.d, unique_email("n"), NULL));
	psql_ok("UPDATE users SET date_joined = now() - interval '4 days' WHERE id = %lld", (long long)z.m->id);
	EXPECT_SUCCESS(invite(z.m, unique_email("n"), NULL));
}

/* GET /invites: administrators see every invitation, others their own; the fields of both kinds. */
static void test_list(void)
{
	struct org z = new_org();
	char *a = unique_email("la"), *b = unique_email("lb");
	int64_t ia = invited(z.m, a);
	EXPECT_SUCCESS(invite(z.m2, b, "invite_expires_in_minutes=null&notify_referrer_on_join=false&invite_as=600"));
	int64_t ib = atoll(psql_ok("SELECT id FROM invitations WHERE email = '%s'", b));
	struct resp *r = api_post(z.d, "/invites/multiuse", "invite_expires_in_minutes=60");
	EXPECT_SUCCESS(r);
	const char *link = jstr(r->json, "invite_link");
	json_object *all = listed(z.d);
	REQUIRE(json_object_array_length(all) == 3, "admin sees 3: %s", text(all));
	json_object *x = json_object_array_get_idx(all, 0), *y = json_object_array_get_idx(all, 1),
	            *l = json_object_array_get_idx(all, 2);
	EXPECT_KEYS(x, "email", "invited_by_user_id", "invited", "expiry_date", "id", "invited_as", "is_multiuse",
	            "notify_referrer_on_join");
	EXPECT_STR(x, "email", a);
	EXPECT_INT(x, "id", ia);
	EXPECT_INT(x, "invited_by_user_id", z.m->id);
	EXPECT_INT(x, "invited_as", 400);
	EXPECT_BOOL(x, "is_multiuse", false);
	EXPECT_BOOL(x, "notify_referrer_on_join", true);
	int64_t now = (int64_t)time(NULL);
	CHECK(llabs(jint(x, "invited") - now) < 120, "invited %lld", (long long)jint(x, "invited"));
	CHECK(jint(x, "expiry_date") - jint(x, "invited") >= 14400 * 60 - 1 &&
	          jint(x, "expiry_date") - jint(x, "invited") <= 14400 * 60 + 1,
	      "default expiry: %s", text(x));
	EXPECT_INT(y, "id", ib);
	EXPECT_NULL(y, "expiry_date");
	EXPECT_INT(y, "invited_as", 600);
	EXPECT_BOOL(y, "notify_referrer_on_join", false);
	EXPECT_KEYS(l, "invited_by_user_id", "invited", "expiry_date", "id", "link_url", "invited_as", "is_multiuse");
	EXPECT_STR(l, "link_url", link);
	EXPECT_BOOL(l, "is_multiuse", true);
	EXPECT_INT(l, "invited_by_user_id", z.d->id);
	CHECK(jint(l, "expiry_date") - jint(l, "invited") >= 3599 && jint(l, "expiry_date") - jint(l, "invited") <= 3601,
	      "60 minutes: %s", text(l));
	json_object *mine = listed(z.m);
	CHECK(json_object_array_length(mine) == 1 && jint(json_object_array_get_idx(mine, 0), "id") == ia,
	      "a member sees their own: %s", text(mine));
	CHECK(json_object_array_length(listed(z.o)) == 3, "the owner sees all");
	EXPECT_ERROR(api_get(z.g, "/invites"), 400, "BAD_REQUEST", "Not allowed for guest users");
}

/* DELETE /invites/{id}: the referrer or an administrator (owner invitations: an owner); invites_changed to the
 * administrators and the referrer. */
static void test_revoke(void)
{
	struct org z = new_org();
	int64_t id = invited(z.m, unique_email("r"));
	EXPECT_ERROR(api_method("DELETE", z.m2, fmt("/invites/%lld", (long long)id)), 400, "BAD_REQUEST",
	             "Must be an organization administrator");
	EXPECT_ERROR(api_method("DELETE", z.d, "/invites/999999999"), 400, "BAD_REQUEST", "No such invitation");
	struct user *other = new_realm();
	EXPECT_ERROR(api_method("DELETE", other, fmt("/invites/%lld", (long long)id)), 400, "BAD_REQUEST",
	             "No such invitation");
	struct queue *qo = queue_register(z.o, NULL), *qm = queue_register(z.m, NULL), *qm2 = queue_register(z.m2, NULL);
	EXPECT_SUCCESS(api_method("DELETE", z.d, fmt("/invites/%lld", (long long)id)));
	EXPECT_EVENTS(qo, "[{\"type\":\"invites_changed\"}]");
	EXPECT_EVENTS(qm, "[{\"type\":\"invites_changed\"}]");
	EXPECT_NO_EVENTS(qm2);
	CHECK(strcmp(psql_ok("SELECT status FROM invitations WHERE id = %lld", (long long)id), "revoked") == 0, "revoked");
	EXPECT_ERROR(api_method("DELETE", z.d, fmt("/invites/%lld", (long long)id)), 400, "BAD_REQUEST",
	             "No such invitation");
	CHECK(json_object_array_length(listed(z.d)) == 0, "gone from the list");
	/* An owner invitation: administrators may not revoke it; the referrer may revoke their own. */
	char *oe = unique_email("own");
	EXPECT_SUCCESS(invite(z.o, oe, "invite_as=100"));
	int64_t oid = atoll(psql_ok("SELECT id FROM invitations WHERE email = '%s'", oe));
	EXPECT_ERROR(api_method("DELETE", z.d, fmt("/invites/%lld", (long long)oid)), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization owner");
	EXPECT_SUCCESS(api_method("DELETE", z.o, fmt("/invites/%lld", (long long)oid)));
	int64_t mid = invited(z.m, unique_email("self"));
	EXPECT_SUCCESS(api_method("DELETE", z.m, fmt("/invites/%lld", (long long)mid)));
	/* A reusable link is not an email invitation. */
	EXPECT_SUCCESS(api_post(z.o, "/invites/multiuse", NULL));
	char *lid = psql_ok("SELECT max(id) FROM invitations WHERE realm_id = %lld AND is_multiuse",
	                    (long long)z.o->realm_id);
	EXPECT_ERROR(api_method("DELETE", z.o, fmt("/invites/%s", lid)), 400, "BAD_REQUEST", "No such invitation");
}

/* POST /invites/{id}/resend: the same link in a new mail; no event. */
static void test_resend(void)
{
	struct org z = new_org();
	char *e = unique_email("again");
	int64_t id = invited(z.m, e);
	REQUIRE(wait_for_mail(e, 10) != NULL, "first mail");
	struct queue *qd = queue_register(z.d, NULL);
	EXPECT_ERROR(api_post(z.m2, fmt("/invites/%lld/resend", (long long)id), NULL), 400, "BAD_REQUEST",
	             "Must be an organization administrator");
	EXPECT_SUCCESS(api_post(z.d, fmt("/invites/%lld/resend", (long long)id), NULL));
	EXPECT_NO_EVENTS(qd);
	char *key = psql_ok("SELECT confirmation_key FROM invitations WHERE id = %lld", (long long)id);
	char *state = NULL;
	for (int i = 0; i < 100; i++) {
		state = psql_ok("SELECT count(*) FILTER (WHERE sent_at IS NOT NULL), count(*) FILTER (WHERE text_body LIKE"
		                " '%%/join/%s/%%') FROM mail_outbox WHERE to_address = '%s'",
		                key, e);
		if (strcmp(state, "2|2") == 0)
			break;
		nanosleep(&(struct timespec){0, 100000000L}, NULL);
	}
	CHECK(strcmp(state, "2|2") == 0, "two mails with the same link were sent: %s", state);
	EXPECT_ERROR(api_post(z.d, "/invites/999999999/resend", NULL), 400, "BAD_REQUEST", "No such invitation");
}

/* Reusable links: create_multiuse_invite_group (administrators by default), the link, revocation. */
static void test_multiuse(void)
{
	struct org z = new_org();
	EXPECT_ERROR(api_post(z.m, "/invites/multiuse", NULL), 400, "BAD_REQUEST", "Insufficient permission");
	EXPECT_ERROR(api_post(z.g, "/invites/multiuse", NULL), 400, "BAD_REQUEST", "Not allowed for guest users");
	EXPECT_ERROR(api_post(z.d, "/invites/multiuse", "invite_as=100"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization owner");
	EXPECT_ERROR(api_post(z.d, "/invites/multiuse", "stream_ids=%5B999999999%5D"), 400, "BAD_REQUEST",
	             "Invalid channel ID 999999999. No invites were sent.");
	struct queue *qo = queue_register(z.o, NULL), *qm = queue_register(z.m, NULL);
	struct resp *r = api_post(z.d, "/invites/multiuse",
	                          fmt("invite_expires_in_minutes=null&invite_as=300&stream_ids=%s&"
	                              "welcome_message_custom_text=Hello&include_realm_default_subscriptions=true",
	                              url_encode(fmt("[%lld,%lld]", (long long)z.channel, (long long)z.channel))));
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "invite_link");
	EXPECT_EVENTS(qo, "[{\"type\":\"invites_changed\"}]");
	EXPECT_NO_EVENTS(qm);
	char *row = psql_ok("SELECT id, confirmation_key, invited_as, stream_ids, welcome_message_custom_text,"
	                    " include_realm_default_subscriptions, expires_at IS NULL FROM invitations WHERE realm_id = %lld"
	                    " AND is_multiuse",
	                    (long long)z.o->realm_id);
	char *bar = strchr(row, '|');
	REQUIRE(bar != NULL, "row %s", row);
	char *key = keep(strndup(bar + 1, 24));
	CHECK(strcmp(jstr(r->json, "invite_link"), fmt("http://%s.%s/join/%s/", z.o->realm, itest_hostport, key)) == 0,
	      "link %s, key %s", jstr(r->json, "invite_link"), key);
	CHECK(strcmp(bar + 26, fmt("300|{%lld}|Hello|t|t", (long long)z.channel)) == 0, "stored: %s", row);
	int64_t id = atoll(row);
	/* Members may create links once create_multiuse_invite_group allows; their own links only. */
	psql_ok("UPDATE realms SET create_multiuse_invite_group_id = (SELECT id FROM user_groups WHERE realm_id = %lld AND"
	        " name = 'role:members') WHERE id = %lld",
	        (long long)z.o->realm_id, (long long)z.o->realm_id);
	EXPECT_SUCCESS(api_post(z.m, "/invites/multiuse", NULL));
	EXPECT_ERROR(api_method("DELETE", z.m, fmt("/invites/multiuse/%lld", (long long)id)), 400, "BAD_REQUEST",
	             "Must be an organization administrator");
	EXPECT_ERROR(api_method("DELETE", z.d, "/invites/multiuse/999999999"), 400, "BAD_REQUEST", "No such invitation");
	EXPECT_SUCCESS(api_method("DELETE", z.o, fmt("/invites/multiuse/%lld", (long long)id)));
	EXPECT_EVENTS(qm, "[{\"type\":\"invites_changed\"}]"); /* of the member's own link only */
	EXPECT_ERROR(api_method("DELETE", z.o, fmt("/invites/multiuse/%lld", (long long)id)), 400, "BAD_REQUEST",
	             "Invitation has already been revoked");
	json_object *left = listed(z.o);
	CHECK(json_object_array_length(left) == 1 && jint(json_object_array_get_idx(left, 0), "invited_by_user_id") ==
	                                                 z.m->id,
	      "the revoked link is gone: %s", text(left));
}

/* The reaper marks invitations past their time expired; GET /invites stops listing them. */
static void test_expiry_by_reaper(void)
{
	struct org z = new_org();
	int64_t old = invited(z.o, unique_email("old")), never = 0;
	EXPECT_SUCCESS(invite(z.o, unique_email("never"), "invite_expires_in_minutes=null"));
	never = atoll(psql_ok("SELECT max(id) FROM invitations WHERE realm_id = %lld", (long long)z.o->realm_id));
	int64_t fresh = invited(z.o, unique_email("fresh"));
	psql_ok("UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = %lld", (long long)old);
	char *status = NULL;
	for (int i = 0; i < 100; i++) {
		status = psql_ok("SELECT status FROM invitations WHERE id = %lld", (long long)old);
		if (strcmp(status, "expired") == 0)
			break;
		nanosleep(&(struct timespec){0, 100000000L}, NULL);
	}
	CHECK(strcmp(status, "expired") == 0, "the reaper did not expire it: %s", status);
	CHECK(strcmp(psql_ok("SELECT string_agg(status, ',' ORDER BY id) FROM invitations WHERE id IN (%lld, %lld)",
	                     (long long)never, (long long)fresh),
	             "pending,pending") == 0,
	      "the others stay pending");
	json_object *list = listed(z.o);
	CHECK(json_object_array_length(list) == 2 && jint(json_object_array_get_idx(list, 0), "id") == never,
	      "expired ones are not listed: %s", text(list));
}

void register_invites_tests(void)
{
	static const struct itest_case cases[] = {
	    {"send_and_mail", test_send_and_mail},
	    {"checks_in_order", test_checks_in_order},
	    {"channel_permissions", test_channel_permissions},
	    {"invalid_addresses", test_invalid_addresses},
	    {"existing_accounts", test_existing_accounts},
	    {"allowed_domains", test_allowed_domains},
	    {"daily_limit", test_daily_limit},
	    {"new_account", test_new_account},
	    {"list", test_list},
	    {"revoke", test_revoke},
	    {"resend", test_resend},
	    {"multiuse", test_multiuse},
	    {"expiry_by_reaper", test_expiry_by_reaper},
	    {NULL, NULL},
	};
	itest_add_suite("invites", cases);
}
