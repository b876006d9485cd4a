/*
 * The page that accepts an invitation, GET and POST /join/{key}/: the form (escaped values, the invited address or
 * an address field for reusable links, the password rules, the CSRF token bound to the link), the POST refused
 * without the token, the form's errors, the account it creates (role, channels, default channels, groups, the
 * Notification Bot's and Welcome Bot's messages, the events, the invitation used), the pages of expired, revoked,
 * used, unknown and malformed links, reusable links used twice, and the whole path in a real browser: invite by
 * the API, read the mail from the sink, open the link in headless chromium (tests/e2e/join_browser.py), submit the
 * form, then POST /fetch_api_key and GET /users/me as the new member.
 * Reference: Zulip zerver/views/registration.py (accounts_register, check_prereg_key), zerver/forms.py,
 * zerver/actions/create_user.py (process_new_human_user), confirmation/models.py (render_confirmation_key_error:
 * 404 for every link that cannot be used). Every test uses an organization of its own, but the browser test.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "itest.h"

/* A fresh organization: owner o and member m; a public channel and a group of o's. */
struct org {
	struct user *o, *m;
	int64_t channel, group;
};

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.o->realm_id = atoll(psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)z.o->id));
	z.m = new_user_in(z.o->realm, "member", NULL);
	z.channel = create_channel_with(z.o, unique_channel_name("join"), NULL);
	struct resp *r = api_post(z.o, "/user_groups/create",
	                          fmt("name=%s&description=x&members=%s", url_encode(unique_channel_name("grp")),
	                              url_encode(fmt("[%lld]", (long long)z.o->id))));
	EXPECT_SUCCESS(r);
	z.group = jint(r->json, "group_id");
	return z;
}

/* An email invitation of email by u (extra: more form fields); returns its key. */
static char *invite_key(const struct user *u, const char *email, const char *extra)
{
	EXPECT_SUCCESS(
	    api_post(u, "/invites",
	             fmt("invitee_emails=%s&stream_ids=%s%s%s", url_encode(email),
	                 extra && strstr(extra, "stream_ids") ? "" : "%5B%5D", extra ? "&" : "", extra ? extra : "")));
	return psql_ok("SELECT confirmation_key FROM invitations WHERE email = '%s' ORDER BY id DESC LIMIT 1", email);
}

static struct resp *join_get(const char *realm, const char *path)
{
	return http(&(struct request){.path = path, .host = realm_host(realm)});
}

static struct resp *join_post(const char *realm, const char *key, const char *form)
{
	return http(&(struct request){
	    .method = "POST", .path = fmt("/join/%s/", key), .host = realm_host(realm), .form = form});
}

/* The token the server binds to key: HMAC-SHA-256 under the server's secret, in hex. */
static char *expected_token(const char *key)
{
	const char *secret = psql_ok("SELECT secret FROM server_secret");
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, (const unsigned char *)secret, strlen(secret));
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)key, strlen(key));
	crypto_auth_hmacsha256_final(&st, mac);
	char *hex = keep(malloc(65));
	sodium_bin2hex(hex, 65, mac, sizeof(mac));
	return hex;
}

/* The hidden csrf_token field of a form page, as a browser would send it back. */
static char *page_token(const struct resp *r)
{
	const char *marker = "name=\"csrf_token\" value=\"";
	const char *p = r->body ? strstr(r->body, marker) : NULL;
	REQUIRE(p != NULL, "no csrf_token field in the answer to %s", r->what);
	p += strlen(marker);
	return keep(strndup(p, strcspn(p, "\"")));
}

/* An HTML page with status and text in it, never the JSON envelope, never a cookie. */
static void expect_page(const struct resp *r, long status, const char *text, int line)
{
	expect_status(r, status, __FILE__, line);
	const char *type = resp_header(r, "Content-Type");
	CHECK(type && strcmp(type, "text/html; charset=utf-8") == 0, "line %d: Content-Type %s", line, type);
	CHECK(resp_header(r, "Set-Cookie") == NULL, "line %d: a cookie was set", line);
	CHECK(r->body && strstr(r->body, text) != NULL, "line %d: \"%s\" not in %s", line, text,
	      r->body ? r->body : "(none)");
	CHECK(r->json == NULL, "line %d: a JSON body", line);
}
#define EXPECT_PAGE(r, status, text) expect_page((r), (status), (text), __LINE__)

/* The form fields full_name and password (URL-encoded) with the page's token. */
static char *form(const char *token, const char *name, const char *password)
{
	return fmt("csrf_token=%s&full_name=%s&password=%s", token, url_encode(name), url_encode(password));
}

static long long users_with(const char *email)
{
	return atoll(psql_ok("SELECT count(*) FROM users WHERE lower(delivery_email) = lower('%s')", email));
}

