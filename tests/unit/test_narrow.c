/*
 * Narrows: the JSON a client sends in, the SQL parameters of the fetch statements out, and every error, with the
 * organization's lookups faked (no database).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/uow.h"
#include "model/channels.h"
#include "model/messages.h"
#include "model/narrow.h"
#include "model/realm.h"
#include "model/user.h"
#include "unit.h"

/* ---- a fake organization ------------------------------------------------------------------------------------
 * Users: 10 (the requesting user, me@x), 11 (iago@x), 12 (hamlet@x). Channels: 5 Denmark (public), 6 secret
 * (private, history public to subscribers, the user may read it), 7 Verona (public, history protected).
 * Conversations: {10} 102, {10, 11} 100, {10, 11, 12} 101. Messages: 500 in Denmark > lunch, 501 in {10, 11},
 * 502 not readable; 666 makes the lookup fail. A channel named FAIL or user fail@x fails too. */

static struct realm realm = {.id = 1, .subdomain = "zulip"};
static struct user me = {.id = 10, .realm_id = 1, .role = ROLE_MEMBER, .is_active = true};
static struct channel channels[] = {
    {.id = 5, .name = "Denmark", .content_access = true},
    {.id = 6, .name = "secret", .invite_only = true, .history_public_to_subscribers = true, .content_access = true},
    {.id = 7, .name = "Verona", .content_access = false},
};
static const char *const emails[] = {"me@x", "iago@x", "hamlet@x"}; /* users 10, 11, 12 */

static const struct channel *fake_channel(struct uow *uow, json_object *operand)
{
	bool by_id = json_object_is_type(operand, json_type_int);
	if (!by_id && strcmp(json_object_get_string(operand), "FAIL") == 0) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(channels) / sizeof(*channels); i++)
		if (by_id ? channels[i].id == json_object_get_int64(operand)
		          : strcasecmp(channels[i].name, json_object_get_string(operand)) == 0)
			return &channels[i];
	return NULL;
}

static int64_t fake_user_by_email(const char *email)
{
	for (int i = 0; i < 3; i++)
		if (strcasecmp(emails[i], email) == 0)
			return 10 + i;
	return 0;
}

static int64_t fake_user(struct uow *uow, json_object *operand)
{
	if (json_object_is_type(operand, json_type_int)) {
		int64_t id = json_object_get_int64(operand);
		return id >= 10 && id <= 12 ? id : 0;
	}
	if (strcmp(json_object_get_string(operand), "fail@x") == 0) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return 0;
	}
	return fake_user_by_email(json_object_get_string(operand));
}

/* An id list, or e-mail addresses separated by commas; ascending, as message_resolve_direct gives them. */
static int fake_dm_users(struct uow *uow, json_object *operand, int64_t **ids, int *n)
{
	*ids = arena_alloc(&uow->arena, 16 * sizeof(**ids));
	*n = 0;
	if (json_object_is_type(operand, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(operand) && *n < 16; i++)
			(*ids)[(*n)++] = json_object_get_int64(json_object_array_get_idx(operand, i));
	} else {
		char *s = arena_strdup(&uow->arena, json_object_get_string(operand)), *save = NULL;
		for (char *e = strtok_r(s, ",", &save); e && *n < 16; e = strtok_r(NULL, ",", &save))
			(*ids)[(*n)++] = fake_user_by_email(e);
	}
	for (int i = 0; i < *n; i++)
		if ((*ids)[i] < 10 || (*ids)[i] > 12)
			return 1;
	for (int i = 1; i < *n; i++) /* insertion sort: a handful of ids */
		for (int j = i; j > 0 && (*ids)[j - 1] > (*ids)[j]; j--) {
			int64_t t = (*ids)[j];
			(*ids)[j] = (*ids)[j - 1];
			(*ids)[j - 1] = t;
		}
	return 0;
}

static int64_t fake_conversation(struct uow *uow, const int64_t *ids, int n)
{
	(void)uow;
	if (n == 1 && ids[0] == 10)
		return 102;
	if (n == 2 && ids[0] == 10 && ids[1] == 11)
		return 100;
	if (n == 3 && ids[0] == 10 && ids[1] == 11 && ids[2] == 12)
		return 101;
	return 0;
}

