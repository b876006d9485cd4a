/* The integration-test harness and main; see itest.h. */
#include "itest.h"

#include <CUnit/Basic.h>
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *itest_url;
const char *itest_hostname;
const char *itest_hostport;
int itest_rate_limit = 600;
struct user itest_owner;

static CURL *curl_handle;
static char run_id[32];
static int counter;

/* ---- memory: everything handed out is freed after the current test ------------------------------------------ */

struct gc_item {
	void (*fn)(void *);
	void *p;
};
static struct gc_item *gc_items;
static size_t gc_n, gc_cap;

static void oom(void)
{
	fputs("confab-itest: out of memory\n", stderr);
	abort();
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (d == NULL)
		oom();
	return d;
}

static void gc_add(void (*fn)(void *), void *p)
{
	if (gc_n == gc_cap) {
		gc_cap = gc_cap ? gc_cap * 2 : 64;
		gc_items = xrealloc(gc_items, gc_cap * sizeof(*gc_items));
	}
	gc_items[gc_n].fn = fn;
	gc_items[gc_n].p = p;
	gc_n++;
}

static void gc_run(void)
{
	while (gc_n > 0) {
		gc_n--;
		gc_items[gc_n].fn(gc_items[gc_n].p);
	}
}

void *keep(void *p)
{
	gc_add(free, p);
	return p;
}

double now_secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void json_put(void *p)
{
	json_object_put(p);
}

json_object *keep_json(json_object *j)
{
	if (j != NULL)
		gc_add(json_put, j);
	return j;
}

char *fmt(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	char *s;
	if (vasprintf(&s, format, ap) < 0)
		oom();
	va_end(ap);
	return keep(s);
}

char *repeat(char c, size_t n)
{
	char *s = xmalloc(n + 1);
	memset(s, c, n);
	s[n] = '\0';
	return keep(s);
}

char *url_encode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = xmalloc(strlen(s) * 3 + 1), *o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (isalnum(*p) || strchr("-._~", *p)) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return keep(out);
}

char *base64(const char *s, size_t len)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *o = out;
	size_t i = 0;
	for (; i + 2 < len; i += 3) {
		*o++ = tab[p[i] >> 2];
		*o++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*o++ = tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		*o++ = tab[p[i + 2] & 63];
	}
	if (len - i == 1) {
		*o++ = tab[p[i] >> 2];
		*o++ = tab[(p[i] & 3) << 4];
		*o++ = '=';
		*o++ = '=';
	} else if (len - i == 2) {
		*o++ = tab[p[i] >> 2];
		*o++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*o++ = tab[(p[i + 1] & 15) << 2];
		*o++ = '=';
	}
	*o = '\0';
	return keep(out);
}

/* ---- assertions --------------------------------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

void itest_check(bool ok, bool fatal, const char *file, int line, const char *format, ...)
{
	if (ok) {
		CU_assertImplementation(CU_TRUE, (unsigned)line, "", base_name(file), "", CU_FALSE);
		return;
	}
	/* CUnit copies the condition text, so one static buffer is enough (the fatal case longjmps away). */
	static char msg[3072];
	va_list ap;
	va_start(ap, format);
	vsnprintf(msg, sizeof(msg), format, ap);
	va_end(ap);
	CU_assertImplementation(CU_FALSE, (unsigned)line, msg, base_name(file), "", fatal ? CU_TRUE : CU_FALSE);
}

static const char *snippet(const char *s, size_t max)
{
	if (s == NULL)
		return "(null)";
	if (strlen(s) <= max)
		return s;
	return fmt("%.*s...(%zu bytes)", (int)max, s, strlen(s));
}

const char *jtext(json_object *o)
{
	if (o == NULL)
		return "null";
	return snippet(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), 600);
}

/* "GET /path -> 400 {body}" for failure messages. */
static const char *describe(const struct resp *r)
{
	if (r == NULL)
		return "(no response)";
	if (r->status == 0)
		return fmt("%s: no HTTP response (curl error %d: %s)", r->what, r->curl_code,
		           curl_easy_strerror((CURLcode)r->curl_code));
	return fmt("%s -> %ld %s", r->what, r->status, snippet(r->body, 500));
}

void expect_status(const struct resp *r, long status, const char *file, int line)
{
	itest_check(r->status == status, false, file, line, "expected HTTP %ld: %s", status, describe(r));
}

void expect_success(const struct resp *r, const char *file, int line)
{
	bool ok = r->status == 200 && r->json != NULL && jstr(r->json, "result") != NULL &&
	          strcmp(jstr(r->json, "result"), "success") == 0 && jstr(r->json, "msg") != NULL &&
	          strcmp(jstr(r->json, "msg"), "") == 0;
	itest_check(ok, false, file, line, "expected 200 {\"result\":\"success\",\"msg\":\"\"}: %s", describe(r));
}