/* POST /fetch_api_key with the password, then the member as a struct user of the harness. */
static struct user *login(const char *realm, const char *email, const char *password)
{
	struct resp *r =
	    http(&(struct request){.method = "POST",
	                           .path = "/api/v1/fetch_api_key",
	                           .host = realm_host(realm),
	                           .form = fmt("username=%s&password=%s", url_encode(email), url_encode(password))});
	EXPECT_SUCCESS(r);
	REQUIRE(jstr(r->json, "api_key") != NULL, "no api_key: %s", r->body);
	struct user *u = keep(calloc(1, sizeof(*u)));
	u->id = jint(r->json, "user_id");
	u->email = keep(strdup(email));
	u->key = keep(strdup(jstr(r->json, "api_key")));
	u->realm = keep(strdup(realm));
	return u;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The channel ids of u's subscriptions, ascending: "1,2". */
static const char *subscribed(const struct user *u)
{
	struct resp *r = api_get(u, "/users/me/subscriptions");
	EXPECT_SUCCESS(r);
	json_object *subs = jget(r->json, "subscriptions");
	size_t n = subs ? json_object_array_length(subs) : 0;
	int64_t ids[64];
	REQUIRE(n <= 64, "%zu subscriptions", n);
	for (size_t i = 0; i < n; i++)
		ids[i] = jint(json_object_array_get_idx(subs, i), "stream_id");
	qsort(ids, n, sizeof(ids[0]), cmp_i64);
	const char *out = "";
	for (size_t i = 0; i < n; i++)
		out = fmt("%s%s%lld", out, i ? "," : "", (long long)ids[i]);
	return out;
}

/* Whether user id is a member of group gid, as GET /user_groups shows it to asker. */
static bool in_group(const struct user *asker, int64_t gid, int64_t id)
{
	struct resp *r = api_get(asker, "/user_groups");
	EXPECT_SUCCESS(r);
	json_object *groups = jget(r->json, "user_groups");
	for (size_t i = 0; groups && i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);
		json_object *members = jint(g, "id") == gid ? jget(g, "members") : NULL;
		for (size_t j = 0; members && j < json_object_array_length(members); j++)
			if (json_object_get_int64(json_object_array_get_idx(members, j)) == id)
				return true;
	}
	return false;
}

/* ---- the form ------------------------------------------------------------------------------------------------ */

/* The page: the organization's name and the address escaped, the rules, the token, with and without the slash. */
static void test_page(void)
{
	struct org z = new_org();
	psql_ok("UPDATE realms SET name = 'Acme <b>&\"Co''s' WHERE id = %lld", (long long)z.o->realm_id);
	char *email = unique_email("page");
	char *key = invite_key(z.o, email, NULL);
	struct resp *r = join_get(z.o->realm, fmt("/join/%s/", key));
	EXPECT_PAGE(r, 200, "<title>Join Acme &lt;b&gt;&amp;&quot;Co&#39;s</title>");
	CHECK(strstr(r->body, "<b>&") == NULL, "the name is escaped: %s", r->body);
	CHECK(strstr(r->body, fmt("<strong id=\"invited-email\">%s</strong>", email)) != NULL, "the address: %s",
	      r->body);
	CHECK(strstr(r->body, "Password should be at least 6 characters long.") &&
	          strstr(r->body, "The password is too weak.") && strstr(r->body, "minlength=\"6\""),
	      "the password rules: %s", r->body);
	CHECK(strstr(r->body, "id=\"email\"") == NULL, "no address field for an email invitation");
	CHECK(strcmp(page_token(r), expected_token(key)) == 0, "token %s, want the HMAC of the key", page_token(r));
	EXPECT_HEADER(r, "Cache-Control", "no-store");
	EXPECT_HEADER(r, "Referrer-Policy", "no-referrer");
	CHECK(strstr(r->body, "{{") == NULL && strstr(r->body, "double-braced") == NULL, "template syntax left: %s",
	      r->body);
	struct resp *bare = join_get(z.o->realm, fmt("/join/%s", key));
	EXPECT_PAGE(bare, 200, "Join Acme &lt;b&gt;");
	CHECK(strcmp(bare->body, r->body) == 0, "the same page without the slash");
}

/* The POST is refused without the link's token, or with another link's; nothing is created. */
static void test_csrf(void)
{
	struct org z = new_org();
	char *email = unique_email("csrf"), *other = unique_email("csrf2");
	char *key = invite_key(z.o, email, NULL), *key2 = invite_key(z.o, other, NULL);
	const char *msg = "CSRF verification failed. Request aborted.";
	EXPECT_PAGE(join_post(z.o->realm, key, "full_name=Mallory+Example&password=Zebra-Lamp-42"), 403, msg);
	EXPECT_PAGE(join_post(z.o->realm, key, form("", "Mallory Example", "Zebra-Lamp-42")), 403, msg);
	EXPECT_PAGE(join_post(z.o->realm, key, form(expected_token(key2), "Mallory Example", "Zebra-Lamp-42")), 403,
	            msg);
	EXPECT_PAGE(join_post(z.o->realm, key, form(repeat('a', 64), "Mallory Example", "Zebra-Lamp-42")), 403, msg);
	CHECK(users_with(email) == 0, "no account was created");
	CHECK(strcmp(psql_ok("SELECT status FROM invitations WHERE confirmation_key = '%s'", key), "pending") == 0,
	      "the invitation stays pending");
}

