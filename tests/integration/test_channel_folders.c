/*
 * Channel folders: PATCH /channel_folders/{id} (name, description, is_archived), PATCH /channel_folders (order),
 * their channel_folder events, and what GET /channel_folders and register report afterwards. Each test has an
 * organization of its own: reordering lists every folder of one.
 * Reference: zerver/views/channel_folders.py, zerver/actions/channel_folders.py, zerver/lib/channel_folders.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("%s-%u-%ld", tag, ++counter, (long)getpid());
}

static int64_t create_folder(const struct user *u, const char *name)
{
	struct resp *r = api_post(u, "/channel_folders/create", fmt("name=%s", url_encode(name)));
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "channel_folder_id");
	REQUIRE(id > 0, "folder %s was not created: %s", name, r->body);
	return id;
}

static struct resp *patch_folder(const struct user *u, int64_t id, const char *form)
{
	return http(&(struct request){
	    .method = "PATCH", .path = fmt("/api/v1/channel_folders/%lld", (long long)id), .user = u, .form = form});
}

static struct resp *reorder(const struct user *u, const char *order)
{
	return http(&(struct request){.method = "PATCH",
	                              .path = "/api/v1/channel_folders",
	                              .user = u,
	                              .form = order ? fmt("order=%s", url_encode(order)) : ""});
}

static struct queue *folder_queue(const struct user *u)
{
	return queue_register(u, fmt("event_types=%s", url_encode("[\"channel_folder\"]")));
}

static json_object *find_folder(json_object *list, int64_t id)
{
	for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++)
		if (jint(json_object_array_get_idx(list, i), "id") == id)
			return json_object_array_get_idx(list, i);
	return NULL;
}

/* The folder as GET /channel_folders?include_archived=true reports it (fatal if absent). */
static json_object *get_folder(const struct user *u, int64_t id)
{
	struct resp *r = api_get(u, "/channel_folders?include_archived=true");
	EXPECT_SUCCESS(r);
	json_object *f = find_folder(jget(r->json, "channel_folders"), id);
	REQUIRE(f != NULL, "folder %lld missing: %s", (long long)id, r->body);
	return f;
}

static const char *update_event(int64_t id, const char *data)
{
	return fmt("[{\"type\":\"channel_folder\",\"op\":\"update\",\"channel_folder_id\":%lld,\"data\":%s}]",
	           (long long)id, data);
}