static int fake_with_target(struct uow *uow, int64_t id, struct narrow_conversation *out)
{
	if (id == 666)
		return uow_error(uow, ERR_INTERNAL, NULL);
	if (id == 500) {
		*out = (struct narrow_conversation){.channel_id = 5, .topic = "lunch"};
		return 1;
	}
	if (id == 501) {
		out->channel_id = 0;
		out->dm_user_ids = uow_own_json(uow, json_tokener_parse("[10, 11]"));
		return 1;
	}
	return 0;
}

static const struct narrow_lookup lookup = {fake_channel, fake_user, fake_dm_users, fake_conversation,
                                            fake_with_target};

/* ---- harness ------------------------------------------------------------------------------------------------ */

static struct uow work;
static struct narrow *nw;
static struct narrow_sql sql;
static const char *p[NARROW_SQL_PARAMS];

/* Parses the narrow json (NULL: no narrow); returns "" and fills nw, sql and p, or the recorded message. */
static const char *parse(const char *json)
{
	uow_finish(&work);
	uow_init(&work, NULL, 1);
	work.realm = &realm;
	work.user = &me;
	json_object *narrow = NULL;
	if (json != NULL) {
		narrow = uow_own_json(&work, json_tokener_parse(json));
		CU_ASSERT_PTR_NOT_NULL_FATAL(narrow);
	}
	memset(&sql, 0, sizeof(sql));
	memset(p, 0, sizeof(p));
	nw = narrow_parse_with(&work, narrow, &lookup);
	if (nw == NULL) {
		CU_ASSERT_NOT_EQUAL(work.error, ERR_NONE);
		return work.error_msg ? work.error_msg : "(no message)";
	}
	CU_ASSERT_EQUAL(work.error, ERR_NONE);
	narrow_sql_filter(&work, nw, NULL, 0, &sql);
	narrow_sql_positional(&sql, p);
	return "";
}

/* $n as text ("NULL" for SQL NULL). */
static const char *param(int n)
{
	return p[n - 1] ? p[n - 1] : "NULL";
}

/* The narrow fails with BAD_NARROW "Invalid narrow operator: desc" and the desc field. */
static void assert_bad_narrow(const char *json, const char *desc)
{
	char msg[512];
	snprintf(msg, sizeof(msg), "Invalid narrow operator: %s", desc);
	CU_ASSERT_STRING_EQUAL(parse(json), msg);
	CU_ASSERT_EQUAL(work.error, ERR_BAD_NARROW);
	json_object *d = NULL;
	CU_ASSERT_TRUE(json_object_object_get_ex(work.error_fields, "desc", &d));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(d), desc);
}

static void assert_bad_request(const char *json, const char *msg)
{
	CU_ASSERT_STRING_EQUAL(parse(json), msg);
	CU_ASSERT_EQUAL(work.error, ERR_BAD_REQUEST);
}

/* ---- tests -------------------------------------------------------------------------------------------------- */

static void test_narrow_none(void)
{
	CU_ASSERT_STRING_EQUAL(parse(NULL), "");
	CU_ASSERT_STRING_EQUAL(param(1), "10");
	CU_ASSERT_STRING_EQUAL(param(2), "1");
	for (int n = 3; n <= 15; n++)
		CU_ASSERT_STRING_EQUAL(param(n), "{}");
	for (int n = 16; n <= 18; n++)
		CU_ASSERT_STRING_EQUAL(param(n), "0");
	for (int n = 19; n <= 25; n++)
		CU_ASSERT_STRING_EQUAL(param(n), "-1");
	CU_ASSERT_STRING_EQUAL(param(26), "{}");
	CU_ASSERT_STRING_EQUAL(param(27), "false");
	CU_ASSERT_STRING_EQUAL(param(28), "NULL");
	CU_ASSERT_STRING_EQUAL(param(35), "NULL");
	CU_ASSERT_STRING_EQUAL(param(36), "NULL");
	CU_ASSERT_FALSE(nw->include_history || nw->public_history || nw->is_search);
	CU_ASSERT_STRING_EQUAL(parse("[]"), "");
	CU_ASSERT_STRING_EQUAL(param(3), "{}");
}