/* The form's errors: the page again with the message and the name sent (escaped); nothing is created. */
static void test_form_errors(void)
{
	struct org z = new_org();
	char *email = unique_email("weak");
	char *key = invite_key(z.o, email, NULL);
	char *token = expected_token(key);
	struct resp *r = join_post(z.o->realm, key, form(token, "Ann & <Lee", "password"));
	EXPECT_PAGE(r, 200, "<p id=\"form-error\" class=\"error\" role=\"alert\">The password is too weak.</p>");
	CHECK(strstr(r->body, "value=\"Ann &amp; &lt;Lee\"") != NULL, "the name is kept, escaped: %s", r->body);
	CHECK(strcmp(page_token(r), token) == 0, "the form keeps its token");
	EXPECT_PAGE(join_post(z.o->realm, key, form(token, "Ann Lee", "abc12")), 200, "The password is too weak.");
	EXPECT_PAGE(join_post(z.o->realm, key, form(token, "Ann Lee", "aaaaaaaaaa")), 200, "The password is too weak.");
	EXPECT_PAGE(join_post(z.o->realm, key, form(token, "A", "Zebra-Lamp-42")), 200, "Name too short!");
	EXPECT_PAGE(join_post(z.o->realm, key, form(token, "  ", "Zebra-Lamp-42")), 200, "Name too short!");
	EXPECT_PAGE(join_post(z.o->realm, key, form(token, "Ann > Lee", "Zebra-Lamp-42")), 200,
	            "Invalid characters in name!");
	EXPECT_PAGE(join_post(z.o->realm, key, form(token, repeat('n', 101), "Zebra-Lamp-42")), 200, "Name too long!");
	static const char *const invisible[] = {"\xe2\x80\xae", "\xe2\x80\x8b", "\xef\xbb\xbf", "\xc2\x85",
	                                        "\xe2\x80\xa8"};
	for (size_t i = 0; i < sizeof(invisible) / sizeof(invisible[0]); i++)
		EXPECT_PAGE(join_post(z.o->realm, key, form(token, fmt("Ann%sLee", invisible[i]), "Zebra-Lamp-42")),
		            200, "Invalid characters in name!");
	CHECK(users_with(email) == 0, "no account was created");
}

/* ---- the account --------------------------------------------------------------------------------------------- */

/* "type:op" of each event, in order, with the new member's id as "NEW" where an event names it. */
static const char *event_kinds(json_object *events)
{
	const char *out = "";
	for (size_t i = 0; events && i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		const char *op = jstr(e, "op");
		out = fmt("%s%s%s%s%s", out, i ? "," : "", jstr(e, "type"), op ? ":" : "", op ? op : "");
	}
	return out;
}

/* The first event of type (and op, unless NULL) whose group_id is group (unless 0). */
static json_object *find_event_of(json_object *events, const char *type, const char *op, int64_t group)
{
	for (size_t i = 0; events && i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		if (strcmp(jstr(e, "type"), type) == 0 &&
		    (op == NULL || (jstr(e, "op") && strcmp(jstr(e, "op"), op) == 0)) &&
		    (group == 0 || jint(e, "group_id") == group))
			return e;
	}
	return NULL;
}

static json_object *find_event(json_object *events, const char *type, const char *op)
{
	return find_event_of(events, type, op, 0);
}

/* The newest message u can read: "sender email|rendered content", or "" when there is none. */
static const char *newest_message(const struct user *u)
{
	struct resp *r = api_get(u, "/messages?anchor=newest&num_before=1&num_after=0&apply_markdown=true");
	EXPECT_SUCCESS(r);
	json_object *msgs = jget(r->json, "messages");
	REQUIRE(msgs != NULL, "messages: %s", r->body);
	if (json_object_array_length(msgs) == 0)
		return "";
	json_object *m = json_object_array_get_idx(msgs, json_object_array_length(msgs) - 1);
	return fmt("%s|%s", jstr(m, "sender_email"), jstr(m, "content"));
}

/* The whole acceptance: role, channels (not the default ones), groups, both bots' messages, the events, used. */
static void test_accept(void)
{
	struct org z = new_org();
	int64_t def = create_channel_with(z.o, unique_channel_name("default"), NULL);
	EXPECT_SUCCESS(api_post(z.o, "/default_streams", fmt("stream_id=%lld", (long long)def)));
	char *email = unique_email("accept");
	char *key =
	    invite_key(z.o, email,
	               fmt("invite_as=300&stream_ids=%s&group_ids=%s", url_encode(fmt("[%lld]", (long long)z.channel)),
	                   url_encode(fmt("[%lld]", (long long)z.group))));
	struct queue *qo = queue_register(z.o, NULL), *qm = queue_register(z.m, NULL);
	struct resp *r = join_post(z.o->realm, key, form(expected_token(key), "Grace Hopper", "Cobol-Compiler-59"));
	EXPECT_PAGE(r, 200, "Your account is ready");
	CHECK(strstr(r->body, fmt("<dd id=\"server-url\">http://%s.%s</dd>", z.o->realm, itest_hostport)) &&
	          strstr(r->body, fmt("<dd id=\"login-email\">%s</dd>", email)),
	      "the server URL and the address to log in with: %s", r->body);
	struct user *u = login(z.o->realm, email, "Cobol-Compiler-59");
	struct resp *me = api_get(u, "/users/me");
	EXPECT_SUCCESS(me);
	EXPECT_INT(me->json, "role", 300);
	EXPECT_STR(me->json, "full_name", "Grace Hopper");
	EXPECT_STR(me->json, "delivery_email", email);
	CHECK(strcmp(subscribed(u), fmt("%lld", (long long)z.channel)) == 0, "the invited channel only: %s",
	      subscribed(u));
	CHECK(in_group(z.o, z.group, u->id), "in the invited group");
	CHECK(strcmp(psql_ok("SELECT status || '|' || used_by_user_id || '|' || (used_at IS NOT NULL) FROM invitations"
	                     " WHERE confirmation_key = '%s'",
	                     key),
	             fmt("used|%lld|true", (long long)u->id)) == 0,
	      "the invitation is used");
	const char *notice = newest_message(z.o);
	CHECK(strcmp(notice,
	             fmt("notification-bot@zulip.com|<p><span class=\"user-mention silent\" data-user-id=\"%lld\">"
	                 "Grace Hopper</span> accepted your invitation to join Zulip!</p>",
	                 (long long)u->id)) == 0,
	      "the referrer's notice: %s", notice);
	const char *welcome = newest_message(u);
	CHECK(strncmp(welcome, "welcome-bot@zulip.com|", 22) == 0 && strstr(welcome, "Welcome to"), "welcome: %s",
	      welcome);
	json_object *events = queue_drain(qo);
	const char *kinds = event_kinds(events);
	json_object *add = find_event(events, "realm_user", "add");
	CHECK(add && jint(jget(add, "person"), "user_id") == u->id && jint(jget(add, "person"), "role") == 300,
	      "realm_user add: %s", jtext(events));
	json_object *members = find_event_of(events, "user_group", "add_members", z.group);
	CHECK(members && strcmp(jtext(jget(members, "user_ids")), fmt("[%lld]", (long long)u->id)) == 0,
	      "add_members of the group: %s", kinds);
	json_object *peer = find_event(events, "subscription", "peer_add");
	CHECK(peer && strcmp(jtext(jget(peer, "stream_ids")), fmt("[%lld]", (long long)z.channel)) == 0 &&
	          strcmp(jtext(jget(peer, "user_ids")), fmt("[%lld]", (long long)u->id)) == 0,
	      "peer_add: %s", kinds);
	CHECK(find_event(events, "message", NULL) && find_event(events, "invites_changed", NULL),
	      "the notice and invites_changed to the referrer: %s", kinds);
	json_object *mevents = queue_drain(qm);
	CHECK(find_event(mevents, "realm_user", "add") && find_event(mevents, "subscription", "peer_add") &&
	          !find_event(mevents, "invites_changed", NULL) && !find_event(mevents, "message", NULL),
	      "a member sees the new member and the peer: %s", event_kinds(mevents));
}

