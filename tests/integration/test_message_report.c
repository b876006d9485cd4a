/*
 * POST /messages/{message_id}/report: the parameter checks and their order, the moderation channel, access to the
 * message, and the Notification Bot's report in the moderation channel (read back with GET /messages) for channel
 * messages, 1:1 and group direct messages, and long messages.
 * Reference: Zulip zerver/views/message_report.py, zerver/lib/message_report.py (the "- Reason:" / "- Notes:"
 * format), zerver/lib/typed_endpoint.py (parameter errors) and zerver/tests/test_message_report.py. Each test works
 * in an organization of its own, since the moderation channel is an organization setting.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

static unsigned counter;

static char *name_of(const char *tag)
{
	return fmt("rep-%s-%u-%ld", tag, ++counter, (long)getpid());
}

static int64_t realm_id(const struct user *u)
{
	return atoll(psql_ok("SELECT id FROM realms WHERE subdomain = '%s'", u->realm));
}

static const char *full_name(const struct user *u)
{
	return psql_ok("SELECT full_name FROM users WHERE id = %lld", (long long)u->id);
}

/* The reference's silent mention of u. */
static const char *mention(const struct user *u)
{
	return fmt("@_**%s|%lld**", full_name(u), (long long)u->id);
}

/* Creates a channel as u with the users of principals (a JSON id list) subscribed; returns its id. */
static int64_t make_channel(const struct user *u, const char *name, const char *principals, const char *extra)
{
	char *form =
	    fmt("subscriptions=%s&principals=%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)), url_encode(principals));
	if (extra)
		form = fmt("%s&%s", form, extra);
	struct resp *r = api_post(u, "/users/me/subscriptions", form);
	REQUIRE(r->status == 200, "creating channel %s: %s", name, r->body);
	return atoll(
	    psql_ok("SELECT id FROM channels WHERE realm_id = %lld AND name = '%s'", (long long)realm_id(u), name));
}

/* A private moderation request channel with the owner subscribed, set as the organization's. Returns its name. */
static const char *set_moderation_channel(const struct user *owner)
{
	const char *name = name_of("moderation");
	int64_t id = make_channel(owner, name, fmt("[%lld]", (long long)owner->id), "invite_only=true");
	psql_ok("UPDATE realms SET moderation_request_channel_id = %lld WHERE id = %lld", (long long)id,
	        (long long)realm_id(owner));
	return name;
}

static struct resp *report(const struct user *u, int64_t id, const char *form)
{
	return api_post(u, fmt("/messages/%lld/report", (long long)id), form);
}

/* The messages (oldest first) of the moderation channel's topic for reported, as u reads them (raw content). */
static json_object *reports_about(const struct user *u, const char *channel, const char *topic)
{
	const char *narrow =
	    fmt("[{\"operator\":\"channel\",\"operand\":\"%s\"},{\"operator\":\"topic\",\"operand\":\"%s\"}]", channel,
	        topic);
	struct resp *r =
	    api_get(u, fmt("/messages?anchor=newest&num_before=10&num_after=0&apply_markdown=false&narrow=%s",
	                   url_encode(narrow)));
	EXPECT_SUCCESS(r);
	json_object *list = jget(r->json, "messages");
	REQUIRE(list != NULL, "no messages: %s", r->body);
	return list;
}

/* Checks that the only report in the topic of reported's requests is the Notification Bot's, with this content. */
static void expect_report(const struct user *owner, const char *channel, const struct user *reported,
                          const char *content)
{
	const char *topic = fmt("%s's moderation requests", full_name(reported));
	json_object *list = reports_about(owner, channel, topic);
	REQUIRE(json_object_array_length(list) == 1, "one report expected: %s", jtext(list));
	json_object *m = json_object_array_get_idx(list, 0);
	int64_t bot = atoll(psql_ok("SELECT id FROM users WHERE realm_id = %lld AND delivery_email ="
	                            " 'notification-bot@zulip.com'",
	                            (long long)realm_id(owner)));
	EXPECT_INT(m, "sender_id", bot);
	EXPECT_STR(m, "sender_full_name", "Notification Bot");
	EXPECT_STR(m, "type", "stream");
	EXPECT_STR(m, "display_recipient", channel);
	EXPECT_STR(m, "subject", topic);
	EXPECT_STR(m, "client", "Internal");
	EXPECT_STR(m, "content", content);
}

/* ---- errors ------------------------------------------------------------------------------------------------- */

static void test_report_parameter_errors(void)
{
	struct user *o = new_realm(), *u = new_user_in(o->realm, "member", NULL);
	set_moderation_channel(o);
	const char *ch = name_of("pub");
	make_channel(o, ch, fmt("[%lld]", (long long)o->id), NULL);
	int64_t id = send_channel_message(o, ch, "t", "hello");
	struct resp *r = report(u, id, "");
	EXPECT_ERROR(r, 400, "REQUEST_VARIABLE_MISSING", "Missing 'report_type' argument");
	EXPECT_STR(r->json, "var_name", "report_type");
	EXPECT_ERROR(report(u, id, "report_type=abuse"), 400, "BAD_REQUEST",
	             "Invalid report_type: Value error, Not in the list of possible values");
	/* Keys only, case-sensitively; the display names are not accepted. */
	EXPECT_ERROR(report(u, id, "report_type=Spam"), 400, "BAD_REQUEST",
	             "Invalid report_type: Value error, Not in the list of possible values");
	/* report_type is checked before description. */
	EXPECT_ERROR(report(u, id, fmt("report_type=abuse&description=%s", repeat('x', 1001))), 400, "BAD_REQUEST",
	             "Invalid report_type: Value error, Not in the list of possible values");
	/* 1000 characters (code points, here 2 bytes each) at most. */
	char *long_text = fmt("%s", "");
	for (int i = 0; i < 1001; i++)
		long_text = fmt("%s\xc3\xa9", long_text);
	EXPECT_ERROR(report(u, id, fmt("report_type=spam&description=%s", url_encode(long_text))), 400, "BAD_REQUEST",
	             "description is too long (limit: 1000 characters)");
	EXPECT_ERROR(report(u, id, fmt("report_type=other&description=%s", repeat('x', 1001))), 400, "BAD_REQUEST",
	             "description is too long (limit: 1000 characters)");
	long_text[strlen(long_text) - 2] = '\0';
	EXPECT_SUCCESS(report(u, id, fmt("report_type=norms&description=%s", url_encode(long_text))));
	/* "other" needs an explanation, omitted or empty; white space is one. */
	EXPECT_ERROR(report(u, id, "report_type=other"), 400, "BAD_REQUEST", "An explanation is required.");
	EXPECT_ERROR(report(u, id, "report_type=other&description="), 400, "BAD_REQUEST",
	             "An explanation is required.");
	EXPECT_SUCCESS(report(u, id, "report_type=other&description=%20"));
	/* Every other type may come without one. */
	const char *types[] = {"spam", "harassment", "inappropriate", "norms"};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		r = report(u, id, fmt("report_type=%s", types[i]));
		EXPECT_SUCCESS(r);
		EXPECT_KEYS(r->json, "result", "msg");
	}
}

