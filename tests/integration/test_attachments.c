/*
 * The disk space of uploads: the organization's upload quota (REALM_UPLOAD_QUOTA), GET /attachments and DELETE
 * /attachments/{attachment_id}, the "attachment" events the owner's queues get, and the reaper's deletion of uploads
 * no message has linked for unclaimed_attachment_days (35). Each test has an organization of its own, so that
 * upload_space_used is exact. The reaper test needs a reaper that looks every second: scripts/test sets
 * CONFAB_ATTACHMENT_CLEANUP_INTERVAL=1 (for scripts/itest, start the stack with it).
 * Reference: Zulip zerver/views/attachments.py, zerver/lib/attachments.py, zerver/actions/uploads.py
 * (notify_attachment_update, do_claim_attachments, do_delete_old_unclaimed_attachments), zerver/lib/upload/__init__.py
 * (check_upload_within_quota), zerver/models/realms.py (upload_quota_bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

#define QUOTA_MSG      "Upload would exceed your organization's upload quota."
#define NOT_FOUND_HTML "<p>This file does not exist or has been deleted.</p>"
#define GIB            (1LL << 30)

/* POST /user_uploads of one text file; the response. */
static struct resp *upload(const struct user *u, const char *name, const char *data)
{
	char *body = fmt("--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
	                 "Content-Type: text/plain\r\n\r\n%s\r\n--b0undary--\r\n",
	                 name, data);
	return http(&(struct request){.method = "POST",
	                              .path = "/api/v1/user_uploads",
	                              .user = u,
	                              .body = body,
	                              .body_len = strlen(body),
	                              .content_type = "multipart/form-data; boundary=b0undary"});
}

/* An upload that must succeed: its path_id (the URL without /user_uploads/). */
static const char *upload_ok(const struct user *u, const char *name, const char *data)
{
	struct resp *r = upload(u, name, data);
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL && strncmp(url, "/user_uploads/", 14) == 0, "%s: url in %s", r->what, r->body);
	return url + 14;
}

static int64_t attachment_id(const char *path_id)
{
	return atoll(psql_ok("SELECT id FROM attachments WHERE path_id = '%s'", path_id));
}

/* GET /attachments that must succeed: the response's JSON. */
static json_object *list(const struct user *u)
{
	struct resp *r = api_get(u, "/attachments");
	EXPECT_STATUS(r, 200);
	EXPECT_KEYS(r->json, "result", "msg", "attachments", "upload_space_used");
	REQUIRE(json_object_is_type(jget(r->json, "attachments"), json_type_array), "%s: %s", r->what, r->body);
	return r->json;
}

/* The element of GET /attachments' list with that path_id, or NULL. */
static json_object *listed(const struct user *u, const char *path_id)
{
	json_object *a = jget(list(u), "attachments");
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const char *p = jstr(json_object_array_get_idx(a, i), "path_id");
		if (p != NULL && strcmp(p, path_id) == 0)
			return json_object_array_get_idx(a, i);
	}
	return NULL;
}

static struct resp *delete_attachment(const struct user *u, int64_t id)
{
	return api_method("DELETE", u, fmt("/attachments/%lld", (long long)id));
}

/* An attachment object (the reference's Attachment.to_dict) for path_id of size bytes, linked from message_ids
 * (a JSON list text). */
static void expect_attachment(json_object *a, const char *path_id, const char *name, int64_t size,
                              const char *message_ids)
{
	REQUIRE(a != NULL, "no attachment %s", path_id);
	EXPECT_KEYS(a, "id", "name", "path_id", "size", "create_time", "message_ids");
	EXPECT_INT(a, "id", attachment_id(path_id));
	EXPECT_STR(a, "name", name);
	EXPECT_STR(a, "path_id", path_id);
	EXPECT_INT(a, "size", size);
	int64_t created = atoll(psql_ok("SELECT floor(extract(epoch FROM create_time))::bigint FROM attachments "
	                                "WHERE path_id = '%s'",
	                                path_id));
	EXPECT_INT(a, "create_time", created);
	json_object *want = json_tokener_parse(message_ids);
	CHECK(json_object_equal(jget(a, "message_ids"), want), "message_ids %s, want %s", jtext(jget(a, "message_ids")),
	      message_ids);
	json_object_put(want);
}