void expect_error(const struct resp *r, long status, const char *code, const char *msg, const char *file, int line)
{
	if (r->json == NULL) {
		itest_check(false, false, file, line, "expected a JSON error %ld %s \"%s\": %s", status,
		            code ? code : "(no code)", msg, describe(r));
		return;
	}
	itest_check(r->status == status, false, file, line, "expected HTTP %ld: %s", status, describe(r));
	const char *result = jstr(r->json, "result");
	itest_check(result && strcmp(result, "error") == 0, false, file, line, "expected result \"error\": %s",
	            describe(r));
	const char *m = jstr(r->json, "msg");
	itest_check(m && strcmp(m, msg) == 0, false, file, line, "expected msg \"%s\", got \"%s\": %s", msg,
	            m ? m : "(none)", describe(r));
	if (code == NULL) {
		itest_check(!jhas(r->json, "code"), false, file, line, "expected no \"code\": %s", describe(r));
	} else {
		const char *c = jstr(r->json, "code");
		itest_check(c && strcmp(c, code) == 0, false, file, line, "expected code \"%s\", got \"%s\": %s", code,
		            c ? c : "(none)", describe(r));
	}
	itest_check(!jhas(r->json, "ignored_parameters_unsupported"), false, file, line,
	            "an error response must not carry ignored_parameters_unsupported: %s", describe(r));
}

void expect_str(json_object *o, const char *key, const char *want, const char *file, int line)
{
	const char *got = jstr(o, key);
	itest_check(got != NULL && strcmp(got, want) == 0, false, file, line, "expected \"%s\": \"%s\" in %s", key,
	            want, jtext(o));
}

void expect_int(json_object *o, const char *key, int64_t want, const char *file, int line)
{
	itest_check(jint(o, key) == want, false, file, line, "expected \"%s\": %lld in %s", key, (long long)want,
	            jtext(o));
}

void expect_bool(json_object *o, const char *key, bool want, const char *file, int line)
{
	itest_check(jbool(o, key) == (int)want, false, file, line, "expected \"%s\": %s in %s", key,
	            want ? "true" : "false", jtext(o));
}

void expect_null(json_object *o, const char *key, const char *file, int line)
{
	itest_check(jis_null(o, key), false, file, line, "expected \"%s\": null in %s", key, jtext(o));
}

void expect_absent(json_object *o, const char *key, const char *file, int line)
{
	itest_check(o != NULL && !jhas(o, key), false, file, line, "expected no \"%s\" in %s", key, jtext(o));
}

void expect_keys(json_object *o, const char *const *keys, const char *file, int line)
{
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		itest_check(false, false, file, line, "expected an object, got %s", jtext(o));
		return;
	}
	char *missing = xstrdup(""), *extra = xstrdup("");
	for (const char *const *k = keys; *k; k++) {
		if (!jhas(o, *k)) {
			char *t = missing;
			if (asprintf(&missing, "%s %s", t, *k) < 0)
				oom();
			free(t);
		}
	}
	json_object_object_foreach (o, key, val) {
		(void)val;
		bool known = false;
		for (const char *const *k = keys; *k && !known; k++)
			known = strcmp(*k, key) == 0;
		if (!known) {
			char *t = extra;
			if (asprintf(&extra, "%s %s", t, key) < 0)
				oom();
			free(t);
		}
	}
	itest_check(*missing == '\0' && *extra == '\0', false, file, line,
	            "key set: missing [%s ], unexpected [%s ] in %s", missing, extra, jtext(o));
	free(missing);
	free(extra);
}

void expect_str_list(json_object *o, const char *key, const char *const *want, const char *file, int line)
{
	json_object *a = jget(o, key);
	size_t n = 0;
	while (want[n])
		n++;
	bool ok = a != NULL && json_object_is_type(a, json_type_array) && json_object_array_length(a) == n;
	for (size_t i = 0; ok && i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		ok = json_object_is_type(e, json_type_string) && strcmp(json_object_get_string(e), want[i]) == 0;
	}
	itest_check(ok, false, file, line, "unexpected \"%s\" in %s", key, jtext(o));
}

void expect_header(const struct resp *r, const char *name, const char *want, const char *file, int line)
{
	const char *got = resp_header(r, name);
	itest_check(got != NULL && strcmp(got, want) == 0, false, file, line, "expected header %s: %s, got %s (%s)",
	            name, want, got ? got : "(none)", describe(r));
}

/* ---- JSON --------------------------------------------------------------------------------------------------- */

bool jhas(json_object *o, const char *key)
{
	return o != NULL && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, NULL);
}

