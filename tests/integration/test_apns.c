/*
 * APNs device tokens: POST and DELETE /users/me/apns_device_token. Reference: zerver/views/push_notifications.py,
 * zerver/lib/push_notifications.py (validate_token), zerver/tests/test_push_notifications.py.
 */
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define APPID "org.zulip.Zulip"

static struct resp *add(const struct user *u, const char *form)
{
	return api_post(u, "/users/me/apns_device_token", form);
}

static struct resp *del(const struct user *u, const char *form)
{
	return http(&(struct request){
	    .method = "DELETE", .path = "/api/v1/users/me/apns_device_token", .user = u, .form = form});
}

/* The number of rows of u's tokens (token NULL: all of them). */
static long rows(const struct user *u, const char *token)
{
	return atol(psql_ok("SELECT count(*) FROM apns_device_tokens WHERE user_id = %lld%s%s%s", (long long)u->id,
	                    token ? " AND token = '" : "", token ? token : "", token ? "'" : ""));
}

static void test_apns_add_and_remove(void)
{
	struct user *a = new_user("member");
	EXPECT_SUCCESS(add(a, "token=abcd1234&appid=" APPID));
	CHECK(rows(a, "abcd1234") == 1, "one row");
	CHECK(strcmp(psql_ok("SELECT ios_app_id FROM apns_device_tokens WHERE user_id = %lld", (long long)a->id),
	             APPID) == 0,
	      "app id stored");
	/* The same token again is the same row (keeping its first app id). */
	EXPECT_SUCCESS(add(a, "token=abcd1234&appid=com.example.other"));
	CHECK(rows(a, NULL) == 1, "still one row");
	EXPECT_SUCCESS(add(a, "token=ffee&appid=" APPID));
	CHECK(rows(a, NULL) == 2, "a second device");
	EXPECT_SUCCESS(del(a, "token=abcd1234"));
	CHECK(rows(a, "abcd1234") == 0 && rows(a, NULL) == 1, "removed one");
	EXPECT_ERROR(del(a, "token=abcd1234"), 400, "BAD_REQUEST", "Token does not exist");
}

/* Tokens are per user: another user's token does not exist for b. */
static void test_apns_per_user(void)
{
	struct user *a = new_user("member"), *b = new_user("member");
	EXPECT_SUCCESS(add(a, "token=0a0b&appid=" APPID));
	EXPECT_SUCCESS(add(b, "token=0a0b&appid=" APPID));
	CHECK(rows(a, NULL) == 1 && rows(b, NULL) == 1, "a row each");
	EXPECT_SUCCESS(del(b, "token=0a0b"));
	EXPECT_ERROR(del(b, "token=0a0b"), 400, "BAD_REQUEST", "Token does not exist");
	CHECK(rows(a, NULL) == 1, "a's token stays");
}

static void test_apns_token_errors(void)
{
	struct user *a = new_user("member");
	EXPECT_ERROR(add(a, "token=&appid=" APPID), 400, "BAD_REQUEST", "Empty or invalid length token");
	EXPECT_ERROR(add(a, fmt("token=%s&appid=" APPID, repeat('a', 4097))), 400, "BAD_REQUEST",
	             "Empty or invalid length token");
	EXPECT_ERROR(del(a, ""), 400, "REQUEST_VARIABLE_MISSING", "Missing 'token' argument");
	EXPECT_ERROR(del(a, "token="), 400, "BAD_REQUEST", "Empty or invalid length token");
	EXPECT_ERROR(del(a, fmt("token=%s", repeat('a', 5000))), 400, "BAD_REQUEST", "Empty or invalid length token");
	/* Hex, as bytes.fromhex reads it: pairs of digits, whitespace only between pairs. */
	EXPECT_ERROR(add(a, "token=apple-tokenbb&appid=" APPID), 400, "BAD_REQUEST", "Invalid APNS token");
	EXPECT_ERROR(add(a, "token=abc&appid=" APPID), 400, "BAD_REQUEST", "Invalid APNS token");
	EXPECT_ERROR(add(a, "token=a+bcd&appid=" APPID), 400, "BAD_REQUEST", "Invalid APNS token");
	EXPECT_ERROR(del(a, "token=xyz1"), 400, "BAD_REQUEST", "Invalid APNS token");
	CHECK(rows(a, NULL) == 0, "nothing stored");
	EXPECT_SUCCESS(add(a, "token=AB+cd&appid=" APPID));
	EXPECT_SUCCESS(add(a, fmt("token=%s&appid=" APPID, repeat('a', 4096))));
	CHECK(rows(a, NULL) == 2, "two tokens");
	/* 4096 characters that do not compress (2 KB of random bytes) are a token too, and can be removed. */
	char *big = keep(calloc(1, 4097));
	for (int i = 0; i < 4096; i++)
		big[i] = "0123456789abcdef"[rand() % 16];
	EXPECT_SUCCESS(add(a, fmt("token=%s&appid=" APPID, big)));
	EXPECT_SUCCESS(add(a, fmt("token=%s&appid=" APPID, big)));
	CHECK(rows(a, NULL) == 3, "three tokens");
	EXPECT_SUCCESS(del(a, fmt("token=%s", big)));
	CHECK(rows(a, NULL) == 2, "two tokens again");
}

static void test_apns_appid_errors(void)
{
	struct user *a = new_user("member");
	struct resp *r = add(a, "token=abcd");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'appid' argument");
	EXPECT_STR(r->json, "var_name", "appid");
	EXPECT_ERROR(add(a, "appid=" APPID), 400, "REQUEST_VARIABLE_MISSING", "Missing 'token' argument");
	EXPECT_ERROR(add(a, fmt("token=abcd&appid=%s", url_encode("'; tables --"))), 400, "BAD_REQUEST",
	             "appid has invalid format");
	EXPECT_ERROR(add(a, "token=abcd&appid="), 400, "BAD_REQUEST", "appid has invalid format");
	EXPECT_ERROR(add(a, "token=abcd&appid=org_zulip"), 400, "BAD_REQUEST", "appid has invalid format");
	CHECK(rows(a, NULL) == 0, "nothing stored");
	EXPECT_SUCCESS(add(a, "token=abcd&appid=com.Example-App.9"));
}

static void test_apns_bots_refused(void)
{
	struct user *t = new_bot();
	EXPECT_ERROR(add(t, "token=abcd&appid=" APPID), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	EXPECT_ERROR(del(t, "token=abcd"), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	/* Before the parameters are read, as the reference's decorator does. */
	EXPECT_ERROR(add(t, ""), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	CHECK(rows(t, NULL) == 0, "nothing stored");
}

void register_apns_tests(void)
{
	static const struct itest_case cases[] = {
	    {"apns_add_and_remove", test_apns_add_and_remove},
	    {"apns_per_user", test_apns_per_user},
	    {"apns_token_errors", test_apns_token_errors},
	    {"apns_appid_errors", test_apns_appid_errors},
	    {"apns_bots_refused", test_apns_bots_refused},
	    {NULL, NULL},
	};
	itest_add_suite("apns", cases);
}
