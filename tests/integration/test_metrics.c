/*
 * GET /metrics through nginx's metrics server (CONFAB_METRICS_URL): the Prometheus text format read by a strict
 * parser of the test's own, counters that move with requests, events and long-polls, and 404 on the public server.
 */
#include <curl/curl.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

#define MAX_LABELS 8

struct sample {
	char *name;
	int nlabels;
	char *lname[MAX_LABELS], *lvalue[MAX_LABELS];
	double value;
};

struct scrape {
	struct sample *s;
	size_t n, cap;
	char *content_type;
};

/* ---- fetching, with a curl handle of its own (the poll thread uses it too) ------------------------------------- */

struct body {
	char *data;
	size_t len;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	b->data = realloc(b->data, b->len + size * n + 1);
	memcpy(b->data + b->len, p, size * n);
	b->len += size * n;
	b->data[b->len] = '\0';
	return size * n;
}

/* GET url (with Basic credentials "email:key" auth if not NULL); the body (malloc'ed), *status, the Content-Type
 * (malloc'ed, if ctype). Thread-safe: it allocates nothing that the harness frees. */
static char *fetch(const char *url, const char *auth, long *status, char **ctype)
{
	CURL *c = curl_easy_init();
	struct body b = {calloc(1, 1), 0};
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 90L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	if (auth != NULL)
		curl_easy_setopt(c, CURLOPT_USERPWD, auth);
	*status = 0;
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (ctype != NULL) {
		char *ct = NULL;
		curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
		*ctype = ct ? strdup(ct) : NULL;
	}
	curl_easy_cleanup(c);
	return b.data;
}

static const char *metrics_url(void)
{
	const char *url = getenv("CONFAB_METRICS_URL");
	REQUIRE(url != NULL && *url != '\0', "CONFAB_METRICS_URL is not set");
	return url;
}

/* ---- the strict parser ----------------------------------------------------------------------------------------- */

static bool is_name(const char *s, size_t n, bool colon)
{
	if (n == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && !(colon && s[i] == ':'))
			return false;
	return true;
}

/* The family a sample name belongs to, given the family's TYPE (histogram/summary suffixes). */
static bool in_family(const char *name, const char *family, const char *type)
{
	if (strcmp(name, family) == 0)
		return strcmp(type, "histogram") != 0;
	size_t fl = strlen(family);
	if (strncmp(name, family, fl) != 0)
		return false;
	const char *suffix = name + fl;
	if (strcmp(type, "histogram") == 0)
		return !strcmp(suffix, "_bucket") || !strcmp(suffix, "_sum") || !strcmp(suffix, "_count");
	if (strcmp(type, "summary") == 0)
		return !strcmp(suffix, "_sum") || !strcmp(suffix, "_count");
	return false;
}

/* Parses {a="x",b="y"} at *p into s; returns false on any syntax error. */
static bool parse_labels(const char **p, struct sample *s)
{
	const char *q = *p + 1;
	while (*q != '}') {
		size_t n = strcspn(q, "=");
		REQUIRE(s->nlabels < MAX_LABELS, "too many labels");
		if (!is_name(q, n, false) || q[n] != '=' || q[n + 1] != '"')
			return false;
		s->lname[s->nlabels] = keep(strndup(q, n));
		q += n + 2;
		char *v = keep(calloc(1, strlen(q) + 1)), *w = v;
		for (; *q != '"'; q++) {
			if (*q == '\0' || *q == '\n')
				return false;
			if (*q == '\\') {
				q++;
				if (*q != '\\' && *q != '"' && *q != 'n')
					return false;
				*w++ = *q == 'n' ? '\n' : *q;
			} else {
				*w++ = *q;
			}
		}
		s->lvalue[s->nlabels++] = v;
		q++;
		if (*q == ',')
			q++;
		else if (*q != '}')
			return false;
	}
	*p = q + 1;
	return true;
}

static bool parse_value(const char *p, double *v)
{
	if (!strcmp(p, "+Inf") || !strcmp(p, "-Inf") || !strcmp(p, "NaN")) {
		*v = !strcmp(p, "NaN") ? NAN : (p[0] == '+' ? INFINITY : -INFINITY);
		return true;
	}
	char *end;
	*v = strtod(p, &end);
	return end != p && *end == '\0';
}