static const char *self_dm(const struct user *u)
{
	return fmt("[%lld]", (long long)u->id);
}

/* ---- quota ---------------------------------------------------------------------------------------------------- */

static json_object *set_quota(const struct user *u, const char *gb)
{
	json_object *j = ctl((const char *const[]){"set-upload-quota", "--realm", u->realm, "--gb", gb, NULL});
	REQUIRE(j != NULL, "confabctl set-upload-quota --gb %s failed", gb);
	return j;
}

static json_object *quota_mib(const struct user *u)
{
	struct resp *r = api_post(u, "/register", "fetch_event_types=%5B%22realm%22%5D");
	EXPECT_STATUS(r, 200);
	REQUIRE(jhas(r->json, "realm_upload_quota_mib"), "no realm_upload_quota_mib in %s", r->body);
	return jget(r->json, "realm_upload_quota_mib");
}

/* A filler row of realm's owner u making the organization's uploads use all but room bytes of a 1 GiB quota. */
static long long fill_quota(const struct user *u, long long room)
{
	set_quota(u, "1");
	long long realm = atoll(psql_ok("SELECT realm_id FROM users WHERE id = %lld", (long long)u->id));
	psql_ok("INSERT INTO attachments (realm_id, owner_id, path_id, file_name, size) "
	        "VALUES (%lld, %lld, '%lld/quota/filler.bin', 'filler.bin', %lld)",
	        realm, (long long)u->id, realm, GIB - room);
	return realm;
}

/* 1 GiB of quota, of which uploads use all but 10 bytes (a row standing for them): 10 bytes fit, 11 do not. */
static void test_quota_exceeded(void)
{
	struct user *u = new_realm();
	CHECK(quota_mib(u) == NULL, "realm_upload_quota_mib without a quota: %s", jtext(quota_mib(u)));
	EXPECT_INT(set_quota(u, "1"), "upload_quota_gb", 1);
	json_object *mib = quota_mib(u);
	CHECK(json_object_is_type(mib, json_type_int) && json_object_get_int64(mib) == 1024,
	      "realm_upload_quota_mib %s, want 1024", jtext(mib));
	long long realm = fill_quota(u, 15);
	upload_ok(u, "five.txt", "12345");
	EXPECT_INT(list(u), "upload_space_used", GIB - 10);
	EXPECT_ERROR(upload(u, "eleven.txt", "12345678901"), 400, "REALM_UPLOAD_QUOTA", QUOTA_MSG);
	upload_ok(u, "ten.txt", "1234567890");
	EXPECT_ERROR(upload(u, "one.txt", "1"), 400, "REALM_UPLOAD_QUOTA", QUOTA_MSG);
	EXPECT_INT(list(u), "upload_space_used", GIB);

	/* Deleting an upload frees its space. */
	EXPECT_SUCCESS(delete_attachment(u, attachment_id(fmt("%lld/quota/filler.bin", realm))));
	upload_ok(u, "one.txt", "1");

	/* Back to the server's upload_quota_gb (the test stack's: none). */
	json_object *j = set_quota(u, "default");
	CHECK(jis_null(j, "upload_quota_gb"), "upload_quota_gb %s", jtext(j));
	CHECK(quota_mib(u) == NULL, "realm_upload_quota_mib %s, want null", jtext(quota_mib(u)));
}

/* One upload of a burst (arg: struct race): 1400 for REALM_UPLOAD_QUOTA, else the status. */
struct race {
	const struct user *u;
	const char *data;
};
static int race_upload(void *arg, int i)
{
	const struct race *race = arg;
	struct resp *r = upload(race->u, fmt("race%d.txt", i), race->data);
	const char *code = r->json ? jstr(r->json, "code") : NULL;
	return r->status == 400 && code && strcmp(code, "REALM_UPLOAD_QUOTA") == 0 ? 1400 : (int)r->status;
}

#define RACERS 16
/*
 * Concurrent uploads do not overshoot the quota together: with room for one file, RACERS uploads of it at once
 * give one success and RACERS - 1 REALM_UPLOAD_QUOTA, in each of three rounds. Before the last check was
 * serialized (a lock per organization held until COMMIT), each upload checked before the others had committed,
 * and 2 to 4 went in in most rounds.
 */
