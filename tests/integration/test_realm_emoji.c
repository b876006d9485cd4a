/*
 * Custom emoji: GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}, the images at /user_avatars/..., the
 * realm_emoji events by client capability, register's realm_emoji, and custom emoji in statuses. Reference:
 * zerver/views/realm_emoji.py, zerver/lib/emoji.py, zerver/actions/realm_emoji.py, zerver/tests/test_realm_emoji.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define BOUNDARY "----confabEmojiBoundaryZ3"

/* A PNG header and a few bytes: the server keeps the bytes as sent. */
static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDRconfab-emoji";
#define PNG_LEN (sizeof(png) - 1)

/* A fresh organization: owner o, admin d, members a and b, guest g. */
struct org {
	struct user *o, *d, *a, *b, *g;
};

static struct org new_org(void)
{
	struct org z;
	z.o = new_realm();
	z.d = new_user_in(z.o->realm, "admin", NULL);
	z.a = new_user_in(z.o->realm, "member", NULL);
	z.b = new_user_in(z.o->realm, "member", NULL);
	z.g = new_user_in(z.o->realm, "guest", NULL);
	return z;
}

static long long realm_id_of(const struct user *u)
{
	return strtoll(psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)u->id), NULL, 10);
}

/* POSTs nfiles parts (fields f1, f2, ...) of len bytes of data with Content-Type ctype to /realm/emoji/<path>. */
static struct resp *upload_n(const struct user *u, const char *path, const char *ctype, const char *data, size_t len,
                             int nfiles)
{
	char *body = keep(malloc(len * (size_t)nfiles + 512));
	REQUIRE(body != NULL, "out of memory");
	size_t n = 0;
	for (int i = 0; i < nfiles; i++) {
		n += (size_t)sprintf(body + n,
		                     "--" BOUNDARY
		                     "\r\nContent-Disposition: form-data; name=\"f%d\"; filename=\"img.png\""
		                     "\r\nContent-Type: %s\r\n\r\n",
		                     i + 1, ctype);
		memcpy(body + n, data, len);
		n += len;
		n += (size_t)sprintf(body + n, "\r\n");
	}
	n += (size_t)sprintf(body + n, "--" BOUNDARY "--\r\n");
	return http(&(struct request){.method = "POST",
	                              .path = fmt("/api/v1/realm/emoji/%s", path),
	                              .user = u,
	                              .body = body,
	                              .body_len = n,
	                              .content_type = "multipart/form-data; boundary=" BOUNDARY,
	                              .timeout = 120});
}

static struct resp *upload(const struct user *u, const char *path)
{
	return upload_n(u, path, "image/png", png, PNG_LEN, 1);
}

static struct resp *delete_emoji(const struct user *u, const char *name)
{
	return api_method("DELETE", u, fmt("/realm/emoji/%s", name));
}

/* GET /realm/emoji, which must succeed with exactly result, msg, emoji; the emoji object. */
static json_object *emoji_map(const struct user *u)
{
	struct resp *r = api_get(u, "/realm/emoji");
	EXPECT_STATUS(r, 200);
	EXPECT_KEYS(r->json, "result", "msg", "emoji");
	return jget(r->json, "emoji");
}

/* The entry of the map named name that has the given deactivated state, or a fatal failure. */
static json_object *entry_named(json_object *map, const char *name, bool deactivated)
{
	json_object_object_foreach (map, key, e) {
		(void)key;
		if (strcmp(jstr(e, "name"), name) == 0 && jbool(e, "deactivated") == deactivated)
			return e;
	}
	REQUIRE(false, "no emoji %s (deactivated %d) in %s", name, deactivated, jtext(map));
	return NULL;
}

/* The expected JSON of an emoji entry. */
static char *entry_json(json_object *e, bool deactivated, int64_t author_id)
{
	return fmt("{\"id\":\"%s\",\"name\":\"%s\",\"source_url\":\"%s\",\"deactivated\":%s,\"author_id\":%lld,"
	           "\"still_url\":null}",
	           jstr(e, "id"), jstr(e, "name"), jstr(e, "source_url"), deactivated ? "true" : "false",
	           (long long)author_id);
}

