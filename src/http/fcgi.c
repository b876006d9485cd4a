/* Reading FastCGI requests into struct request and writing responses; see fcgi.h. */
#include "http/fcgi.h"

#include <errno.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/crash.h"
#include "core/log.h"
#include "core/metrics.h"
#include "http/request.h"
#include "http/route.h"
#include "model/user.h"

static atomic_ullong next_request_id;
static atomic_int busy_threads;
/*
 * Stopping a process must not stop its group: the listening socket is shared with the other processes of the group
 * (spawn-fcgi or systemd made it, confab-supervise passes it to each process it starts), so shutdown() on it would
 * close it for all of them and for the process started in our place. Instead one thread at a time, the leader, waits
 * for a connection, in poll() on the socket and on the read end of stop_pipe, which fcgi_stop() makes readable; it
 * gives up the lead before accepting, so that a peer slow to send its request holds no other thread. The socket is
 * non-blocking: a connection another thread or process took first makes accept() fail with EAGAIN, not wait.
 *
 * The other idle threads wait each on a condition of its own, the latest idle first (a stack): the next leader is
 * the thread that finished a request last, its stack and its allocator caches still warm. A mutex's waiters would
 * take turns instead, so that in an events process (thousands of threads, for long-polls) every request ran on the
 * thread idle longest: 10-20% fewer GET /events a second from fresh processes (docs/PERFORMANCE.md). Waiters of
 * distinct futexes need a futex hash of the threads' size (worker.c, size_futex_hash()).
 */
struct follower {
	pthread_cond_t wake;
	bool woken;
	struct follower *next;
};

static pthread_mutex_t accept_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lead_given_up = PTHREAD_COND_INITIALIZER;
static bool leading, stopping;
static struct follower *followers; /* the idle threads, the latest first; under accept_lock */
static int stop_pipe[2] = {-1, -1};

int fcgi_busy(void)
{
	return atomic_load(&busy_threads);
}

int fcgi_listen(const char *spec)
{
	if (FCGX_Init() != 0 || pipe(stop_pipe) != 0)
		return -1;
	int fd = spec == NULL || *spec == '\0' ? 0 : FCGX_OpenSocket(spec, 1024);
	if (fd < 0)
		return -1;
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -1;
	return fd;
}

void fcgi_stop(void)
{
	if (stop_pipe[1] >= 0 && write(stop_pipe[1], "x", 1) < 0)
		log_msg(LOG_ERROR, "could not signal the stop to the accepting threads: %s", strerror(errno));
	/* Once the leader has given up the lead, every thread that may still take a connection is counted. */
	pthread_mutex_lock(&accept_lock);
	stopping = true;
	for (struct follower *f = followers; f != NULL; f = f->next) {
		f->woken = true;
		pthread_cond_signal(&f->wake);
	}
	followers = NULL;
	while (leading)
		pthread_cond_wait(&lead_given_up, &accept_lock);
	pthread_mutex_unlock(&accept_lock);
}

/* Makes me the leader once no other thread leads (false: the process is stopping). */
static bool take_lead(struct follower *me)
{
	pthread_mutex_lock(&accept_lock);
	while (leading && !stopping) {
		me->woken = false;
		me->next = followers;
		followers = me;
		while (!me->woken)
			pthread_cond_wait(&me->wake, &accept_lock);
	}
	bool lead = !stopping;
	leading = lead;
	pthread_mutex_unlock(&accept_lock);
	return lead;
}

/* Hands the lead to the latest idle thread. */
static void give_up_lead(void)
{
	pthread_mutex_lock(&accept_lock);
	leading = false;
	struct follower *f = followers;
	if (f != NULL) {
		followers = f->next;
		f->woken = true;
		pthread_cond_signal(&f->wake);
	}
	pthread_cond_broadcast(&lead_given_up);
	pthread_mutex_unlock(&accept_lock);
}

/*
 * Waits as the leader until fd has a connection, then accepts it into fr. Returns 0 with a request (counted in
 * busy_threads from before the lead is given up, so that fcgi_stop() cannot miss it), 1 when the process is stopping,
 * -1 when no connection was taken (another was faster: try again), or -2 on an error worth a pause (EMFILE, ENOMEM
 * ...: stack-notes 5).
 */