static void test_quota_concurrent_uploads(void)
{
	for (int round = 0; round < 3; round++) {
		struct user *u = new_realm();
		fill_quota(u, 1 << 20);
		int answers[RACERS], ok = 0, refused = 0;
		itest_burst(RACERS, race_upload, &(struct race){u, repeat('q', 1 << 20)}, answers);
		for (int i = 0; i < RACERS; i++)
			answers[i] == 200 ? ok++ : answers[i] == 1400 ? refused++ : 0;
		CHECK(ok == 1 && refused == RACERS - 1,
		      "round %d: %d of %d concurrent uploads went in, %d refused (room "
		      "for one)",
		      round, ok, RACERS, refused);
		EXPECT_INT(list(u), "upload_space_used", GIB - (1 << 20) + ok * (1LL << 20));
	}
}

/* A quota of 0 GiB refuses every upload; the error is the same for any user of the organization. */
static void test_quota_zero(void)
{
	struct user *u = new_realm();
	struct user *member = new_user_in(u->realm, "member", NULL);
	set_quota(u, "0");
	EXPECT_ERROR(upload(member, "a.txt", "a"), 400, "REALM_UPLOAD_QUOTA", QUOTA_MSG);
	EXPECT_ERROR(upload(u, "a.txt", "a"), 400, "REALM_UPLOAD_QUOTA", QUOTA_MSG);
	CHECK(json_object_array_length(jget(list(member), "attachments")) == 0, "a refused upload was stored");
}

/* ---- GET /attachments --------------------------------------------------------------------------------------- */

static void test_list(void)
{
	struct user *u = new_realm();
	struct user *other = new_user_in(u->realm, "member", NULL);
	json_object *empty = list(u);
	CHECK(json_object_array_length(jget(empty, "attachments")) == 0, "attachments %s", jtext(empty));
	EXPECT_INT(empty, "upload_space_used", 0);

	const char *a = upload_ok(u, "a.txt", "zulip!"), *b = upload_ok(u, "b.txt", "hi");
	upload_ok(other, "other.txt", "1234");
	int64_t mid = send_direct_message(u, self_dm(u), fmt("[a](/user_uploads/%s)", a));
	json_object *l = list(u);
	CHECK(json_object_array_length(jget(l, "attachments")) == 2, "attachments %s", jtext(l));
	/* upload_space_used counts the whole organization's uploads, other users' included. */
	EXPECT_INT(l, "upload_space_used", 12);
	expect_attachment(listed(u, a), a, "a.txt", 6, fmt("[%lld]", (long long)mid));
	expect_attachment(listed(u, b), b, "b.txt", 2, "[]");
	CHECK(listed(other, a) == NULL, "another user's list has the upload");
	CHECK(json_object_array_length(jget(list(other), "attachments")) == 1, "attachments %s", jtext(list(other)));
}

/* ---- DELETE /attachments/{attachment_id} ------------------------------------------------------------------- */

static void test_delete(void)
{
	struct user *u = new_realm();
	struct user *admin = new_user_in(u->realm, "admin", NULL);
	const char *p = upload_ok(u, "gone.txt", "soon gone");
	int64_t id = attachment_id(p);
	int64_t mid = send_direct_message(u, fmt("[%lld,%lld]", (long long)u->id, (long long)admin->id),
	                                  fmt("[gone](/user_uploads/%s)", p));
	EXPECT_STATUS(http(&(struct request){.path = fmt("/user_uploads/%s", p), .user = admin}), 200);

	/* Only the owner may delete it, an administrator no more than anyone else. */
	EXPECT_ERROR(delete_attachment(admin, id), 400, "BAD_REQUEST", "Invalid attachment");
	EXPECT_ERROR(delete_attachment(u, 999999999), 400, "BAD_REQUEST", "Invalid attachment");
	EXPECT_SUCCESS(delete_attachment(u, id));
	CHECK(listed(u, p) == NULL, "a deleted upload is listed");
	EXPECT_ERROR(delete_attachment(u, id), 400, "BAD_REQUEST", "Invalid attachment");

	/* The file is gone for everyone; the message that linked it stays. */
	struct resp *r = http(&(struct request){.path = fmt("/user_uploads/%s", p), .user = u});
	EXPECT_STATUS(r, 404);
	CHECK(strcmp(r->body, NOT_FOUND_HTML) == 0, "body %s", r->body);
	EXPECT_STATUS(http(&(struct request){.path = fmt("/user_uploads/%s", p), .user = admin}), 404);
	EXPECT_STATUS(api_get(u, fmt("/messages/%lld", (long long)mid)), 200);
}