static void expect_json(json_object *got, const char *want)
{
	json_object *w = json_tokener_parse(want);
	REQUIRE(w != NULL, "bad expected JSON: %s", want);
	CHECK(json_object_equal(got, w), "expected %s\n      got %s", want, jtext(got));
	json_object_put(w);
}

static void test_realm_emoji_upload_and_list(void)
{
	struct org z = new_org();
	expect_json(emoji_map(z.a), "{}");
	EXPECT_SUCCESS(upload(z.a, "my_emoji"));
	/* Stripped, spaces made '_'. */
	EXPECT_SUCCESS(upload(z.a, "%20two%20words%20"));
	json_object *map = emoji_map(z.g); /* the list is for everyone, guests too */
	CHECK(json_object_object_length(map) == 2, "two emoji: %s", jtext(map));
	json_object *e = entry_named(map, "my_emoji", false);
	entry_named(map, "two_words", false);
	EXPECT_KEYS(e, "id", "name", "source_url", "deactivated", "author_id", "still_url");
	expect_json(jget(map, jstr(e, "id")), entry_json(e, false, z.a->id));
	/* /user_avatars/<realm id>/emoji/images/<8 hex digits>.png */
	const char *url = jstr(e, "source_url");
	const char *prefix = fmt("/user_avatars/%lld/emoji/images/", realm_id_of(z.o));
	CHECK(strncmp(url, prefix, strlen(prefix)) == 0 && strlen(url) == strlen(prefix) + 12 &&
	          strcmp(url + strlen(url) - 4, ".png") == 0,
	      "source_url %s", url);
	/* The image, without authentication, as uploaded. */
	struct resp *r = http(&(struct request){.path = url, .host = realm_host(z.o->realm)});
	EXPECT_STATUS(r, 200);
	EXPECT_HEADER(r, "Content-Type", "image/png");
	CHECK(r->len == PNG_LEN && memcmp(r->body, png, PNG_LEN) == 0, "image bytes differ (%zu bytes)", r->len);
	/* Another organization's list does not have it. */
	expect_json(emoji_map(new_realm()), "{}");
}

static void test_realm_emoji_image_not_found(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(upload(z.a, "pic"));
	const char *url = jstr(entry_named(emoji_map(z.a), "pic", false), "source_url");
	const char *base = fmt("/user_avatars/%lld/emoji/images/", realm_id_of(z.o));
	const char *bad[] = {
	    fmt("%s00000000.png", base),
	    fmt("/user_avatars/%lld/emoji/images/%s", realm_id_of(z.o) + 100000, url + strlen(base)),
	    fmt("%s../../../etc/passwd", base),
	    fmt("/user_avatars/+%lld/emoji/images/%s", realm_id_of(z.o), url + strlen(base)),
	    fmt("/user_avatars/0%lld/emoji/images/%s", realm_id_of(z.o), url + strlen(base)),
	    fmt("%s/extra", url),
	    "/user_avatars/x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct resp *r = http(&(struct request){.path = bad[i]});
		CHECK(r->status == 404, "%s: status %ld", bad[i], r->status);
	}
}

static void test_realm_emoji_name_rules(void)
{
	struct org z = new_org();
	static const char *const letters =
	    "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.";
	EXPECT_ERROR(upload(z.d, "my_em*oji"), 400, "BAD_REQUEST", letters);
	EXPECT_ERROR(upload(z.d, "my_EMoji"), 400, "BAD_REQUEST", letters);
	EXPECT_ERROR(upload(z.d, "my.emoji"), 400, "BAD_REQUEST", letters);
	EXPECT_ERROR(upload(z.d, "caf%C3%A9"), 400, "BAD_REQUEST", letters);
	EXPECT_ERROR(upload(z.d, "my_emoji_"), 400, "BAD_REQUEST",
	             "Emoji names must end with either a letter or digit.");
	EXPECT_ERROR(upload(z.d, "my-emoji-"), 400, "BAD_REQUEST",
	             "Emoji names must end with either a letter or digit.");
	EXPECT_ERROR(upload(z.d, "%20"), 400, "BAD_REQUEST", "Emoji name is missing");
	EXPECT_ERROR(upload(z.d, "my/emoji/with/forward/slash/"), 400, "BAD_REQUEST", letters);
	EXPECT_ERROR(upload(z.g, "my/emoji"), 400, "BAD_REQUEST", "Not allowed for guest users");
	EXPECT_SUCCESS(upload(z.d, "a-1_b"));
	CHECK(json_object_object_length(emoji_map(z.d)) == 1, "only a-1_b was added");
}

