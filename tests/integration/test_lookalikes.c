/*
 * Names and addresses that look like others (issue 29, items 6c and 11): invisible or reordering characters in a
 * full name (U+202E, U+200B, U+FEFF, U+0085, U+2028) and look-alike addresses (a zero-width space, a Cyrillic
 * letter in the domain) are refused wherever a name or an address enters: PATCH /settings, POST /users,
 * PATCH /users/{id} (full_name, new_email), POST /invites and confabctl. The join page has its own tests in
 * test_join.c. Names that need a joiner (Persian, emoji sequences) are still accepted.
 * Reference: zerver/lib/users.py check_full_name, zerver/lib/string_validation.py, Django's validate_email.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

/* Each in the middle of a name; the last two are Unicode category Cc and Zl. */
static const char *const bad_chars[] = {"\xe2\x80\xae", /* U+202E RIGHT-TO-LEFT OVERRIDE */
                                        "\xe2\x80\x8b", /* U+200B ZERO WIDTH SPACE */
                                        "\xef\xbb\xbf", /* U+FEFF ZERO WIDTH NO-BREAK SPACE */
                                        "\xc2\x85",     /* U+0085 NEXT LINE */
                                        "\xe2\x80\xa8", /* U+2028 LINE SEPARATOR */
                                        "\xe2\x81\xa6", /* U+2066 LEFT-TO-RIGHT ISOLATE */
                                        "\xc2\xad",     /* U+00AD SOFT HYPHEN */
                                        "\xee\x80\x80", /* U+E000 private use */
                                        NULL};

/* Look-alikes of LOCAL@example.com: what goes before and after a local part unique to the run. */
static const char *const bad_addresses[][2] = {{"zw\xe2\x80\x8b", "@example.com"},
                                               {"", "@exa\xe2\x80\x8bmple.com"},
                                               {"", "@ex\xd0\xb0mple.com"},
                                               {"", "@example.com\xef\xbb\xbf"},
                                               {NULL, NULL}};

static struct resp *patch(const struct user *u, const char *path, const char *form)
{
	return http(&(struct request){.method = "PATCH", .path = fmt("/api/v1%s", path), .user = u, .form = form});
}

static const char *bad_name(int i)
{
	return fmt("Ad%smin", bad_chars[i]);
}

static void test_names_refused_by_api(void)
{
	struct user *o = new_user_in("", "owner", (const char *const[]){"--can-create-users", NULL});
	struct user *m = new_user("member");
	for (int i = 0; bad_chars[i]; i++) {
		const char *name = url_encode(bad_name(i));
		EXPECT_ERROR(patch(m, "/settings", fmt("full_name=%s", name)), 400, "BAD_REQUEST",
		             "Invalid characters in name!");
		EXPECT_ERROR(patch(o, fmt("/users/%lld", (long long)m->id), fmt("full_name=%s", name)), 400,
		             "BAD_REQUEST", "Invalid characters in name!");
		EXPECT_ERROR(api_post(o, "/users",
		                      fmt("email=%s&password=Zebra-Lamp-42&full_name=%s",
		                          url_encode(unique_email("badname")), name)),
		             400, "BAD_REQUEST", "Invalid characters in name!");
	}
	struct resp *me = api_get(m, "/users/me");
	CHECK(strncmp(jstr(me->json, "full_name"), "Itest member", 12) == 0, "name unchanged: %s",
	      jstr(me->json, "full_name"));
}

/* Joiners stay: a Persian name with U+200C, an emoji sequence with U+200D. */
static void test_names_with_joiners(void)
{
	struct user *m = new_user("member");
	const char *persian = "\xd9\x85\xdb\x8c\xe2\x80\x8c\xd8\xae\xd9\x88\xd8\xa7\xd9\x87\xd9\x85";
	EXPECT_SUCCESS(patch(m, "/settings", fmt("full_name=%s", url_encode(persian))));
	const char *family = "Fam \xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7";
	EXPECT_SUCCESS(patch(m, "/settings", fmt("full_name=%s", url_encode(family))));
	EXPECT_STR(api_get(m, "/users/me")->json, "full_name", family);
}

static long long users_with(const char *email)
{
	return atoll(psql_ok("SELECT count(*) FROM users WHERE delivery_email = '%s'", email));
}

static void test_names_refused_by_confabctl(void)
{
	for (int i = 0; bad_chars[i]; i++) {
		char *email = unique_email("ctlname");
		json_object *j = ctl(
		    (const char *const[]){"create-user", "--realm", "", "--email", email, "--name", bad_name(i), NULL});
		CHECK(j == NULL, "confabctl create-user accepted the name with character %d", i);
		CHECK(users_with(email) == 0, "no user %s", email);
		const char *sub = fmt("lookalike%d%ld", i, (long)getpid());
		j = ctl((const char *const[]){"create-realm", "--subdomain", sub, "--name", "Org", "--owner-email",
		                              email, "--owner-name", bad_name(i), NULL});
		CHECK(j == NULL, "confabctl create-realm accepted the owner name with character %d", i);
		CHECK(atoll(psql_ok("SELECT count(*) FROM realms WHERE subdomain = '%s'", sub)) == 0, "no realm %s",
		      sub);
	}
}