/* include_realm_default_subscriptions, notify_referrer_on_join false, welcome_message_custom_text. */
static void test_defaults_and_custom_text(void)
{
	struct org z = new_org();
	int64_t def = create_channel_with(z.o, unique_channel_name("default"), NULL);
	EXPECT_SUCCESS(api_post(z.o, "/default_streams", fmt("stream_id=%lld", (long long)def)));
	const char *before = newest_message(z.o);
	char *email = unique_email("custom");
	char *key =
	    invite_key(z.o, email,
	               fmt("stream_ids=%s&include_realm_default_subscriptions=true&notify_referrer_on_join=false&"
	                   "welcome_message_custom_text=%s",
	                   url_encode(fmt("[%lld]", (long long)z.channel)), url_encode("Glad you are **here**")));
	EXPECT_PAGE(join_post(z.o->realm, key, form(expected_token(key), "Ada Lovelace", "Analytical-Engine-1843")),
	            200, "Your account is ready");
	struct user *u = login(z.o->realm, email, "Analytical-Engine-1843");
	CHECK(strcmp(subscribed(u), fmt("%lld,%lld", (long long)z.channel, (long long)def)) == 0,
	      "the invited and the default channels: %s", subscribed(u));
	CHECK(strcmp(newest_message(z.o), before) == 0, "no notice to the referrer: %s", newest_message(z.o));
	CHECK(strcmp(newest_message(u), "welcome-bot@zulip.com|<p>Glad you are <strong>here</strong></p>") == 0,
	      "the custom text last: %s", newest_message(u));
	CHECK(strcmp(psql_ok("SELECT count(*) FROM messages m JOIN users s ON s.id = m.sender_id"
	                     " WHERE s.delivery_email = 'welcome-bot@zulip.com' AND s.realm_id = %lld",
	                     (long long)z.o->realm_id),
	             "2") == 0,
	      "the greeting and the custom text");
}

/* ---- links that cannot be used ------------------------------------------------------------------------------- */

/* Expired (by time, or marked by the reaper), revoked, used, unknown and malformed links: a page saying so, 404 as
 * the reference's confirmation errors, for GET and POST alike; nothing is created. */