static void test_realm_emoji_upload_checks(void)
{
	struct org z = new_org();
	EXPECT_ERROR(upload(z.g, "guest_emoji"), 400, "BAD_REQUEST", "Not allowed for guest users");
	EXPECT_SUCCESS(upload(z.a, "taken"));
	EXPECT_ERROR(upload(z.b, "taken"), 400, "BAD_REQUEST", "A custom emoji with this name already exists.");
	EXPECT_ERROR(upload_n(z.a, "none", "image/png", png, PNG_LEN, 0), 400, "BAD_REQUEST",
	             "You must upload exactly one file.");
	EXPECT_ERROR(upload_n(z.a, "two", "image/png", png, PNG_LEN, 2), 400, "BAD_REQUEST",
	             "You must upload exactly one file.");
	EXPECT_ERROR(upload(z.a, "laughing"), 400, "BAD_REQUEST", "Only administrators can override default emoji.");
	EXPECT_SUCCESS(upload(z.d, "laughing"));
	EXPECT_ERROR(upload_n(z.a, "tiff", "image/tiff", png, PNG_LEN, 1), 400, "BAD_REQUEST", "Invalid image format");
	EXPECT_ERROR(upload_n(z.a, "text", "text/plain", png, PNG_LEN, 1), 400, "BAD_REQUEST", "Invalid image format");
	EXPECT_SUCCESS(upload_n(z.a, "gif", "image/gif", png, PNG_LEN, 1));
	CHECK(strstr(jstr(entry_named(emoji_map(z.a), "gif", false), "source_url"), ".gif") != NULL, "a .gif file");
	/* MAX_EMOJI_FILE_SIZE_MIB: 5 MiB is accepted, one byte more is not. */
	size_t five = 5 * 1024 * 1024;
	char *big = keep(malloc(five + 1));
	REQUIRE(big != NULL, "out of memory");
	memset(big, 'x', five + 1);
	EXPECT_ERROR(upload_n(z.a, "big", "image/png", big, five + 1, 1), 400, "BAD_REQUEST",
	             "Uploaded file is larger than the allowed limit of 5 MiB");
	EXPECT_SUCCESS(upload_n(z.a, "big", "image/png", big, five, 1));
	CHECK(json_object_object_length(emoji_map(z.a)) == 4, "taken, laughing, gif, big: %s", jtext(emoji_map(z.a)));
}

