/*
 * confab-itest: integration tests against a running stack (nginx -> workers -> PostgreSQL/Redis).
 *
 * The harness: an HTTP helper on libcurl, JSON helpers on json-c, helpers that run confabctl and psql, per-test
 * fresh users, and assertion macros that report the actual values. Everything a helper returns (responses,
 * users, strings) belongs to the harness and is freed after each test, also when a fatal assertion ended it.
 *
 * Environment (set by scripts/test): CONFAB_URL, CONFAB_OWNER_EMAIL, CONFAB_OWNER_KEY, CONFAB_OWNER_PASSWORD,
 * CONFAB_CTL, CONFAB_PSQL, CONFAB_RESTART_PG, CONFAB_RESTART_REDIS, CONFAB_RUN_DIR (the stack's run/ directory),
 * CONFAB_REDIS_CLI (redis-cli on the stack's socket), optional CONFAB_RATE_LIMIT (default 600; must equal the
 * stack's rate_limit_per_minute), CONFAB_APACHE_URL (the Apache front end of the suite apache).
 * CONFAB_ITEST_DEBUG=1 prints every hostile request and its answer.
 *
 * Usage: confab-itest [SUITE[:TEST]]...   Suites: auth, params, server, users, outbox (ends api workers at fault
 * points: needs a build with --enable-fault-points), restarts (restarts PostgreSQL and Redis), faults (kills
 * workers and the reaper, restarts Redis), access. Without arguments every suite runs.
 * Exit status 0 only if every test passed.
 *
 * Tests assert the reference (Zulip) behaviour; a comment names the Zulip source where it goes beyond
 * shared/reference/zulip-digest.md.
 */
#ifndef CONFAB_ITEST_H
#define CONFAB_ITEST_H

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- configuration ------------------------------------------------------------------------------------------ */

extern const char *itest_url;      /* CONFAB_URL without a trailing slash, e.g. http://127.0.0.1:9991 */
extern const char *itest_hostname; /* host part of CONFAB_URL, e.g. 127.0.0.1 */
extern const char *itest_hostport; /* host[:port] part of CONFAB_URL */
extern int itest_rate_limit;       /* CONFAB_RATE_LIMIT, default 600 */

/* ---- users -------------------------------------------------------------------------------------------------- */

struct user {
	int64_t id;
	char *email;    /* delivery e-mail as created */
	char *key;      /* API key */
	char *password; /* NULL when created without one */
	char *realm;    /* subdomain, "" for the root organization */
	int64_t realm_id;
};

extern struct user itest_owner; /* the root organization's owner, from the environment */

/* A fresh user of the root organization with the given role (owner|admin|moderator|member|guest). */
struct user *new_user(const char *role);
/* A fresh user; realm is a subdomain ("" = root); flags are extra confabctl arguments ("--bot", ...) or NULL. */
struct user *new_user_in(const char *realm, const char *role, const char *const *flags);
/* A fresh generic bot (confabctl --bot) of the root organization. */
struct user *new_bot(void);
/* A fresh organization with a unique subdomain; returns its owner. */
struct user *new_realm(void);
/* confabctl deactivate-user, then CACHE_SETTLE_MS for the workers' caches (itest.c). */
void deactivate_user(const struct user *u);
/* A unique lowercase e-mail address for this run. */
char *unique_email(const char *tag);
/* A unique channel name for this run. */
char *unique_channel_name(const char *tag);
/* Creates (and subscribes u to) a channel with extra form fields (NULL for none); returns its id. */
int64_t create_channel_with(const struct user *u, const char *name, const char *extra);
/* A JSON list of n copies of item, "%zu" in item (if any) replaced by the index: "[1,1]"; freed after the test. */
char *json_list(size_t n, const char *item);
/* The Host header value that selects realm ("" = the root organization: CONFAB_URL's host[:port]). */
char *realm_host(const char *realm);

/* ---- commands ----------------------------------------------------------------------------------------------- */

/* Runs CONFAB_CTL with argv (NULL-terminated) and parses the JSON object it prints; NULL on failure. */
json_object *ctl(const char *const *argv);
/*
 * Runs SQL (printf-style) through CONFAB_PSQL; returns its trimmed output, or NULL if psql failed. A statement
 * other than SELECT or EXPLAIN is then given CACHE_SETTLE_MS to reach the workers' caches (itest.c).
 */