static void test_link_states(void)
{
	struct org z = new_org();
	char *late = unique_email("late"), *gone = unique_email("gone"), *done = unique_email("done");
	char *k_late = invite_key(z.o, late, NULL), *k_gone = invite_key(z.o, gone, NULL),
	     *k_done = invite_key(z.o, done, NULL);
	const char *expired = "This invitation link has expired.";
	psql_ok("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE confirmation_key = '%s'",
	        k_late);
	EXPECT_PAGE(join_get(z.o->realm, fmt("/join/%s/", k_late)), 404, expired);
	EXPECT_PAGE(join_post(z.o->realm, k_late, form(expected_token(k_late), "Late Comer", "Zebra-Lamp-42")), 404,
	            expired);
	psql_ok("UPDATE invitations SET status = 'expired' WHERE confirmation_key = '%s'", k_late);
	EXPECT_PAGE(join_get(z.o->realm, fmt("/join/%s", k_late)), 404, "<h1>Invitation link expired</h1>");
	int64_t id = atoll(psql_ok("SELECT id FROM invitations WHERE confirmation_key = '%s'", k_gone));
	EXPECT_SUCCESS(api_method("DELETE", z.o, fmt("/invites/%lld", (long long)id)));
	EXPECT_PAGE(join_get(z.o->realm, fmt("/join/%s/", k_gone)), 404, "This invitation has been revoked");
	EXPECT_PAGE(join_post(z.o->realm, k_gone, form(expected_token(k_gone), "Gone Away", "Zebra-Lamp-42")), 404,
	            "This invitation has been revoked");
	EXPECT_PAGE(join_post(z.o->realm, k_done, form(expected_token(k_done), "Done Once", "Zebra-Lamp-42")), 200,
	            "Your account is ready");
	const char *used = "This invitation has already been used to create an account.";
	EXPECT_PAGE(join_get(z.o->realm, fmt("/join/%s/", k_done)), 404, used);
	EXPECT_PAGE(join_post(z.o->realm, k_done, form(expected_token(k_done), "Done Twice", "Zebra-Lamp-42")), 404,
	            used);
	CHECK(users_with(late) == 0 && users_with(gone) == 0 && users_with(done) == 1, "only the valid link made one");
	const char *unknown = "This invitation link is not valid.";
	EXPECT_PAGE(join_get(z.o->realm, "/join/abcdefghijklmnopqrstuvwx/"), 404, unknown);
	EXPECT_PAGE(join_post(z.o->realm, "abcdefghijklmnopqrstuvwx", "full_name=X+Y&password=Zebra-Lamp-42"), 404,
	            unknown);
	/* Malformed keys never reach a query: quotes, the wrong length, upper case, a huge one. */
	EXPECT_PAGE(join_get(z.o->realm, "/join/abc'%3B%20DROP%20TABLE%20users%3B--/"), 404, unknown);
	EXPECT_PAGE(join_get(z.o->realm, fmt("/join/%s/", repeat('a', 4000))), 404, unknown);
	char *upper = fmt("%s", k_done);
	for (char *p = upper; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	EXPECT_PAGE(join_get(z.o->realm, fmt("/join/%s/", upper)), 404, unknown);
	/* A key belongs to its organization: another host does not know it. */
	struct org y = new_org();
	char *k_y = invite_key(y.o, unique_email("elsewhere"), NULL);
	EXPECT_PAGE(join_get(z.o->realm, fmt("/join/%s/", k_y)), 404, unknown);
	EXPECT_PAGE(join_get(y.o->realm, fmt("/join/%s/", k_y)), 200, "Sign up");
	struct resp *bad =
	    http(&(struct request){.method = "PUT", .path = fmt("/join/%s/", k_y), .host = realm_host(y.o->realm)});
	EXPECT_STATUS(bad, 405);
}

/* ---- reusable links ------------------------------------------------------------------------------------------ */

/* A reusable link of z's owner (extra: more form fields); returns its key. */
static char *multiuse_key(const struct org *z, const char *extra)
{
	struct resp *r = api_post(z->o, "/invites/multiuse", extra ? extra : "");
	EXPECT_SUCCESS(r);
	const char *link = jstr(r->json, "invite_link");
	REQUIRE(link && strstr(link, "/join/"), "link %s", r->body);
	return keep(strndup(strstr(link, "/join/") + 6, 24));
}

/* The address form of a reusable link, posted with the link's token. */
static struct resp *ask(const struct org *z, const char *key, const char *email)
{
	return join_post(z->o->realm, key, fmt("csrf_token=%s&email=%s", expected_token(key), url_encode(email)));
}

/* The key of the newest confirmation mail to email ("Activate your Zulip account"), waiting for the mailer. */
static char *confirmation_key(const char *email)
{
	for (int i = 0; i < 200; i++) {
		char *mail = wait_for_mail(email, 20);
		REQUIRE(mail != NULL, "no mail for %s", email);
		const char *subject = mail_header(mail, "Subject");
		if (subject == NULL || strcmp(subject, "Activate your Zulip account") != 0) {
			nanosleep(&(struct timespec){0, 100000000L}, NULL); /* the invitation mail came first */
			continue;
		}
		char *text = mail_part(mail, "text/plain");
		const char *link = text ? strstr(text, "/join/") : NULL;
		REQUIRE(link != NULL, "no link in %s", mail);
		CHECK(strstr(text, email) != NULL, "the mail names the address: %s", text);
		return keep(strndup(link + 6, 24));
	}
	REQUIRE(false, "no confirmation mail for %s", email);
	return NULL;
}

static int64_t pending_invites_for(const struct user *asker, const char *email, int64_t *invited_as)
{
	struct resp *r = api_get(asker, "/invites");
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "invites");
	int64_t n = 0;
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *inv = json_object_array_get_idx(list, i);
		if (jstr(inv, "email") && strcmp(jstr(inv, "email"), email) == 0) {
			n++;
			*invited_as = jint(inv, "invited_as");
		}
	}
	return n;
}

/* A reusable link asks for the address alone, checks it (validity, look-alikes, allowed domains, existing accounts),
 * and makes no account: it mails the address a one-time link of its own, which leads to the usual form. */