json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (o == NULL || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

bool jis_null(json_object *o, const char *key)
{
	return jhas(o, key) && jget(o, key) == NULL;
}

const char *jstr(json_object *o, const char *key)
{
	json_object *v = jget(o, key);
	return v != NULL && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int64_t jint(json_object *o, const char *key)
{
	json_object *v = jget(o, key);
	return v != NULL && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : INT64_MIN;
}

int jbool(json_object *o, const char *key)
{
	json_object *v = jget(o, key);
	return v != NULL && json_object_is_type(v, json_type_boolean) ? json_object_get_boolean(v) : -1;
}

json_object *find_member(json_object *members, int64_t id)
{
	if (members == NULL || !json_object_is_type(members, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(members); i++) {
		json_object *m = json_object_array_get_idx(members, i);
		if (jint(m, "user_id") == id)
			return m;
	}
	return NULL;
}

/* ---- chat helpers ------------------------------------------------------------------------------------------- */

static int64_t send_message(const struct user *u, const char *form)
{
	struct resp *r = api_post(u, "/messages", form);
	EXPECT_SUCCESS(r);
	REQUIRE(jint(r->json, "id") > 0, "no id: %s", r->body);
	return jint(r->json, "id");
}

int64_t send_channel_message(const struct user *u, const char *channel, const char *topic, const char *content)
{
	return send_message(u, fmt("type=stream&to=%s&topic=%s&content=%s", url_encode(channel), url_encode(topic),
	                           url_encode(content)));
}

int64_t send_direct_message(const struct user *u, const char *to, const char *content)
{
	return send_message(u, fmt("type=direct&to=%s&content=%s", url_encode(to), url_encode(content)));
}

struct queue *queue_register(const struct user *u, const char *form)
{
	struct resp *r = api_post(u, "/register", form);
	EXPECT_SUCCESS(r);
	REQUIRE(jstr(r->json, "queue_id") != NULL && jint(r->json, "last_event_id") != INT64_MIN, "register: %s",
	        r->body);
	struct queue *q = keep(calloc(1, sizeof(*q)));
	q->u = u;
	q->id = fmt("%s", jstr(r->json, "queue_id"));
	q->last = jint(r->json, "last_event_id");
	return q;
}

json_object *queue_drain(struct queue *q)
{
	struct resp *r =
	    api_get(q->u, fmt("/events?queue_id=%s&last_event_id=%lld&dont_block=true", q->id, (long long)q->last));
	EXPECT_SUCCESS(r);
	json_object *all = jget(r->json, "events");
	REQUIRE(json_object_is_type(all, json_type_array), "events: %s", r->body);
	json_object *out = json_object_new_array();
	json_object_object_add(r->json, "_drained", out); /* freed with the response */
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *e = json_object_array_get_idx(all, i);
		CHECK(jint(e, "id") > q->last, "event ids must increase: %s", jtext(all));
		q->last = jint(e, "id");
		json_object_object_del(e, "id");
		const char *type = jstr(e, "type");
		if (type == NULL || strcmp(type, "heartbeat") != 0)
			json_object_array_add(out, json_object_get(e));
	}
	return out;
}

void expect_json_at(json_object *got, const char *want, const char *file, int line)
{
	json_object *w = json_tokener_parse(want);
	itest_check(w != NULL, true, file, line, "bad expected JSON: %s", want);
	itest_check(json_object_equal(got, w), false, file, line, "expected %s\n      got %s", want, jtext(got));
	json_object_put(w);
}

void expect_events_json_at(json_object *got, const char *want, const struct user *u, const char *file, int line)
{
	json_object *w = json_tokener_parse(want);
	itest_check(w != NULL, true, file, line, "bad expected JSON: %s", want);
	itest_check(json_object_equal(got, w), false, file, line, "user %lld: expected events %s\n      got %s",
	            (long long)u->id, want, jtext(got));
	json_object_put(w);
}

void expect_events_at(struct queue *q, const char *want, const char *file, int line)
{
	expect_events_json_at(queue_drain(q), want, q->u, file, line);
}

/* ---- HTTP --------------------------------------------------------------------------------------------------- */

void itest_http_after_fork(void)
{
	/* The parent's handle (and its kept-alive connection) stays the parent's; it is not cleaned up here, since
	 * that would close the connection under the parent. */
	curl_handle = curl_easy_init();
	if (curl_handle == NULL)
		oom();
}

void itest_burst(int n, int (*client)(void *arg, int i), void *arg, int *answers)
{
	int start[2], results[2];
	pid_t pids[64];
	REQUIRE(n <= 64 && pipe(start) == 0 && pipe(results) == 0, "itest_burst: pipe failed");
	for (int i = 0; i < n; i++) {
		fflush(NULL);
		pids[i] = fork();
		REQUIRE(pids[i] >= 0, "fork failed");
		if (pids[i] == 0) {
			close(start[1]);
			close(results[0]);
			itest_http_after_fork();
			char go;
			/* Every client waits here until all are forked, so that the requests overlap. */
			if (read(start[0], &go, 1) < 0)
				_exit(1);
			int answer = client(arg, i);
			_exit(write(results[1], &answer, sizeof(answer)) == sizeof(answer) ? 0 : 1);
		}
	}
	close(start[0]);
	close(start[1]); /* EOF: all clients go */
	close(results[1]);
	int got = 0;
	for (int answer; got < n && read(results[0], &answer, sizeof(answer)) == sizeof(answer);)
		answers[got++] = answer;
	close(results[0]);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	REQUIRE(got == n, "itest_burst: %d of %d clients answered", got, n);
}

static void resp_free(void *p)
{
	struct resp *r = p;
	for (size_t i = 0; i < r->nheaders; i++) {
		free(r->hname[i]);
		free(r->hvalue[i]);
	}
	free(r->hname);
	free(r->hvalue);
	free(r->body);
	free(r->what);
	if (r->json != NULL)
		json_object_put(r->json);
	free(r);
}

struct body_buf {
	char *p;
	size_t len, cap;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct body_buf *b = userdata;
	size_t n = size * nmemb;
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct resp *r = userdata;
	size_t n = size * nmemb;
	if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		/* A new header block (after 100 Continue): keep only the final one. */
		for (size_t i = 0; i < r->nheaders; i++) {
			free(r->hname[i]);
			free(r->hvalue[i]);
		}
		r->nheaders = 0;
		return n;
	}
	const char *colon = memchr(data, ':', n);
	if (colon == NULL)
		return n;
	const char *v = colon + 1, *end = data + n;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		end--;
	r->hname = xrealloc(r->hname, (r->nheaders + 1) * sizeof(char *));
	r->hvalue = xrealloc(r->hvalue, (r->nheaders + 1) * sizeof(char *));
	r->hname[r->nheaders] = strndup(data, (size_t)(colon - data));
	r->hvalue[r->nheaders] = strndup(v, (size_t)(end - v));
	if (r->hname[r->nheaders] == NULL || r->hvalue[r->nheaders] == NULL)
		oom();
	r->nheaders++;
	return n;
}

const char *resp_header(const struct resp *r, const char *name)
{
	for (size_t i = r->nheaders; i-- > 0;)
		if (strcasecmp(r->hname[i], name) == 0)
			return r->hvalue[i];
	return NULL;
}

char *multipart_body(const char *const *pairs, size_t *len, char **ctype)
{
	static const char boundary[] = "----confabItestBoundary7MA4YWxkTrZu0gW";
	size_t cap = 256, n = 0;
	for (const char *const *p = pairs; p[0] && p[1]; p += 2)
		cap += strlen(p[0]) + strlen(p[1]) + 128;
	char *out = xmalloc(cap);
	for (const char *const *p = pairs; p[0] && p[1]; p += 2)
		n += (size_t)sprintf(out + n, "--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n",
		                     boundary, p[0], p[1]);
	n += (size_t)sprintf(out + n, "--%s--\r\n", boundary);
	*len = n;
	*ctype = fmt("multipart/form-data; boundary=%s", boundary);
	return keep(out);
}

static struct curl_slist *add_header(struct curl_slist *list, const char *line)
{
	struct curl_slist *l = curl_slist_append(list, line);
	if (l == NULL)
		oom();
	return l;
}

/* The request's body: its form, multipart parts or raw bytes; false when it has none. */
static bool request_body(const struct request *rq, const char **body, size_t *len, const char **ctype)
{
	if (rq->form != NULL) {
		*body = rq->form;
		*len = strlen(rq->form);
		*ctype = "application/x-www-form-urlencoded";
	} else if (rq->multipart != NULL) {
		char *ct;
		*body = multipart_body(rq->multipart, len, &ct);
		*ctype = ct;
	} else if (rq->body != NULL) {
		*body = rq->body;
		*len = rq->body_len;
		*ctype = rq->content_type;
	} else {
		return false;
	}
	return true;
}

/* The request's headers: Host, Authorization (explicit, empty, e-mail and key, or the user's), Content-Type. */
static struct curl_slist *request_headers(const struct request *rq, bool has_body, const char *ctype)
{
	struct curl_slist *headers = NULL;
	const char *host = rq->host;
	if (host == NULL && rq->user != NULL && rq->user->realm != NULL && rq->user->realm[0] != '\0')
		host = realm_host(rq->user->realm);
	if (host != NULL)
		headers = add_header(headers, fmt("Host: %s", host));
	if (rq->authorization != NULL) {
		headers = add_header(headers, fmt("Authorization: %s", rq->authorization));
	} else if (rq->empty_authorization) {
		headers = add_header(headers, "Authorization;");
	} else if (rq->auth_email != NULL || rq->auth_key != NULL) {
		const char *cred = fmt("%s:%s", rq->auth_email ? rq->auth_email : "", rq->auth_key ? rq->auth_key : "");
		headers = add_header(headers, fmt("Authorization: Basic %s", base64(cred, strlen(cred))));
	} else if (rq->user != NULL) {
		const char *cred = fmt("%s:%s", rq->user->email, rq->user->key);
		headers = add_header(headers, fmt("Authorization: Basic %s", base64(cred, strlen(cred))));
	}
	if (has_body)
		headers = add_header(headers, ctype ? fmt("Content-Type: %s", ctype) : "Content-Type:");
	for (const char *const *h = rq->headers; h && *h; h++)
		headers = add_header(headers, *h);
	return headers;
}

/* The method and body options of handle c. */
static void set_method(CURL *c, const char *method, bool has_body, const char *body, size_t body_len)
{
	if (strcmp(method, "HEAD") == 0) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	} else if (has_body) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
		if (strcmp(method, "POST") != 0)
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	} else if (strcmp(method, "GET") == 0) {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	} else {
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	}
}