char *psql(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like psql(), but a failure is a fatal assertion. */
char *psql_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What CONFAB_REDIS_CLI prints for args (as the shell reads them), trailing newlines trimmed; kept until the test
 * ends. A failure to run it is fatal. */
char *redis_cli(const char *args);
/* Runs SQL through CONFAB_PSQL in a child process (a session holding a lock meanwhile); returns its pid, for waitpid(). */
pid_t psql_in_background(const char *sql);
/* Waits up to secs seconds until a backend waits for a lock in a statement containing text; false if none did. */
bool await_lock_wait(const char *text, int secs);
/* Runs the command in environment variable name (CONFAB_STOP_REDIS ...); a failure is fatal. */
void run_env_command(const char *name);

/* ---- mail (the SMTP sink's files in CONFAB_MAIL_DIR) -------------------------------------------------------- */

/* The newest mail the sink received for address to (the whole .eml file), waiting up to secs seconds; NULL if
 * none came. */
char *wait_for_mail(const char *to, int secs);
/* The decoded body of the part of mail with Content-Type type ("text/plain", "text/html"); NULL if none. */
char *mail_part(const char *mail, const char *type);
/* The value of header name in mail's header section (unfolded), NULL if absent. */
char *mail_header(const char *mail, const char *name);

/* ---- HTTP --------------------------------------------------------------------------------------------------- */

struct resp {
	long status;   /* 0 if no HTTP response arrived */
	int curl_code; /* CURLcode of the transfer */
	char *body;    /* NUL-terminated */
	size_t len;
	json_object *json; /* the body parsed, when it is a JSON object; else NULL */
	size_t nheaders;
	char **hname, **hvalue;
	char *what; /* "METHOD /path" for messages */
};

struct request {
	const char *method;      /* default GET */
	const char *path;        /* e.g. "/api/v1/users/me?x=1" */
	const char *query;       /* appended to path after '?' (or '&') */
	const struct user *user; /* Basic auth with user->email:user->key, Host of user->realm */
	const char *auth_email;  /* Basic auth with these raw credentials (wins over user) */
	const char *auth_key;
	const char *authorization;    /* raw Authorization header value (wins over both) */
	bool empty_authorization;     /* send "Authorization:" with an empty value */
	const char *host;             /* Host header (default: the user's realm, else CONFAB_URL's) */
	const char *form;             /* application/x-www-form-urlencoded body */
	const char *const *multipart; /* name, value, name, value, ..., NULL: a multipart/form-data body */
	const char *body;             /* raw body of body_len bytes ... */
	size_t body_len;
	const char *content_type;   /* ... with this Content-Type (NULL: none) */
	const char *const *headers; /* extra header lines ("Name: value"), NULL-terminated */
	long timeout;               /* seconds, default 30 */
	const char *source_addr;    /* connect from this local address, e.g. "127.0.0.9" (REMOTE_ADDR); default any */
	const char *base_url;       /* instead of CONFAB_URL, e.g. CONFAB_SCALEOUT_A_URL */
};

struct resp *http(const struct request *rq);
/* Sends the rest of the current test's requests to url (another front end) instead of CONFAB_URL; the Host
 * header stays CONFAB_URL's. */
void itest_use_url(const char *url);
/* In a child process after fork(): a connection of its own for http(). */
void itest_http_after_fork(void);
/*
 * Runs client(arg, i) for i in [0, n) in n child processes released at once (after all are forked), so that their
 * requests overlap; answers receives the n values the clients returned, in the order they arrived. n <= 64.
 */
void itest_burst(int n, int (*client)(void *arg, int i), void *arg, int *answers);
/* Shorthands for /api/v1 + path. */
struct resp *api_get(const struct user *u, const char *path);
struct resp *api_post(const struct user *u, const char *path, const char *form);
struct resp *api_method(const char *method, const struct user *u, const char *path);
/* The value of response header name (case-insensitive; the last one), or NULL. */
const char *resp_header(const struct resp *r, const char *name);
/* Builds a multipart/form-data body from name/value pairs; *ctype receives the Content-Type. */
char *multipart_body(const char *const *pairs, size_t *len, char **ctype);

/* ---- strings and JSON --------------------------------------------------------------------------------------- */

char *fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));
char *url_encode(const char *s);
char *base64(const char *s, size_t len);
char *repeat(char c, size_t n);
void *keep(void *p);   /* frees p after the current test */
json_object *keep_json(json_object *j); /* puts j (may be NULL) after the current test */
double now_secs(void); /* a monotonic clock, in seconds (for "within a second" waits) */