/* One comment line: HELP and TYPE name a family; TYPE once, before its samples, and no family comes back. */
static void parse_comment(const char *line, char **family, char **type, struct scrape *out)
{
	char kw[8], name[256], rest[64];
	if (sscanf(line, "# %7s %255s %63s", kw, name, rest) < 2 || (strcmp(kw, "HELP") && strcmp(kw, "TYPE")))
		return; /* an ordinary comment */
	REQUIRE(is_name(name, strlen(name), true), "bad metric name in \"%s\"", line);
	if (!strcmp(kw, "TYPE")) {
		REQUIRE(!strcmp(rest, "counter") || !strcmp(rest, "gauge") || !strcmp(rest, "histogram") ||
		            !strcmp(rest, "summary") || !strcmp(rest, "untyped"),
		        "bad type in \"%s\"", line);
		REQUIRE(*family == NULL || strcmp(*family, name) != 0 || *type == NULL, "second TYPE for %s", name);
		for (size_t i = 0; i < out->n; i++)
			REQUIRE(strcmp(out->s[i].name, name) != 0, "TYPE %s after its samples", name);
		*type = keep(strdup(rest));
		if (!strcmp(rest, "counter"))
			REQUIRE(strlen(name) > 6 && !strcmp(name + strlen(name) - 6, "_total"), "counter %s without _total",
			        name);
	} else if (*family == NULL || strcmp(*family, name) != 0) {
		*type = NULL;
	}
	*family = keep(strdup(name));
}

static void parse_sample(const char *line, const char *family, const char *type, struct scrape *out)
{
	struct sample s = {0};
	const char *p = line;
	size_t n = strcspn(p, "{ ");
	REQUIRE(is_name(p, n, true), "bad sample line \"%s\"", line);
	s.name = keep(strndup(p, n));
	p += n;
	if (*p == '{')
		REQUIRE(parse_labels(&p, &s), "bad labels in \"%s\"", line);
	REQUIRE(*p == ' ', "no value in \"%s\"", line);
	REQUIRE(parse_value(p + 1, &s.value), "bad value in \"%s\"", line);
	REQUIRE(family != NULL && type != NULL && in_family(s.name, family, type),
	        "sample %s outside its family's HELP/TYPE (current family %s)", s.name, family ? family : "none");
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 256;
		out->s = realloc(out->s, out->cap * sizeof(*out->s));
	}
	out->s[out->n++] = s;
}

/* Scrapes /metrics and parses it strictly; every line must be a comment or a sample. Owned by the test. */
static struct scrape *scrape(void)
{
	long status;
	struct scrape *out = keep(calloc(1, sizeof(*out)));
	char *text = keep(fetch(metrics_url(), NULL, &status, &out->content_type));
	keep(out->content_type);
	REQUIRE(status == 200, "GET %s: %ld %s", metrics_url(), status, text);
	REQUIRE(text[0] != '\0' && text[strlen(text) - 1] == '\n', "the exposition must end with a line feed");
	char *family = NULL, *type = NULL;
	for (char *line = text, *next; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		REQUIRE(*line != '\0', "empty line in the exposition");
		if (line[0] == '#')
			parse_comment(line, &family, &type, out);
		else
			parse_sample(line, family, type, out);
	}
	keep(out->s);
	return out;
}

static const char *label(const struct sample *s, const char *name)
{
	for (int i = 0; i < s->nlabels; i++)
		if (!strcmp(s->lname[i], name))
			return s->lvalue[i];
	return NULL;
}

/* The sum of the samples called want[0] whose labels include the pairs that follow (name, value, ..., NULL). */
static double sum(const struct scrape *sc, const char *const *want)
{
	const char *name = *want++;
	double total = 0;
	for (size_t i = 0; i < sc->n; i++) {
		const struct sample *s = &sc->s[i];
		bool ok = !strcmp(s->name, name);
		for (size_t k = 0; ok && want[k] != NULL; k += 2)
			ok = label(s, want[k]) != NULL && !strcmp(label(s, want[k]), want[k + 1]);
		if (ok)
			total += s->value;
	}
	return total;
}
#define SUM(sc, ...) sum((sc), (const char *const[]){__VA_ARGS__, NULL})