static void test_report_not_enabled(void)
{
	struct user *o = new_realm(), *u = new_user_in(o->realm, "member", NULL);
	const char *ch = name_of("pub");
	make_channel(o, ch, fmt("[%lld]", (long long)o->id), NULL);
	int64_t id = send_channel_message(o, ch, "t", "hello");
	const char *off = "Message reporting is not enabled in this organization.";
	EXPECT_ERROR(report(u, id, "report_type=spam"), 400, "BAD_REQUEST", off);
	EXPECT_ERROR(report(o, id, "report_type=harassment&description=rude"), 400, "BAD_REQUEST", off);
	/* The parameters are checked first, the message after. */
	EXPECT_ERROR(report(u, id, "report_type=other"), 400, "BAD_REQUEST", "An explanation is required.");
	EXPECT_ERROR(report(u, id, "report_type=abuse"), 400, "BAD_REQUEST",
	             "Invalid report_type: Value error, Not in the list of possible values");
	EXPECT_ERROR(report(u, 999999999999, "report_type=spam"), 400, "BAD_REQUEST", off);
	/* No report was posted anywhere. */
	CHECK(strcmp(psql_ok("SELECT count(*) FROM messages m JOIN users b ON b.id = m.sender_id"
	                     " WHERE m.realm_id = %lld AND b.delivery_email = 'notification-bot@zulip.com'",
	                     (long long)realm_id(o)),
	             "0") == 0,
	      "no report expected");
}

