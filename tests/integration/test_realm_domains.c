/*
 * Allowed e-mail domains: GET, POST, PATCH and DELETE /realm/domains, every "Invalid domain" reason, the
 * realm_domains events, register's realm_domains, PATCH /realm emails_restricted_to_domains, and POST /users in a
 * restricted organization.
 * Reference: Zulip zerver/views/realm_domains.py, zerver/lib/domains.py (validate_domain),
 * zerver/actions/realm_domains.py, zerver/lib/email_validation.py (get_realm_email_validator),
 * zerver/views/users.py (create_user_backend), zerver/views/realm.py (update_realm),
 * zerver/tests/test_realm_domains.py; shapes from shared/reference/zulip-openapi.yaml (RealmDomain, the
 * realm_domains events, register's realm_domains). Every test uses an organization of its own.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static const char *strong_password = "Tq8#vLm2Zr9x!Kp4";

/* A fresh organization: owner o (who may create users), administrator d, member m, guest g. */
struct org {
	struct user *o, *d, *m, *g;
};

static struct org new_org(void)
{
	struct org z;
	struct user *first = new_realm();
	z.o = new_user_in(first->realm, "owner", (const char *const[]){"--can-create-users", NULL});
	z.d = new_user_in(first->realm, "admin", (const char *const[]){"--can-create-users", NULL});
	z.m = new_user_in(first->realm, "member", NULL);
	z.g = new_user_in(first->realm, "guest", NULL);
	return z;
}

static const char *text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static struct resp *add(const struct user *u, const char *domain, bool allow_subdomains)
{
	return api_post(u, "/realm/domains",
	                fmt("domain=%s&allow_subdomains=%s", url_encode(domain), allow_subdomains ? "true" : "false"));
}

static struct resp *change(const struct user *u, const char *domain, const char *form)
{
	return http(&(struct request){
	    .method = "PATCH", .path = fmt("/api/v1/realm/domains/%s", url_encode(domain)), .user = u, .form = form});
}

static struct resp *del(const struct user *u, const char *domain)
{
	return api_method("DELETE", u, fmt("/realm/domains/%s", url_encode(domain)));
}

/* GET /realm/domains as u: the list's JSON text. */
static const char *listed(const struct user *u)
{
	struct resp *r = api_get(u, "/realm/domains");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg", "domains");
	return text(jget(r->json, "domains"));
}

/* POST /register's realm_domains as u. */
static const char *registered(const struct user *u)
{
	struct resp *r = api_post(u, "/register", fmt("fetch_event_types=%s", url_encode("[\"realm_domains\"]")));
	EXPECT_SUCCESS(r);
	return text(jget(r->json, "realm_domains"));
}

/* register's realm_emails_restricted_to_domains as u: 0, 1 or -1. */
static int restricted(const struct user *u)
{
	struct resp *r = api_post(u, "/register", fmt("fetch_event_types=%s", url_encode("[\"realm\"]")));
	EXPECT_SUCCESS(r);
	return jbool(r->json, "realm_emails_restricted_to_domains");
}

static struct resp *set_restricted(const struct user *u, bool on)
{
	return http(&(struct request){.method = "PATCH",
	                              .path = "/api/v1/realm",
	                              .user = u,
	                              .form = fmt("emails_restricted_to_domains=%s", on ? "true" : "false")});
}

static struct queue *reg(const struct user *u)
{
	return queue_register(u, fmt("event_types=%s", url_encode("[\"realm_domains\",\"realm\"]")));
}

/* The id new_domain gave, after checking the body {new_domain: [id, domain]}. */
static int64_t expect_new_domain_at(const struct resp *r, const char *domain, const char *file, int line)
{
	json_object *pair = jget(r->json, "new_domain");
	bool ok = r->status == 200 && json_object_is_type(pair, json_type_array) &&
	          json_object_array_length(pair) == 2 &&
	          json_object_is_type(json_object_array_get_idx(pair, 0), json_type_int) &&
	          strcmp(json_object_get_string(json_object_array_get_idx(pair, 1)), domain) == 0;
	itest_check(ok, true, file, line, "expected new_domain [id, \"%s\"], got %ld %s", domain, r->status, r->body);
	expect_keys(r->json, (const char *const[]){"result", "msg", "new_domain", NULL}, file, line);
	return json_object_get_int64(json_object_array_get_idx(pair, 0));
}
#define EXPECT_NEW_DOMAIN(r, domain) expect_new_domain_at((r), (domain), __FILE__, __LINE__)

