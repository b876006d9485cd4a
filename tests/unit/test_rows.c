/* Rows read by name (db/db.h): the generic reader, and each struct's SELECT list against the table reading it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/uow.h"
#include "db/db.h"
#include "model/channels.h"
#include "model/realm.h"
#include "model/user.h"
#include "unit.h"

static struct uow req;

/* The top-level columns of a SELECT list: commas outside parentheses and quotes, plus one. */
static int count_columns(const char *sql)
{
	int depth = 0, n = 1;
	char quote = 0;
	for (const char *p = sql; *p; p++) {
		if (quote)
			quote = *p == quote ? 0 : quote;
		else if (*p == '\'' || *p == '"')
			quote = *p;
		else if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && depth == 0)
			n++;
	}
	return n;
}

/* The column list of a channel statement: from "SELECT c.id, " up to " FROM channels c". */
static int channel_columns(const char *stmt)
{
	const char *select = strstr(stmt, "SELECT c.id, "), *from = strstr(stmt, " FROM channels c ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(select);
	CU_ASSERT_PTR_NOT_NULL_FATAL(from);
	char *list = strndup(select + 7, (size_t)(from - select - 7));
	int n = count_columns(list);
	free(list);
	return n;
}

/* A result of one row of n columns, each value given by value(i) (NULL: SQL NULL). */
static struct db_res *row_of(int n, const char *(*value)(int))
{
	const char **v = arena_alloc(&req.arena, (size_t)n * sizeof(*v));
	for (int i = 0; i < n; i++)
		v[i] = value(i);
	return db_res_from_values(&req, 1, n, v);
}

struct sample {
	int64_t big;
	int small;
	bool yes, no, null_bool;
	char letter;
	const char *text, *null_text, *maybe, *null_maybe;
	bool first_null, second_null, present;
	int64_t null_big;
};

/* clang-format off */
#define SAMPLE_FIELDS(X0, X, F) \
	X0(big, DB_I64, "s.big") X(small, DB_INT, "s.small") X(yes, DB_BOOL, "s.yes") X(no, DB_BOOL, "s.no") \
	X(null_bool, DB_BOOL, "NULL") X(letter, DB_CHAR, "s.letter") X(text, DB_STR, "s.text") \
	X(null_text, DB_STR, "NULL") X(maybe, DB_STRN, "s.maybe") F(first_null, DB_ISNULL) F(present, DB_NOTNULL) \
	X(null_maybe, DB_STRN, "NULL") F(second_null, DB_ISNULL) X(null_big, DB_I64, "NULL")
/* clang-format on */
#define SAMPLE_FIELD(member, type, sql) DB_FIELD(struct sample, member, type)
#define SAMPLE_FLAG(member, type)       DB_FIELD(struct sample, member, type)
static const struct db_field sample_fields[] = {SAMPLE_FIELDS(SAMPLE_FIELD, SAMPLE_FIELD, SAMPLE_FLAG)};

static void test_rows_types(void)
{
	const char *v[] = {"x", "9007199254740993", "-42", "t", "f", NULL, "g", "text", NULL, "", NULL, NULL};
	struct db_res *res = db_res_from_values(&req, 1, 12, v);
	struct sample s;
	memset(&s, 0xff, sizeof(s));
	s.present = false;
	CU_ASSERT_EQUAL(db_read_row(res, 0, 1, sample_fields, DB_NFIELDS(sample_fields), &s), 11);
	CU_ASSERT_EQUAL(s.big, 9007199254740993LL);
	CU_ASSERT_EQUAL(s.small, -42);
	CU_ASSERT_TRUE(s.yes);
	CU_ASSERT_FALSE(s.no);
	CU_ASSERT_FALSE(s.null_bool);
	CU_ASSERT_EQUAL(s.letter, 'g');
	CU_ASSERT_STRING_EQUAL(s.text, "text");
	CU_ASSERT_STRING_EQUAL(s.null_text, ""); /* DB_STR: NULL reads as "" */
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.maybe);   /* DB_STRN: "" is not NULL */
	CU_ASSERT_STRING_EQUAL(s.maybe, "");
	/* Flags read the next column's nullness without a column of their own. */
	CU_ASSERT_TRUE(s.first_null);
	CU_ASSERT_FALSE(s.present);
	CU_ASSERT_PTR_NULL(s.null_maybe);
	CU_ASSERT_TRUE(s.second_null);
	CU_ASSERT_EQUAL(s.null_big, 0);
}