static void test_reusable(void)
{
	struct org z = new_org();
	char *key = multiuse_key(&z, fmt("stream_ids=%s&group_ids=%s", url_encode(fmt("[%lld]", (long long)z.channel)),
	                                 url_encode(fmt("[%lld]", (long long)z.group))));
	struct resp *page = join_get(z.o->realm, fmt("/join/%s/", key));
	EXPECT_PAGE(page, 200, "<input id=\"email\" name=\"email\" type=\"email\"");
	CHECK(strstr(page->body, "invited-email") == NULL, "no invited address on a reusable link");
	CHECK(strstr(page->body, "id=\"password\"") == NULL && strstr(page->body, "id=\"full_name\"") == NULL,
	      "no name or password before the address is confirmed");
	CHECK(strcmp(page_token(page), expected_token(key)) == 0, "the token of the link");
	EXPECT_PAGE(join_post(z.o->realm, key, form(expected_token(key), "No Address", "Zebra-Lamp-42")), 200,
	            "Enter a valid email address.");
	EXPECT_PAGE(ask(&z, key, "not-an-address"), 200, "Enter a valid email address.");
	char *a = unique_email("reuse"), *b = unique_email("reuse");
	/* The old form's fields change nothing: no account until the mail's link is followed. */
	struct resp *sent = join_post(
	    z.o->realm, key,
	    fmt("%s&email=%s", form(expected_token(key), "First One", "First-Pass-111"), url_encode(fmt(" %s ", a))));
	EXPECT_PAGE(sent, 200, fmt("<strong id=\"sent-email\">%s</strong>", a));
	EXPECT_PAGE(sent, 200, "<h1>Check your email</h1>");
	CHECK(users_with(a) == 0, "no account before the address is confirmed");
	char *ka = confirmation_key(a);
	CHECK(strcmp(ka, key) != 0, "a key of its own");
	struct resp *formp = join_get(z.o->realm, fmt("/join/%s/", ka));
	EXPECT_PAGE(formp, 200, fmt("<strong id=\"invited-email\">%s</strong>", a));
	CHECK(strstr(formp->body, "id=\"email\"") == NULL, "the address is the confirmed one");
	EXPECT_PAGE(join_post(z.o->realm, ka, form(page_token(formp), "First One", "First-Pass-111")), 200,
	            fmt("<dd id=\"login-email\">%s</dd>", a));
	EXPECT_PAGE(join_post(z.o->realm, ka, form(expected_token(ka), "Again One", "First-Pass-111")), 404,
	            "This invitation has already been used");
	EXPECT_PAGE(ask(&z, key, b), 200, "Check your email");
	char *kb = confirmation_key(b);
	EXPECT_PAGE(join_post(z.o->realm, kb, form(expected_token(kb), "Second One", "Second-Pass-222")), 200,
	            "Your account is ready");
	EXPECT_PAGE(ask(&z, key, a), 200, fmt("Email &#39;%s&#39; already in use", a));
	CHECK(strcmp(psql_ok("SELECT status FROM invitations WHERE confirmation_key = '%s'", key), "pending") == 0,
	      "the link stays pending");
	struct user *ua = login(z.o->realm, a, "First-Pass-111"), *ub = login(z.o->realm, b, "Second-Pass-222");
	CHECK(strcmp(subscribed(ua), fmt("%lld", (long long)z.channel)) == 0 &&
	          strcmp(subscribed(ub), fmt("%lld", (long long)z.channel)) == 0,
	      "both in the channel");
	CHECK(in_group(z.o, z.group, ua->id) && in_group(z.o, z.group, ub->id), "both in the group");
	EXPECT_INT(api_get(ub, "/users/me")->json, "role", 400);
	struct resp *list = api_get(z.o, "/invites");
	CHECK(json_object_array_length(jget(list->json, "invites")) == 1, "only the link is listed: %s", list->body);
}

/* Allowed domains and look-alike addresses on a reusable link's form. */
static void test_reusable_addresses(void)
{
	struct org z = new_org();
	char *key = multiuse_key(&z, NULL);
	EXPECT_PAGE(ask(&z, key, "zw\xe2\x80\x8bsp@example.com"), 200, "Enter a valid email address.");
	EXPECT_PAGE(ask(&z, key, "zwsp@exa\xe2\x80\x8bmple.com"), 200, "Enter a valid email address.");
	EXPECT_PAGE(ask(&z, key, "cyrillic@ex\xd0\xb0mple.com"), 200, "Enter a valid email address.");
	EXPECT_SUCCESS(api_post(z.o, "/realm/domains", "domain=allowed.example&allow_subdomains=false"));
	psql_ok("UPDATE realms SET emails_restricted_to_domains = true WHERE id = %lld", (long long)z.o->realm_id);
	EXPECT_PAGE(
	    ask(&z, key, "x@other.example"), 200,
	    "Your email address, x@other.example, is not in one of the domains that are allowed to register for "
	    "accounts in this organization.");
	EXPECT_PAGE(ask(&z, key, "x+y@allowed.example"), 200, "Email addresses containing + are not allowed.");
	char *in = fmt("%s@allowed.example", strtok(unique_email("in"), "@"));
	EXPECT_PAGE(ask(&z, key, in), 200, "Check your email");
	char *k = confirmation_key(in);
	EXPECT_PAGE(join_post(z.o->realm, k, form(expected_token(k), "In Side", "Zebra-Lamp-42")), 200,
	            "Your account is ready");
	CHECK(users_with(in) == 1 && users_with("x@other.example") == 0, "only the allowed address joined");
	CHECK(atoll(psql_ok("SELECT count(*) FROM invitations WHERE realm_id = %lld", (long long)z.o->realm_id)) == 2,
	      "only the allowed address was sent a link");
}

/* Typing an address with a pending invitation as an administrator changes nothing of it: no account, the
 * invitation still listed as it was; only the address's owner, by the mail's link, decides. */
