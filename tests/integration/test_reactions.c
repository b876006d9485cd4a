/*
 * Emoji reactions: POST and DELETE /messages/{message_id}/reactions (emoji by name only, by name and code, Zulip's
 * extra emoji, votes for another user's reaction under its name), their errors and their order, access to the
 * message (public channels without a subscription through a historical copy), the reaction events and who gets
 * them, the reactions of Message objects (GET /messages, GET /messages/{id}, message events, edits), and deletion.
 * Reference: zerver/views/reactions.py, zerver/actions/reactions.py, zerver/lib/emoji.py (get_emoji_data,
 * check_emoji_request), zerver/lib/message.py (event_recipient_ids_for_action_on_messages),
 * zerver/tests/test_reactions.py. Each test works in an organization of its own.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *uniq(const char *tag)
{
	return fmt("rx-%s-%u-%ld", tag, ++counter, (long)getpid());
}

/* A channel that u creates with the users of principals (a JSON id list) subscribed; extra form fields or NULL. */
static int64_t make_channel(const struct user *u, const char *principals, const char *extra)
{
	const char *name = uniq("ch");
	char *form =
	    fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)), url_encode(principals));
	if (extra)
		form = fmt("%s&%s", form, extra);
	EXPECT_SUCCESS(api_post(u, "/users/me/subscriptions", form));
	int64_t id = atoll(psql_ok("SELECT id FROM channels WHERE name = '%s'", name));
	REQUIRE(id > 0, "channel %s", name);
	return id;
}

static const char *channel_name(int64_t id)
{
	return psql_ok("SELECT name FROM channels WHERE id = %lld", (long long)id);
}

static int64_t send_to(const struct user *u, int64_t channel, const char *content)
{
	return send_channel_message(u, channel_name(channel), "reactions", content);
}

static struct resp *react(const struct user *u, int64_t message_id, const char *form)
{
	return api_post(u, fmt("/messages/%lld/reactions", (long long)message_id), form);
}

static struct resp *unreact(const struct user *u, int64_t message_id, const char *form)
{
	return http(&(struct request){.method = "DELETE",
	                              .path = fmt("/api/v1/messages/%lld/reactions", (long long)message_id),
	                              .user = u,
	                              .form = form});
}

/* The message as u reads it with GET /messages/{id}. */
static json_object *message_of(const struct user *u, int64_t id)
{
	struct resp *r = api_get(u, fmt("/messages/%lld", (long long)id));
	EXPECT_SUCCESS(r);
	json_object *m = jget(r->json, "message");
	REQUIRE(m != NULL, "no message: %s", r->body);
	return m;
}

static void expect_json_at(json_object *got, const char *want, const char *file, int line)
{
	json_object *w = json_tokener_parse(want);
	itest_check(w != NULL, true, file, line, "bad expected JSON: %s", want);
	itest_check(json_object_equal(got, w), false, file, line, "expected %s\n      got %s", want, jtext(got));
	json_object_put(w);
}
#define EXPECT_JSON(got, want) expect_json_at((got), (want), __FILE__, __LINE__)

/* The reactions of message id as u sees them equal want (a JSON list text). */
#define EXPECT_REACTIONS(u, id, want) EXPECT_JSON(jget(message_of((u), (id)), "reactions"), (want))

static const char *reaction_json(const char *name, const char *code, const char *type, const struct user *u)
{
	return fmt("{\"emoji_name\":\"%s\",\"emoji_code\":\"%s\",\"reaction_type\":\"%s\",\"user_id\":%lld}", name, code,
	           type, (long long)u->id);
}

static long long reaction_rows(int64_t message_id)
{
	return atoll(psql_ok("SELECT count(*) FROM reactions WHERE message_id = %lld", (long long)message_id));
}

/* The reaction event of u (as GET /users/{id} shows u's API address and name to viewer). */
static const char *event_json(const struct user *viewer, const char *op, const struct user *u, int64_t message_id,
                              const char *name, const char *code, const char *type)
{
	struct resp *r = api_get(viewer, fmt("/users/%lld", (long long)u->id));
	EXPECT_SUCCESS(r);
	json_object *user = jget(r->json, "user");
	return fmt("{\"type\":\"reaction\",\"op\":\"%s\",\"user_id\":%lld,\"user\":{\"user_id\":%lld,\"email\":\"%s\","
	           "\"full_name\":\"%s\"},\"message_id\":%lld,\"emoji_name\":\"%s\",\"emoji_code\":\"%s\","
	           "\"reaction_type\":\"%s\"}",
	           op, (long long)u->id, (long long)u->id, jstr(user, "email"), jstr(user, "full_name"),
	           (long long)message_id, name, code, type);
}