/* confabctl create-user --bot: a name is stripped, and an active user's name is the reference's "Name is already in
 * use." (check_bot_name_available). */
static void test_bot_name_in_use(void)
{
	struct user *m = new_user("member");
	char *email = unique_email("dupbot");
	char *name = fmt("Taken %s", strchr(email, '-') + 1); /* unique to the run, as the bot's below */
	*strchr(name, '@') = '\0';
	EXPECT_SUCCESS(http(&(struct request){
	    .method = "PATCH", .path = "/api/v1/settings", .user = m, .form = fmt("full_name=%s", url_encode(name))}));
	CHECK(ctl((const char *const[]){"create-user", "--realm", "", "--email", email, "--name", fmt(" %s ", name),
	                                "--bot", NULL}) == NULL,
	      "a bot named as %s", name);
	CHECK(users_with(email) == 0, "no bot %s", email);
	/* The reference compares names case-insensitively (full_name__iexact). */
	char *upper = fmt("%s", name);
	for (char *p = upper; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	CHECK(ctl((const char *const[]){"create-user", "--realm", "", "--email", email, "--name", upper, "--bot", NULL}) ==
	          NULL,
	      "a bot named as %s", upper);
	CHECK(users_with(email) == 0, "no bot %s", email);
	json_object *j = ctl((const char *const[]){"create-user", "--realm", "", "--email", email, "--name",
	                                           fmt(" %s Bot ", name), "--bot", NULL});
	REQUIRE(j != NULL, "a bot of another name");
	CHECK(strcmp(psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)jint(j, "user_id")),
	             fmt("%s Bot", name)) == 0,
	      "the name is stripped");
}

static void test_addresses_refused(void)
{
	struct user *o = new_user_in("", "owner", (const char *const[]){"--can-create-users", NULL});
	struct user *m = new_user("member");
	psql_ok("UPDATE users SET can_change_user_emails = true WHERE id = %lld", (long long)o->id);
	for (int i = 0; bad_addresses[i][0]; i++) {
		const char *local = strtok(unique_email("lookalike"), "@");
		const char *a = fmt("%s%s%s", bad_addresses[i][0], local, bad_addresses[i][1]), *enc = url_encode(a);
		struct resp *r = api_post(o, "/invites", fmt("invitee_emails=%s&stream_ids=%%5B%%5D", enc));
		EXPECT_ERROR(r, 400, "INVITATION_FAILED",
		             "Some emails did not validate, so we didn't send any invitations.");
		json_object *errs = jget(r->json, "errors");
		json_object *e = json_object_is_type(errs, json_type_array) ? json_object_array_get_idx(errs, 0) : NULL;
		CHECK(e && strcmp(json_object_get_string(json_object_array_get_idx(e, 1)), "Invalid address.") == 0,
		      "reason: %s", r->body);
		EXPECT_ERROR(api_post(o, "/users", fmt("email=%s&password=Zebra-Lamp-42&full_name=Look+Alike", enc)),
		             400, "BAD_REQUEST", "Bad name or username");
		EXPECT_ERROR(patch(o, fmt("/users/%lld", (long long)m->id), fmt("new_email=%s", enc)), 400,
		             "BAD_REQUEST", "Invalid new email address.");
		CHECK(ctl((const char *const[]){"create-user", "--realm", "", "--email", a, "--name", "Look Alike",
		                                NULL}) == NULL,
		      "confabctl create-user accepted %s", a);
		CHECK(users_with(a) == 0, "no user has %s", a);
	}
	/* An internationalized domain in its ASCII form is an address like any other. */
	char *idn = fmt("%s@xn--exmple-4nf.com", strtok(unique_email("idn"), "@"));
	EXPECT_SUCCESS(api_post(o, "/invites", fmt("invitee_emails=%s&stream_ids=%%5B%%5D", url_encode(idn))));
}

void register_lookalikes_tests(void)
{
	static const struct itest_case cases[] = {
	    {"names_refused_by_api", test_names_refused_by_api},
	    {"names_with_joiners", test_names_with_joiners},
	    {"names_refused_by_confabctl", test_names_refused_by_confabctl},
	    {"bot_name_in_use", test_bot_name_in_use},
	    {"addresses_refused", test_addresses_refused},
	    {NULL, NULL},
	};
	itest_add_suite("lookalikes", cases);
}