static bool has(const struct scrape *sc, const char *name)
{
	for (size_t i = 0; i < sc->n; i++)
		if (!strcmp(sc->s[i].name, name))
			return true;
	return false;
}

/* ---- tests ------------------------------------------------------------------------------------------------------ */

/* a and b have the same labels, le aside. */
static bool same_series(const struct sample *a, const struct sample *b)
{
	if (strcmp(a->name, b->name) != 0 || a->nlabels != b->nlabels)
		return false;
	for (int i = 0; i < a->nlabels; i++) {
		const char *v = label(b, a->lname[i]);
		if (v == NULL || (strcmp(a->lname[i], "le") != 0 && strcmp(v, a->lvalue[i]) != 0))
			return false;
	}
	return true;
}

/* Buckets of each histogram series: le increasing, counts never falling, +Inf equal to _count. */
static void check_histograms(const struct scrape *sc)
{
	int series = 0;
	for (size_t i = 0; i < sc->n; i++) {
		const struct sample *s = &sc->s[i];
		size_t len = strlen(s->name);
		if (len < 7 || strcmp(s->name + len - 7, "_bucket") != 0 || (i > 0 && same_series(&sc->s[i - 1], s)))
			continue;
		REQUIRE(label(s, "le") != NULL, "%s without le", s->name);
		char *base = keep(strndup(s->name, len - 7));
		double le = -INFINITY, last = 0;
		size_t j = i;
		for (; j < sc->n && same_series(&sc->s[j], s); j++) {
			double b;
			REQUIRE(parse_value(label(&sc->s[j], "le"), &b), "bad le \"%s\"", label(&sc->s[j], "le"));
			CHECK(b > le, "%s: le %g after %g", base, b, le);
			CHECK(sc->s[j].value >= last, "%s{route=%s}: bucket le=%g holds %g < %g", base, label(s, "route"), b,
			      sc->s[j].value, last);
			le = b;
			last = sc->s[j].value;
		}
		CHECK(isinf(le) && le > 0, "%s{route=%s}: the last bucket is not +Inf", base, label(s, "route"));
		REQUIRE(j + 1 < sc->n, "%s: no _sum and _count", base);
		CHECK(!strcmp(sc->s[j].name, fmt("%s_sum", base)), "%s: _sum missing after the buckets", base);
		CHECK(!strcmp(sc->s[j + 1].name, fmt("%s_count", base)) && sc->s[j + 1].value == last,
		      "%s{route=%s}: _count %g, +Inf bucket %g", base, label(s, "route"), sc->s[j + 1].value, last);
		series++;
	}
	CHECK(series > 0, "no histogram series at all");
}

/* GET /metrics: the text format (0.0.4) every line of which the strict parser accepts, with the families asked for. */
static void test_metrics_format(void)
{
	struct scrape *sc = scrape();
	CHECK(sc->content_type && !strcmp(sc->content_type, "text/plain; version=0.0.4; charset=utf-8"),
	      "Content-Type %s", sc->content_type ? sc->content_type : "(none)");
	check_histograms(sc);
	static const char *const families[] = {
	    "confab_build_info", "confab_processes", "confab_process_start_time_seconds", "confab_http_requests_total",
	    "confab_http_request_duration_seconds_bucket", "confab_pg_pool_acquires_total", "confab_pg_pool_waits_total",
	    "confab_pg_pool_wait_seconds_total", "confab_pg_connection_errors_total", "confab_pg_query_errors_total",
	    "confab_redis_pool_acquires_total", "confab_redis_pool_waits_total", "confab_redis_pool_wait_seconds_total",
	    "confab_redis_connection_errors_total", "confab_redis_command_errors_total", "confab_events_published_total",
	    "confab_event_queue_pushes_total", "confab_events_served_total", "confab_long_polls_held",
	    "confab_event_queues", "confab_reaper_lag_seconds_sum", "confab_reaper_lag_seconds_count",
	    "confab_reaper_last_lag_seconds", "confab_scheduled_messages_due", "confab_scheduled_messages_failed"};
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		CHECK(has(sc, families[i]), "no %s sample", families[i]);
	/* Every group of processes is there: the api workers answer, the events workers and the reaper count apart. */
	CHECK(SUM(sc, "confab_processes", "group", "api") >= 1, "no live api process");
	CHECK(SUM(sc, "confab_processes", "group", "events") >= 1, "no live events process");
	CHECK(SUM(sc, "confab_processes", "group", "reaper") == 1, "no live reaper");
	CHECK(SUM(sc, "confab_build_info") == 1, "confab_build_info");
}