json_object *jget(json_object *o, const char *key); /* NULL if o is not an object or key is absent/null */
bool jhas(json_object *o, const char *key);         /* key present (possibly null) */
bool jis_null(json_object *o, const char *key);     /* key present with value null */
const char *jstr(json_object *o, const char *key);  /* NULL unless a string */
int64_t jint(json_object *o, const char *key);      /* INT64_MIN unless an integer */
int jbool(json_object *o, const char *key);         /* 0/1, -1 unless a boolean */
const char *jtext(json_object *o);                  /* compact JSON text (for messages) */
/* The element of array members (GET /users) whose user_id is id, or NULL. */
json_object *find_member(json_object *members, int64_t id);

/* ---- assertions --------------------------------------------------------------------------------------------- */

void itest_check(bool ok, bool fatal, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 5, 6)));

#define CHECK(cond, ...)   itest_check(!!(cond), false, __FILE__, __LINE__, __VA_ARGS__)
#define REQUIRE(cond, ...) itest_check(!!(cond), true, __FILE__, __LINE__, __VA_ARGS__)

void expect_status(const struct resp *r, long status, const char *file, int line);
void expect_success(const struct resp *r, const char *file, int line);
void expect_error(const struct resp *r, long status, const char *code, const char *msg, const char *file, int line);
void expect_str(json_object *o, const char *key, const char *want, const char *file, int line);
void expect_int(json_object *o, const char *key, int64_t want, const char *file, int line);
void expect_bool(json_object *o, const char *key, bool want, const char *file, int line);
void expect_null(json_object *o, const char *key, const char *file, int line);
void expect_absent(json_object *o, const char *key, const char *file, int line);
void expect_keys(json_object *o, const char *const *keys, const char *file, int line);
void expect_str_list(json_object *o, const char *key, const char *const *want, const char *file, int line);
void expect_header(const struct resp *r, const char *name, const char *want, const char *file, int line);

/* HTTP status (with the body in the message on failure). */
#define EXPECT_STATUS(r, st) expect_status((r), (st), __FILE__, __LINE__)
/* 200 and {"result":"success","msg":""}. */
#define EXPECT_SUCCESS(r) expect_success((r), __FILE__, __LINE__)
/* Status, result "error", exact code (NULL: no code key), exact msg, no ignored_parameters_unsupported. */
#define EXPECT_ERROR(r, st, code, msg) expect_error((r), (st), (code), (msg), __FILE__, __LINE__)
#define EXPECT_STR(o, key, want)       expect_str((o), (key), (want), __FILE__, __LINE__)
#define EXPECT_INT(o, key, want)       expect_int((o), (key), (want), __FILE__, __LINE__)
#define EXPECT_BOOL(o, key, want)      expect_bool((o), (key), (want), __FILE__, __LINE__)
#define EXPECT_NULL(o, key)            expect_null((o), (key), __FILE__, __LINE__)
#define EXPECT_ABSENT(o, key)          expect_absent((o), (key), __FILE__, __LINE__)
/* Exactly these keys (NULL-terminated list). */
#define EXPECT_KEYS(o, ...) expect_keys((o), (const char *const[]){__VA_ARGS__, NULL}, __FILE__, __LINE__)
/* o[key] is exactly this list of strings (an empty list: EXPECT_STR_LIST(o, key, NULL)). */
#define EXPECT_STR_LIST(o, key, ...)                                                                                   \
	expect_str_list((o), (key), (const char *const[]){__VA_ARGS__, NULL}, __FILE__, __LINE__)
#define EXPECT_HEADER(r, name, want) expect_header((r), (name), (want), __FILE__, __LINE__)

/* ---- chat helpers ------------------------------------------------------------------------------------------- */

/* POST /messages that must succeed: a channel message, a direct message (to: the "to" parameter). The id. */
int64_t send_channel_message(const struct user *u, const char *channel, const char *topic, const char *content);
int64_t send_direct_message(const struct user *u, const char *to, const char *content);