static int accept_one(int fd, FCGX_Request *fr, struct follower *me)
{
	if (!take_lead(me))
		return 1;
	struct pollfd p[2] = {{.fd = stop_pipe[0], .events = POLLIN}, {.fd = fd, .events = POLLIN}};
	int n = poll(p, 2, -1);
	bool stop = n > 0 && p[0].revents != 0, ready = n > 0 && !stop && p[1].revents != 0;
	if (ready)
		atomic_fetch_add(&busy_threads, 1);
	give_up_lead();
	if (stop)
		return 1;
	if (!ready)
		return n < 0 && errno != EINTR ? -2 : -1;
	int a = FCGX_Accept_r(fr);
	if (a == 0)
		return 0;
	atomic_fetch_sub(&busy_threads, 1);
	return a == -EAGAIN || a == -EWOULDBLOCK || a == -ECONNABORTED ? -1 : -2;
}

static const char *param(FCGX_Request *fr, const char *name)
{
	const char *v = FCGX_GetParam(name, fr->envp);
	return v ? v : "";
}

/* Copies the got bytes of buf into the arena as req's body, if the arena has room for them. */
static int keep_body(struct request *req, const char *buf, size_t got)
{
	if (got == 0)
		return 0;
	if (arena_charge(&req->arena, got) < 0)
		return api_error(req, ERR_TOO_LARGE, NULL);
	char *body = arena_alloc(&req->arena, got + 1);
	memcpy(body, buf, got);
	body[got] = '\0';
	req->body = body;
	req->body_len = got;
	return 0;
}

/*
 * A body without CONTENT_LENGTH: Apache's mod_proxy_fcgi passes a chunked request body on as it comes, with no
 * length (nginx buffers it and sets one). Reads the FastCGI stdin stream to its end, at most max bytes (a request
 * without a body ends it at once). Returns 0, or -1 with the error recorded.
 */