static void test_narrow_legacy_pairs(void)
{
	CU_ASSERT_STRING_EQUAL(parse("[[\"stream\", \"Denmark\"], [\"topic\", \"Lunch \\\"time\\\"\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(3), "{5}");
	CU_ASSERT_STRING_EQUAL(param(5), "{\"Lunch \\\"time\\\"\"}");
	CU_ASSERT_STRING_EQUAL(param(35), "5");
	CU_ASSERT_STRING_EQUAL(param(36), "Lunch \"time\"");
	CU_ASSERT_TRUE(nw->include_history);
	assert_bad_request("[[\"stream\"]]", "Invalid narrow[0]: Value error, element is not a string pair");
	assert_bad_request("[[\"stream\", 5]]", "Invalid narrow[0]: Value error, element is not a string pair");
	assert_bad_request("[[\"stream\", \"Denmark\", \"x\"]]",
	                   "Invalid narrow[0]: Value error, element is not a string pair");
}

static void test_narrow_channel_by_id_and_name(void)
{
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"channel\", \"operand\": 6}]"), "");
	CU_ASSERT_STRING_EQUAL(param(3), "{6}");
	CU_ASSERT_STRING_EQUAL(param(35), "6");
	CU_ASSERT_TRUE(nw->include_history); /* private, but history public to subscribers and readable */
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"channel\", \"operand\": \"verona\"}]"), "");
	CU_ASSERT_STRING_EQUAL(param(3), "{7}");
	CU_ASSERT_TRUE(nw->include_history); /* public: any member reads its history */
	me.role = ROLE_GUEST;
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"stream\", \"operand\": \"Verona\"}]"), "");
	CU_ASSERT_FALSE(nw->include_history); /* a guest: only a history they may read */
	me.role = ROLE_MEMBER;
	assert_bad_narrow("[{\"operator\": \"channel\", \"operand\": \"Nowhere\"}]", "unknown channel Nowhere");
	assert_bad_narrow("[{\"operator\": \"stream\", \"operand\": 99}]", "unknown channel 99");
	/* a failed lookup keeps its own error */
	CU_ASSERT_STRING_EQUAL(parse("[[\"channel\", \"FAIL\"]]"), "Internal server error");
	CU_ASSERT_EQUAL(work.error, ERR_INTERNAL);
}

static void test_narrow_negation(void)
{
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"channel\", \"operand\": \"Denmark\", \"negated\": true},"
	                             " {\"operator\": \"topic\", \"operand\": \"lunch\", \"negated\": true},"
	                             " {\"operator\": \"sender\", \"operand\": \"iago@x\", \"negated\": true},"
	                             " {\"operator\": \"id\", \"operand\": \"42\", \"negated\": true},"
	                             " {\"operator\": \"is\", \"operand\": \"starred\", \"negated\": true},"
	                             " {\"operator\": \"has\", \"operand\": \"link\", \"negated\": true},"
	                             " {\"operator\": \"dm\", \"operand\": \"iago@x\", \"negated\": true}]"),
	                       "");
	CU_ASSERT_STRING_EQUAL(param(3), "{}");
	CU_ASSERT_STRING_EQUAL(param(4), "{5}");
	CU_ASSERT_STRING_EQUAL(param(5), "{}");
	CU_ASSERT_STRING_EQUAL(param(6), "{\"lunch\"}");
	CU_ASSERT_STRING_EQUAL(param(7), "{}");
	CU_ASSERT_STRING_EQUAL(param(8), "{11}");
	CU_ASSERT_STRING_EQUAL(param(9), "{}");
	CU_ASSERT_STRING_EQUAL(param(10), "{42}");
	CU_ASSERT_STRING_EQUAL(param(11), "{}");
	CU_ASSERT_STRING_EQUAL(param(12), "{100}");
	CU_ASSERT_STRING_EQUAL(param(16), "0");
	CU_ASSERT_STRING_EQUAL(param(17), "2");
	CU_ASSERT_STRING_EQUAL(param(22), "0");
	CU_ASSERT_STRING_EQUAL(param(27), "false");
	CU_ASSERT_STRING_EQUAL(param(35), "NULL"); /* a negated channel reads no history */
	CU_ASSERT_FALSE(nw->include_history);
	/* negated: false is not negated; a negated channel and a dm do not conflict */
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"channel\", \"operand\": 5, \"negated\": false}]"), "");
	CU_ASSERT_STRING_EQUAL(param(3), "{5}");
	assert_bad_request("[{\"operator\": \"channel\", \"operand\": 5, \"negated\": \"yes\"}]",
	                   "narrow[0][\"negated\"] is not a boolean");
	assert_bad_request("[[\"is\", \"starred\"], {\"operator\": \"channel\", \"operand\": 5, \"negated\": null}]",
	                   "narrow[1][\"negated\"] is not a boolean");
}