static const char *add_event(const char *domain, bool allow)
{
	return fmt("{\"type\":\"realm_domains\",\"op\":\"add\",\"realm_domain\":{\"domain\":\"%s\",\"allow_subdomains\":%s}}",
	           domain, allow ? "true" : "false");
}

/* ---- the list and register ---------------------------------------------------------------------------------- */

static void test_list_and_register(void)
{
	struct org z = new_org();
	CHECK(strcmp(listed(z.m), "[]") == 0, "a new organization has no domains");
	CHECK(strcmp(registered(z.m), "[]") == 0, "register: no domains");
	EXPECT_NEW_DOMAIN(add(z.o, "zulip.org", false), "zulip.org");
	EXPECT_NEW_DOMAIN(add(z.o, "acme.test", true), "acme.test");
	const char *want = "[{\"domain\":\"zulip.org\",\"allow_subdomains\":false},"
	                   "{\"domain\":\"acme.test\",\"allow_subdomains\":true}]";
	/* Everyone may read the list, guests too. */
	const struct user *readers[] = {z.o, z.d, z.m, z.g};
	for (size_t i = 0; i < 4; i++) {
		const char *got = listed(readers[i]);
		CHECK(strcmp(got, want) == 0, "GET /realm/domains as reader %zu: %s", i, got);
		got = registered(readers[i]);
		CHECK(strcmp(got, want) == 0, "register's realm_domains as reader %zu: %s", i, got);
	}
	/* Another organization's domains are not listed. */
	struct user *other = new_realm();
	CHECK(strcmp(listed(other), "[]") == 0, "another organization: no domains");
}

/* ---- owners only -------------------------------------------------------------------------------------------- */