static int read_body_to_end(struct request *req, FCGX_Request *fr, size_t max)
{
	size_t cap = 0, got = 0;
	char *buf = NULL;
	for (;;) {
		if (got == cap) {
			if (cap > max) {
				free(buf);
				return api_error(req, ERR_TOO_LARGE, NULL);
			}
			cap = cap ? cap * 2 : 65536;
			char *grown = realloc(buf, cap + 1);
			if (grown == NULL) {
				free(buf);
				return api_error(req, ERR_INTERNAL, NULL);
			}
			buf = grown;
		}
		int n = FCGX_GetStr(buf + got, (int)(cap - got > 65536 ? 65536 : cap - got), fr->in);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	int rc = got > max ? api_error(req, ERR_TOO_LARGE, NULL) : keep_body(req, buf, got);
	free(buf);
	return rc;
}

/*
 * The request's body_reader (request_read_body()): reads the body (CONTENT_LENGTH bytes, at most max) into the arena,
 * charged to its limit. Returns 0, or -1 with the error recorded; a body past max is not read at all.
 */
static int read_body(struct request *req, size_t max)
{
	FCGX_Request *fr = req->transport;
	req->body_reader = NULL; /* once */
	const char *cl = param(fr, "CONTENT_LENGTH");
	if (*cl == '\0')
		return read_body_to_end(req, fr, max);
	char *end;
	unsigned long long len = strtoull(cl, &end, 10);
	if (*end != '\0')
		return api_error(req, ERR_BAD_REQUEST, "Invalid Content-Length");
	if (len > max || arena_charge(&req->arena, (size_t)len) < 0)
		return api_error(req, ERR_TOO_LARGE, NULL);
	char *body = arena_alloc(&req->arena, (size_t)len + 1);
	size_t got = 0;
	while (got < len) {
		int n = FCGX_GetStr(body + got, (int)(len - got > 65536 ? 65536 : len - got), fr->in);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	body[got] = '\0';
	req->body = body;
	req->body_len = got;
	return 0;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Payload Too Large";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

static void write_response(struct request *req, FCGX_Request *fr)
{
	size_t len;
	const char *body, *ctype;
	if (req->raw_response && req->error == ERR_NONE) {
		body = req->raw_body;
		len = req->raw_body_len;
		ctype = req->raw_content_type;
	} else {
		body = request_body_json(req, &len);
		ctype = req->status == 204 ? NULL : "application/json";
	}
	char head[256];
	/* libfcgi's own printf does not know %zu (stack-notes 1): format with snprintf. */
	snprintf(head, sizeof(head), "Status: %d %s\r\nContent-Length: %zu\r\nX-Request-Id: %llu-%llu\r\n", req->status,
	         reason(req->status), len, (unsigned long long)getpid(), req->id);
	FCGX_PutS(head, fr->out);
	if (ctype != NULL) {
		FCGX_PutS("Content-Type: ", fr->out);
		FCGX_PutS(ctype, fr->out);
		FCGX_PutS("\r\n", fr->out);
	}
	if (req->status == 401)
		FCGX_PutS("WWW-Authenticate: Basic realm=\"zulip\"\r\n", fr->out);
	for (int i = 0; i < req->nheaders; i++) {
		FCGX_PutS(req->header_names[i], fr->out);
		FCGX_PutS(": ", fr->out);
		FCGX_PutS(req->header_values[i], fr->out);
		FCGX_PutS("\r\n", fr->out);
	}
	FCGX_PutS("\r\n", fr->out);
	if (strcmp(req->method, "HEAD") != 0)
		FCGX_PutStr(body, (int)len, fr->out);
}

static double elapsed_ms(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) * 1e3 + (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}

/*
 * One logfmt line per request (log.h escapes every value): no query string, it may carry credentials, and the path
 * with its secrets masked (request_log_path()).
 */
static void log_access(const struct request *req, FCGX_Request *fr, const char *path, double ms)
{
	struct log_rec r;
	log_rec_begin(&r, LOG_INFO, "access");
	log_rec_int(&r, "request", (long long)req->id);
	log_rec_str(&r, "method", req->method);
	log_rec_str(&r, "path", path);
	log_rec_int(&r, "status", req->status);
	log_rec_num(&r, "duration_ms", ms);
	log_rec_int(&r, "user", req->user ? (long long)req->user->id : 0LL);
	log_rec_str(&r, "remote_addr", req->remote_addr);
	log_rec_str(&r, "user_agent", param(fr, "HTTP_USER_AGENT"));
	log_rec_end(&r);
}

static void serve_one(struct worker *w, FCGX_Request *fr, void (*handle)(struct request *req))
{
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	struct request req;
	request_init(&req, w, atomic_fetch_add(&next_request_id, 1) + 1);
	req.method = param(fr, "REQUEST_METHOD");
	req.path = param(fr, "DOCUMENT_URI");
	if (*req.path == '\0')
		req.path = param(fr, "SCRIPT_NAME");
	req.query = param(fr, "QUERY_STRING");
	req.content_type = param(fr, "CONTENT_TYPE");
	req.host = param(fr, "HTTP_HOST");
	req.authorization = FCGX_GetParam("HTTP_AUTHORIZATION", fr->envp);
	req.remote_addr = param(fr, "REMOTE_ADDR");
	req.internal = FCGX_GetParam("CONFAB_INTERNAL", fr->envp) != NULL;
	req.x_sendfile = strcmp(param(fr, "CONFAB_FILE_SENDER"), "x-sendfile") == 0;
#ifdef CONFAB_FAULT_POINTS
	req.fault = FCGX_GetParam("HTTP_X_CONFAB_FAULT", fr->envp);
#endif
	/* The whole path: req.path may lose its /api/v1 prefix in the router. */
	const char *logged = request_log_path(&req, req.path);
	crash_note(req.id, req.method, logged);
	req.body_reader = read_body;
	req.transport = fr;
	handle(&req);
	write_response(&req, fr);
	metrics_request(w->metrics, req.route ? (int)(req.route - routes) : -1, req.status, elapsed_ms(&start) / 1e3);
	log_access(&req, fr, logged, elapsed_ms(&start));
	crash_clear();
	request_finish(&req);
}

void fcgi_serve(struct worker *w, int fd, volatile int *stop, void (*handle)(struct request *req))
{
	FCGX_Request fr;
	if (FCGX_InitRequest(&fr, fd, 0) != 0) {
		log_msg(LOG_ERROR, "could not initialize a FastCGI request");
		return;
	}
	struct follower me = {.woken = false};
	pthread_cond_init(&me.wake, NULL);
	for (;;) {
		int rc = accept_one(fd, &fr, &me);
		/* A connection taken is served, even when the stop came meanwhile: nginx has sent it here. */
		if (rc == 0) {
			serve_one(w, &fr, handle);
			FCGX_Finish_r(&fr);
			atomic_fetch_sub(&busy_threads, 1);
		}
		if (rc == 1 || *stop)
			break;
		if (rc == -2)
			usleep(10000);
	}
	pthread_cond_destroy(&me.wake);
	FCGX_Free(&fr, 0);
}