/* r->json: the body when it is exactly one JSON object (and white space), else NULL. */
static void parse_json_body(struct resp *r)
{
	if (r->len == 0 || strlen(r->body) != r->len)
		return;
	struct json_tokener *tok = json_tokener_new();
	json_object *j = json_tokener_parse_ex(tok, r->body, (int)r->len);
	size_t used = tok->char_offset;
	bool complete = json_tokener_get_error(tok) == json_tokener_success;
	json_tokener_free(tok);
	while (used < r->len && isspace((unsigned char)r->body[used]))
		used++;
	if (j != NULL && complete && used == r->len && json_object_is_type(j, json_type_object))
		r->json = j;
	else if (j != NULL)
		json_object_put(j);
}

/*
 * With CONFAB_OPENAPI_LOG set, every HTTP 200 answer with a JSON body is appended to that file as one line
 * {"m": method, "p": path, "b": body} for tests/openapi/check.py. One write() per line with O_APPEND, so the
 * lines of forked test processes do not interleave.
 */
static void openapi_log(const char *method, const char *path, const struct resp *r)
{
	static int fd = -2;
	if (fd == -2) {
		const char *file = getenv("CONFAB_OPENAPI_LOG");
		fd = file && *file ? open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	}
	if (fd < 0 || r->status != 200 || r->json == NULL)
		return;
	json_object *rec = json_object_new_object();
	json_object_object_add(rec, "m", json_object_new_string(method));
	json_object_object_add(rec, "p", json_object_new_string_len(path, (int)strcspn(path, "?")));
	json_object_object_add(rec, "b", json_object_get(r->json));
	char *line = fmt("%s\n", json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN));
	if (write(fd, line, strlen(line)) < 0)
		fprintf(stderr, "confab-itest: CONFAB_OPENAPI_LOG: %s\n", strerror(errno));
	json_object_put(rec);
}

