/* confabctl probe: see probe.h. */
#include "probe.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/crypto.h"
#include "core/jsonx.h"
#include "db/db.h"
#include "model/realm.h"
#include "model/user.h"

enum { P_OK, P_WARNING, P_CRITICAL, P_UNKNOWN };

#define PROBE_BOT_NAME  "Health probe"
#define PROBE_BOT_LOCAL "health-probe-bot"
#define MAX_BODY        (4 << 20)

struct probe {
	struct uow *uow;
	const struct probe_opts *o;
	const char *base;        /* URL without a trailing slash */
	struct curl_slist *host; /* the Host header when o->url is given */
	const char *userpwd;     /* email:key */
	const char *key_hash;
	int64_t bot_id;
	double deadline; /* CLOCK_MONOTONIC seconds */
	CURL *curl;
	const char *err; /* the first failure, for the CRITICAL line */
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The Prometheus text format (node_exporter's textfile collector), the Nagios line as a comment. */
static void report_prometheus(int state, double ms)
{
	printf("# HELP confab_probe_success 1 if the message arrived within --critical ms (state OK or WARNING).\n"
	       "# TYPE confab_probe_success gauge\nconfab_probe_success %d\n",
	       state <= P_WARNING);
	printf("# HELP confab_probe_state The probe's Nagios state: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.\n"
	       "# TYPE confab_probe_state gauge\nconfab_probe_state %d\n",
	       state);
	if (ms >= 0)
		printf(
		    "# HELP confab_probe_latency_seconds From the send to the message's arrival on the event queue.\n"
		    "# TYPE confab_probe_latency_seconds gauge\nconfab_probe_latency_seconds %.6f\n",
		    ms / 1000);
}

static int report(const struct probe_opts *o, int state, double ms, const char *text)
{
	static const char *names[] = {"OK", "WARNING", "CRITICAL", "UNKNOWN"};
	char value[32] = "U";
	if (ms >= 0)
		snprintf(value, sizeof(value), "%.1f", ms);
	/* One line either way, and "|" only before the perfdata: an answer's body in text must not break either. */
	char clean[1024];
	snprintf(clean, sizeof(clean), "%s", text);
	for (char *c = clean; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '|')
			*c = ' ';
	printf("%sCONFAB %s - %s | latency_ms=%s;%g;%g;0\n", o->prometheus ? "# " : "", names[state], clean, value,
	       o->warning_ms, o->critical_ms);
	if (o->prometheus)
		report_prometheus(state, ms);
	fflush(stdout);
	return state;
}

/* ---- the bot and its key (PostgreSQL) ---------------------------------------------------------------------- */

static struct db_stmt st_old_keys =
    DB_STMT("DELETE FROM api_keys WHERE user_id = $1 AND created_at < now() - interval '1 hour'");
static struct db_stmt st_drop_key = DB_STMT("DELETE FROM api_keys WHERE key_hash = $1");

/* Finds (or creates) the probe bot and issues a key for this run; NULL with p->err set on failure. */
static const char *bot_key(struct probe *p, const struct realm *realm)
{
	struct uow *uow = p->uow;
	const char *email = arena_printf(&uow->arena, "%s@%s", PROBE_BOT_LOCAL, realm_fake_email_domain(uow, realm));
	struct user *u = user_by_email(uow, realm->id, email);
	if (u != NULL && (!u->is_active || !u->is_bot)) {
		p->err = arena_printf(&uow->arena, "%s is deactivated or not a bot: the probe will not use it", email);
		return NULL;
	}
	if (u != NULL) {
		p->bot_id = u->id;
	} else if (uow->error == ERR_NONE) {
		struct user_new spec = {
		    .email = email, .full_name = PROBE_BOT_NAME, .role = ROLE_MEMBER, .bot_type = BOT_GENERIC};
		p->bot_id = user_create(uow, realm->id, &spec);
	}
	const char *key = NULL;
	if (p->bot_id == 0 || DB_EXEC(uow, &st_old_keys, db_arg_int(uow, p->bot_id)) == NULL ||
	    (key = user_issue_api_key(uow, p->bot_id)) == NULL || db_commit(uow) < 0) {
		p->err = arena_printf(&uow->arena, "could not prepare the probe bot: %s",
		                      uow->error != ERR_NONE ? uow->error_msg : "database error");
		return NULL;
	}
	char hash[65];
	crypto_key_hash(key, hash);
	p->key_hash = arena_strdup(&uow->arena, hash);
	p->userpwd = arena_printf(&uow->arena, "%s:%s", email, key);
	return key;
}

/* The organization, the URL and the credentials; a Nagios state (P_OK to go on). */
static int prepare(struct probe *p)
{
	struct uow *uow = p->uow;
	if (db_begin(uow) < 0) {
		p->err = "PostgreSQL does not answer";
		return P_CRITICAL;
	}
	const struct realm *realm = realm_by_subdomain(uow, p->o->subdomain);
	if (realm == NULL) {
		p->err = uow->error != ERR_NONE
		             ? "PostgreSQL does not answer"
		             : arena_printf(&uow->arena, "no organization has the subdomain \"%s\"", p->o->subdomain);
		return uow->error != ERR_NONE ? P_CRITICAL : P_UNKNOWN;
	}
	const char *url = realm_url(uow, realm);
	if (p->o->url != NULL) {
		const char *host = strstr(url, "://");
		host = host ? host + 3 : url;
		p->host =
		    curl_slist_append(NULL, arena_printf(&uow->arena, "Host: %.*s", (int)strcspn(host, "/"), host));
		url = p->o->url;
	}
	size_t len = strlen(url);
	while (len > 0 && url[len - 1] == '/')
		len--;
	p->base = arena_printf(&uow->arena, "%.*s", (int)len, url);
	return bot_key(p, realm) != NULL ? P_OK : P_CRITICAL;
}

/* Revokes the run's key (the bot stays, for the next run). */
static void revoke_key(struct probe *p)
{
	if (p->key_hash != NULL && DB_EXEC(p->uow, &st_drop_key, p->key_hash) == NULL)
		fprintf(stderr, "confabctl: could not revoke the probe's API key (revoked by a later run)\n");
}

/* ---- HTTP --------------------------------------------------------------------------------------------------- */

static size_t collect(char *data, size_t size, size_t n, void *arg)
{
	return buf_add(arg, data, size * n) == 0 ? size * n : 0;
}

/*
 * METHOD /api/v1 + path (form: an urlencoded body) within the deadline; the JSON answer of a 200 with result
 * success, else NULL with p->err ("what: the reason").
 */
static json_object *call(struct probe *p, const char *method, const char *path, const char *form, const char *what)
{
	double left = p->deadline - now_s();
	if (left <= 0) {
		p->err = arena_printf(&p->uow->arena, "%s: no time left (timeout %g s)", what, p->o->timeout_s);
		return NULL;
	}
	struct buf body;
	buf_init(&body, MAX_BODY);
	CURL *c = p->curl;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, arena_printf(&p->uow->arena, "%s/api/v1%s", p->base, path));
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (form != NULL)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
	curl_easy_setopt(c, CURLOPT_USERPWD, p->userpwd);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, p->host);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "confabctl-probe");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(left * 1000) + 1);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
	CURLcode rc = curl_easy_perform(c);
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	json_object *j = NULL;
	const char *fail = NULL, *result = NULL;
	if (rc == CURLE_OK && jsonx_parse(buf_str(&body), body.len, &j) == 0)
		result = json_object_get_string(json_object_object_get(j, "result"));
	if (rc == CURLE_OPERATION_TIMEDOUT)
		fail = arena_printf(&p->uow->arena, "%s: no answer within the timeout (%g s)", what, p->o->timeout_s);
	else if (rc != CURLE_OK)
		fail = arena_printf(&p->uow->arena, "%s: %s", what, curl_easy_strerror(rc));
	else if (status != 200 || result == NULL || strcmp(result, "success") != 0)
		fail = arena_printf(&p->uow->arena, "%s: HTTP %ld %.200s", what, status, buf_str(&body));
	buf_release(&body);
	if (fail != NULL) {
		p->err = fail;
		json_object_put(j);
		j = NULL;
	}
	return j;
}