/* Renaming: administrators only, the reference's checks in its order, an event to every user when it changes. */
static void test_update_name(void)
{
	struct user *owner = new_realm();
	struct user *admin = new_user_in(owner->realm, "admin", NULL);
	struct user *member = new_user_in(owner->realm, "member", NULL);
	struct user *guest = new_user_in(owner->realm, "guest", NULL);
	char *name = uniq("Frontend"), *other = uniq("Backend");
	int64_t id = create_folder(admin, name);
	create_folder(admin, other);
	struct queue *qm = folder_queue(member), *qg = folder_queue(guest);
	EXPECT_ERROR(patch_folder(member, id, "name=x"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization administrator");
	EXPECT_ERROR(patch_folder(admin, 999999999, "name=x"), 400, "BAD_REQUEST", "Invalid channel folder ID");
	/* Parameters are checked before the folder is looked up. */
	EXPECT_ERROR(patch_folder(admin, 999999999, fmt("name=%s", repeat('n', 61))), 400, "BAD_REQUEST",
	             "name is too long (limit: 60 characters)");
	/* Another organization's folder is no folder of this one. */
	struct user *stranger = new_realm();
	EXPECT_ERROR(patch_folder(stranger, id, "name=x"), 400, "BAD_REQUEST", "Invalid channel folder ID");
	EXPECT_ERROR(patch_folder(admin, id, "name=%20%20"), 400, "BAD_REQUEST", "Channel folder name can't be empty.");
	EXPECT_ERROR(patch_folder(admin, id, "name=abc%00"), 400, "BAD_REQUEST",
	             "Invalid character in channel folder name, at position 4.");
	EXPECT_ERROR(patch_folder(admin, id, "name=a%01b"), 400, "BAD_REQUEST",
	             "Invalid character in channel folder name, at position 2.");
	EXPECT_ERROR(patch_folder(admin, id, fmt("name=%s", repeat('n', 61))), 400, "BAD_REQUEST",
	             "name is too long (limit: 60 characters)");
	/* Creation checks names the same way. */
	EXPECT_ERROR(api_post(admin, "/channel_folders/create", "name=abc%00"), 400, "BAD_REQUEST",
	             "Invalid character in channel folder name, at position 4.");
	EXPECT_ERROR(api_post(admin, "/channel_folders/create", fmt("name=%s", repeat('n', 61))), 400, "BAD_REQUEST",
	             "name is too long (limit: 60 characters)");
	/* Case-insensitively taken by the other folder. */
	EXPECT_ERROR(patch_folder(admin, id, fmt("name=%s", url_encode(other))), 400, "BAD_REQUEST",
	             "Channel folder name already in use");
	char *upper = strdup(other);
	keep(upper);
	upper[0] = 'b';
	EXPECT_ERROR(patch_folder(admin, id, fmt("name=%s", url_encode(upper))), 400, "BAD_REQUEST",
	             "Channel folder name already in use");
	EXPECT_NO_EVENTS(qm);
	EXPECT_STR(get_folder(member, id), "name", name);
	/* The same name changes nothing and tells nobody. */
	EXPECT_SUCCESS(patch_folder(admin, id, fmt("name=%s", url_encode(name))));
	EXPECT_NO_EVENTS(qm);
	char *renamed = uniq("Web frontend");
	EXPECT_SUCCESS(patch_folder(owner, id, fmt("name=%s", url_encode(renamed))));
	char *want = (char *)update_event(id, fmt("{\"name\":\"%s\"}", renamed));
	EXPECT_EVENTS(qm, want);
	EXPECT_EVENTS(qg, want);
	EXPECT_STR(get_folder(guest, id), "name", renamed);
	/* Only a case change is a change. */
	char *lower = strdup(renamed);
	keep(lower);
	lower[0] = 'w';
	EXPECT_SUCCESS(patch_folder(admin, id, fmt("name=%s", url_encode(lower))));
	EXPECT_EVENTS(qm, update_event(id, fmt("{\"name\":\"%s\"}", lower)));
}

/* Descriptions: rendered as Markdown, may be empty, bounded; the event carries both forms. */
static void test_update_description(void)
{
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL);
	int64_t id = create_folder(owner, uniq("desc"));
	struct queue *q = folder_queue(member);
	EXPECT_ERROR(patch_folder(member, id, "description=x"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization administrator");
	EXPECT_ERROR(patch_folder(owner, id, fmt("description=%s", repeat('d', 1025))), 400, "BAD_REQUEST",
	             "description is too long (limit: 1024 characters)");
	EXPECT_NO_EVENTS(q);
	EXPECT_SUCCESS(patch_folder(owner, id, fmt("description=%s", url_encode("Channels for **frontend**"))));
	EXPECT_EVENTS(q, update_event(id, "{\"description\":\"Channels for **frontend**\",\"rendered_description\":"
	                                  "\"<p>Channels for <strong>frontend</strong></p>\"}"));
	json_object *f = get_folder(member, id);
	EXPECT_STR(f, "description", "Channels for **frontend**");
	EXPECT_STR(f, "rendered_description", "<p>Channels for <strong>frontend</strong></p>");
	EXPECT_SUCCESS(patch_folder(owner, id, fmt("description=%s", url_encode("Channels for **frontend**"))));
	EXPECT_NO_EVENTS(q);
	EXPECT_SUCCESS(patch_folder(owner, id, "description="));
	EXPECT_EVENTS(q, update_event(id, "{\"description\":\"\",\"rendered_description\":\"\"}"));
	f = get_folder(member, id);
	EXPECT_STR(f, "description", "");
	EXPECT_STR(f, "rendered_description", "");
}

/* Archiving: only empty folders; archived ones leave the default list but stay in register and include_archived;
 * unarchiving needs the name free. */
static void test_archive(void)
{
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL);
	char *name = uniq("arch");
	int64_t id = create_folder(owner, name), used = create_folder(owner, uniq("used"));
	EXPECT_SUCCESS(api_post(owner, "/users/me/subscriptions",
	                        fmt("subscriptions=%s&folder_id=%lld",
	                            url_encode(fmt("[{\"name\":\"%s\"}]", uniq("inside"))), (long long)used)));
	struct queue *q = folder_queue(member);
	EXPECT_ERROR(patch_folder(member, id, "is_archived=true"), 400, "UNAUTHORIZED_PRINCIPAL",
	             "Must be an organization administrator");
	EXPECT_ERROR(patch_folder(owner, used, "is_archived=true"), 400, "BAD_REQUEST",
	             "You need to remove all the channels from this folder to archive it.");
	EXPECT_BOOL(get_folder(owner, used), "is_archived", false);
	EXPECT_SUCCESS(patch_folder(owner, id, "is_archived=false"));
	EXPECT_NO_EVENTS(q);
	EXPECT_SUCCESS(patch_folder(owner, id, "is_archived=true"));
	EXPECT_EVENTS(q, update_event(id, "{\"is_archived\":true}"));
	EXPECT_SUCCESS(patch_folder(owner, id, "is_archived=true"));
	EXPECT_NO_EVENTS(q);
	struct resp *r = api_get(member, "/channel_folders");
	EXPECT_SUCCESS(r);
	CHECK(find_folder(jget(r->json, "channel_folders"), id) == NULL, "archived folder listed: %s", r->body);
	EXPECT_BOOL(get_folder(member, id), "is_archived", true);
	r = api_post(member, "/register", fmt("fetch_event_types=%s", url_encode("[\"channel_folders\"]")));
	EXPECT_SUCCESS(r);
	json_object *f = find_folder(jget(r->json, "channel_folders"), id);
	REQUIRE(f != NULL, "archived folder not in register: %s", r->body);
	EXPECT_BOOL(f, "is_archived", true);
	/* Its name is free while it is archived; then unarchiving it is refused. */
	int64_t again = create_folder(owner, name);
	queue_drain(q);
	EXPECT_ERROR(patch_folder(owner, id, "is_archived=false"), 400, "BAD_REQUEST",
	             "Channel folder name already in use");
	EXPECT_BOOL(get_folder(owner, id), "is_archived", true);
	EXPECT_SUCCESS(patch_folder(owner, again, fmt("name=%s", url_encode(uniq("other")))));
}

/* Several changes at once: one event each, name, description, is_archived, in that order. */
static void test_update_all(void)
{
	struct user *owner = new_realm();
	int64_t id = create_folder(owner, uniq("all"));
	EXPECT_SUCCESS(patch_folder(owner, id, "is_archived=true"));
	struct queue *q = folder_queue(owner);
	char *renamed = uniq("renamed");
	EXPECT_SUCCESS(patch_folder(owner, id, fmt("is_archived=false&description=d&name=%s", url_encode(renamed))));
	const char *n = update_event(id, fmt("{\"name\":\"%s\"}", renamed));
	const char *d = update_event(id, "{\"description\":\"d\",\"rendered_description\":\"<p>d</p>\"}");
	const char *a = update_event(id, "{\"is_archived\":false}");
	/* Each is a list of one: join the three into one list. */
	EXPECT_EVENTS(q, fmt("[%.*s,%.*s,%.*s]", (int)strlen(n) - 2, n + 1, (int)strlen(d) - 2, d + 1,
	                     (int)strlen(a) - 2, a + 1));
	json_object *f = get_folder(owner, id);
	EXPECT_STR(f, "name", renamed);
	EXPECT_STR(f, "description", "d");
	EXPECT_BOOL(f, "is_archived", false);
	/* A bad value of a later parameter: refused before anything changes. */
	EXPECT_ERROR(patch_folder(owner, id, "name=zzz&is_archived=5"), 400, "BAD_REQUEST",
	             "is_archived is not a boolean");
	EXPECT_STR(get_folder(owner, id), "name", renamed);
	EXPECT_NO_EVENTS(q);
}

/* The ids of the folders as listed (JSON text). */
static const char *listed_ids(json_object *list)
{
	char *out = fmt("[");
	for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++)
		out = fmt("%s%s%lld", out, i ? "," : "", (long long)jint(json_object_array_get_idx(list, i), "id"));
	return fmt("%s]", out);
}

/* Reordering: every folder of the organization (archived too) exactly once; order is the position. */
static void test_reorder(void)
{
	struct user *owner = new_realm();
	struct user *member = new_user_in(owner->realm, "member", NULL);
	int64_t a = create_folder(owner, uniq("a")), b = create_folder(owner, uniq("b")),
	        c = create_folder(owner, uniq("c"));
	EXPECT_SUCCESS(patch_folder(owner, b, "is_archived=true"));
	int64_t foreign = create_folder(new_realm(), uniq("foreign"));
	struct queue *q = folder_queue(member);
	const char *initial = fmt("[%lld,%lld,%lld]", (long long)a, (long long)b, (long long)c);
	const char *want = fmt("[%lld,%lld,%lld]", (long long)c, (long long)a, (long long)b);
	EXPECT_ERROR(reorder(member, want), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	EXPECT_ERROR(reorder(owner, NULL), 400, "REQUEST_VARIABLE_MISSING", "Missing 'order' argument");
	const char *bad[] = {
	    fmt("[%lld,%lld]", (long long)c, (long long)a),                                       /* b missing */
	    fmt("[%lld,%lld,%lld,999999999]", (long long)c, (long long)a, (long long)b),          /* an extra id */
	    fmt("[%lld,%lld,%lld]", (long long)c, (long long)a, (long long)a),                    /* a twice */
	    fmt("[%lld,%lld,%lld]", (long long)c, (long long)a, (long long)foreign),              /* another's */
	    fmt("[%lld,%lld,%lld,%lld]", (long long)c, (long long)a, (long long)b, (long long)a), /* repeated, all */
	    "[]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERROR(reorder(owner, bad[i]), 400, "BAD_REQUEST", "Invalid order mapping.");
	struct resp *r = api_get(owner, "/channel_folders?include_archived=true");
	CHECK(strcmp(listed_ids(jget(r->json, "channel_folders")), initial) == 0, "order changed: %s", r->body);
	EXPECT_NO_EVENTS(q);
	EXPECT_SUCCESS(reorder(owner, want));
	EXPECT_EVENTS(q, fmt("[{\"type\":\"channel_folder\",\"op\":\"reorder\",\"order\":%s}]", want));
	r = api_get(member, "/channel_folders?include_archived=true");
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "channel_folders");
	CHECK(strcmp(listed_ids(list), want) == 0, "listed as %s, want %s", listed_ids(list), want);
	for (int i = 0; i < 3 && list != NULL && (size_t)i < json_object_array_length(list); i++)
		EXPECT_INT(json_object_array_get_idx(list, i), "order", i);
	r = api_get(member, "/channel_folders");
	const char *active = fmt("[%lld,%lld]", (long long)c, (long long)a);
	CHECK(strcmp(listed_ids(jget(r->json, "channel_folders")), active) == 0, "%s", r->body);
	r = api_post(member, "/register", fmt("fetch_event_types=%s", url_encode("[\"channel_folders\"]")));
	CHECK(strcmp(listed_ids(jget(r->json, "channel_folders")), want) == 0, "register: %s", r->body);
	/* A new folder goes last. */
	int64_t d = create_folder(owner, uniq("d"));
	r = api_get(owner, "/channel_folders?include_archived=true");
	const char *after = fmt("[%lld,%lld,%lld,%lld]", (long long)c, (long long)a, (long long)b, (long long)d);
	CHECK(strcmp(listed_ids(jget(r->json, "channel_folders")), after) == 0, "%s", r->body);
}

void register_channel_folders_tests(void)
{
	static const struct itest_case cases[] = {
	    {"update_name", test_update_name}, {"update_description", test_update_description},
	    {"archive", test_archive},         {"update_all", test_update_all},
	    {"reorder", test_reorder},         {NULL, NULL},
	};
	itest_add_suite("channel_folders", cases);
}