static void test_rows_sql_list(void)
{
	/* Columns separated by ", ", none for a flag, the first without a separator. */
	CU_ASSERT_STRING_EQUAL(SAMPLE_FIELDS(DB_SQL0, DB_SQL, DB_SQL_FLAG),
	                       "s.big, s.small, s.yes, s.no, NULL, s.letter, s.text, NULL, s.maybe, NULL, NULL");
	CU_ASSERT_EQUAL(count_columns(SAMPLE_FIELDS(DB_SQL0, DB_SQL, DB_SQL_FLAG)), 11);
	CU_ASSERT_EQUAL(count_columns("a, f(b, 'x,y'), \"c,d\", (e, g)"), 4);
}

/* USER_COLUMNS then REALM_COLUMNS: column i holds 1000 + i, but for the columns named below. */
static const char *user_realm_value(int i)
{
	static char buf[32][16];
	switch (i) {
	case 2:
		return "iago@example.com";
	case 4:
		return "200"; /* role */
	case 5:
		return "t"; /* is_active */
	case 7:         /* bot_type */
	case 8:         /* bot_owner_id */
		return NULL;
	case 10:
		return "G"; /* avatar_source */
	case 18:
		return "md5";
	case 19:
		return "7"; /* the realm's id */
	case 20:
		return "zulip";
	case 27:
		return "f"; /* everyone_can_access_all_users */
	case 28:
		return "t"; /* presence_disabled */
	case 30:
		return "disable_empty_topic"; /* topics_policy */
	}
	snprintf(buf[i], sizeof(buf[0]), "%d", 1000 + i);
	return buf[i];
}

static void test_rows_user_then_realm(void)
{
	int nu = count_columns(USER_COLUMNS), nr = count_columns(REALM_COLUMNS);
	CU_ASSERT_EQUAL(nu, 19);
	CU_ASSERT_EQUAL(nr, 13);
	struct db_res *res = row_of(nu + nr, user_realm_value);
	struct user u = {0};
	CU_ASSERT_EQUAL_FATAL(user_read_row(res, 0, 0, &u), nu);
	CU_ASSERT_EQUAL(u.id, 1000);
	CU_ASSERT_EQUAL(u.realm_id, 1001);
	CU_ASSERT_STRING_EQUAL(u.delivery_email, "iago@example.com");
	CU_ASSERT_EQUAL(u.role, ROLE_ADMIN);
	CU_ASSERT_TRUE(u.is_active);
	CU_ASSERT_EQUAL(u.bot_type, 0);     /* NULL */
	CU_ASSERT_EQUAL(u.bot_owner_id, 0); /* NULL */
	CU_ASSERT_EQUAL(u.avatar_source, 'G');
	CU_ASSERT_STRING_EQUAL(u.email_md5, "md5");
	struct realm *r = realm_from_row(&req, res, 0, nu);
	CU_ASSERT_EQUAL(r->id, 7);
	CU_ASSERT_STRING_EQUAL(r->subdomain, "zulip");
	CU_ASSERT_FALSE(r->everyone_can_access_all_users);
	CU_ASSERT_TRUE(r->presence_disabled);
	CU_ASSERT_STRING_EQUAL(r->subdomain_md5, "1029");
	CU_ASSERT_STRING_EQUAL(r->topics_policy, "disable_empty_topic");
	CU_ASSERT_EQUAL(r->linkifier_version, 1031);
	struct realm r2;
	CU_ASSERT_EQUAL(realm_read_row(res, 0, nu, &r2), nr);
}