/* An event queue of u and the last event id acknowledged. */
struct queue {
	const struct user *u;
	const char *id;
	int64_t last;
};
/* POST /register with form (URL-encoded parameters) that must succeed; freed after the current test. */
struct queue *queue_register(const struct user *u, const char *form);
/* The events since the last call, in order, heartbeats left out and ids removed (ids must increase); acknowledges
 * them. Owned by the current test. */
json_object *queue_drain(struct queue *q);
/* got (events of u) equals want (a JSON list text); a bad want stops the test. */
void expect_events_json_at(json_object *got, const char *want, const struct user *u, const char *file, int line);
/* got equals the JSON text want (json_object_equal: key order does not matter); fatal if want does not parse. */
void expect_json_at(json_object *got, const char *want, const char *file, int line);
#define EXPECT_JSON_IS(got, want) expect_json_at((got), (want), __FILE__, __LINE__)
/* The queue holds exactly the events of want (a JSON list text), in order; drains it. */
void expect_events_at(struct queue *q, const char *want, const char *file, int line);
#define EXPECT_EVENTS(q, want) expect_events_at((q), (want), __FILE__, __LINE__)
#define EXPECT_NO_EVENTS(q)    expect_events_at((q), "[]", __FILE__, __LINE__)

/* ---- suites ------------------------------------------------------------------------------------------------- */

struct itest_case {
	const char *name;
	void (*fn)(void);
};

/* Adds a suite whose tests get the harness's per-test cleanup. cases ends with {NULL, NULL}. */
void itest_add_suite(const char *name, const struct itest_case *cases);

void register_auth_tests(void);
void register_params_tests(void);
void register_limits_tests(void);
void register_server_tests(void);
void register_pgbouncer_tests(void); /* checks only with CONFAB_PGBOUNCER=1 (./scripts/test --pgbouncer) */
void register_users_tests(void);
void register_channels_tests(void);
void register_channel_archive_tests(void);
void register_default_channels_tests(void);
void register_channel_update_tests(void);
void register_channel_folders_tests(void);
void register_retention_tests(void);
void register_traffic_tests(void);
void register_user_groups_tests(void);
void register_user_group_members_tests(void);
void register_uploads_tests(void);
void register_attachments_tests(void);
void register_messages_tests(void);
void register_message_fetch_tests(void);
void register_message_edit_tests(void);
void register_message_report_tests(void);
void register_reactions_tests(void);
void register_scheduled_messages_tests(void);
void register_event_queue_tests(void);
void register_queue_limits_tests(void);
void register_events_tests(void);
void register_register_tests(void);
void register_typing_tests(void);
void register_realm_tests(void);
void register_realm_domains_tests(void);
void register_realm_emoji_tests(void);
void register_drafts_tests(void);
void register_shapes_tests(void); /* structured parameters: the type of every value inside (test_shapes.c) */
void register_saved_snippets_tests(void);
void register_navigation_views_tests(void);
void register_user_admin_tests(void);
void register_profile_fields_tests(void);
void register_settings_tests(void);
void register_ops_tests(void);
void register_user_status_tests(void);
void register_user_topics_tests(void);
void register_presence_tests(void);
void register_linkifiers_tests(void);
void register_markdown_tests(void);
void register_apns_tests(void);
void register_mail_tests(void);
void register_zulip_js_tests(void);
void register_invites_tests(void);
void register_lookalikes_tests(void);
void register_join_tests(void);
void register_caches_tests(void);
void register_metrics_tests(void);
void register_apache_tests(void); /* through Apache (CONFAB_APACHE_URL): conf/apache/confab.conf */
void register_outbox_tests(void);  /* ends api workers at fault points (a build with --enable-fault-points) */
void register_restart_tests(void); /* restarts PostgreSQL and Redis */
void register_faults_tests(void);  /* kills workers and the reaper (test_faults.c) */
void register_access_tests(void);  /* what other local users reach (test_access.c; runuser) */
/* Crashes api workers (fault points) and kills supervisors (test_supervision.c); restarts them (CONFAB_GROUP_CTL). */
void register_supervision_tests(void);
/* Two worker hosts, one killed; rolling restarts (CONFAB_SCALEOUT_*). */
void register_scaleout_tests(void);

#endif