static struct queue *reaction_queue(const struct user *u)
{
	return queue_register(u, fmt("event_types=%s", url_encode("[\"reaction\"]")));
}

/* ---- adding and removing ------------------------------------------------------------------------------------ */

/* By name only: the code and type come from the name; removing by name finds the unicode_emoji reaction. */
static void test_reactions_by_name(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	int64_t ch = make_channel(o, fmt("[%lld,%lld]", (long long)o->id, (long long)a->id), NULL);
	int64_t id = send_to(o, ch, "react to me");
	EXPECT_REACTIONS(a, id, "[]");
	struct resp *r = react(a, id, "emoji_name=octopus");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg");
	EXPECT_REACTIONS(a, id, fmt("[%s]", reaction_json("octopus", "1f419", "unicode_emoji", a)));
	EXPECT_REACTIONS(o, id, fmt("[%s]", reaction_json("octopus", "1f419", "unicode_emoji", a)));
	EXPECT_SUCCESS(react(o, id, "emoji_name=octopus"));
	EXPECT_SUCCESS(react(o, id, "emoji_name=zulip"));
	EXPECT_REACTIONS(a, id,
	                 fmt("[%s,%s,%s]", reaction_json("octopus", "1f419", "unicode_emoji", a),
	                     reaction_json("octopus", "1f419", "unicode_emoji", o),
	                     reaction_json("zulip", "zulip", "zulip_extra_emoji", o)));
	r = unreact(a, id, "emoji_name=octopus");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg");
	EXPECT_REACTIONS(a, id,
	                 fmt("[%s,%s]", reaction_json("octopus", "1f419", "unicode_emoji", o),
	                     reaction_json("zulip", "zulip", "zulip_extra_emoji", o)));
	/* The name gives the code, not the type: zulip is not a unicode_emoji reaction. */
	EXPECT_ERROR(unreact(o, id, "emoji_name=zulip"), 400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
	EXPECT_SUCCESS(unreact(o, id, "emoji_name=zulip&reaction_type=zulip_extra_emoji"));
	/* By code only. */
	EXPECT_SUCCESS(unreact(o, id, "emoji_code=1f419"));
	EXPECT_REACTIONS(a, id, "[]");
	CHECK(reaction_rows(id) == 0, "rows left");
}

/* By name, code and type; the type alone or the code alone completes from the name. */
static void test_reactions_explicit(void)
{
	struct user *o = new_realm();
	int64_t id = send_direct_message(o, fmt("[%lld]", (long long)o->id), "note to self");
	EXPECT_SUCCESS(react(o, id, "emoji_name=%2B1&emoji_code=1f44d&reaction_type=unicode_emoji"));
	EXPECT_SUCCESS(react(o, id, "emoji_name=zulip&emoji_code=zulip&reaction_type=zulip_extra_emoji"));
	EXPECT_SUCCESS(react(o, id, "emoji_name=heart&reaction_type=unicode_emoji"));
	EXPECT_SUCCESS(react(o, id, "emoji_name=tada&emoji_code=1f389"));
	EXPECT_REACTIONS(o, id,
	                 fmt("[%s,%s,%s,%s]", reaction_json("+1", "1f44d", "unicode_emoji", o),
	                     reaction_json("zulip", "zulip", "zulip_extra_emoji", o),
	                     reaction_json("heart", "2764", "unicode_emoji", o),
	                     reaction_json("tada", "1f389", "unicode_emoji", o)));
	EXPECT_SUCCESS(unreact(o, id, "emoji_code=1f44d&reaction_type=unicode_emoji"));
	EXPECT_SUCCESS(unreact(o, id, "emoji_code=zulip&reaction_type=zulip_extra_emoji"));
	EXPECT_SUCCESS(unreact(o, id, "emoji_name=nonsense&emoji_code=2764")); /* the code wins; the name is unused */
	EXPECT_REACTIONS(o, id, fmt("[%s]", reaction_json("tada", "1f389", "unicode_emoji", o)));
}

/* Another user's reaction with the same code and type: a vote for it, under its name, whatever name is sent. */
static void test_reactions_vote_takes_existing_name(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct user *b = new_user_in(o->realm, "member", NULL);
	int64_t ch = make_channel(o, fmt("[%lld,%lld,%lld]", (long long)o->id, (long long)a->id, (long long)b->id), NULL);
	int64_t id = send_to(o, ch, "vote");
	EXPECT_SUCCESS(react(a, id, "emoji_name=%2B1"));
	struct queue *q = reaction_queue(o);
	/* Not a valid name for 1f44d, and not checked: the existing reaction's name is taken. */
	EXPECT_SUCCESS(react(b, id, "emoji_name=not_an_emoji&emoji_code=1f44d&reaction_type=unicode_emoji"));
	EXPECT_EVENTS(q, fmt("[%s]", event_json(o, "add", b, id, "+1", "1f44d", "unicode_emoji")));
	EXPECT_REACTIONS(o, id,
	                 fmt("[%s,%s]", reaction_json("+1", "1f44d", "unicode_emoji", a),
	                     reaction_json("+1", "1f44d", "unicode_emoji", b)));
	/* Without another reaction the same request is checked. */
	EXPECT_ERROR(react(o, id, "emoji_name=not_an_emoji&emoji_code=1f419&reaction_type=unicode_emoji"), 400,
	             "BAD_REQUEST", "Invalid emoji name.");
	/* Removing b's vote removes only b's, under the name stored. */
	EXPECT_SUCCESS(unreact(b, id, "emoji_code=1f44d"));
	EXPECT_EVENTS(q, fmt("[%s]", event_json(o, "remove", b, id, "+1", "1f44d", "unicode_emoji")));
	EXPECT_REACTIONS(o, id, fmt("[%s]", reaction_json("+1", "1f44d", "unicode_emoji", a)));
}

/* ---- errors ------------------------------------------------------------------------------------------------- */

static void test_reactions_add_errors(void)
{
	struct user *o = new_realm();
	int64_t ch = make_channel(o, fmt("[%lld]", (long long)o->id), NULL);
	int64_t id = send_to(o, ch, "errors");
	struct resp *r = react(o, id, "emoji_code=1f419");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'emoji_name' argument");
	EXPECT_STR(r->json, "var_name", "emoji_name");
	EXPECT_ERROR(react(o, id, "emoji_name=no_such_emoji"), 400, "BAD_REQUEST", "Emoji 'no_such_emoji' does not exist");
	EXPECT_ERROR(react(o, id, "emoji_name="), 400, "BAD_REQUEST", "Emoji '' does not exist");
	EXPECT_ERROR(react(o, id, "emoji_name=no_such_emoji&reaction_type=unicode_emoji"), 400, "BAD_REQUEST",
	             "Emoji 'no_such_emoji' does not exist");
	EXPECT_ERROR(react(o, id, "emoji_name=octopus&emoji_code=ffffff&reaction_type=unicode_emoji"), 400, "BAD_REQUEST",
	             "Invalid emoji code.");
	EXPECT_ERROR(react(o, id, "emoji_name=octopus&emoji_code=1f44d&reaction_type=unicode_emoji"), 400, "BAD_REQUEST",
	             "Invalid emoji name.");
	/* The type from the name, the code as sent. */
	EXPECT_ERROR(react(o, id, "emoji_name=octopus&emoji_code=1f44d"), 400, "BAD_REQUEST", "Invalid emoji name.");
	EXPECT_ERROR(react(o, id, "emoji_name=zulip&emoji_code=octopus&reaction_type=zulip_extra_emoji"), 400,
	             "BAD_REQUEST", "Invalid emoji code.");
	EXPECT_ERROR(react(o, id, "emoji_name=octopus&emoji_code=zulip&reaction_type=zulip_extra_emoji"), 400,
	             "BAD_REQUEST", "Invalid emoji name.");
	EXPECT_ERROR(react(o, id, "emoji_name=octopus&emoji_code=1f419&reaction_type=emoji"), 400, "BAD_REQUEST",
	             "Invalid emoji type.");
	/* No custom emoji has this id. */
	EXPECT_ERROR(react(o, id, "emoji_name=octopus&emoji_code=987654321&reaction_type=realm_emoji"), 400,
	             "BAD_REQUEST", "Invalid custom emoji.");
	EXPECT_ERROR(react(o, 987654321987LL, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	/* Access comes first, then the name. */
	EXPECT_ERROR(react(o, 987654321987LL, "emoji_name=no_such_emoji"), 400, "BAD_REQUEST", "Invalid message(s)");
	CHECK(reaction_rows(id) == 0, "a refused request added a reaction");
	EXPECT_SUCCESS(react(o, id, "emoji_name=octopus"));
	EXPECT_ERROR(react(o, id, "emoji_name=octopus"), 400, "REACTION_ALREADY_EXISTS", "Reaction already exists.");
	/* The same code and type, whatever the name (checked before the name). */
	EXPECT_ERROR(react(o, id, "emoji_name=no_such_emoji&emoji_code=1f419&reaction_type=unicode_emoji"), 400,
	             "REACTION_ALREADY_EXISTS", "Reaction already exists.");
	CHECK(reaction_rows(id) == 1, "one reaction expected");
}

static void test_reactions_remove_errors(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	int64_t ch = make_channel(o, fmt("[%lld,%lld]", (long long)o->id, (long long)a->id), NULL);
	int64_t id = send_to(o, ch, "errors");
	EXPECT_SUCCESS(react(a, id, "emoji_name=octopus"));
	EXPECT_ERROR(unreact(o, id, ""), 400, "BAD_REQUEST",
	             "At least one of the following arguments must be present: emoji_name, emoji_code");
	EXPECT_ERROR(unreact(o, id, "reaction_type=unicode_emoji"), 400, "BAD_REQUEST",
	             "At least one of the following arguments must be present: emoji_name, emoji_code");
	EXPECT_ERROR(unreact(o, id, "emoji_name=no_such_emoji"), 400, "BAD_REQUEST",
	             "Emoji 'no_such_emoji' does not exist");
	/* Only one's own reaction. */
	EXPECT_ERROR(unreact(o, id, "emoji_name=octopus"), 400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
	EXPECT_ERROR(unreact(a, id, "emoji_code=1f419&reaction_type=realm_emoji"), 400, "REACTION_DOES_NOT_EXIST",
	             "Reaction doesn't exist.");
	EXPECT_ERROR(unreact(a, id, "emoji_code=1f419&reaction_type=nonsense"), 400, "REACTION_DOES_NOT_EXIST",
	             "Reaction doesn't exist.");
	EXPECT_ERROR(unreact(a, 987654321987LL, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	EXPECT_ERROR(unreact(a, 987654321987LL, ""), 400, "BAD_REQUEST", "Invalid message(s)");
	CHECK(reaction_rows(id) == 1, "a refused request removed a reaction");
	EXPECT_SUCCESS(unreact(a, id, "emoji_name=octopus"));
	EXPECT_ERROR(unreact(a, id, "emoji_name=octopus"), 400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
}

/* ---- access ------------------------------------------------------------------------------------------------- */

/* The reference's access_message with is_modifying_message: public channels for non-guests (a historical, read copy
 * is made), private channels for subscribers (protected history: only messages they received), direct messages for
 * their participants, no archived channel. */
static void test_reactions_access(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct user *c = new_user_in(o->realm, "member", NULL), *g = new_user_in(o->realm, "guest", NULL);
	int64_t pub = make_channel(o, fmt("[%lld]", (long long)o->id), NULL);
	int64_t id = send_to(o, pub, "public");
	EXPECT_STR_LIST(message_of(c, id), "flags", "read", "historical");
	EXPECT_SUCCESS(react(c, id, "emoji_name=octopus"));
	/* c's copy now exists: historical and read (flags 1 | 128 in the database). */
	CHECK(strcmp(psql_ok("SELECT flags FROM user_messages WHERE user_id = %lld AND message_id = %lld",
	                     (long long)c->id, (long long)id),
	             "129") == 0,
	      "historical copy expected");
	EXPECT_STR_LIST(message_of(c, id), "flags", "read", "historical");
	EXPECT_ERROR(react(g, id, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	int64_t priv = make_channel(o, fmt("[%lld,%lld]", (long long)o->id, (long long)a->id), "invite_only=true");
	int64_t pid = send_to(o, priv, "private");
	EXPECT_ERROR(react(c, pid, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	EXPECT_SUCCESS(react(a, pid, "emoji_name=octopus"));
	int64_t dm = send_direct_message(o, fmt("[%lld]", (long long)a->id), "direct");
	EXPECT_ERROR(react(c, dm, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	EXPECT_ERROR(unreact(c, dm, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	EXPECT_SUCCESS(react(a, dm, "emoji_name=octopus"));
	CHECK(reaction_rows(pid) == 1 && reaction_rows(dm) == 1, "refused reactions were stored");
	/* Protected history: a subscriber who joined later may not react to what came before. */
	int64_t prot = make_channel(o, fmt("[%lld]", (long long)o->id),
	                            "invite_only=true&history_public_to_subscribers=false");
	int64_t before = send_to(o, prot, "before");
	EXPECT_SUCCESS(api_post(o, "/users/me/subscriptions",
	                        fmt("subscriptions=%s&principals=%s",
	                            url_encode(fmt("[{\"name\":\"%s\"}]", channel_name(prot))),
	                            url_encode(fmt("[%lld]", (long long)a->id)))));
	int64_t after = send_to(o, prot, "after");
	EXPECT_ERROR(react(a, before, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	EXPECT_SUCCESS(react(a, after, "emoji_name=octopus"));
	/* Archived channels: no new reactions, none removed. */
	EXPECT_SUCCESS(api_method("DELETE", o, fmt("/streams/%lld", (long long)pub)));
	EXPECT_ERROR(react(o, id, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	EXPECT_ERROR(unreact(c, id, "emoji_name=octopus"), 400, "BAD_REQUEST", "Invalid message(s)");
	CHECK(reaction_rows(id) == 1, "archived channel's reaction changed");
}

/* ---- events ------------------------------------------------------------------------------------------------- */

/* Public channel: the subscribers and the non-guests who have a copy (a former subscriber, a user who reacted
 * without subscribing), never a guest without access. */
static void test_reactions_events_public(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct user *p = new_user_in(o->realm, "member", NULL), *c = new_user_in(o->realm, "member", NULL);
	struct user *g = new_user_in(o->realm, "guest", NULL);
	int64_t ch = make_channel(o, fmt("[%lld,%lld,%lld]", (long long)o->id, (long long)a->id, (long long)p->id), NULL);
	int64_t id = send_to(o, ch, "events");
	struct resp *r = http(&(struct request){.method = "DELETE", .path = "/api/v1/users/me/subscriptions", .user = p,
	                                        .form = fmt("subscriptions=%s", url_encode(fmt("[\"%s\"]",
	                                                                                        channel_name(ch))))});
	EXPECT_SUCCESS(r);
	struct queue *qo = reaction_queue(o), *qa = reaction_queue(a), *qp = reaction_queue(p);
	struct queue *qc = reaction_queue(c), *qg = reaction_queue(g);
	EXPECT_SUCCESS(react(a, id, "emoji_name=octopus"));
	const char *add_a = fmt("[%s]", event_json(o, "add", a, id, "octopus", "1f419", "unicode_emoji"));
	EXPECT_EVENTS(qo, add_a);
	EXPECT_EVENTS(qa, add_a);
	EXPECT_EVENTS(qp, add_a);
	EXPECT_NO_EVENTS(qc);
	EXPECT_NO_EVENTS(qg);
	/* c reacts without subscribing: c has a copy now, and hears of it. */
	EXPECT_SUCCESS(react(c, id, "emoji_name=zulip"));
	const char *add_c = fmt("[%s]", event_json(o, "add", c, id, "zulip", "zulip", "zulip_extra_emoji"));
	EXPECT_EVENTS(qo, add_c);
	EXPECT_EVENTS(qa, add_c);
	EXPECT_EVENTS(qp, add_c);
	EXPECT_EVENTS(qc, add_c);
	EXPECT_NO_EVENTS(qg);
	EXPECT_SUCCESS(unreact(a, id, "emoji_code=1f419"));
	const char *rm_a = fmt("[%s]", event_json(o, "remove", a, id, "octopus", "1f419", "unicode_emoji"));
	EXPECT_EVENTS(qo, rm_a);
	EXPECT_EVENTS(qa, rm_a);
	EXPECT_EVENTS(qp, rm_a);
	EXPECT_EVENTS(qc, rm_a);
	EXPECT_NO_EVENTS(qg);
}

/* Private channels: the subscribers; direct messages: the participants. */
static void test_reactions_events_private_and_direct(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	struct user *b = new_user_in(o->realm, "member", NULL), *c = new_user_in(o->realm, "member", NULL);
	int64_t ch = make_channel(o, fmt("[%lld,%lld]", (long long)o->id, (long long)a->id), "invite_only=true");
	int64_t id = send_to(o, ch, "private");
	int64_t dm = send_direct_message(a, fmt("[%lld]", (long long)b->id), "direct");
	struct queue *qo = reaction_queue(o), *qa = reaction_queue(a), *qb = reaction_queue(b);
	struct queue *qc = reaction_queue(c);
	EXPECT_SUCCESS(react(a, id, "emoji_name=tada"));
	const char *ev = fmt("[%s]", event_json(o, "add", a, id, "tada", "1f389", "unicode_emoji"));
	EXPECT_EVENTS(qo, ev);
	EXPECT_EVENTS(qa, ev);
	EXPECT_NO_EVENTS(qb);
	EXPECT_NO_EVENTS(qc);
	EXPECT_SUCCESS(react(b, dm, "emoji_name=tada"));
	ev = fmt("[%s]", event_json(o, "add", b, dm, "tada", "1f389", "unicode_emoji"));
	EXPECT_EVENTS(qa, ev);
	EXPECT_EVENTS(qb, ev);
	EXPECT_NO_EVENTS(qo);
	EXPECT_NO_EVENTS(qc);
}

/* ---- Message objects ---------------------------------------------------------------------------------------- */

/* GET /messages: each message with its own reactions, oldest first; a new message's event has none; an edit keeps
 * them. */
static void test_reactions_in_messages(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	int64_t ch = make_channel(o, fmt("[%lld,%lld]", (long long)o->id, (long long)a->id), NULL);
	struct queue *q = queue_register(a, fmt("event_types=%s", url_encode("[\"message\"]")));
	int64_t m1 = send_to(o, ch, "one"), m2 = send_to(o, ch, "two"), m3 = send_to(o, ch, "three");
	json_object *events = queue_drain(q);
	REQUIRE(json_object_array_length(events) == 3, "three message events: %s", jtext(events));
	for (size_t i = 0; i < 3; i++)
		EXPECT_JSON(jget(jget(json_object_array_get_idx(events, i), "message"), "reactions"), "[]");
	EXPECT_SUCCESS(react(a, m3, "emoji_name=tada"));
	EXPECT_SUCCESS(react(o, m1, "emoji_name=heart"));
	EXPECT_SUCCESS(react(a, m1, "emoji_name=zulip"));
	EXPECT_SUCCESS(react(a, m1, "emoji_name=heart"));
	const char *narrow = fmt("[{\"operator\":\"channel\",\"operand\":%lld}]", (long long)ch);
	struct resp *r = api_get(o, fmt("/messages?anchor=oldest&num_before=0&num_after=10&narrow=%s", url_encode(narrow)));
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "messages");
	REQUIRE(json_object_array_length(list) == 3, "three messages: %s", r->body);
	CHECK(jint(json_object_array_get_idx(list, 0), "id") == m1 && jint(json_object_array_get_idx(list, 1), "id") == m2,
	      "order: %s", r->body);
	EXPECT_JSON(jget(json_object_array_get_idx(list, 0), "reactions"),
	            fmt("[%s,%s,%s]", reaction_json("heart", "2764", "unicode_emoji", o),
	                reaction_json("zulip", "zulip", "zulip_extra_emoji", a),
	                reaction_json("heart", "2764", "unicode_emoji", a)));
	EXPECT_JSON(jget(json_object_array_get_idx(list, 1), "reactions"), "[]");
	EXPECT_JSON(jget(json_object_array_get_idx(list, 2), "reactions"),
	            fmt("[%s]", reaction_json("tada", "1f389", "unicode_emoji", a)));
	/* Edits keep them. */
	EXPECT_SUCCESS(http(&(struct request){.method = "PATCH", .path = fmt("/api/v1/messages/%lld", (long long)m3),
	                                      .user = o, .form = "content=edited&topic=moved"}));
	EXPECT_REACTIONS(a, m3, fmt("[%s]", reaction_json("tada", "1f389", "unicode_emoji", a)));
}

/* The narrow has:reaction (the reference's by_has: a reaction row exists), and its negation. */
static void test_reactions_has_reaction_narrow(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	int64_t ch = make_channel(o, fmt("[%lld,%lld]", (long long)o->id, (long long)a->id), NULL);
	int64_t m1 = send_to(o, ch, "one"), m2 = send_to(o, ch, "two"), m3 = send_to(o, ch, "three");
	EXPECT_SUCCESS(react(a, m1, "emoji_name=tada"));
	EXPECT_SUCCESS(react(a, m3, "emoji_name=tada"));
	EXPECT_SUCCESS(react(o, m3, "emoji_name=tada"));
	const char *narrows[] = {
	    fmt("[{\"operator\":\"channel\",\"operand\":%lld},{\"operator\":\"has\",\"operand\":\"reaction\"}]",
	        (long long)ch),
	    fmt("[{\"operator\":\"channel\",\"operand\":%lld},{\"operator\":\"has\",\"operand\":\"reaction\","
	        "\"negated\":true}]",
	        (long long)ch),
	};
	const char *want[] = {fmt("[%lld,%lld]", (long long)m1, (long long)m3), fmt("[%lld]", (long long)m2)};
	for (int i = 0; i < 2; i++) {
		struct resp *r = api_get(
		    a, fmt("/messages?anchor=newest&num_before=10&num_after=0&narrow=%s", url_encode(narrows[i])));
		EXPECT_SUCCESS(r);
		json_object *ids = json_object_new_array();
		json_object *list = jget(r->json, "messages");
		for (size_t k = 0; k < json_object_array_length(list); k++)
			json_object_array_add(ids, json_object_new_int64(jint(json_object_array_get_idx(list, k), "id")));
		EXPECT_JSON(ids, want[i]);
		json_object_put(ids);
	}
	/* Removing the last reaction takes m1 out of it. */
	EXPECT_SUCCESS(unreact(a, m1, "emoji_name=tada"));
	struct resp *r =
	    api_get(a, fmt("/messages?anchor=newest&num_before=10&num_after=0&narrow=%s", url_encode(narrows[0])));
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "messages");
	CHECK(json_object_array_length(list) == 1 && jint(json_object_array_get_idx(list, 0), "id") == m3,
	      "has:reaction after removal: %s", r->body);
}

/* ---- deletion ----------------------------------------------------------------------------------------------- */

/* A deleted message's reactions go with it, by DELETE /messages/{id} and by retention. */
static void test_reactions_deleted_message(void)
{
	struct user *o = new_realm(), *a = new_user_in(o->realm, "member", NULL);
	int64_t ch = make_channel(o, fmt("[%lld,%lld]", (long long)o->id, (long long)a->id), NULL);
	int64_t id = send_to(o, ch, "doomed"), old = send_to(o, ch, "old");
	EXPECT_SUCCESS(react(a, id, "emoji_name=octopus"));
	EXPECT_SUCCESS(react(o, id, "emoji_name=octopus"));
	EXPECT_SUCCESS(react(a, old, "emoji_name=octopus"));
	CHECK(reaction_rows(id) == 2 && reaction_rows(old) == 1, "reactions stored");
	EXPECT_SUCCESS(api_method("DELETE", o, fmt("/messages/%lld", (long long)id)));
	CHECK(reaction_rows(id) == 0, "reactions of a deleted message remain");
	EXPECT_ERROR(react(a, id, "emoji_name=tada"), 400, "BAD_REQUEST", "Invalid message(s)");
	psql_ok("UPDATE channels SET message_retention_days = 1 WHERE id = %lld", (long long)ch);
	psql_ok("UPDATE messages SET date_sent = now() - interval '3 days' WHERE id = %lld", (long long)old);
	json_object *j = ctl((const char *const[]){"retention-run", NULL});
	REQUIRE(j != NULL && jint(j, "deleted") >= 1, "retention-run: %s", jtext(j));
	CHECK(reaction_rows(old) == 0, "reactions of an expired message remain");
}

void register_reactions_tests(void)
{
	static const struct itest_case cases[] = {
	    {"by_name", test_reactions_by_name},
	    {"explicit", test_reactions_explicit},
	    {"vote_takes_existing_name", test_reactions_vote_takes_existing_name},
	    {"add_errors", test_reactions_add_errors},
	    {"remove_errors", test_reactions_remove_errors},
	    {"access", test_reactions_access},
	    {"events_public", test_reactions_events_public},
	    {"events_private_and_direct", test_reactions_events_private_and_direct},
	    {"in_messages", test_reactions_in_messages},
	    {"has_reaction_narrow", test_reactions_has_reaction_narrow},
	    {"deleted_message", test_reactions_deleted_message},
	    {NULL, NULL},
	};
	itest_add_suite("reactions", cases);
}