/* A 200 and a 4xx on known routes move their counters and histograms, labelled by the route's pattern. */
static void test_metrics_requests_by_route(void)
{
	struct scrape *a = scrape();
	for (int i = 0; i < 3; i++)
		EXPECT_STATUS(api_get(&itest_owner, "/users/me"), 200);
	struct resp *bad = api_get(&itest_owner, "/messages/987654321");
	REQUIRE(bad->status >= 400 && bad->status < 500, "GET /messages/987654321: %ld", bad->status);
	const char *bad_status = fmt("%ld", bad->status);
	struct scrape *b = scrape();
	const char *me = "/api/v1/users/me", *msg = "/api/v1/messages/{message_id}";
	double d = SUM(b, "confab_http_requests_total", "route", me, "method", "GET", "status", "200") -
	           SUM(a, "confab_http_requests_total", "route", me, "method", "GET", "status", "200");
	CHECK(d >= 3, "requests of %s moved by %g", me, d);
	d = SUM(b, "confab_http_requests_total", "route", msg, "status", bad_status) -
	    SUM(a, "confab_http_requests_total", "route", msg, "status", bad_status);
	CHECK(d >= 1, "%s requests of %s moved by %g", bad_status, msg, d);
	d = SUM(b, "confab_http_request_duration_seconds_count", "route", me) -
	    SUM(a, "confab_http_request_duration_seconds_count", "route", me);
	CHECK(d >= 3, "latency count of %s moved by %g", me, d);
	d = SUM(b, "confab_http_request_duration_seconds_bucket", "route", me, "le", "+Inf") -
	    SUM(a, "confab_http_request_duration_seconds_bucket", "route", me, "le", "+Inf");
	CHECK(d >= 3, "+Inf bucket of %s moved by %g", me, d);
	CHECK(SUM(b, "confab_pg_pool_acquires_total", "group", "api") -
	              SUM(a, "confab_pg_pool_acquires_total", "group", "api") >=
	          3,
	      "PostgreSQL pool acquisitions did not move");
	CHECK(SUM(b, "confab_redis_pool_acquires_total", "group", "api") -
	              SUM(a, "confab_redis_pool_acquires_total", "group", "api") >=
	          1,
	      "Redis pool acquisitions did not move");
	/* The pattern, never the path: no label carries the id. */
	for (size_t i = 0; i < b->n; i++)
		for (int k = 0; k < b->s[i].nlabels; k++)
			CHECK(strstr(b->s[i].lvalue[k], "987654321") == NULL, "%s has a label %s=\"%s\"", b->s[i].name,
			      b->s[i].lname[k], b->s[i].lvalue[k]);
}

/* A published event and one served by GET /events (the events group's processes) show in the api's /metrics. */
static void test_metrics_events_published_and_served(void)
{
	struct user *u = new_user("member");
	struct queue *q = queue_register(u, "event_types=%5B%22message%22%5D");
	struct scrape *a = scrape();
	CHECK(SUM(a, "confab_event_queues") >= 1, "confab_event_queues %g with a queue registered",
	      SUM(a, "confab_event_queues"));
	send_direct_message(&itest_owner, u->email, "metrics: one event");
	/* A blocking poll (the events group; dont_block goes to the api group), answered at once by the waiting event. */
	struct resp *r = api_get(u, fmt("/events?queue_id=%s&last_event_id=-1", q->id));
	EXPECT_SUCCESS(r);
	json_object *events = jget(r->json, "events");
	CHECK(events != NULL && json_object_array_length(events) == 1, "events: %s", r->body);
	struct scrape *b = scrape();
	double published = SUM(b, "confab_events_published_total") - SUM(a, "confab_events_published_total");
	double pushes = SUM(b, "confab_event_queue_pushes_total") - SUM(a, "confab_event_queue_pushes_total");
	double served = SUM(b, "confab_events_served_total", "group", "events") -
	                SUM(a, "confab_events_served_total", "group", "events");
	CHECK(published >= 1, "events published moved by %g", published);
	CHECK(pushes >= 1, "queue pushes moved by %g", pushes);
	CHECK(served >= 1, "events served by the events group moved by %g", served);
}