static void test_owners_only(void)
{
	struct org z = new_org();
	EXPECT_NEW_DOMAIN(add(z.o, "zulip.org", false), "zulip.org");
	struct user *bot = new_user_in(z.o->realm, "member", (const char *const[]){"--bot", NULL});
	const struct user *denied[] = {z.d, z.m, z.g, bot};
	for (size_t i = 0; i < 4; i++) {
		EXPECT_ERROR(add(denied[i], "acme.test", false), 400, "UNAUTHORIZED_PRINCIPAL",
		             "Must be an organization owner");
		EXPECT_ERROR(change(denied[i], "zulip.org", "allow_subdomains=true"), 400, "UNAUTHORIZED_PRINCIPAL",
		             "Must be an organization owner");
		EXPECT_ERROR(del(denied[i], "zulip.org"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
	}
	const char *got = listed(z.m);
	CHECK(strcmp(got, "[{\"domain\":\"zulip.org\",\"allow_subdomains\":false}]") == 0, "nothing changed: %s", got);
}

/* ---- POST --------------------------------------------------------------------------------------------------- */

static void test_add_strips_and_lowercases(void)
{
	struct org z = new_org();
	struct queue *q = reg(z.m);
	int64_t id = EXPECT_NEW_DOMAIN(add(z.o, " \t Zulip.ORG\n ", true), "zulip.org");
	char *stored = psql_ok("SELECT d.id FROM realm_domains d JOIN realms r ON r.id = d.realm_id"
	                       " WHERE d.domain = 'zulip.org' AND r.subdomain = '%s'",
	                       z.o->realm);
	CHECK(strtoll(stored, NULL, 10) == id, "new_domain's id is the row's: %lld vs %s", (long long)id, stored);
	EXPECT_EVENTS(q, fmt("[%s]", add_event("zulip.org", true)));
	/* Python's lowercase of KELVIN SIGN is "k", and its strip() removes Unicode spaces. */
	EXPECT_NEW_DOMAIN(add(z.o, "\xe3\x80\x80" "EXAMPLE.\xe2\x84\xaaom\xc2\xa0", false), "example.kom");
	EXPECT_EVENTS(q, fmt("[%s]", add_event("example.kom", false)));
}

static void test_add_invalid_domains(void)
{
	struct org z = new_org();
	struct queue *q = reg(z.m);
	static const struct {
		const char *domain, *reason;
	} cases[] = {
	    {"", "Domain can't be empty."},
	    {" \n ", "Domain can't be empty."},
	    {"zulip", "Domain must have at least one dot (.)"},
	    {".zulip.org", "Domain cannot start or end with a dot (.)"},
	    {"zulip.org.", "Domain cannot start or end with a dot (.)"},
	    {".", "Domain cannot start or end with a dot (.)"},
	    {"zulip..org", "Consecutive '.' are not allowed."},
	    {"-zulip.org", "Subdomains cannot start or end with a '-'."},
	    {"zulip.org-", "Subdomains cannot start or end with a '-'."},
	    {"zulip.-org", "Subdomains cannot start or end with a '-'."},
	    {"zu_lip.org", "Domain can only have letters, numbers, '.' and '-'s."},
	    {"zu lip.org", "Domain can only have letters, numbers, '.' and '-'s."},
	    {"z\xc3\xbclip.org", "Domain can only have letters, numbers, '.' and '-'s."},
	    {"zulip.org/x", "Domain can only have letters, numbers, '.' and '-'s."},
	    /* Checks run in order: the dot before the length, the length before the characters. */
	    {"zu_lip", "Domain must have at least one dot (.)"},
	    {"-zu_lip.org", "Subdomains cannot start or end with a '-'."},
	    {"a..b_c.org", "Consecutive '.' are not allowed."},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_ERROR(add(z.o, cases[i].domain, false), 400, "BAD_REQUEST",
		             fmt("Invalid domain: %s", cases[i].reason));
	/* 255 characters are allowed, 256 are too long; the length counts characters, not bytes. */
	EXPECT_ERROR(add(z.o, fmt("%s.org", repeat('a', 252)), false), 400, "BAD_REQUEST",
	             "Invalid domain: Domain is too long");
	EXPECT_ERROR(add(z.o, fmt("%s_.org", repeat('a', 252)), false), 400, "BAD_REQUEST",
	             "Invalid domain: Domain is too long");
	char *accents = keep(calloc(1, 2 * 200 + 1));
	for (int i = 0; i < 200; i++)
		memcpy(accents + 2 * i, "\xc3\xa9", 2);
	EXPECT_ERROR(add(z.o, fmt("%s.org", accents), false), 400, "BAD_REQUEST",
	             "Invalid domain: Domain can only have letters, numbers, '.' and '-'s.");
	EXPECT_NO_EVENTS(q);
	CHECK(strcmp(listed(z.o), "[]") == 0, "nothing was added");
	const char *longest = fmt("%s.org", repeat('a', 251));
	EXPECT_NEW_DOMAIN(add(z.o, longest, false), longest);
	/* Python's $ matches before a final newline: the reference accepts a label that ends in one. */
	EXPECT_NEW_DOMAIN(add(z.o, "a-\n.org", false), "a-\n.org");
}

static void test_add_parameters(void)
{
	struct org z = new_org();
	EXPECT_ERROR(api_post(z.o, "/realm/domains", ""), 400, "REQUEST_VARIABLE_MISSING",
	             "Missing 'allow_subdomains' argument");
	EXPECT_ERROR(api_post(z.o, "/realm/domains", "allow_subdomains=false"), 400, "REQUEST_VARIABLE_MISSING",
	             "Missing 'domain' argument");
	EXPECT_ERROR(api_post(z.o, "/realm/domains", "domain=zulip.org&allow_subdomains=yes"), 400, "BAD_REQUEST",
	             "allow_subdomains is not valid JSON");
	EXPECT_ERROR(api_post(z.o, "/realm/domains", "domain=zulip.org&allow_subdomains=1"), 400, "BAD_REQUEST",
	             "allow_subdomains is not a boolean");
	CHECK(strcmp(listed(z.o), "[]") == 0, "nothing was added");
}

static void test_add_duplicate(void)
{
	struct org z = new_org();
	EXPECT_NEW_DOMAIN(add(z.o, "zulip.org", false), "zulip.org");
	struct queue *q = reg(z.m);
	EXPECT_ERROR(add(z.o, "ZULIP.org ", true), 400, "BAD_REQUEST",
	             "The domain zulip.org is already a part of your organization.");
	EXPECT_NO_EVENTS(q);
	const char *got = listed(z.o);
	CHECK(strcmp(got, "[{\"domain\":\"zulip.org\",\"allow_subdomains\":false}]") == 0, "unchanged: %s", got);
	/* Another organization may list the same domain. */
	struct user *other = new_realm();
	EXPECT_NEW_DOMAIN(add(other, "zulip.org", false), "zulip.org");
}

/* ---- PATCH -------------------------------------------------------------------------------------------------- */

static void test_change(void)
{
	struct org z = new_org();
	EXPECT_NEW_DOMAIN(add(z.o, "zulip.org", false), "zulip.org");
	struct queue *q = reg(z.g);
	EXPECT_SUCCESS(change(z.o, "zulip.org", "allow_subdomains=true"));
	EXPECT_EVENTS(q, "[{\"type\":\"realm_domains\",\"op\":\"change\","
	                 "\"realm_domain\":{\"domain\":\"zulip.org\",\"allow_subdomains\":true}}]");
	const char *got = listed(z.m);
	CHECK(strcmp(got, "[{\"domain\":\"zulip.org\",\"allow_subdomains\":true}]") == 0, "changed: %s", got);
	/* The same value again still tells the clients, as the reference. */
	EXPECT_SUCCESS(change(z.o, "zulip.org", "allow_subdomains=true"));
	EXPECT_EVENTS(q, "[{\"type\":\"realm_domains\",\"op\":\"change\","
	                 "\"realm_domain\":{\"domain\":\"zulip.org\",\"allow_subdomains\":true}}]");
	EXPECT_SUCCESS(change(z.o, "zulip.org", "allow_subdomains=false"));
	EXPECT_EVENTS(q, "[{\"type\":\"realm_domains\",\"op\":\"change\","
	                 "\"realm_domain\":{\"domain\":\"zulip.org\",\"allow_subdomains\":false}}]");
}

static void test_change_errors(void)
{
	struct org z = new_org();
	EXPECT_NEW_DOMAIN(add(z.o, "zulip.org", false), "zulip.org");
	struct queue *q = reg(z.m);
	EXPECT_ERROR(change(z.o, "non-existent.com", "allow_subdomains=true"), 400, "BAD_REQUEST",
	             "No entry found for domain non-existent.com.");
	/* The path is compared as sent, not lowercased. */
	EXPECT_ERROR(change(z.o, "Zulip.org", "allow_subdomains=true"), 400, "BAD_REQUEST",
	             "No entry found for domain Zulip.org.");
	EXPECT_ERROR(change(z.o, "zulip.org", ""), 400, "REQUEST_VARIABLE_MISSING", "Missing 'allow_subdomains' argument");
	EXPECT_ERROR(change(z.o, "zulip.org", "allow_subdomains=\"true\""), 400, "BAD_REQUEST",
	             "allow_subdomains is not a boolean");
	/* Another organization's domain is not found. */
	struct user *other = new_realm();
	EXPECT_ERROR(change(other, "zulip.org", "allow_subdomains=true"), 400, "BAD_REQUEST",
	             "No entry found for domain zulip.org.");
	EXPECT_NO_EVENTS(q);
	const char *got = listed(z.m);
	CHECK(strcmp(got, "[{\"domain\":\"zulip.org\",\"allow_subdomains\":false}]") == 0, "unchanged: %s", got);
}

/* ---- DELETE ------------------------------------------------------------------------------------------------- */

static void test_delete(void)
{
	struct org z = new_org();
	EXPECT_NEW_DOMAIN(add(z.o, "zulip.org", false), "zulip.org");
	EXPECT_NEW_DOMAIN(add(z.o, "acme.test", false), "acme.test");
	struct queue *q = reg(z.m);
	EXPECT_ERROR(del(z.o, "non-existent.com"), 400, "BAD_REQUEST", "No entry found for domain non-existent.com.");
	EXPECT_ERROR(del(z.o, "ZULIP.ORG"), 400, "BAD_REQUEST", "No entry found for domain ZULIP.ORG.");
	EXPECT_NO_EVENTS(q);
	EXPECT_SUCCESS(del(z.o, "zulip.org"));
	EXPECT_EVENTS(q, "[{\"type\":\"realm_domains\",\"op\":\"remove\",\"domain\":\"zulip.org\"}]");
	const char *got = listed(z.m);
	CHECK(strcmp(got, "[{\"domain\":\"acme.test\",\"allow_subdomains\":false}]") == 0, "one left: %s", got);
	EXPECT_ERROR(del(z.o, "zulip.org"), 400, "BAD_REQUEST", "No entry found for domain zulip.org.");
	/* The last one, in an organization that is not restricted: nothing else changes. */
	EXPECT_SUCCESS(del(z.o, "acme.test"));
	EXPECT_EVENTS(q, "[{\"type\":\"realm_domains\",\"op\":\"remove\",\"domain\":\"acme.test\"}]");
	CHECK(strcmp(registered(z.m), "[]") == 0, "no domains left");
	CHECK(restricted(z.m) == 0, "still not restricted");
}

/* Removing the last domain turns emails_restricted_to_domains off, its realm event first. */
static void test_delete_last_unrestricts(void)
{
	struct org z = new_org();
	EXPECT_NEW_DOMAIN(add(z.o, "zulip.org", false), "zulip.org");
	EXPECT_NEW_DOMAIN(add(z.o, "acme.test", false), "acme.test");
	EXPECT_SUCCESS(set_restricted(z.o, true));
	struct queue *q = reg(z.m);
	EXPECT_SUCCESS(del(z.o, "acme.test"));
	EXPECT_EVENTS(q, "[{\"type\":\"realm_domains\",\"op\":\"remove\",\"domain\":\"acme.test\"}]");
	CHECK(restricted(z.m) == 1, "still restricted with one domain left");
	EXPECT_SUCCESS(del(z.o, "zulip.org"));
	EXPECT_EVENTS(q, "[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"emails_restricted_to_domains\","
	                 "\"value\":false},"
	                 "{\"type\":\"realm_domains\",\"op\":\"remove\",\"domain\":\"zulip.org\"}]");
	CHECK(restricted(z.m) == 0, "no longer restricted");
}

/* ---- PATCH /realm emails_restricted_to_domains --------------------------------------------------------------- */

static void test_realm_setting(void)
{
	struct org z = new_org();
	struct queue *q = reg(z.m);
	EXPECT_ERROR(set_restricted(z.d, true), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
	EXPECT_ERROR(set_restricted(z.m, true), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	EXPECT_NO_EVENTS(q);
	CHECK(restricted(z.m) == 0, "not restricted");
	/* Allowed with no domains at all, as the reference. */
	struct resp *r = set_restricted(z.o, true);
	EXPECT_SUCCESS(r);
	EXPECT_BOOL(r->json, "emails_restricted_to_domains", true);
	EXPECT_EVENTS(q, "[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"emails_restricted_to_domains\","
	                 "\"value\":true}]");
	CHECK(restricted(z.m) == 1, "restricted");
	/* The same value: no change, no event, not in the response. */
	r = set_restricted(z.o, true);
	EXPECT_SUCCESS(r);
	EXPECT_ABSENT(r->json, "emails_restricted_to_domains");
	EXPECT_NO_EVENTS(q);
	r = set_restricted(z.o, false);
	EXPECT_SUCCESS(r);
	EXPECT_BOOL(r->json, "emails_restricted_to_domains", false);
	EXPECT_EVENTS(q, "[{\"type\":\"realm\",\"op\":\"update\",\"property\":\"emails_restricted_to_domains\","
	                 "\"value\":false}]");
	EXPECT_ERROR(http(&(struct request){.method = "PATCH",
	                                    .path = "/api/v1/realm",
	                                    .user = z.o,
	                                    .form = "emails_restricted_to_domains=yes"}),
	             400, "BAD_REQUEST", "emails_restricted_to_domains is not valid JSON");
}

/* ---- POST /users in a restricted organization ---------------------------------------------------------------- */

static struct resp *create_user(const struct user *c, const char *email)
{
	return api_post(c, "/users",
	                fmt("email=%s&password=%s&full_name=%s", url_encode(email), url_encode(strong_password),
	                    url_encode("New Person")));
}

static void test_create_user_restricted(void)
{
	struct org z = new_org();
	EXPECT_NEW_DOMAIN(add(z.o, "zulip.org", false), "zulip.org");
	EXPECT_NEW_DOMAIN(add(z.o, "acme.test", true), "acme.test");
	/* Not restricted yet: any address, '+' included. */
	EXPECT_SUCCESS(create_user(z.o, fmt("open+%d@elsewhere.test", (int)getpid())));
	EXPECT_SUCCESS(set_restricted(z.o, true));
	const char *outside[] = {"x@elsewhere.test", "x@sub.zulip.org", "x@zulip.org.evil.test", "x@xacme.test",
	                         "x@acme.test.com"};
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		EXPECT_ERROR(create_user(z.d, outside[i]), 400, "BAD_REQUEST",
		             fmt("Email '%s' not allowed in this organization", outside[i]));
	EXPECT_ERROR(create_user(z.o, "a+b@zulip.org"), 400, "BAD_REQUEST",
	             "Email addresses containing + are not allowed.");
	EXPECT_ERROR(create_user(z.o, "a+b@elsewhere.test"), 400, "BAD_REQUEST",
	             "Email addresses containing + are not allowed.");
	/* The address checks come first: an invalid one is "Bad name or username"; one outside the domains is refused
	 * before "already in use" is looked at. */
	EXPECT_ERROR(create_user(z.o, "not-an-email"), 400, "BAD_REQUEST", "Bad name or username");
	EXPECT_ERROR(create_user(z.o, z.m->email), 400, "BAD_REQUEST",
	             fmt("Email '%s' not allowed in this organization", z.m->email));
	const char *inside[] = {"one@zulip.org", "two@ZULIP.Org", "three@acme.test", "four@a.b.acme.test",
	                        "five@Sub.ACME.test"};
	for (size_t i = 0; i < sizeof(inside) / sizeof(inside[0]); i++) {
		const char *email = fmt("%d-%s", (int)getpid(), inside[i]);
		struct resp *r = create_user(z.o, email);
		EXPECT_SUCCESS(r);
		CHECK(jint(r->json, "user_id") > 0, "%s created: %s", email, r->body);
	}
	EXPECT_ERROR(create_user(z.o, fmt("%d-one@zulip.org", (int)getpid())), 400, "BAD_REQUEST",
	             fmt("Email '%d-one@zulip.org' already in use", (int)getpid()));
	/* Without the organization's restriction, the list does not matter. */
	EXPECT_SUCCESS(set_restricted(z.o, false));
	EXPECT_SUCCESS(create_user(z.o, fmt("%d-x@elsewhere.test", (int)getpid())));
}

void register_realm_domains_tests(void)
{
	static const struct itest_case cases[] = {
	    {"list_and_register", test_list_and_register},
	    {"owners_only", test_owners_only},
	    {"add_strips_and_lowercases", test_add_strips_and_lowercases},
	    {"add_invalid_domains", test_add_invalid_domains},
	    {"add_parameters", test_add_parameters},
	    {"add_duplicate", test_add_duplicate},
	    {"change", test_change},
	    {"change_errors", test_change_errors},
	    {"delete", test_delete},
	    {"delete_last_unrestricts", test_delete_last_unrestricts},
	    {"realm_setting", test_realm_setting},
	    {"create_user_restricted", test_create_user_restricted},
	    {NULL, NULL},
	};
	itest_add_suite("realm_domains", cases);
}