struct resp *http(const struct request *rq)
{
	struct resp *r = calloc(1, sizeof(*r));
	if (r == NULL)
		oom();
	gc_add(resp_free, r);
	const char *method = rq->method ? rq->method : "GET";
	const char *path = rq->path ? rq->path : "/";
	char *url;
	const char *base = rq->base_url ? rq->base_url : itest_url;
	if (asprintf(&url, "%s%s%s%s", base, path, rq->query ? (strchr(path, '?') ? "&" : "?") : "",
	             rq->query ? rq->query : "") < 0)
		oom();
	if (asprintf(&r->what, "%s %s", method, snippet(url + strlen(base), 120)) < 0)
		oom();
	const char *body = NULL, *ctype = NULL;
	size_t body_len = 0;
	bool has_body = request_body(rq, &body, &body_len, &ctype);
	struct curl_slist *headers = request_headers(rq, has_body, ctype);

	struct body_buf buf = {0};
	CURL *c = curl_handle;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	if (rq->source_addr != NULL) {
		/* A connection of its own, closed afterwards: later requests must not reuse it from this address. */
		curl_easy_setopt(c, CURLOPT_INTERFACE, fmt("host!%s", rq->source_addr));
		curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
	}
	curl_easy_setopt(c, CURLOPT_TIMEOUT, rq->timeout > 0 ? rq->timeout : 30L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &buf);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	set_method(c, method, has_body, body, body_len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	r->curl_code = (int)curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(headers);
	free(url);

	r->body = buf.p ? buf.p : xstrdup("");
	r->len = buf.len;
	parse_json_body(r);
	openapi_log(method, path, r);
	return r;
}

static void restore_url(void *url)
{
	itest_url = url;
}

void itest_use_url(const char *url)
{
	gc_add(restore_url, (void *)itest_url);
	itest_url = url;
}

struct resp *api_get(const struct user *u, const char *path)
{
	return http(&(struct request){.method = "GET", .path = fmt("/api/v1%s", path), .user = u});
}

struct resp *api_post(const struct user *u, const char *path, const char *form)
{
	return http(&(struct request){.method = "POST", .path = fmt("/api/v1%s", path), .user = u, .form = form});
}

struct resp *api_method(const char *method, const struct user *u, const char *path)
{
	return http(&(struct request){.method = method, .path = fmt("/api/v1%s", path), .user = u});
}

/* ---- commands ----------------------------------------------------------------------------------------------- */

static char *shell_quote(const char *s)
{
	size_t n = 3;
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	char *out = xmalloc(n), *o = out;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return keep(out);
}

/* Runs cmd with sh, returning its stdout (harness-owned) and exit status in *status. */
static char *run_capture(const char *cmd, int *status)
{
	fflush(NULL);
	FILE *f = popen(cmd, "r");
	if (f == NULL) {
		*status = -1;
		return fmt("popen: %s", strerror(errno));
	}
	struct body_buf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		on_body(chunk, 1, n, &b);
	int st = pclose(f);
	*status = st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return keep(b.p ? b.p : xstrdup(""));
}

json_object *ctl(const char *const *argv)
{
	const char *cmd = getenv("CONFAB_CTL");
	if (cmd == NULL || *cmd == '\0')
		return NULL;
	char *line = fmt("%s", cmd);
	for (const char *const *a = argv; *a; a++)
		line = fmt("%s %s", line, shell_quote(*a));
	int status;
	char *out = run_capture(line, &status);
	if (status != 0) {
		fprintf(stderr, "confab-itest: `%s` failed (exit %d): %s\n", line, status, out);
		return NULL;
	}
	json_object *j = json_tokener_parse(out);
	if (j == NULL || !json_object_is_type(j, json_type_object)) {
		fprintf(stderr, "confab-itest: `%s` printed no JSON object: %s\n", line, out);
		if (j != NULL)
			json_object_put(j);
		return NULL;
	}
	gc_add(json_put, j);
	return j;
}

void run_env_command(const char *name)
{
	const char *cmd = getenv(name);
	REQUIRE(cmd != NULL && *cmd != '\0', "%s is not set", name);
	fflush(NULL);
	int status = system(cmd);
	REQUIRE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (%s) failed with status %d", name,
	        cmd, status);
}

/*
 * The workers hear of a change made outside them (psql, confabctl) by a notification, on a thread of their own, a
 * moment after its COMMIT (src/model/cache.h, README "Caches": within milliseconds): until then a process may answer
 * from its copy. After a statement that may write, and after deactivate_user(), the harness waits that moment out
 * with a wide margin, so that a test's next request finds the change, as an operator's does a moment after psql
 * returns. (With every listener slowed by 40 ms, all suites pass; without this wait, register's spectator test does
 * not.) The caches suite times the notification itself.
 */