struct poll {
	pthread_t thread;
	const char *url, *auth;
	long status;
	char *body;
};

static void *poll_main(void *arg)
{
	struct poll *p = arg;
	p->body = fetch(p->url, p->auth, &p->status, NULL);
	return NULL;
}

static double held(void)
{
	return SUM(scrape(), "confab_long_polls_held");
}

/* The gauge of held long-polls counts a poll while it waits, and no longer once an event ended it. */
static void test_metrics_long_poll_held(void)
{
	struct user *u = new_user("member");
	struct queue *q = queue_register(u, "event_types=%5B%22message%22%5D");
	double before = held();
	struct poll p = {.url = fmt("%s/api/v1/events?queue_id=%s&last_event_id=%lld", itest_url, q->id,
	                            (long long)q->last),
	                 .auth = fmt("%s:%s", u->email, u->key)};
	REQUIRE(pthread_create(&p.thread, NULL, poll_main, &p) == 0, "pthread_create");
	double during = before;
	for (int i = 0; i < 100 && during < before + 1; i++) {
		usleep(100000);
		during = held();
	}
	CHECK(during >= before + 1, "long-polls held: %g before, %g while one waits", before, during);
	send_direct_message(&itest_owner, u->email, "metrics: wake up");
	pthread_join(p.thread, NULL);
	keep(p.body);
	CHECK(p.status == 200 && strstr(p.body, "metrics: wake up") != NULL, "the poll ended with %ld %s", p.status,
	      p.body);
	double after = held();
	CHECK(after <= during - 1, "long-polls held: %g while one waited, %g after it ended", during, after);
}

/* The reaper's rounds are counted with their lag, about once a second. */
static void test_metrics_reaper_lag(void)
{
	struct scrape *a = scrape();
	sleep(2);
	struct scrape *b = scrape();
	double rounds = SUM(b, "confab_reaper_lag_seconds_count", "group", "reaper") -
	                SUM(a, "confab_reaper_lag_seconds_count", "group", "reaper");
	CHECK(rounds >= 1, "reaper rounds in 2 s: %g", rounds);
	CHECK(SUM(b, "confab_reaper_lag_seconds_sum", "group", "reaper") >=
	          SUM(a, "confab_reaper_lag_seconds_sum", "group", "reaper"),
	      "the lag sum fell");
	double last = SUM(b, "confab_reaper_last_round_timestamp_seconds", "group", "reaper");
	CHECK(last >= (double)time(NULL) - 10, "the reaper's last round at %g, now %lld", last, (long long)time(NULL));
}

/* A scheduled message that failed is counted at the next scrape. */
static void test_metrics_scheduled_failed(void)
{
	struct resp *r = api_post(&itest_owner, "/scheduled_messages",
	                          fmt("type=direct&to=%%5B%lld%%5D&content=later&scheduled_delivery_timestamp=%lld",
	                              (long long)itest_owner.id, (long long)time(NULL) + 3600));
	EXPECT_SUCCESS(r);
	int64_t id = jint(r->json, "scheduled_message_id");
	struct scrape *a = scrape();
	CHECK(SUM(a, "confab_scheduled_messages_due") >= 0, "due");
	psql_ok("UPDATE scheduled_messages SET failed = true, failure_message = 'metrics test' WHERE id = %lld",
	        (long long)id);
	struct scrape *b = scrape();
	double d = SUM(b, "confab_scheduled_messages_failed") - SUM(a, "confab_scheduled_messages_failed");
	psql_ok("DELETE FROM scheduled_messages WHERE id = %lld", (long long)id);
	CHECK(d == 1, "failed scheduled messages moved by %g", d);
}