/* A channel row: column i holds 100 + i, but for the columns named below. */
static bool lookup; /* a CHANNEL_SELECT_LOOKUP row: NULL counts and setting values */
static const char *channel_value(int i)
{
	static char buf[64][16];
	const int stats = 17, setting = 22; /* the columns of first_message_id and of the first setting's group */
	if (i == 2)
		return "general";
	if (i == stats)
		return NULL; /* no message yet */
	if (i == stats + 1)
		return lookup ? NULL : "3"; /* subscribers */
	if (i == stats + 3)
		return NULL; /* weekly traffic: a new channel */
	if (i == setting + 1 || i == setting + 3 * CS_SUBSCRIBE + 1)
		return "t"; /* in the group */
	if (i == setting + 3 * CS_ADMINISTER + 2 && !lookup)
		return "{\"direct_members\":[1],\"direct_subgroups\":[]}"; /* an unnamed group's value */
	if (i >= setting && i < setting + 3 * CS_COUNT && (i - setting) % 3 == 2)
		return NULL; /* named groups (or a lookup) */
	snprintf(buf[i], sizeof(buf[0]), "%d", 100 + i);
	return buf[i];
}

static void test_rows_channel(void)
{
	int n = channel_columns(CHANNEL_SELECT);
	CU_ASSERT_EQUAL(n, channel_columns(CHANNEL_SELECT_LOOKUP));
	CU_ASSERT_EQUAL_FATAL(n, 22 + 3 * CS_COUNT + 8);
	lookup = false;
	struct channel *c = channel_from_row(&req, row_of(n, channel_value), 0, 0);
	CU_ASSERT_EQUAL(c->id, 100);
	CU_ASSERT_EQUAL(c->realm_id, 101);
	CU_ASSERT_STRING_EQUAL(c->name, "general");
	CU_ASSERT_EQUAL(c->date_created, 115);
	CU_ASSERT_TRUE(c->first_message_is_null);
	CU_ASSERT_TRUE(c->complete);
	CU_ASSERT_EQUAL(c->subscriber_count, 3);
	CU_ASSERT_FALSE(c->is_recently_active);
	CU_ASSERT_TRUE(c->weekly_traffic_is_null);
	CU_ASSERT_STRING_EQUAL(c->send_group_system_name, "121");
	CU_ASSERT_EQUAL(c->settings[CS_ADD_SUBSCRIBERS], 122);
	CU_ASSERT_TRUE(c->in_setting[CS_ADD_SUBSCRIBERS]);
	CU_ASSERT_STRING_EQUAL(c->setting_json[CS_ADD_SUBSCRIBERS], "122"); /* a named group: its id */
	CU_ASSERT_FALSE(c->in_setting[CS_ADMINISTER]);
	CU_ASSERT_STRING_EQUAL(c->setting_json[CS_ADMINISTER], "{\"direct_members\":[1],\"direct_subgroups\":[]}");
	CU_ASSERT_EQUAL(c->settings[CS_SUBSCRIBE], 122 + 3 * CS_SUBSCRIBE);
	CU_ASSERT_TRUE(c->in_setting[CS_SUBSCRIBE]);
	CU_ASSERT_STRING_EQUAL(c->color, "155");
	CU_ASSERT_STRING_EQUAL(c->notifications[4], "162");
	/* A spectator's access comes from the channel alone: column 6 (is_web_public) is not "t". */
	CU_ASSERT_FALSE(c->metadata_access);
	lookup = true;
	c = channel_from_row(&req, row_of(n, channel_value), 0, 0);
	CU_ASSERT_FALSE(c->complete);
	CU_ASSERT_STRING_EQUAL(c->setting_json[CS_ADMINISTER], "125");
	CU_ASSERT_STRING_EQUAL(c->notifications[4], "162");
}

int main(void)
{
	uow_init(&req, NULL, 1);
	static const struct unit_test tests[] = {
		{"test_rows_types", test_rows_types},
		{"test_rows_sql_list", test_rows_sql_list},
		{"test_rows_user_then_realm", test_rows_user_then_realm},
		{"test_rows_channel", test_rows_channel},
		{NULL, NULL},
	};
	int rc = unit_run("rows", tests);
	uow_finish(&req);
	return rc;
}