#define CACHE_SETTLE_MS 100

static void settle_caches(void)
{
	usleep(CACHE_SETTLE_MS * 1000);
}

static bool writes(const char *sql)
{
	while (isspace((unsigned char)*sql))
		sql++;
	return strncasecmp(sql, "SELECT", 6) != 0 && strncasecmp(sql, "EXPLAIN", 7) != 0;
}

static char *psql_v(const char *format, va_list ap)
{
	const char *cmd = getenv("CONFAB_PSQL");
	if (cmd == NULL || *cmd == '\0') {
		fprintf(stderr, "confab-itest: CONFAB_PSQL is not set\n");
		return NULL;
	}
	char *sql;
	if (vasprintf(&sql, format, ap) < 0)
		oom();
	keep(sql);
	char path[] = "/tmp/confab-itest-sql.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "confab-itest: mkstemp: %s\n", strerror(errno));
		return NULL;
	}
	FILE *f = fdopen(fd, "w");
	fputs(sql, f);
	fputs(";\n", f);
	fclose(f);
	int status;
	char *out = run_capture(fmt("%s < %s", cmd, path), &status);
	unlink(path);
	if (status == 0 && writes(sql))
		settle_caches();
	if (status != 0) {
		fprintf(stderr, "confab-itest: psql failed (exit %d) on: %s\n", status, sql);
		return NULL;
	}
	size_t len = strlen(out);
	while (len > 0 && isspace((unsigned char)out[len - 1]))
		out[--len] = '\0';
	return out;
}

char *redis_cli(const char *args)
{
	const char *cli = getenv("CONFAB_REDIS_CLI");
	REQUIRE(cli != NULL && *cli != '\0', "CONFAB_REDIS_CLI is not set");
	fflush(NULL);
	FILE *f = popen(fmt("%s %s", cli, args), "r");
	REQUIRE(f != NULL, "could not run %s", cli);
	size_t size = 4096, n = 0, got;
	char *out = malloc(size);
	while (out != NULL && (got = fread(out + n, 1, size - 1 - n, f)) > 0)
		if ((n += got) == size - 1)
			out = realloc(out, size *= 2);
	pclose(f);
	REQUIRE(out != NULL, "out of memory");
	keep(out);
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = '\0';
	return out;
}

char *psql(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	char *out = psql_v(format, ap);
	va_end(ap);
	return out;
}

char *psql_ok(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	char *out = psql_v(format, ap);
	va_end(ap);
	REQUIRE(out != NULL, "psql failed (see stderr)");
	return out;
}

pid_t psql_in_background(const char *sql)
{
	fflush(NULL);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork failed");
	if (pid == 0) {
		psql("%s", sql);
		_exit(0);
	}
	return pid;
}

bool await_lock_wait(const char *text, int secs)
{
	for (int i = 0; i < secs * 10; i++) {
		if (atoi(psql_ok("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
		                 " AND query LIKE '%%%s%%'",
		                 text)) > 0)
			return true;
		usleep(100000);
	}
	return false;
}

/* ---- users -------------------------------------------------------------------------------------------------- */