/* The live worker processes of the api group: the children of the confab-supervise named by CONFAB_RUN_DIR/api.pid. */
static int api_workers(pid_t *out, int max)
{
	const char *run = getenv("CONFAB_RUN_DIR");
	REQUIRE(run != NULL, "CONFAB_RUN_DIR is not set");
	FILE *f = fopen(fmt("%s/api.pid", run), "r");
	long watcher = 0;
	REQUIRE(f != NULL && fscanf(f, "%ld", &watcher) == 1, "no pid in %s/api.pid", run);
	fclose(f);
	DIR *d = opendir("/proc");
	REQUIRE(d != NULL, "opendir /proc");
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
		char *end, buf[512], state;
		long pid = strtol(e->d_name, &end, 10);
		FILE *s = *end == '\0' && pid > 0 ? fopen(fmt("/proc/%ld/stat", pid), "r") : NULL;
		if (s == NULL)
			continue;
		size_t len = fread(buf, 1, sizeof(buf) - 1, s);
		fclose(s);
		buf[len] = '\0';
		const char *p = strrchr(buf, ')');
		int ppid;
		if (p != NULL && sscanf(p + 1, " %c %d", &state, &ppid) == 2 && ppid == watcher && state != 'Z')
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

/* kill -9 of every api worker loses no count: their successors take the dead processes' slots and go on. */
static void test_metrics_counters_survive_restart(void)
{
	for (int i = 0; i < 3; i++)
		EXPECT_STATUS(api_get(&itest_owner, "/users/me"), 200);
	double before = SUM(scrape(), "confab_http_requests_total", "group", "api");
	pid_t old[16], now[16];
	int n = api_workers(old, 16);
	REQUIRE(n >= 1, "no api worker found");
	for (int i = 0; i < n; i++)
		kill(old[i], SIGKILL);
	bool replaced = false;
	for (int t = 0; t < 200 && !replaced; t++) {
		usleep(100000);
		int m = api_workers(now, 16);
		replaced = m == n;
		for (int i = 0; i < m && replaced; i++)
			for (int j = 0; j < n; j++)
				replaced = replaced && now[i] != old[j];
	}
	REQUIRE(replaced, "the supervisor did not replace the %d api workers", n);
	struct scrape *b = NULL;
	long status = 0;
	for (int t = 0; t < 100 && status != 200; t++) { /* the new workers may still be starting */
		free(fetch(metrics_url(), NULL, &status, NULL));
		if (status != 200)
			usleep(100000);
	}
	b = scrape();
	double after = SUM(b, "confab_http_requests_total", "group", "api");
	CHECK(after >= before + 1, "api requests counted: %g before the workers were killed, %g after", before, after);
	CHECK(SUM(b, "confab_processes", "group", "api") == n, "live api processes: %g, want %d",
	      SUM(b, "confab_processes", "group", "api"), n);
}

/* /metrics is not on the public server: 404 with the JSON error, as any unknown path; and the metrics server
 * serves nothing else. */
static void test_metrics_not_public(void)
{
	struct resp *r = http(&(struct request){.path = "/metrics"});
	EXPECT_ERROR(r, 404, "BAD_REQUEST", "Not Found");
	long status;
	char *base = keep(strdup(metrics_url()));
	*strrchr(base, '/') = '\0';
	keep(fetch(fmt("%s/api/v1/server_settings", base), NULL, &status, NULL));
	CHECK(status == 404, "the metrics server answered %ld for /api/v1/server_settings", status);
}

void register_metrics_tests(void)
{
	static const struct itest_case cases[] = {
	    {"format", test_metrics_format},
	    {"requests_by_route", test_metrics_requests_by_route},
	    {"events_published_and_served", test_metrics_events_published_and_served},
	    {"long_poll_held", test_metrics_long_poll_held},
	    {"reaper_lag", test_metrics_reaper_lag},
	    {"scheduled_failed", test_metrics_scheduled_failed},
	    {"not_public", test_metrics_not_public},
	    {"counters_survive_restart", test_metrics_counters_survive_restart},
	    {NULL, NULL},
	};
	itest_add_suite("metrics", cases);
}