static void test_report_inaccessible_message(void)
{
	struct user *o = new_realm(), *u = new_user_in(o->realm, "member", NULL);
	struct user *a = new_user_in(o->realm, "member", NULL), *b = new_user_in(o->realm, "member", NULL);
	const char *moderation = set_moderation_channel(o);
	const char *bad = "Invalid message(s)";
	EXPECT_ERROR(report(u, 999999999999, "report_type=spam"), 400, "BAD_REQUEST", bad);
	/* A direct message between others. */
	int64_t dm = send_direct_message(a, fmt("[%lld]", (long long)b->id), "between us");
	EXPECT_ERROR(report(u, dm, "report_type=spam"), 400, "BAD_REQUEST", bad);
	/* A private channel u is not subscribed to. */
	const char *priv = name_of("priv");
	make_channel(a, priv, fmt("[%lld]", (long long)a->id), "invite_only=true");
	EXPECT_ERROR(report(u, send_channel_message(a, priv, "t", "secret"), "report_type=spam"), 400, "BAD_REQUEST", bad);
	/* A message of another organization. */
	struct user *other = new_realm();
	const char *ch = name_of("elsewhere");
	make_channel(other, ch, fmt("[%lld]", (long long)other->id), NULL);
	EXPECT_ERROR(report(u, send_channel_message(other, ch, "t", "far away"), "report_type=spam"), 400, "BAD_REQUEST", bad);
	/* Nothing reached the moderation channel. */
	CHECK(strcmp(psql_ok("SELECT count(*) FROM messages m JOIN channels c ON c.id = m.channel_id"
	                     " WHERE c.name = '%s'",
	                     moderation),
	             "0") == 0,
	      "no report expected");
}

/* ---- the report ---------------------------------------------------------------------------------------------- */

static void test_report_channel_message(void)
{
	struct user *o = new_realm(), *u = new_user_in(o->realm, "member", NULL);
	struct user *s = new_user_in(o->realm, "member", NULL);
	const char *moderation = set_moderation_channel(o);
	/* A public channel the reporter is not subscribed to: its messages can be read, so reported. */
	const char *ch = name_of("pub");
	make_channel(s, ch, fmt("[%lld]", (long long)s->id), NULL);
	int64_t id = send_channel_message(s, ch, "civilized discussions", "I squeeze toothpaste from the middle");
	struct resp *r = report(u, id, "report_type=harassment&description=this%20is%20crime%20against%20food");
	EXPECT_SUCCESS(r);
	EXPECT_KEYS(r->json, "result", "msg");
	expect_report(o, moderation, s,
	              fmt("%s reported #**%s>civilized discussions@%lld** sent by %s.\n"
	                  "- Reason: **harassment**\n"
	                  "- Notes:\n"
	                  "```quote\n"
	                  "this is crime against food\n"
	                  "```\n"
	                  "``` spoiler **Message sent by %s**\n"
	                  "I squeeze toothpaste from the middle\n"
	                  "```",
	                  mention(u), ch, (long long)id, mention(s), mention(s)));
	/* A second report goes to the same topic. */
	EXPECT_SUCCESS(report(o, id, "report_type=spam"));
	json_object *list = reports_about(o, moderation, fmt("%s's moderation requests", full_name(s)));
	REQUIRE(json_object_array_length(list) == 2, "two reports expected: %s", jtext(list));
	EXPECT_STR(json_object_array_get_idx(list, 1), "content",
	           fmt("%s reported #**%s>civilized discussions@%lld** sent by %s.\n"
	               "- Reason: **spam**\n"
	               "- Notes:\n"
	               "```quote\n"
	               "\n"
	               "```\n"
	               "``` spoiler **Message sent by %s**\n"
	               "I squeeze toothpaste from the middle\n"
	               "```",
	               mention(o), ch, (long long)id, mention(s), mention(s)));
}