static void test_narrow_topic(void)
{
	/* the first topic term's "general chat" is the empty topic; a later one is itself */
	CU_ASSERT_STRING_EQUAL(parse("[[\"channel\", \"Denmark\"], [\"topic\", \"general chat\"],"
	                             " [\"topic\", \"general chat\"]]"),
	                       "");
	CU_ASSERT_STRING_EQUAL(param(5), "{\"\",\"general chat\"}");
	CU_ASSERT_STRING_EQUAL(param(36), "");
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"topic\", \"operand\": \"a\\\\b\"}]"), "");
	CU_ASSERT_STRING_EQUAL(param(5), "{\"a\\\\b\"}");
	CU_ASSERT_STRING_EQUAL(param(35), "NULL");
	assert_bad_request("[{\"operator\": \"topic\", \"operand\": 5}]", "operand is not a string");
}

static void test_narrow_dm(void)
{
	CU_ASSERT_STRING_EQUAL(parse("[[\"dm\", \"iago@x\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(11), "{100}");
	CU_ASSERT_STRING_EQUAL(param(27), "false");
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"dm\", \"operand\": [12, 11]}]"), "");
	CU_ASSERT_STRING_EQUAL(param(11), "{101}");
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"pm-with\", \"operand\": [10]}]"), "");
	CU_ASSERT_STRING_EQUAL(param(11), "{102}"); /* with oneself */
	/* no such conversation, or an empty list: nothing matches, unless negated */
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"dm\", \"operand\": [12]}]"), "");
	CU_ASSERT_STRING_EQUAL(param(11), "{}");
	CU_ASSERT_STRING_EQUAL(param(27), "true");
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"dm\", \"operand\": []}]"), "");
	CU_ASSERT_STRING_EQUAL(param(27), "true");
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"dm\", \"operand\": [12], \"negated\": true}]"), "");
	CU_ASSERT_STRING_EQUAL(param(12), "{}");
	CU_ASSERT_STRING_EQUAL(param(27), "false");
	assert_bad_narrow("[{\"operator\": \"dm\", \"operand\": [11, 99]}]", "unknown user in [11, 99]");
	assert_bad_narrow("[[\"dm\", \"nobody@x\"]]", "unknown user in nobody@x");
	assert_bad_narrow("[[\"dm\", \"iago@x\"], [\"channel\", \"Denmark\"]]",
	                  "No message can be both a channel message and direct message");
	assert_bad_narrow("[[\"topic\", \"lunch\"], [\"is\", \"dm\"]]",
	                  "No message can be both a channel message and direct message");
	assert_bad_request("[{\"operator\": \"dm\", \"operand\": [11, \"x\"]}]",
	                   "operand is not a string or an integer list");
	assert_bad_request("[{\"operator\": \"dm\", \"operand\": 11}]", "operand is not a string or an integer list");
}

static void test_narrow_users(void)
{
	CU_ASSERT_STRING_EQUAL(parse("[[\"sender\", \"iago@x\"], [\"dm-including\", \"hamlet@x\"],"
	                             " [\"group-pm-with\", \"iago@x\"]]"),
	                       "");
	CU_ASSERT_STRING_EQUAL(param(7), "{11}");
	CU_ASSERT_STRING_EQUAL(param(13), "{12}");
	CU_ASSERT_STRING_EQUAL(param(15), "{11}");
	CU_ASSERT_TRUE(nw->dm_narrow);
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"sender\", \"operand\": 12},"
	                             " {\"operator\": \"dm-including\", \"operand\": 11, \"negated\": true},"
	                             " {\"operator\": \"group-pm-with\", \"operand\": 11, \"negated\": true}]"),
	                       "");
	CU_ASSERT_STRING_EQUAL(param(7), "{12}");
	CU_ASSERT_STRING_EQUAL(param(14), "{11}");
	CU_ASSERT_STRING_EQUAL(param(15), "{}"); /* a negated group-pm-with is no condition */
	assert_bad_narrow("[[\"sender\", \"nobody@x\"]]", "unknown user nobody@x");
	assert_bad_narrow("[{\"operator\": \"dm-including\", \"operand\": 99}]", "unknown user 99");
	assert_bad_narrow("[[\"group-pm-with\", \"nobody@x\"]]", "unknown user nobody@x");
	assert_bad_narrow("[[\"channel\", \"Denmark\"], [\"dm-including\", \"iago@x\"]]",
	                  "No message can be both a channel message and direct message");
	assert_bad_request("[{\"operator\": \"sender\", \"operand\": [11]}]", "operand is not a string or integer");
	CU_ASSERT_STRING_EQUAL(parse("[[\"sender\", \"fail@x\"]]"), "Internal server error");
	CU_ASSERT_EQUAL(work.error, ERR_INTERNAL);
}