/* A bot and a guest list and delete their own uploads like anyone. */
static void test_delete_by_guest(void)
{
	struct user *u = new_realm();
	struct user *guest = new_user_in(u->realm, "guest", NULL);
	const char *p = upload_ok(guest, "g.txt", "guest");
	expect_attachment(listed(guest, p), p, "g.txt", 5, "[]");
	EXPECT_ERROR(delete_attachment(u, attachment_id(p)), 400, "BAD_REQUEST", "Invalid attachment");
	EXPECT_SUCCESS(delete_attachment(guest, attachment_id(p)));
}

/* ---- events ------------------------------------------------------------------------------------------------- */

/* The one event of events: type attachment, op, upload_space_used; returns its "attachment". */
static json_object *one_event(json_object *events, const char *op, int64_t used)
{
	REQUIRE(json_object_array_length(events) == 1, "events %s", jtext(events));
	json_object *e = json_object_array_get_idx(events, 0);
	EXPECT_KEYS(e, "type", "op", "attachment", "upload_space_used");
	EXPECT_STR(e, "type", "attachment");
	EXPECT_STR(e, "op", op);
	EXPECT_INT(e, "upload_space_used", used);
	return jget(e, "attachment");
}

static void test_events(void)
{
	struct user *u = new_realm();
	struct user *other = new_user_in(u->realm, "member", NULL);
	struct queue *q = queue_register(u, "event_types=%5B%22attachment%22%5D");
	struct queue *qo = queue_register(other, "event_types=%5B%22attachment%22%5D");

	const char *p = upload_ok(u, "e.txt", "event");
	expect_attachment(one_event(queue_drain(q), "add", 5), p, "e.txt", 5, "[]");

	/* A message linking it: "update" with the message's id, to the sender. */
	int64_t mid = send_direct_message(u, self_dm(u), fmt("[e](/user_uploads/%s)", p));
	expect_attachment(one_event(queue_drain(q), "update", 5), p, "e.txt", 5, fmt("[%lld]", (long long)mid));
	/* An edit that links it from one more message: "update" again; one that keeps the link: none. */
	int64_t mid2 = send_direct_message(u, self_dm(u), "no link yet");
	EXPECT_SUCCESS(api_method(
	    "PATCH", u,
	    fmt("/messages/%lld?content=%s", (long long)mid2, url_encode(fmt("[e](/user_uploads/%s) now", p)))));
	expect_attachment(one_event(queue_drain(q), "update", 5), p, "e.txt", 5,
	                  fmt("[%lld,%lld]", (long long)mid, (long long)mid2));
	EXPECT_SUCCESS(api_method(
	    "PATCH", u,
	    fmt("/messages/%lld?content=%s", (long long)mid2, url_encode(fmt("[e](/user_uploads/%s) again", p)))));
	CHECK(json_object_array_length(queue_drain(q)) == 0, "an edit keeping the link sent an attachment event");

	/* Another user who may read it (a direct message to both linked it) and links it: the "update" goes to that
	 * sender, as the reference's do_claim_attachments sends it, not to the owner. */
	int64_t mid3 = send_direct_message(u, fmt("[%lld,%lld]", (long long)u->id, (long long)other->id),
	                                   fmt("[e](/user_uploads/%s)", p));
	expect_attachment(one_event(queue_drain(q), "update", 5), p, "e.txt", 5,
	                  fmt("[%lld,%lld,%lld]", (long long)mid, (long long)mid2, (long long)mid3));
	int64_t mid4 = send_direct_message(other, self_dm(other), fmt("[e](/user_uploads/%s)", p));
	CHECK(json_object_array_length(queue_drain(q)) == 0, "the owner got an event for another sender's message");
	expect_attachment(
	    one_event(queue_drain(qo), "update", 5), p, "e.txt", 5,
	    fmt("[%lld,%lld,%lld,%lld]", (long long)mid, (long long)mid2, (long long)mid3, (long long)mid4));

	int64_t id = attachment_id(p);
	EXPECT_SUCCESS(delete_attachment(u, id));
	json_object *a = one_event(queue_drain(q), "remove", 0);
	EXPECT_KEYS(a, "id");
	EXPECT_INT(a, "id", id);
	CHECK(json_object_array_length(queue_drain(qo)) == 0, "another user got attachment events");
}