static void test_report_direct_message(void)
{
	struct user *o = new_realm(), *u = new_user_in(o->realm, "member", NULL);
	struct user *s = new_user_in(o->realm, "member", NULL);
	const char *moderation = set_moderation_channel(o);
	int64_t id = send_direct_message(s, fmt("[%lld]", (long long)u->id), "I dip fries in ice cream");
	EXPECT_SUCCESS(report(u, id, "report_type=inappropriate&description=gross"));
	expect_report(o, moderation, s,
	              fmt("%s reported a DM sent by %s.\n"
	                  "- Reason: **inappropriate**\n"
	                  "- Notes:\n"
	                  "```quote\n"
	                  "gross\n"
	                  "```\n"
	                  "``` spoiler **Message sent by %s**\n"
	                  "I dip fries in ice cream\n"
	                  "```",
	                  mention(u), mention(s), mention(s)));
	/* The topic follows the reported user's name; a sender may report their own message, even to themselves. */
	int64_t self = send_direct_message(u, fmt("[%lld]", (long long)u->id), "note to self");
	EXPECT_SUCCESS(report(u, self, "report_type=norms&description=mine"));
	expect_report(o, moderation, u,
	              fmt("%s reported a DM sent by %s.\n"
	                  "- Reason: **norms**\n"
	                  "- Notes:\n"
	                  "```quote\n"
	                  "mine\n"
	                  "```\n"
	                  "``` spoiler **Message sent by %s**\n"
	                  "note to self\n"
	                  "```",
	                  mention(u), mention(u), mention(u)));
}

static void test_report_group_direct_message(void)
{
	struct user *o = new_realm(), *u = new_user_in(o->realm, "member", NULL);
	struct user *s = new_user_in(o->realm, "member", NULL), *x = new_user_in(o->realm, "member", NULL);
	const char *moderation = set_moderation_channel(o);
	int64_t id = send_direct_message(s, fmt("[%lld,%lld]", (long long)x->id, (long long)u->id), "I eat cereal with water");
	EXPECT_SUCCESS(report(u, id, "report_type=other&description=Call%20the%20police%20please"));
	/* Every participant, the sender included, in the order of their ids (u, s, x were created in that order). */
	CHECK(u->id < s->id && s->id < x->id, "ids in creation order");
	expect_report(o, moderation, s,
	              fmt("%s reported a DM sent by %s to %s, %s, and %s.\n"
	                  "- Reason: **other**\n"
	                  "- Notes:\n"
	                  "```quote\n"
	                  "Call the police please\n"
	                  "```\n"
	                  "``` spoiler **Message sent by %s**\n"
	                  "I eat cereal with water\n"
	                  "```",
	                  mention(u), mention(s), mention(u), mention(s), mention(x), mention(s)));
	/* With four participants. */
	struct user *y = new_user_in(o->realm, "member", NULL);
	id = send_direct_message(x, fmt("[%lld,%lld,%lld]", (long long)u->id, (long long)s->id, (long long)y->id), "four of us");
	EXPECT_SUCCESS(report(y, id, "report_type=spam"));
	expect_report(o, moderation, x,
	              fmt("%s reported a DM sent by %s to %s, %s, %s, and %s.\n"
	                  "- Reason: **spam**\n"
	                  "- Notes:\n"
	                  "```quote\n"
	                  "\n"
	                  "```\n"
	                  "``` spoiler **Message sent by %s**\n"
	                  "four of us\n"
	                  "```",
	                  mention(y), mention(x), mention(u), mention(s), mention(x), mention(y), mention(x)));
}