static void test_reusable_keeps_invitation(void)
{
	struct org z = new_org();
	char *key = multiuse_key(&z, NULL);
	char *victim = unique_email("admin-to-be");
	invite_key(z.o, victim, "invite_as=200");
	/* All the fields the old one-step form took: they make no account now. */
	EXPECT_PAGE(
	    join_post(z.o->realm, key,
	              fmt("%s&email=%s", form(expected_token(key), "Squatter", "Zebra-Lamp-42"), url_encode(victim))),
	    200, "Check your email");
	CHECK(users_with(victim) == 0, "no account for the address");
	int64_t role = 0;
	CHECK(pending_invites_for(z.o, victim, &role) == 1 && role == 200, "the administrator invitation is pending");
	CHECK(strlen(confirmation_key(victim)) == 24, "the address was mailed its link");
	CHECK(pending_invites_for(z.o, victim, &role) == 1 && role == 200, "still pending after the mail");
}

/* A confirmation follows its link: revoked with it. At most 5 confirmations to an address a day. */
static void test_reusable_confirmation_states(void)
{
	struct org z = new_org();
	char *key = multiuse_key(&z, NULL);
	char *a = unique_email("limit");
	for (int i = 0; i < 5; i++)
		EXPECT_PAGE(ask(&z, key, a), 200, "Check your email");
	EXPECT_PAGE(ask(&z, key, a), 200, "No more confirmation emails can be sent to this address today.");
	CHECK(atoll(psql_ok("SELECT count(*) FROM invitations WHERE lower(email) = '%s'", a)) == 5, "five links");
	char *k = confirmation_key(a);
	int64_t id = atoll(psql_ok("SELECT id FROM invitations WHERE confirmation_key = '%s'", key));
	EXPECT_SUCCESS(api_method("DELETE", z.o, fmt("/invites/multiuse/%lld", (long long)id)));
	EXPECT_PAGE(join_get(z.o->realm, fmt("/join/%s/", k)), 404, "This invitation has been revoked");
	EXPECT_PAGE(join_post(z.o->realm, k, form(expected_token(k), "Too Late", "Zebra-Lamp-42")), 404,
	            "This invitation has been revoked");
	CHECK(users_with(a) == 0, "no account");
	int64_t cid = atoll(psql_ok("SELECT id FROM invitations WHERE confirmation_key = '%s'", k));
	EXPECT_ERROR(api_method("DELETE", z.o, fmt("/invites/%lld", (long long)cid)), 400, "BAD_REQUEST",
	             "No such invitation");
}

/* Confirmations are the link's anonymous visitors' mails: they do not use the organization's daily invitation
 * limit, which stays the administrators' (a visitor typing addresses cannot stop their invitations for a day). */
static void test_reusable_keeps_daily_limit(void)
{
	struct org z = new_org();
	char *key = multiuse_key(&z, NULL);
	psql_ok("UPDATE realms SET max_invites = 1 WHERE id = %lld", (long long)z.o->realm_id);
	for (int i = 0; i < 3; i++)
		EXPECT_PAGE(ask(&z, key, unique_email("visitor")), 200, "Check your email");
	EXPECT_SUCCESS(api_post(z.o, "/invites", fmt("invitee_emails=%s&stream_ids=%%5B%%5D", unique_email("admin"))));
}

/* ---- end to end, in a browser -------------------------------------------------------------------------------- */

/* Where the screenshots go: CONFAB_SCREENSHOT_DIR, else next to the stack's run/ directory (var/screenshots for
 * ./scripts/up and ./scripts/itest, the test's state directory for ./scripts/test). */
static const char *screenshot_dir(void)
{
	const char *dir = getenv("CONFAB_SCREENSHOT_DIR");
	if (dir != NULL && *dir)
		return dir;
	const char *run = getenv("CONFAB_RUN_DIR");
	REQUIRE(run != NULL, "CONFAB_RUN_DIR is not set");
	return fmt("%s/../screenshots", run);
}

/* Runs the browser driver with arguments args (each in single quotes, none containing one); its JSON output, or a
 * fatal failure. */
static json_object *run_driver(const char *args)
{
	const char *driver = getenv("CONFAB_BROWSER_DRIVER");
	REQUIRE(driver != NULL, "CONFAB_BROWSER_DRIVER is not set (scripts/test and scripts/itest set it)");
	char *cmd = fmt("/usr/bin/python3 '%s' %s", driver, args);
	FILE *f = popen(cmd, "r");
	REQUIRE(f != NULL, "popen %s", cmd);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	int rc = pclose(f);
	REQUIRE(rc == 0, "the browser driver failed (%d): %s", rc, buf);
	json_object *out = json_tokener_parse(buf);
	REQUIRE(out != NULL, "driver output: %s", buf);
	return out;
}

static json_object *run_browser(const char *link, const char *name, const char *password, const char *dir)
{
	return run_driver(fmt("'%s' '%s' '%s' '%s'", link, name, password, dir));
}

static bool is_png(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char magic[8] = {0};
	bool ok = f && fread(magic, 1, 8, f) == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0;
	if (f)
		fclose(f);
	return ok;
}

/* Invite by the API, the mail from the sink, the link in headless chromium, the form filled and submitted there,
 * then POST /fetch_api_key and GET /users/me: a member of the invited channel and group. */