/* ---- the reaper --------------------------------------------------------------------------------------------- */

/* Makes path_id's upload older than the reference's 5 weeks of grace. */
static void backdate(const char *path_id)
{
	psql_ok("UPDATE attachments SET create_time = now() - interval '36 days' WHERE path_id = '%s'", path_id);
}

/* Waits (up to 30 s) until the reaper deleted path_id's row; in psql, not through the API, so that the wait cannot
 * use up the rate limit. */
static void await_reaped(const char *path_id)
{
	for (int i = 0; i < 150; i++) {
		if (strcmp(psql_ok("SELECT count(*) FROM attachments WHERE path_id = '%s'", path_id), "0") == 0)
			return;
		usleep(200000);
	}
	REQUIRE(false,
	        "the reaper did not delete %s within 30 s (is CONFAB_ATTACHMENT_CLEANUP_INTERVAL=1 set for the "
	        "stack?)",
	        path_id);
}

/* An upload past the grace period that nothing links goes, row and file, and so does one whose only linking message
 * was deleted; a linked one, one a scheduled message names and a recent one stay. */
static void test_reaper_deletes_unclaimed(void)
{
	struct user *u = new_realm();
	const char *unclaimed = upload_ok(u, "unclaimed.txt", "nobody links me");
	const char *orphaned = upload_ok(u, "orphaned.txt", "my message went");
	const char *linked = upload_ok(u, "linked.txt", "linked");
	const char *scheduled = upload_ok(u, "scheduled.txt", "scheduled");
	const char *recent = upload_ok(u, "recent.txt", "recent");
	send_direct_message(u, self_dm(u), fmt("[l](/user_uploads/%s)", linked));
	int64_t mid = send_direct_message(u, self_dm(u), fmt("[o](/user_uploads/%s)", orphaned));
	EXPECT_SUCCESS(api_method("DELETE", u, fmt("/messages/%lld", (long long)mid)));
	struct resp *r =
	    api_post(u, "/scheduled_messages",
	             fmt("type=direct&to=%s&content=%s&scheduled_delivery_timestamp=%lld", url_encode(self_dm(u)),
	                 url_encode(fmt("[s](/user_uploads/%s)", scheduled)), (long long)time(NULL) + 86400));
	EXPECT_STATUS(r, 200);
	for (const char *const *p = (const char *const[]){unclaimed, orphaned, linked, scheduled, NULL}; *p; p++)
		backdate(*p);

	for (const char *const *p = (const char *const[]){unclaimed, orphaned, NULL}; *p; p++) {
		await_reaped(*p);
		CHECK(listed(u, *p) == NULL, "GET /attachments lists the deleted upload %s", *p);
		r = http(&(struct request){.path = fmt("/user_uploads/%s", *p), .user = u});
		EXPECT_STATUS(r, 404);
		CHECK(strcmp(r->body, NOT_FOUND_HTML) == 0, "body %s", r->body);
	}
	for (const char *const *p = (const char *const[]){linked, scheduled, recent, NULL}; *p; p++) {
		CHECK(listed(u, *p) != NULL, "the reaper deleted %s", *p);
		EXPECT_STATUS(http(&(struct request){.path = fmt("/user_uploads/%s", *p), .user = u}), 200);
	}
	EXPECT_INT(list(u), "upload_space_used", 6 + 9 + 6);
}

void register_attachments_tests(void)
{
	static const struct itest_case cases[] = {
	    {"quota_exceeded", test_quota_exceeded},
	    {"quota_concurrent_uploads", test_quota_concurrent_uploads},
	    {"quota_zero", test_quota_zero},
	    {"list", test_list},
	    {"delete", test_delete},
	    {"delete_by_guest", test_delete_by_guest},
	    {"events", test_events},
	    {"reaper_deletes_unclaimed", test_reaper_deletes_unclaimed},
	    {NULL, NULL},
	};
	itest_add_suite("attachments", cases);
}