static int64_t jint64(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

/* Waits on the queue for the message id; true when it came. */
static bool await_message(struct probe *p, const char *queue, int64_t last, int64_t id)
{
	while (p->err == NULL) {
		json_object *j =
		    call(p, "GET",
		         arena_printf(&p->uow->arena, "/events?queue_id=%s&last_event_id=%lld", queue, (long long)last),
		         NULL, "waiting for the message");
		json_object *events = j ? json_object_object_get(j, "events") : NULL;
		bool found = false;
		for (size_t i = 0; events != NULL && i < json_object_array_length(events); i++) {
			json_object *e = json_object_array_get_idx(events, i);
			if (jint64(e, "id") > last)
				last = jint64(e, "id");
			json_object *m = json_object_object_get(e, "message");
			found = found || (m != NULL && jint64(m, "id") == id);
		}
		json_object_put(j);
		if (found)
			return true;
	}
	return false;
}

/* ---- the run ------------------------------------------------------------------------------------------------ */

/* Register, send, wait: the latency in ms, or -1 with p->err set. */
static double send_receive(struct probe *p, const char **queue)
{
	json_object *reg = call(p, "POST", "/register", "event_types=%5B%22message%22%5D", "register");
	if (reg == NULL)
		return -1;
	*queue = arena_strdup(&p->uow->arena, json_object_get_string(json_object_object_get(reg, "queue_id")));
	int64_t last = jint64(reg, "last_event_id");
	json_object_put(reg);
	char nonce[API_KEY_LEN + 1];
	crypto_new_api_key(nonce);
	double start = now_s();
	json_object *sent =
	    call(p, "POST", "/messages",
	         arena_printf(&p->uow->arena, "type=direct&to=%%5B%lld%%5D&content=Health%%20probe%%20%s",
	                      (long long)p->bot_id, nonce),
	         "send");
	if (sent == NULL)
		return -1;
	int64_t id = jint64(sent, "id");
	json_object_put(sent);
	if (!await_message(p, *queue, last, id))
		return -1;
	double ms = (now_s() - start) * 1000;
	/* Clean up on a best-effort basis: the message (when the organization lets its sender delete it). */
	const char *err = p->err;
	json_object_put(call(p, "DELETE", arena_printf(&p->uow->arena, "/messages/%lld", (long long)id), NULL, "x"));
	p->err = err;
	return ms;
}

int probe_run(struct uow *uow, const struct probe_opts *o)
{
	if (o->subdomain == NULL)
		return report(o, P_UNKNOWN, -1, "--realm is required");
	if (!(o->warning_ms >= 0 && o->critical_ms >= o->warning_ms && o->timeout_s > 0))
		return report(o, P_UNKNOWN, -1, "need 0 <= --warning <= --critical and --timeout > 0");
	struct probe p = {.uow = uow, .o = o, .deadline = now_s() + o->timeout_s};
	int state = prepare(&p);
	if (state != P_OK) {
		revoke_key(&p);
		curl_slist_free_all(p.host);
		return report(o, state, -1, p.err);
	}
	p.curl = curl_easy_init();
	const char *queue = NULL;
	double ms = p.curl != NULL ? send_receive(&p, &queue) : -1;
	if (queue != NULL) {
		const char *err = p.err;
		p.deadline = now_s() + 2;
		json_object_put(call(&p, "DELETE", arena_printf(&uow->arena, "/events?queue_id=%s", queue), NULL, "x"));
		p.err = err;
	}
	if (p.curl != NULL)
		curl_easy_cleanup(p.curl);
	curl_slist_free_all(p.host);
	revoke_key(&p);
	if (ms < 0)
		return report(o, P_CRITICAL, -1, p.err ? p.err : "could not start libcurl");
	const char *text = arena_printf(&uow->arena, "message from %s delivered in %.1f ms", p.base, ms);
	if (ms > o->critical_ms)
		return report(o, P_CRITICAL, ms,
		              arena_printf(&uow->arena, "%s (critical over %g ms)", text, o->critical_ms));
	if (ms > o->warning_ms)
		return report(o, P_WARNING, ms,
		              arena_printf(&uow->arena, "%s (warning over %g ms)", text, o->warning_ms));
	return report(o, P_OK, ms, text);
}