static void test_browser(void)
{
	const struct user *o = &itest_owner;
	int64_t channel = create_channel_with(o, unique_channel_name("browser"), NULL);
	struct resp *g = api_post(o, "/user_groups/create",
	                          fmt("name=%s&description=x&members=%s", url_encode(unique_channel_name("bgrp")),
	                              url_encode(fmt("[%lld]", (long long)o->id))));
	EXPECT_SUCCESS(g);
	int64_t group = jint(g->json, "group_id");
	char *email = unique_email("browser");
	EXPECT_SUCCESS(
	    api_post(o, "/invites",
	             fmt("invitee_emails=%s&stream_ids=%s&group_ids=%s", url_encode(email),
	                 url_encode(fmt("[%lld]", (long long)channel)), url_encode(fmt("[%lld]", (long long)group)))));
	char *mail = wait_for_mail(email, 20);
	REQUIRE(mail != NULL, "no invitation mail for %s", email);
	char *text = mail_part(mail, "text/plain");
	const char *start = text ? strstr(text, "<http") : NULL;
	REQUIRE(start != NULL, "no link in %s", mail);
	char *link = keep(strndup(start + 1, strcspn(start + 1, ">")));
	CHECK(strncmp(link, fmt("%s/join/", itest_url), strlen(itest_url) + 6) == 0, "link %s", link);
	const char *dir = screenshot_dir();
	json_object *out = run_browser(link, "Browser Person", "Headless-Chromium-2026", dir);
	json_object *formp = jget(out, "form"), *done = jget(out, "done");
	EXPECT_INT(formp, "status", 200);
	EXPECT_STR(formp, "invited_email", email);
	EXPECT_BOOL(formp, "has_form", true);
	EXPECT_INT(done, "status", 200);
	EXPECT_STR(done, "heading", "Your account is ready");
	EXPECT_STR(done, "server_url", itest_url);
	EXPECT_STR(done, "login_email", email);
	CHECK(json_object_array_length(jget(done, "cookies")) == 0, "no cookie: %s", jtext(done));
	CHECK(is_png(fmt("%s/join-form.png", dir)) && is_png(fmt("%s/join-done.png", dir)), "screenshots in %s", dir);
	struct user *u = login("", email, "Headless-Chromium-2026");
	struct resp *me = api_get(u, "/users/me");
	EXPECT_SUCCESS(me);
	EXPECT_STR(me->json, "full_name", "Browser Person");
	EXPECT_STR(me->json, "delivery_email", email);
	EXPECT_INT(me->json, "role", 400);
	CHECK(strcmp(subscribed(u), fmt("%lld", (long long)channel)) == 0, "subscribed to the invited channel: %s",
	      subscribed(u));
	CHECK(in_group(o, group, u->id), "in the invited group");
	printf("\n    screenshots: %s/join-form.png, %s/join-done.png ", dir, dir);
	json_object_put(out);
}

/* A reusable link in headless chromium: the address typed and submitted there, the confirmation mail from the
 * sink, its link opened in the browser, name and password submitted; then the new member logs in. */
static void test_browser_reusable(void)
{
	const struct user *o = &itest_owner;
	struct resp *r = api_post(o, "/invites/multiuse", "");
	EXPECT_SUCCESS(r);
	const char *link = jstr(r->json, "invite_link");
	char *email = unique_email("browser-reuse");
	const char *dir = screenshot_dir();
	json_object *out = run_driver(fmt("--email '%s' '%s' '%s'", email, link, dir));
	json_object *formp = jget(out, "form"), *sent = jget(out, "sent");
	EXPECT_INT(formp, "status", 200);
	EXPECT_BOOL(formp, "has_password", false);
	EXPECT_INT(sent, "status", 200);
	EXPECT_STR(sent, "heading", "Check your email");
	EXPECT_STR(sent, "sent_email", email);
	CHECK(json_object_array_length(jget(sent, "cookies")) == 0, "no cookie: %s", jtext(sent));
	CHECK(users_with(email) == 0, "no account yet");
	json_object_put(out);
	char *mail = wait_for_mail(email, 20);
	REQUIRE(mail != NULL, "no confirmation mail for %s", email);
	const char *subject = mail_header(mail, "Subject");
	CHECK(subject && strcmp(subject, "Activate your Zulip account") == 0, "subject %s", subject);
	char *text = mail_part(mail, "text/plain");
	const char *start = text ? strstr(text, "<http") : NULL;
	REQUIRE(start != NULL, "no link in %s", mail);
	char *confirm = keep(strndup(start + 1, strcspn(start + 1, ">")));
	out = run_browser(confirm, "Reusable Person", "Headless-Chromium-2027", dir);
	EXPECT_STR(jget(out, "form"), "invited_email", email);
	EXPECT_STR(jget(out, "done"), "login_email", email);
	CHECK(is_png(fmt("%s/join-email.png", dir)) && is_png(fmt("%s/join-sent.png", dir)), "screenshots in %s", dir);
	json_object_put(out);
	struct user *u = login("", email, "Headless-Chromium-2027");
	struct resp *me = api_get(u, "/users/me");
	EXPECT_STR(me->json, "full_name", "Reusable Person");
	EXPECT_INT(me->json, "role", 400);
}

void register_join_tests(void)
{
	static const struct itest_case cases[] = {
	    {"page", test_page},
	    {"csrf", test_csrf},
	    {"form_errors", test_form_errors},
	    {"accept", test_accept},
	    {"defaults_and_custom_text", test_defaults_and_custom_text},
	    {"link_states", test_link_states},
	    {"reusable", test_reusable},
	    {"reusable_addresses", test_reusable_addresses},
	    {"reusable_keeps_invitation", test_reusable_keeps_invitation},
	    {"reusable_confirmation_states", test_reusable_confirmation_states},
	    {"reusable_keeps_daily_limit", test_reusable_keeps_daily_limit},
	    {"browser", test_browser},
	    {"browser_reusable", test_browser_reusable},
	    {NULL, NULL},
	};
	itest_add_suite("join", cases);
}