static void test_narrow_is(void)
{
	static const struct {
		const char *json;
		int set, unset, any;
	} cases[] = {
	    {"[[\"is\", \"dm\"]]", MF_IS_PRIVATE, 0, 0},
	    {"[[\"is\", \"private\"]]", MF_IS_PRIVATE, 0, 0},
	    {"[[\"is\", \"starred\"]]", MF_STARRED, 0, 0},
	    {"[[\"is\", \"alerted\"]]", MF_HAS_ALERT_WORD, 0, 0},
	    {"[[\"is\", \"unread\"]]", 0, MF_READ, 0},
	    {"[{\"operator\": \"is\", \"operand\": \"unread\", \"negated\": true}]", MF_READ, 0, 0},
	    {"[[\"is\", \"mentioned\"]]", 0, 0,
	     MF_MENTIONED | MF_STREAM_WILDCARD_MENTIONED | MF_TOPIC_WILDCARD_MENTIONED},
	    {"[{\"operator\": \"is\", \"operand\": \"mentioned\", \"negated\": true}]", 0,
	     MF_MENTIONED | MF_STREAM_WILDCARD_MENTIONED | MF_TOPIC_WILDCARD_MENTIONED, 0},
	    {"[{\"operator\": \"is\", \"operand\": \"dm\", \"negated\": true}]", 0, MF_IS_PRIVATE, 0},
	    {"[[\"is\", \"starred\"], [\"is\", \"unread\"], [\"is\", \"alerted\"]]", MF_STARRED | MF_HAS_ALERT_WORD,
	     MF_READ, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char set[16], unset[16], any[16];
		snprintf(set, sizeof(set), "%d", cases[i].set);
		snprintf(unset, sizeof(unset), "%d", cases[i].unset);
		snprintf(any, sizeof(any), "%d", cases[i].any);
		CU_ASSERT_STRING_EQUAL(parse(cases[i].json), "");
		CU_ASSERT_STRING_EQUAL(param(16), set);
		CU_ASSERT_STRING_EQUAL(param(17), unset);
		CU_ASSERT_STRING_EQUAL(param(18), any);
	}
	CU_ASSERT_STRING_EQUAL(parse("[[\"is\", \"resolved\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(19), "1");
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"is\", \"operand\": \"resolved\", \"negated\": true}]"), "");
	CU_ASSERT_STRING_EQUAL(param(19), "0");
	CU_ASSERT_STRING_EQUAL(param(27), "false");
	CU_ASSERT_STRING_EQUAL(
	    parse("[[\"is\", \"resolved\"], {\"operator\": \"is\", \"operand\": \"resolved\", \"negated\": true}]"),
	    "");
	CU_ASSERT_STRING_EQUAL(param(27), "true");
	CU_ASSERT_STRING_EQUAL(parse("[[\"is\", \"followed\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(27), "true"); /* no followed topics yet */
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"is\", \"operand\": \"followed\", \"negated\": true}]"), "");
	CU_ASSERT_STRING_EQUAL(param(27), "false");
	/* an is: term but is:resolved reads only the user's copies */
	CU_ASSERT_STRING_EQUAL(parse("[[\"channel\", \"Denmark\"], [\"is\", \"starred\"]]"), "");
	CU_ASSERT_FALSE(nw->include_history);
	CU_ASSERT_STRING_EQUAL(parse("[[\"channel\", \"Denmark\"], [\"is\", \"resolved\"]]"), "");
	CU_ASSERT_TRUE(nw->include_history);
	assert_bad_narrow("[[\"is\", \"foo\"]]", "unknown 'is' operand foo");
	assert_bad_request("[{\"operator\": \"is\", \"operand\": 5}]", "operand is not a string");
}

static void test_narrow_has_and_in(void)
{
	CU_ASSERT_STRING_EQUAL(
	    parse("[[\"has\", \"attachment\"], [\"has\", \"image\"],"
	          " {\"operator\": \"has\", \"operand\": \"link\", \"negated\": true}, [\"in\", \"home\"]]"),
	    "");
	CU_ASSERT_STRING_EQUAL(param(20), "1");
	CU_ASSERT_STRING_EQUAL(param(21), "1");
	CU_ASSERT_STRING_EQUAL(param(22), "0");
	CU_ASSERT_STRING_EQUAL(param(23), "1");
	CU_ASSERT_STRING_EQUAL(param(27), "false");
	CU_ASSERT_STRING_EQUAL(param(29), "-1");
	CU_ASSERT_STRING_EQUAL(parse("[[\"has\", \"reaction\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(27), "false");
	CU_ASSERT_STRING_EQUAL(param(29), "1");
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"has\", \"operand\": \"reaction\", \"negated\": true}]"), "");
	CU_ASSERT_STRING_EQUAL(param(29), "0");
	CU_ASSERT_STRING_EQUAL(
	    parse("[[\"has\", \"reaction\"], {\"operator\": \"has\", \"operand\": \"reaction\", \"negated\": true}]"),
	    "");
	CU_ASSERT_STRING_EQUAL(param(27), "true");
	CU_ASSERT_STRING_EQUAL(
	    parse("[[\"in\", \"all\"], {\"operator\": \"in\", \"operand\": \"home\", \"negated\": true}]"), "");
	CU_ASSERT_STRING_EQUAL(param(23), "0");
	CU_ASSERT_STRING_EQUAL(
	    parse("[[\"has\", \"image\"], {\"operator\": \"has\", \"operand\": \"image\", \"negated\": true}]"), "");
	CU_ASSERT_STRING_EQUAL(param(27), "true");
	assert_bad_narrow("[[\"has\", \"foo\"]]", "unknown 'has' operand foo");
	assert_bad_narrow("[[\"in\", \"foo\"]]", "unknown 'in' operand foo");
}

static void test_narrow_channels(void)
{
	CU_ASSERT_STRING_EQUAL(parse("[[\"channels\", \"public\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(24), "1");
	CU_ASSERT_STRING_EQUAL(param(25), "-1");
	CU_ASSERT_TRUE(nw->public_history);
	CU_ASSERT_STRING_EQUAL(parse("[{\"operator\": \"streams\", \"operand\": \"web-public\", \"negated\": true}]"),
	                       "");
	CU_ASSERT_STRING_EQUAL(param(25), "0");
	CU_ASSERT_FALSE(nw->public_history);
	me.role = ROLE_GUEST;
	CU_ASSERT_STRING_EQUAL(parse("[[\"channels\", \"public\"]]"), "");
	CU_ASSERT_FALSE(nw->public_history);
	me.role = ROLE_MEMBER;
	assert_bad_narrow("[[\"channels\", \"foo\"]]", "unknown channels operand foo");
	assert_bad_narrow("[[\"channels\", \"public\"], [\"dm\", \"iago@x\"]]",
	                  "No message can be both a channel message and direct message");
}

static void test_narrow_search(void)
{
	CU_ASSERT_STRING_EQUAL(parse("[[\"search\", \"  lunch \\\"big deal\\\" 100%_\\\\x \"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(26), "{\"%lunch%\",\"%big deal%\",\"%100\\\\%\\\\_\\\\\\\\x%\"}");
	CU_ASSERT_TRUE(nw->is_search);
	assert_bad_request("[[\"search\", \"   \"]]", "operand cannot be blank.");
	char json[1024] = "[[\"search\", \"";
	for (int i = 0; i <= MESSAGE_MAX_SEARCH_WORDS; i++)
		strcat(json, "w ");
	strcat(json, "\"]]");
	assert_bad_narrow(json, "search has too many words (limit: 100)");
}

static void test_narrow_id_and_near(void)
{
	CU_ASSERT_STRING_EQUAL(
	    parse("[[\"id\", \"42\"], {\"operator\": \"id\", \"operand\": 2147483647}, [\"near\", \"7\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(9), "{42,2147483647}");
	static const char *const bad[] = {"[[\"id\", \"abc\"]]",
	                                  "[[\"id\", \"\"]]",
	                                  "[[\"id\", \"-1\"]]",
	                                  "[[\"id\", \"2147483648\"]]",
	                                  "[[\"id\", \"12345678901\"]]",
	                                  "[{\"operator\": \"id\", \"operand\": -5}]",
	                                  NULL};
	for (int i = 0; bad[i]; i++)
		assert_bad_narrow(bad[i], "Invalid message ID");
	assert_bad_request("[{\"operator\": \"id\", \"operand\": true}]", "operand is not a string or integer");
}

static void test_narrow_with(void)
{
	/* the message's conversation replaces the terms naming one; the others stay */
	CU_ASSERT_STRING_EQUAL(
	    parse("[{\"operator\": \"channel\", \"operand\": 7}, {\"operator\": \"topic\", \"operand\": "
	          "\"x\"}, {\"operator\": \"with\", \"operand\": 500}, [\"is\", \"starred\"]]"),
	    "");
	CU_ASSERT_STRING_EQUAL(param(3), "{5}");
	CU_ASSERT_STRING_EQUAL(param(5), "{\"lunch\"}");
	CU_ASSERT_STRING_EQUAL(param(16), "2");
	CU_ASSERT_STRING_EQUAL(parse("[[\"with\", \"501\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(11), "{100}");
	/* a message the user cannot read: the narrow's own conversation, if it names one */
	CU_ASSERT_STRING_EQUAL(parse("[[\"channel\", \"Denmark\"], [\"topic\", \"x\"], [\"with\", \"502\"]]"), "");
	CU_ASSERT_STRING_EQUAL(param(3), "{5}");
	CU_ASSERT_STRING_EQUAL(param(5), "{\"x\"}");
	CU_ASSERT_STRING_EQUAL(parse("[[\"dm\", \"iago@x\"], [\"with\", \"502\"]]"), "");
	assert_bad_narrow("[[\"with\", \"502\"]]", "Invalid 'with' operator");
	assert_bad_narrow("[[\"channel\", \"Denmark\"], [\"with\", \"502\"]]", "Invalid 'with' operator");
	assert_bad_narrow("[[\"channel\", \"Denmark\"], [\"topic\", \"x\"], [\"with\", \"abc\"]]",
	                  "Invalid 'with' operator");
	CU_ASSERT_STRING_EQUAL(parse("[[\"with\", \"500\"], [\"with\", \"501\"]]"),
	                       "Invalid narrow operator combination: Duplicate 'with' operators.");
	CU_ASSERT_EQUAL(work.error, ERR_BAD_NARROW);
	json_object *d = NULL;
	CU_ASSERT_TRUE(json_object_object_get_ex(work.error_fields, "desc", &d));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(d), "Duplicate 'with' operators.");
	CU_ASSERT_STRING_EQUAL(parse("[[\"with\", \"666\"]]"), "Internal server error");
	CU_ASSERT_EQUAL(work.error, ERR_INTERNAL);
}

static void test_narrow_shape_errors(void)
{
	assert_bad_request("{\"operator\": \"is\"}", "narrow is not a list");
	assert_bad_request("[3]", "Invalid narrow[0]: Value error, dict or list required");
	assert_bad_request("[\"is\"]", "Invalid narrow[0]: Value error, dict or list required");
	assert_bad_request("[null]", "Invalid narrow[0]: Value error, dict or list required");
	assert_bad_request("[{\"operator\": \"is\"}]", "Invalid narrow[0]: Value error, operand is missing");
	assert_bad_request("[{\"operand\": \"starred\"}]", "Invalid narrow[0]: Value error, operator is missing");
	assert_bad_request("[{\"operator\": 5, \"operand\": \"starred\"}]", "narrow[0][\"operator\"] is not a string");
	assert_bad_request("[{\"operator\": [\"is\"], \"operand\": \"starred\"}]", "narrow[0][\"operator\"] is not a string");
	assert_bad_request("[{\"operator\": null, \"operand\": \"starred\"}]",
	                   "Invalid narrow[0]: Value error, operator is missing");
	assert_bad_narrow("[[\"foo\", \"bar\"]]", "unknown operator foo");
	/* the shape of every term is checked before any operand is resolved */
	assert_bad_request("[[\"channel\", \"Nowhere\"], [\"is\"]]", "Invalid narrow[1]: Value error, element is not a string pair");
}

static void test_narrow_sql_only_ids_and_range(void)
{
	CU_ASSERT_STRING_EQUAL(parse("[[\"is\", \"starred\"]]"), "");
	const int64_t ids[] = {3, 1, 2};
	narrow_sql_filter(&work, nw, ids, 3, &sql);
	narrow_sql_range(&work, 0, false, 0, 3, &sql); /* as message_fetch() does for message_ids */
	narrow_sql_positional(&sql, p);
	CU_ASSERT_STRING_EQUAL(param(28), "{3,1,2}");
	CU_ASSERT_STRING_EQUAL(param(30), "9223372036854775807");
	CU_ASSERT_STRING_EQUAL(param(31), "0");
	CU_ASSERT_STRING_EQUAL(param(32), "0");
	CU_ASSERT_STRING_EQUAL(param(33), "9223372036854775807");
	CU_ASSERT_STRING_EQUAL(param(34), "3");
	/* both sides of anchor 100: up to 99 before, from 100 on (the anchor and after) */
	narrow_sql_range(&work, 100, true, 5, 7, &sql);
	narrow_sql_positional(&sql, p);
	CU_ASSERT_STRING_EQUAL(param(30), "99");
	CU_ASSERT_STRING_EQUAL(param(31), "5");
	CU_ASSERT_STRING_EQUAL(param(32), "100");
	CU_ASSERT_STRING_EQUAL(param(34), "8");
	/* newest, before only; anchor excluded, before only */
	narrow_sql_range(&work, MESSAGE_ANCHOR_NEWEST, true, 50, 0, &sql);
	narrow_sql_positional(&sql, p);
	CU_ASSERT_STRING_EQUAL(param(30), "9223372036854775807");
	CU_ASSERT_STRING_EQUAL(param(31), "50");
	CU_ASSERT_STRING_EQUAL(param(34), "0");
	narrow_sql_range(&work, 100, false, 50, 0, &sql);
	narrow_sql_positional(&sql, p);
	CU_ASSERT_STRING_EQUAL(param(30), "99");
	CU_ASSERT_STRING_EQUAL(param(31), "50");
	/* neither side: the anchor alone */
	narrow_sql_range(&work, 100, true, 0, 0, &sql);
	narrow_sql_positional(&sql, p);
	CU_ASSERT_STRING_EQUAL(param(32), "100");
	CU_ASSERT_STRING_EQUAL(param(33), "100");
	CU_ASSERT_STRING_EQUAL(param(34), "1");
}

/* Each named field lands at its own $n, in the order the header documents. */
static void test_narrow_sql_positional_order(void)
{
	struct narrow_sql s = {
	    "$1",  "$2",  "$3",  "$4",  "$5",  "$6",  "$7",  "$8",  "$9",  "$10", "$11", "$12",
	    "$13", "$14", "$15", "$16", "$17", "$18", "$19", "$20", "$21", "$22", "$23", "$24",
	    "$25", "$26", "$27", "$28", "$29", "$30", "$31", "$32", "$33", "$34", "$35", "$36",
	};
	narrow_sql_positional(&s, p);
	for (int n = 1; n <= NARROW_SQL_PARAMS; n++) {
		char want[8];
		snprintf(want, sizeof(want), "$%d", n);
		CU_ASSERT_STRING_EQUAL(p[n - 1], want);
	}
	CU_ASSERT_STRING_EQUAL(s.impossible, "$27");
	CU_ASSERT_STRING_EQUAL(s.only_ids, "$28");
	CU_ASSERT_STRING_EQUAL(s.has_reaction, "$29");
	CU_ASSERT_STRING_EQUAL(s.history_topic, "$36");
}

int main(void)
{
	uow_init(&work, NULL, 1);
	static const struct unit_test tests[] = {
	    {"test_narrow_none", test_narrow_none},
	    {"test_narrow_legacy_pairs", test_narrow_legacy_pairs},
	    {"test_narrow_channel_by_id_and_name", test_narrow_channel_by_id_and_name},
	    {"test_narrow_negation", test_narrow_negation},
	    {"test_narrow_topic", test_narrow_topic},
	    {"test_narrow_dm", test_narrow_dm},
	    {"test_narrow_users", test_narrow_users},
	    {"test_narrow_is", test_narrow_is},
	    {"test_narrow_has_and_in", test_narrow_has_and_in},
	    {"test_narrow_channels", test_narrow_channels},
	    {"test_narrow_search", test_narrow_search},
	    {"test_narrow_id_and_near", test_narrow_id_and_near},
	    {"test_narrow_with", test_narrow_with},
	    {"test_narrow_shape_errors", test_narrow_shape_errors},
	    {"test_narrow_sql_only_ids_and_range", test_narrow_sql_only_ids_and_range},
	    {"test_narrow_sql_positional_order", test_narrow_sql_positional_order},
	    {NULL, NULL},
	};
	int rc = unit_run("narrow", tests);
	uow_finish(&work);
	return rc;
}