static void test_report_long_message(void)
{
	struct user *o = new_realm(), *u = new_user_in(o->realm, "member", NULL);
	struct user *s = new_user_in(o->realm, "member", NULL);
	const char *moderation = set_moderation_channel(o);
	/* A 70-character name: the topic is truncated to 60 characters as every topic is. */
	psql_ok("UPDATE users SET full_name = '%s' WHERE id = %lld", repeat('N', 70), (long long)s->id);
	const char *ch = name_of("pub");
	make_channel(s, ch, fmt("[%lld,%lld]", (long long)s->id, (long long)u->id), NULL);
	/* 9010 characters (e-acute takes 2 bytes) with a code block: the quote keeps 8500 - 20 of them, then the
	 * truncation notice, and the spoiler's fence is one backtick longer than the message's. */
	char *content = fmt("%s", "```\nx\n```\n"), *kept = NULL;
	for (int i = 0; i < 9000; i++) {
		if (i == 8470)
			kept = fmt("%s", content);
		content = fmt("%s\xc3\xa9", content);
	}
	int64_t id = send_channel_message(s, ch, "long", content);
	EXPECT_SUCCESS(report(u, id, "report_type=spam&description=too%20long"));
	const char *topic = fmt("%s...", repeat('N', 57));
	json_object *list = reports_about(o, moderation, topic);
	REQUIRE(json_object_array_length(list) == 1, "one report expected: %s", jtext(list));
	json_object *m = json_object_array_get_idx(list, 0);
	EXPECT_STR(m, "subject", topic);
	EXPECT_STR(m, "content",
	           fmt("%s reported #**%s>long@%lld** sent by %s.\n"
	               "- Reason: **spam**\n"
	               "- Notes:\n"
	               "```quote\n"
	               "too long\n"
	               "```\n"
	               "```` spoiler **Message sent by %s**\n"
	               "%s\n[message truncated]\n"
	               "````",
	               mention(u), ch, (long long)id, mention(s), mention(s), kept));
	/* 8500 characters exactly are quoted whole. */
	content = fmt("%s", repeat('.', 8500));
	id = send_channel_message(s, ch, "exact", content);
	EXPECT_SUCCESS(report(u, id, "report_type=spam&description=fits"));
	list = reports_about(o, moderation, topic);
	REQUIRE(json_object_array_length(list) == 2, "two reports expected: %s", jtext(list));
	EXPECT_STR(json_object_array_get_idx(list, 1), "content",
	           fmt("%s reported #**%s>exact@%lld** sent by %s.\n"
	               "- Reason: **spam**\n"
	               "- Notes:\n"
	               "```quote\n"
	               "fits\n"
	               "```\n"
	               "``` spoiler **Message sent by %s**\n"
	               "%s\n"
	               "```",
	               mention(u), ch, (long long)id, mention(s), mention(s), content));
}

void register_message_report_tests(void)
{
	static const struct itest_case cases[] = {
	    {"report_parameter_errors", test_report_parameter_errors},
	    {"report_not_enabled", test_report_not_enabled},
	    {"report_inaccessible_message", test_report_inaccessible_message},
	    {"report_channel_message", test_report_channel_message},
	    {"report_direct_message", test_report_direct_message},
	    {"report_group_direct_message", test_report_group_direct_message},
	    {"report_long_message", test_report_long_message},
	    {NULL, NULL},
	};
	itest_add_suite("message_report", cases);
}