static void test_realm_emoji_who_may_add(void)
{
	struct org z = new_org();
	psql_ok("UPDATE realms SET can_add_custom_emoji_group_id = confab_system_group(id, 'role:administrators')"
	        " WHERE id = %lld",
	        realm_id_of(z.o));
	EXPECT_ERROR(upload(z.a, "members_cannot"), 400, "BAD_REQUEST", "Insufficient permission");
	EXPECT_SUCCESS(upload(z.d, "admins_can"));
	/* The name is checked before the permission. */
	EXPECT_ERROR(
	    upload(z.a, "Bad"), 400, "BAD_REQUEST",
	    "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
	CHECK(json_object_object_length(emoji_map(z.a)) == 1, "only admins_can");
}

static void test_realm_emoji_delete(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(upload(z.a, "my_own"));
	EXPECT_SUCCESS(upload(z.a, "also_my_own"));
	EXPECT_SUCCESS(upload(z.d, "admins"));
	EXPECT_ERROR(delete_emoji(z.b, "my_own"), 400, "BAD_REQUEST",
	             "Must be an organization administrator or emoji author");
	EXPECT_ERROR(delete_emoji(z.a, "admins"), 400, "BAD_REQUEST",
	             "Must be an organization administrator or emoji author");
	EXPECT_SUCCESS(delete_emoji(z.a, "my_own"));
	EXPECT_SUCCESS(delete_emoji(z.d, "also_my_own"));
	EXPECT_ERROR(delete_emoji(z.a, "my_own"), 404, "BAD_REQUEST", "Emoji 'my_own' does not exist");
	EXPECT_ERROR(delete_emoji(z.d, "no_such"), 404, "BAD_REQUEST", "Emoji 'no_such' does not exist");
	EXPECT_ERROR(delete_emoji(z.d, "a/b"), 404, "BAD_REQUEST", "Emoji 'a/b' does not exist");
	/* Deactivated, not deleted: still listed, and the name can be taken again. */
	json_object *map = emoji_map(z.a);
	json_object *old = entry_named(map, "my_own", true);
	expect_json(jget(map, jstr(old, "id")), entry_json(old, true, z.a->id));
	EXPECT_SUCCESS(upload(z.b, "my_own"));
	map = emoji_map(z.a);
	CHECK(json_object_object_length(map) == 4, "4 emoji: %s", jtext(map));
	CHECK(strcmp(jstr(entry_named(map, "my_own", false), "id"), jstr(old, "id")) != 0, "a new id");
	/* The deactivated emoji's image is still served (old messages show it). */
	struct resp *r = http(&(struct request){.path = jstr(old, "source_url")});
	EXPECT_STATUS(r, 200);
}

/* Clients with individual_emoji_changes get add and update_one; the others update with every emoji. */
static void test_realm_emoji_events_by_capability(void)
{
	struct org z = new_org();
	struct queue *modern =
	    queue_register(z.b, fmt("event_types=%s&client_capabilities=%s", url_encode("[\"realm_emoji\"]"),
	                            url_encode("{\"individual_emoji_changes\":true}")));
	struct queue *legacy = queue_register(z.g, fmt("event_types=%s", url_encode("[\"realm_emoji\"]")));
	struct queue *other = queue_register(new_realm(), fmt("event_types=%s", url_encode("[\"realm_emoji\"]")));
	EXPECT_SUCCESS(upload(z.a, "party"));
	json_object *e = entry_named(emoji_map(z.a), "party", false);
	const char *added = entry_json(e, false, z.a->id);
	EXPECT_EVENTS(modern, fmt("[{\"type\":\"realm_emoji\",\"op\":\"add\",\"emoji\":%s}]", added));
	EXPECT_EVENTS(legacy, fmt("[{\"type\":\"realm_emoji\",\"op\":\"update\",\"realm_emoji\":{\"%s\":%s}}]",
	                          jstr(e, "id"), added));
	EXPECT_SUCCESS(delete_emoji(z.a, "party"));
	EXPECT_EVENTS(modern, fmt("[{\"type\":\"realm_emoji\",\"op\":\"update_one\",\"emoji_id\":\"%s\","
	                          "\"data\":{\"deactivated\":true}}]",
	                          jstr(e, "id")));
	EXPECT_EVENTS(legacy, fmt("[{\"type\":\"realm_emoji\",\"op\":\"update\",\"realm_emoji\":{\"%s\":%s}}]",
	                          jstr(e, "id"), entry_json(e, true, z.a->id)));
	/* A failed upload sends nothing. */
	EXPECT_ERROR(
	    upload(z.a, "Bad"), 400, "BAD_REQUEST",
	    "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
	EXPECT_NO_EVENTS(modern);
	EXPECT_NO_EVENTS(legacy);
	EXPECT_NO_EVENTS(other);
}

static void test_realm_emoji_register(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(upload(z.a, "kept"));
	EXPECT_SUCCESS(upload(z.a, "gone"));
	EXPECT_SUCCESS(delete_emoji(z.a, "gone"));
	json_object *list = emoji_map(z.a);
	struct resp *r = api_post(z.b, "/register", fmt("fetch_event_types=%s", url_encode("[\"realm_emoji\"]")));
	EXPECT_STATUS(r, 200);
	json_object *state = jget(r->json, "realm_emoji");
	REQUIRE(state != NULL, "no realm_emoji: %s", r->body);
	CHECK(json_object_equal(state, list), "register %s\n      list %s", jtext(state), jtext(list));
	expect_json(jget(state, jstr(entry_named(list, "gone", true), "id")),
	            entry_json(entry_named(list, "gone", true), true, z.a->id));
	/* Only when asked for. */
	r = api_post(z.b, "/register", fmt("fetch_event_types=%s", url_encode("[\"realm\"]")));
	EXPECT_STATUS(r, 200);
	CHECK(!jhas(r->json, "realm_emoji"), "realm_emoji not asked for");
}

static struct resp *set_status(const struct user *u, const char *form)
{
	return api_post(u, "/users/me/status", form);
}

/* The emoji of u's status: "name code type". */
static const char *status_emoji(const struct user *u)
{
	struct resp *r = api_get(u, fmt("/users/%lld/status", (long long)u->id));
	EXPECT_STATUS(r, 200);
	json_object *s = jget(r->json, "status");
	return fmt("%s %s %s", jstr(s, "emoji_name"), jstr(s, "emoji_code"), jstr(s, "reaction_type"));
}

static void test_realm_emoji_in_status(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(upload(z.a, "team_logo"));
	const char *id = jstr(entry_named(emoji_map(z.a), "team_logo", false), "id");
	EXPECT_SUCCESS(set_status(z.b, "emoji_name=team_logo"));
	CHECK(strcmp(status_emoji(z.b), fmt("team_logo %s realm_emoji", id)) == 0, "status %s", status_emoji(z.b));
	EXPECT_SUCCESS(set_status(z.b, fmt("emoji_name=team_logo&emoji_code=%s&reaction_type=realm_emoji", id)));
	EXPECT_ERROR(set_status(z.b, "emoji_name=team_logo&emoji_code=999999999&reaction_type=realm_emoji"), 400,
	             "BAD_REQUEST", "Invalid custom emoji.");
	EXPECT_ERROR(set_status(z.b, "emoji_name=team_logo&emoji_code=x1&reaction_type=realm_emoji"), 400,
	             "BAD_REQUEST", "Invalid custom emoji.");
	EXPECT_ERROR(set_status(z.b, fmt("emoji_name=other&emoji_code=%s&reaction_type=realm_emoji", id)), 400,
	             "BAD_REQUEST", "Invalid custom emoji name.");
	/* Another organization's emoji is not this one's. */
	struct user *elsewhere = new_realm();
	EXPECT_ERROR(set_status(elsewhere, fmt("emoji_name=team_logo&emoji_code=%s&reaction_type=realm_emoji", id)),
	             400, "BAD_REQUEST", "Invalid custom emoji.");
	EXPECT_ERROR(set_status(elsewhere, "emoji_name=team_logo"), 400, "BAD_REQUEST",
	             "Emoji 'team_logo' does not exist");
	/* A custom emoji named as a built-in one wins over it. */
	EXPECT_SUCCESS(upload(z.d, "smile"));
	const char *smile = jstr(entry_named(emoji_map(z.a), "smile", false), "id");
	EXPECT_SUCCESS(set_status(z.a, "emoji_name=smile"));
	CHECK(strcmp(status_emoji(z.a), fmt("smile %s realm_emoji", smile)) == 0, "status %s", status_emoji(z.a));
	/* Deactivated: no longer by name, nor by code. */
	EXPECT_SUCCESS(delete_emoji(z.a, "team_logo"));
	EXPECT_ERROR(set_status(z.b, "emoji_name=team_logo"), 400, "BAD_REQUEST", "Emoji 'team_logo' does not exist");
	EXPECT_ERROR(set_status(z.b, fmt("emoji_name=team_logo&emoji_code=%s&reaction_type=realm_emoji", id)), 400,
	             "BAD_REQUEST", "This custom emoji has been deactivated.");
	/* The status set before keeps it (as the reference: old statuses keep deactivated emoji). */
	CHECK(strcmp(status_emoji(z.b), fmt("team_logo %s realm_emoji", id)) == 0, "status %s", status_emoji(z.b));
}

/* The first reaction of message id as u reads it: "name code type". */
static const char *first_reaction(const struct user *u, int64_t id)
{
	struct resp *r = api_get(u, fmt("/messages/%lld", (long long)id));
	EXPECT_STATUS(r, 200);
	json_object *reactions = jget(jget(r->json, "message"), "reactions");
	REQUIRE(reactions != NULL && json_object_array_length(reactions) > 0, "no reactions: %s", r->body);
	json_object *x = json_object_array_get_idx(reactions, 0);
	return fmt("%s %s %s", jstr(x, "emoji_name"), jstr(x, "emoji_code"), jstr(x, "reaction_type"));
}

static void test_realm_emoji_in_reaction(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(upload(z.a, "party_parrot"));
	const char *id = jstr(entry_named(emoji_map(z.a), "party_parrot", false), "id");
	int64_t msg = send_direct_message(z.b, fmt("[%lld]", (long long)z.b->id), "note to self");
	EXPECT_SUCCESS(api_post(z.b, fmt("/messages/%lld/reactions", (long long)msg), "emoji_name=party_parrot"));
	CHECK(strcmp(first_reaction(z.b, msg), fmt("party_parrot %s realm_emoji", id)) == 0, "reaction %s",
	      first_reaction(z.b, msg));
	EXPECT_SUCCESS(delete_emoji(z.a, "party_parrot"));
	int64_t msg2 = send_direct_message(z.b, fmt("[%lld]", (long long)z.b->id), "another note");
	EXPECT_ERROR(api_post(z.b, fmt("/messages/%lld/reactions", (long long)msg2),
	                      fmt("emoji_name=party_parrot&emoji_code=%s&reaction_type=realm_emoji", id)),
	             400, "BAD_REQUEST", "This custom emoji has been deactivated.");
	EXPECT_ERROR(api_post(z.b, fmt("/messages/%lld/reactions", (long long)msg2), "emoji_name=party_parrot"), 400,
	             "BAD_REQUEST", "Emoji 'party_parrot' does not exist");
}

/* :name: of an active custom emoji renders as the reference's <img> in new messages; a deactivated one stays text. */
static void test_realm_emoji_in_message(void)
{
	struct org z = new_org();
	EXPECT_SUCCESS(upload(z.a, "party_parrot"));
	const char *url = jstr(entry_named(emoji_map(z.a), "party_parrot", false), "source_url");
	int64_t msg = send_direct_message(z.b, fmt("[%lld]", (long long)z.b->id), "hi :party_parrot:");
	struct resp *r = api_get(z.b, fmt("/messages/%lld", (long long)msg));
	EXPECT_STATUS(r, 200);
	const char *html = jstr(jget(r->json, "message"), "content");
	CHECK(strcmp(html, fmt("<p>hi <img alt=\":party_parrot:\" class=\"emoji\" src=\"%s\" title=\"party parrot\"></p>",
	                       url)) == 0,
	      "content: %s", html);
	EXPECT_SUCCESS(delete_emoji(z.a, "party_parrot"));
	msg = send_direct_message(z.b, fmt("[%lld]", (long long)z.b->id), "hi :party_parrot:");
	r = api_get(z.b, fmt("/messages/%lld", (long long)msg));
	html = jstr(jget(r->json, "message"), "content");
	CHECK(strcmp(html, "<p>hi :party_parrot:</p>") == 0, "content after deactivation: %s", html);
}

void register_realm_emoji_tests(void)
{
	static const struct itest_case cases[] = {
	    {"test_realm_emoji_upload_and_list", test_realm_emoji_upload_and_list},
	    {"test_realm_emoji_image_not_found", test_realm_emoji_image_not_found},
	    {"test_realm_emoji_name_rules", test_realm_emoji_name_rules},
	    {"test_realm_emoji_upload_checks", test_realm_emoji_upload_checks},
	    {"test_realm_emoji_who_may_add", test_realm_emoji_who_may_add},
	    {"test_realm_emoji_delete", test_realm_emoji_delete},
	    {"test_realm_emoji_events_by_capability", test_realm_emoji_events_by_capability},
	    {"test_realm_emoji_register", test_realm_emoji_register},
	    {"test_realm_emoji_in_status", test_realm_emoji_in_status},
	    {"test_realm_emoji_in_reaction", test_realm_emoji_in_reaction},
	    {"test_realm_emoji_in_message", test_realm_emoji_in_message},
	    {NULL, NULL},
	};
	itest_add_suite("realm_emoji", cases);
}