static char *random_password(void)
{
	static const char alnum[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
	unsigned char raw[20];
	FILE *f = fopen("/dev/urandom", "rb");
	if (f == NULL || fread(raw, 1, sizeof(raw), f) != sizeof(raw)) {
		for (size_t i = 0; i < sizeof(raw); i++)
			raw[i] = (unsigned char)rand();
	}
	if (f != NULL)
		fclose(f);
	char *p = xmalloc(sizeof(raw) + 1);
	for (size_t i = 0; i < sizeof(raw); i++)
		p[i] = alnum[raw[i] % (sizeof(alnum) - 1)];
	p[sizeof(raw)] = '\0';
	return keep(p);
}

static unsigned channel_counter;

char *unique_email(const char *tag)
{
	return fmt("it-%s-%s-%d@example.com", tag, run_id, ++counter);
}

char *unique_channel_name(const char *tag)
{
	return fmt("%s-%u-%ld", tag, ++channel_counter, (long)getpid());
}

int64_t create_channel_with(const struct user *u, const char *name, const char *extra)
{
	char *form = fmt("subscriptions=%s%s%s", url_encode(fmt("[{\"name\":\"%s\"}]", name)), extra ? "&" : "",
	                 extra ? extra : "");
	struct resp *r = api_post(u, "/users/me/subscriptions", form);
	EXPECT_SUCCESS(r);
	char *id = psql_ok("SELECT id FROM channels WHERE name = '%s'", name);
	REQUIRE(id != NULL && *id, "channel %s was not created: %s", name, r->body);
	return strtoll(id, NULL, 10);
}

char *realm_host(const char *realm)
{
	if (realm == NULL || *realm == '\0')
		return fmt("%s", itest_hostport);
	return fmt("%s.%s", realm, itest_hostname);
}

static struct user *user_from_ctl(json_object *j, const char *realm, char *password)
{
	struct user *u = keep(calloc(1, sizeof(*u)));
	u->id = jint(j, "user_id");
	u->email = fmt("%s", jstr(j, "email") ? jstr(j, "email") : "");
	u->key = fmt("%s", jstr(j, "api_key") ? jstr(j, "api_key") : "");
	u->password = password;
	u->realm = fmt("%s", realm);
	return u;
}

struct user *new_user_in(const char *realm, const char *role, const char *const *flags)
{
	bool bot = false;
	for (const char *const *f = flags; f && *f; f++)
		bot = bot || strcmp(*f, "--bot") == 0;
	const char *email = unique_email(bot ? "bot" : role);
	const char *name = bot ? fmt("Itest Bot %s-%d", run_id, counter) : fmt("Itest %s %d", role, counter);
	char *password = bot ? NULL : random_password();
	const char *argv[24] = {"create-user", "--realm", realm, "--email", email, "--name", name, "--role", role};
	size_t n = 9;
	if (password != NULL) {
		argv[n++] = "--password";
		argv[n++] = password;
	}
	for (const char *const *f = flags; f && *f && n < 22; f++)
		argv[n++] = *f;
	argv[n] = NULL;
	json_object *j = ctl(argv);
	REQUIRE(j != NULL && jint(j, "user_id") > 0 && jstr(j, "api_key") != NULL,
	        "confabctl create-user --realm \"%s\" --email %s --role %s failed: %s", realm, email, role, jtext(j));
	return user_from_ctl(j, realm, password);
}

struct user *new_user(const char *role)
{
	return new_user_in("", role, NULL);
}

struct user *new_bot(void)
{
	return new_user_in("", "member", (const char *const[]){"--bot", NULL});
}

struct user *new_realm(void)
{
	const char *sub = fmt("it%s%d", run_id, ++counter);
	const char *email = unique_email("realmowner");
	char *password = random_password();
	json_object *j = ctl((const char *const[]){"create-realm", "--subdomain", sub, "--name",
	                                           fmt("Itest Org %d", counter), "--owner-email", email, "--owner-name",
	                                           "Itest Realm Owner", "--password", password, NULL});
	REQUIRE(j != NULL && jint(j, "user_id") > 0, "confabctl create-realm --subdomain %s failed: %s", sub, jtext(j));
	return user_from_ctl(j, sub, password);
}

void deactivate_user(const struct user *u)
{
	json_object *j = ctl((const char *const[]){"deactivate-user", "--realm", u->realm, "--email", u->email, NULL});
	REQUIRE(j != NULL && jbool(j, "is_active") == 0, "confabctl deactivate-user %s failed: %s", u->email, jtext(j));
	settle_caches(); /* confabctl keeps no cache to wait with, as psql */
}

/* A JSON list of n items: see itest.h. */
char *json_list(size_t n, const char *item)
{
	const char *mark = strstr(item, "%zu");
	size_t head = mark ? (size_t)(mark - item) : strlen(item), cap = 64 + n * (strlen(item) + 24), len = 1;
	char *out = keep(malloc(cap));
	out[0] = '[';
	for (size_t i = 0; i < n; i++) {
		if (i)
			out[len++] = ',';
		memcpy(out + len, item, head);
		len += head;
		if (mark)
			len += (size_t)snprintf(out + len, cap - len, "%zu%s", i, mark + 3);
	}
	strcpy(out + len, "]");
	return out;
}

/* ---- suites and main ---------------------------------------------------------------------------------------- */

static void per_test_teardown(void)
{
	gc_run();
}

void itest_add_suite(const char *name, const struct itest_case *cases)
{
	CU_pSuite s = CU_add_suite_with_setup_and_teardown(name, NULL, NULL, NULL, per_test_teardown);
	if (s == NULL) {
		fprintf(stderr, "confab-itest: CU_add_suite(%s): %s\n", name, CU_get_error_msg());
		exit(2);
	}
	for (const struct itest_case *c = cases; c->name; c++) {
		if (CU_add_test(s, c->name, c->fn) == NULL) {
			fprintf(stderr, "confab-itest: CU_add_test(%s): %s\n", c->name, CU_get_error_msg());
			exit(2);
		}
	}
}

static const char *need_env(const char *name)
{
	const char *v = getenv(name);
	if (v == NULL || *v == '\0') {
		fprintf(stderr, "confab-itest: %s is not set (run it through scripts/test)\n", name);
		exit(2);
	}
	return v;
}

/* Waits (up to 10 s) until GET /api/v1/users/me answers 200 for the owner, and learns the owner's id. */
static bool wait_for_stack(void)
{
	for (int i = 0; i < 100; i++) {
		struct resp *r = api_get(&itest_owner, "/users/me");
		if (r->status == 200 && jint(r->json, "user_id") > 0) {
			itest_owner.id = jint(r->json, "user_id");
			gc_run();
			return true;
		}
		if (i == 99)
			fprintf(stderr, "confab-itest: GET /api/v1/users/me as %s: %s\n", itest_owner.email,
			        describe(r));
		gc_run();
		usleep(100000);
	}
	return false;
}

static void usage(void)
{
	fputs("usage: confab-itest [SUITE[:TEST]]...   (no argument: every suite)\n", stderr);
}

/* Reads the stack's environment, initializes libcurl and waits for the stack: 0, or main's exit code. */
static int setup(void)
{
	static char url[512], hostport[256], hostname[256];
	snprintf(url, sizeof(url), "%s", need_env("CONFAB_URL"));
	size_t ulen = strlen(url);
	while (ulen > 0 && url[ulen - 1] == '/')
		url[--ulen] = '\0';
	itest_url = url;
	const char *hp = strstr(url, "://");
	hp = hp ? hp + 3 : url;
	snprintf(hostport, sizeof(hostport), "%.*s", (int)strcspn(hp, "/"), hp);
	snprintf(hostname, sizeof(hostname), "%s", hostport);
	char *colon = strrchr(hostname, ':');
	if (colon != NULL && strchr(colon, ']') == NULL)
		*colon = '\0';
	itest_hostport = hostport;
	itest_hostname = hostname;
	const char *rl = getenv("CONFAB_RATE_LIMIT");
	if (rl != NULL && *rl != '\0')
		itest_rate_limit = atoi(rl);
	need_env("CONFAB_CTL");
	need_env("CONFAB_PSQL");
	itest_owner.email = (char *)need_env("CONFAB_OWNER_EMAIL");
	itest_owner.key = (char *)need_env("CONFAB_OWNER_KEY");
	itest_owner.password = getenv("CONFAB_OWNER_PASSWORD");
	itest_owner.realm = (char *)"";
	snprintf(run_id, sizeof(run_id), "%lx%x", (unsigned long)time(NULL) & 0xffffff, (unsigned)getpid() & 0xffff);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || (curl_handle = curl_easy_init()) == NULL) {
		fputs("confab-itest: libcurl initialization failed\n", stderr);
		return 2;
	}
	if (!wait_for_stack()) {
		fprintf(stderr, "confab-itest: the stack at %s does not answer\n", itest_url);
		curl_easy_cleanup(curl_handle);
		curl_global_cleanup();
		return 1;
	}
	printf("confab-itest against %s (owner %s, user id %lld, rate limit %d/min)\n", itest_url, itest_owner.email,
	       (long long)itest_owner.id, itest_rate_limit);

	return 0;
}

/* Every suite, in the order they run. */
static void register_suites(void)
{
	register_auth_tests();
	register_params_tests();
	register_limits_tests();
	register_server_tests();
	register_pgbouncer_tests();
	register_users_tests();
	register_channels_tests();
	register_channel_archive_tests();
	register_default_channels_tests();
	register_channel_update_tests();
	register_channel_folders_tests();
	register_user_groups_tests();
	register_user_group_members_tests();
	register_uploads_tests();
	register_attachments_tests();
	register_messages_tests();
	register_message_fetch_tests();
	register_message_edit_tests();
	register_message_report_tests();
	register_reactions_tests();
	register_scheduled_messages_tests();
	register_event_queue_tests();
	register_queue_limits_tests();
	register_events_tests();
	register_register_tests();
	register_typing_tests();
	register_realm_tests();
	register_realm_domains_tests();
	register_drafts_tests();
	register_shapes_tests();
	register_saved_snippets_tests();
	register_navigation_views_tests();
	register_user_admin_tests();
	register_profile_fields_tests();
	register_settings_tests();
	register_retention_tests();
	register_traffic_tests();
	register_user_status_tests();
	register_user_topics_tests();
	register_presence_tests();
	register_realm_emoji_tests();
	register_linkifiers_tests();
	register_markdown_tests();
	register_apns_tests();
	register_mail_tests();
	register_zulip_js_tests();
	register_invites_tests();
	register_join_tests();
	register_lookalikes_tests();
	register_metrics_tests();
	register_ops_tests();
	register_caches_tests();
	register_apache_tests();
	register_outbox_tests();
	register_restart_tests();
	register_faults_tests();
	register_access_tests();
	register_supervision_tests();
	register_scaleout_tests();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	int setup_rc = setup();
	if (setup_rc != 0)
		return setup_rc;
	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "confab-itest: CU_initialize_registry: %s\n", CU_get_error_msg());
		return 2;
	}
	register_suites();

	CU_basic_set_mode(CU_BRM_VERBOSE);
	int rc = 0;
	unsigned failed_tests = 0, failures = 0, failed_suites = 0, run = 0;
	if (argc <= 1) {
		CU_basic_run_tests();
		failed_tests = CU_get_number_of_tests_failed();
		failures = CU_get_number_of_failures();
		failed_suites = CU_get_number_of_suites_failed();
		run = CU_get_number_of_tests_run();
	} else {
		for (int i = 1; i < argc && rc == 0; i++) {
			char *arg = argv[i], *sep = strchr(arg, ':');
			if (sep != NULL)
				*sep = '\0';
			CU_pSuite s = CU_get_suite(arg);
			CU_pTest t = s && sep ? CU_get_test(s, sep + 1) : NULL;
			if (s == NULL || (sep != NULL && t == NULL)) {
				fprintf(stderr, "confab-itest: no suite/test \"%s%s%s\"\n", arg, sep ? ":" : "",
				        sep ? sep + 1 : "");
				usage();
				rc = 2;
			} else {
				if (t != NULL)
					CU_basic_run_test(s, t);
				else
					CU_basic_run_suite(s);
				failed_tests += CU_get_number_of_tests_failed();
				failures += CU_get_number_of_failures();
				failed_suites += CU_get_number_of_suites_failed();
				run += CU_get_number_of_tests_run();
			}
		}
	}
	printf("\nconfab-itest: %u tests run, %u failed (%u failed assertions)\n", run, failed_tests, failures);
	CU_cleanup_registry();
	gc_run();
	free(gc_items);
	curl_easy_cleanup(curl_handle);
	curl_global_cleanup();
	if (rc == 0 && (failed_tests > 0 || failures > 0 || failed_suites > 0 || run == 0))
		rc = 1;
	return rc;
}
