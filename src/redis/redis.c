/* Redis connection pool and commands over hiredis; see redis.h. */
#include "redis/redis.h"

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "core/config.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/slots.h"
#include "core/xalloc.h"
#include "core/uow.h"

struct redis_conn {
	redisContext *ctx;
};

struct redis_pool {
	char *host;
	int port;
	char *socket;
	int size;
	struct redis_conn *conns;
	struct slots slots;
	int down; /* the last connection attempt failed (atomic): an outage is logged once, not at every attempt */
};

struct redis_pool *redis_pool_new(const struct config *cfg)
{
	struct redis_pool *pool = xcalloc(1, sizeof(*pool));
	pool->host = xstrdup(cfg->redis_host);
	pool->port = cfg->redis_port;
	pool->socket = xstrdup(cfg->redis_socket);
	pool->size = cfg->redis_pool_size;
	pool->conns = xcalloc((size_t)pool->size, sizeof(*pool->conns));
	slots_init(&pool->slots, pool->size);
	return pool;
}

void redis_pool_free(struct redis_pool *pool)
{
	if (pool == NULL)
		return;
	for (int i = 0; i < pool->size; i++)
		if (pool->conns[i].ctx != NULL)
			redisFree(pool->conns[i].ctx);
	free(pool->conns);
	free(pool->host);
	free(pool->socket);
	slots_destroy(&pool->slots);
	free(pool);
}

/* (Re)connects c; returns 0 or -1. */
static int conn_open(struct redis_pool *pool, struct redis_conn *c)
{
	if (c->ctx != NULL && c->ctx->err == 0)
		return 0;
	if (c->ctx != NULL)
		redisFree(c->ctx);
	struct timeval tv = {5, 0};
	if (*pool->socket)
		c->ctx = redisConnectUnixWithTimeout(pool->socket, tv);
	else
		c->ctx = redisConnectWithTimeout(pool->host, pool->port, tv);
	if (c->ctx == NULL || c->ctx->err) {
		if (!__atomic_exchange_n(&pool->down, 1, __ATOMIC_RELAXED))
			log_msg(LOG_WARNING, "could not connect to redis (logged once until it is back): %s",
			        c->ctx ? c->ctx->errstr : "out of memory");
		if (c->ctx != NULL)
			redisFree(c->ctx);
		c->ctx = NULL;
		return -1;
	}
	if (__atomic_exchange_n(&pool->down, 0, __ATOMIC_RELAXED))
		log_msg(LOG_INFO, "connected to redis again");
	/* Without a read timeout a hung server would hold the thread forever (stack-notes 12). */
	redisSetTimeout(c->ctx, tv);
	return 0;
}

static void release_cleanup(void *uow)
{
	redis_release(uow);
}

static struct redis_conn *acquire(struct uow *uow)
{
	if (uow->redis != NULL)
		return uow->redis;
	/* Given back with the unit of work's memory: its arena runs the cleanup (once, however often it is taken). */
	if (!uow->redis_cleanup) {
		arena_defer(&uow->arena, release_cleanup, uow);
		uow->redis_cleanup = true;
	}
	struct redis_pool *pool = uow->worker->redis;
	long long waited;
	struct redis_conn *c = &pool->conns[slots_take(&pool->slots, &waited)];
	metrics_pool_take(uow->worker->metrics, M_REDIS_ACQUIRES, waited);
	uow->redis = c;
	return c;
}

void redis_release(struct uow *uow)
{
	struct redis_conn *c = uow->redis;
	if (c == NULL)
		return;
	struct redis_pool *pool = uow->worker->redis;
	slots_give(&pool->slots, (int)(c - pool->conns));
	uow->redis = NULL;
}

static struct rreply *copy_reply(struct uow *uow, const redisReply *r)
{
	struct rreply *out = arena_alloc(&uow->arena, sizeof(*out));
	switch (r->type) {
	case REDIS_REPLY_INTEGER:
		out->type = RR_INT;
		out->integer = r->integer;
		break;
	case REDIS_REPLY_STRING:
	case REDIS_REPLY_STATUS:
	case REDIS_REPLY_ERROR:
		out->type = r->type == REDIS_REPLY_STRING   ? RR_STR
		            : r->type == REDIS_REPLY_STATUS ? RR_STATUS
		                                            : RR_ERROR;
		out->str = arena_strndup(&uow->arena, r->str, r->len);
		out->len = r->len;
		break;
	case REDIS_REPLY_ARRAY:
		out->type = RR_ARRAY;
		out->n = r->elements;
		out->elem = arena_alloc(&uow->arena, (r->elements + 1) * sizeof(*out->elem));
		for (size_t i = 0; i < r->elements; i++)
			out->elem[i] = copy_reply(uow, r->element[i]);
		break;
	default: out->type = RR_NIL;
	}
	return out;
}

/* Appends the commands and reads their replies on c. Returns 0, or -1 if the connection failed. */
static int exchange(struct uow *uow, struct redis_conn *c, int ncmds, const int *argcs, const char *const *const *cmds,
                    const size_t *const *lens, struct rreply **replies)
{
	for (int i = 0; i < ncmds; i++)
		redisAppendCommandArgv(c->ctx, argcs[i], (const char **)cmds[i], lens ? lens[i] : NULL);
	for (int i = 0; i < ncmds; i++) {
		void *raw = NULL;
		if (redisGetReply(c->ctx, &raw) != REDIS_OK || raw == NULL)
			return -1;
		replies[i] = copy_reply(uow, raw);
		freeReplyObject(raw);
	}
	return 0;
}

/*
 * EVAL is sent as EVALSHA: the events scripts (over 1 KB) run once per queue per event, and EVAL makes Redis
 * receive and hash the whole text every time. The digests come from SCRIPT LOAD, once per script text (kept by
 * address: the scripts are static strings) and process. A Redis that lost its scripts (restart) answers NOSCRIPT
 * without running anything; those commands are sent again as EVAL.
 */
#define MAX_SCRIPTS 16
static struct {
	pthread_mutex_t lock;
	int n;
	const char *text[MAX_SCRIPTS];
	char sha[MAX_SCRIPTS][41];
} scripts = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The digest of a script text, loading it on c the first time; NULL if that fails (EVAL is used then). */
static const char *script_sha(struct redis_conn *c, const char *text)
{
	const char *sha = NULL;
	pthread_mutex_lock(&scripts.lock);
	for (int i = 0; i < scripts.n && sha == NULL; i++)
		if (scripts.text[i] == text)
			sha = scripts.sha[i];
	bool full = scripts.n == MAX_SCRIPTS;
	pthread_mutex_unlock(&scripts.lock);
	if (sha != NULL || full)
		return sha;
	redisReply *r = redisCommand(c->ctx, "SCRIPT LOAD %s", text);
	if (r != NULL && r->type == REDIS_REPLY_STRING && r->len == 40) {
		pthread_mutex_lock(&scripts.lock);
		for (int i = 0; i < scripts.n && sha == NULL; i++) /* another thread may have loaded it meanwhile */
			if (scripts.text[i] == text)
				sha = scripts.sha[i];
		if (sha == NULL && scripts.n < MAX_SCRIPTS) {
			scripts.text[scripts.n] = text;
			memcpy(scripts.sha[scripts.n], r->str, 41);
			sha = scripts.sha[scripts.n++];
		}
		pthread_mutex_unlock(&scripts.lock);
	}
	if (r != NULL)
		freeReplyObject(r);
	return sha;
}

/* cmds with every EVAL turned into EVALSHA (a copy in the arena; cmds itself if there is none). */
static const char *const *const *as_evalsha(struct uow *uow, struct redis_conn *c, int ncmds, const int *argcs,
                                            const char *const *const *cmds)
{
	const char *const **out = NULL;
	for (int i = 0; i < ncmds; i++) {
		const char *sha;
		if (strcmp(cmds[i][0], "EVAL") != 0 || argcs[i] < 2 || (sha = script_sha(c, cmds[i][1])) == NULL)
			continue;
		if (out == NULL) {
			out = arena_alloc(&uow->arena, (size_t)ncmds * sizeof(*out));
			memcpy(out, cmds, (size_t)ncmds * sizeof(*out));
		}
		const char **argv = arena_alloc(&uow->arena, (size_t)argcs[i] * sizeof(*argv));
		memcpy(argv, cmds[i], (size_t)argcs[i] * sizeof(*argv));
		argv[0] = "EVALSHA";
		argv[1] = sha;
		out[i] = argv;
	}
	return out ? (const char *const *const *)out : cmds;
}

/* Sends the commands that got NOSCRIPT again as they were given (EVAL). Returns 0, or -1 on a lost connection. */
static int retry_noscript(struct uow *uow, struct redis_conn *c, int ncmds, const int *argcs,
                          const char *const *const *cmds, struct rreply **replies)
{
	for (int i = 0; i < ncmds; i++) {
		if (replies[i]->type == RR_ERROR && strncmp(replies[i]->str, "NOSCRIPT", 8) == 0 &&
		    exchange(uow, c, 1, &argcs[i], &cmds[i], NULL, &replies[i]) < 0)
			return -1;
	}
	return 0;
}

/* Runs the commands; returns ERR_NONE, or the error they amount to, logged and not recorded (the callers decide). */
static enum err run(struct uow *uow, int ncmds, const int *argcs, const char *const *const *cmds,
                    const size_t *const *lens, struct rreply **replies)
{
	struct redis_conn *c = acquire(uow);
	struct redis_pool *pool = uow->worker->redis;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (conn_open(pool, c) < 0) {
			metrics_add(uow->worker->metrics, M_REDIS_CONNECT_ERRORS, 1);
			return ERR_UNAVAILABLE;
		}
		const char *const *const *sent = lens ? cmds : as_evalsha(uow, c, ncmds, argcs, cmds);
		if (exchange(uow, c, ncmds, argcs, sent, lens, replies) == 0 &&
		    (sent == cmds || retry_noscript(uow, c, ncmds, argcs, cmds, replies) == 0))
			break;
		log_msg(LOG_WARNING, "request %llu: lost redis connection: %s", uow->id, c->ctx->errstr);
		metrics_add(uow->worker->metrics, M_REDIS_CONNECT_ERRORS, 1);
		redisFree(c->ctx);
		c->ctx = NULL;
		if (attempt == 1)
			return ERR_UNAVAILABLE;
	}
	for (int i = 0; i < ncmds; i++) {
		if (replies[i]->type == RR_ERROR) {
			log_msg(LOG_ERROR, "request %llu: redis %s failed: %s", uow->id, cmds[i][0], replies[i]->str);
			metrics_add(uow->worker->metrics, M_REDIS_COMMAND_ERRORS, 1);
			/* Past maxmemory (noeviction) Redis refuses writes until memory is freed: a passing state. */
			return strncmp(replies[i]->str, "OOM ", 4) == 0 ? ERR_UNAVAILABLE : ERR_INTERNAL;
		}
	}
	return ERR_NONE;
}

struct rreply *redis_cmd(struct uow *uow, int argc, const char **argv, const size_t *argvlen)
{
	struct rreply *reply = NULL;
	const char *const *cmds[1] = {argv};
	const size_t *lens[1] = {argvlen};
	enum err e = run(uow, 1, &argc, cmds, lens, &reply);
	if (e != ERR_NONE) {
		uow_error(uow, e, NULL);
		return NULL;
	}
	return reply;
}

struct rreply *redis_try_cmd(struct uow *uow, int argc, const char **argv)
{
	struct rreply *reply = NULL;
	const char *const *cmds[1] = {argv};
	const size_t *lens[1] = {NULL};
	return run(uow, 1, &argc, cmds, lens, &reply) == ERR_NONE ? reply : NULL;
}

/*
 * The calling thread's connection for blocking commands (its read timeout follows each command's own), kept in
 * thread-specific data whose destructor closes it when the thread ends.
 */
static pthread_key_t blocking_key;
static pthread_once_t blocking_once = PTHREAD_ONCE_INIT;

static void blocking_free(void *ctx)
{
	redisFree(ctx);
}

static void blocking_init(void)
{
	pthread_key_create(&blocking_key, blocking_free);
}

#ifdef CONFAB_FAULT_POINTS
/*
 * Test-only (see router.c): "X-Confab-Fault: lose-wake-reply" throws away the value BLPOP popped and the connection
 * with it, as a connection lost between Redis's pop and the reply's arrival would.
 */
static redisReply *fault_lose_reply(const struct uow *uow, redisContext *ctx, redisReply *r)
{
	if (r == NULL || r->type != REDIS_REPLY_ARRAY || uow->fault == NULL ||
	    strcmp(uow->fault, "lose-wake-reply") != 0)
		return r;
	freeReplyObject(r);
	snprintf(ctx->errstr, sizeof(ctx->errstr), "fault point lose-wake-reply");
	return NULL;
}
#else
#define fault_lose_reply(uow, ctx, r) (r)
#endif

const char *redis_blpop(struct uow *uow, const char *key, int timeout_secs)
{
	struct redis_pool *pool = uow->worker->redis;
	char secs[16];
	snprintf(secs, sizeof(secs), "%d", timeout_secs);
	const char *argv[] = {"BLPOP", key, secs};
	pthread_once(&blocking_once, blocking_init);
	redisContext *blocking_ctx = pthread_getspecific(blocking_key);
	if (blocking_ctx == NULL || blocking_ctx->err) {
		struct redis_conn c = {blocking_ctx};
		int rc = conn_open(pool, &c);
		pthread_setspecific(blocking_key, c.ctx);
		if (rc < 0) {
			metrics_add(uow->worker->metrics, M_REDIS_CONNECT_ERRORS, 1);
			uow_error(uow, ERR_UNAVAILABLE, NULL);
			return NULL;
		}
		blocking_ctx = c.ctx;
	}
	/* The read must outlast the BLPOP timeout, or hiredis gives up first (stack-notes 12). */
	redisSetTimeout(blocking_ctx, (struct timeval){timeout_secs + 5, 0});
	redisReply *r = fault_lose_reply(uow, blocking_ctx, redisCommandArgv(blocking_ctx, 3, argv, NULL));
	redisSetTimeout(blocking_ctx, (struct timeval){5, 0});
	if (r == NULL) {
		log_msg(LOG_WARNING, "request %llu: lost redis connection: %s", uow->id, blocking_ctx->errstr);
		metrics_add(uow->worker->metrics, M_REDIS_CONNECT_ERRORS, 1);
		redisFree(blocking_ctx);
		pthread_setspecific(blocking_key, NULL);
		/* Redis may have popped the value before the connection went: a second BLPOP would wait for a wake-up
		 * already taken. The caller looks at what it waits for instead, as after a timeout. */
		return "";
	}
	const char *out = "";
	if (r->type == REDIS_REPLY_ARRAY && r->elements == 2)
		out = arena_strndup(&uow->arena, r->element[1]->str, r->element[1]->len);
	freeReplyObject(r);
	return out;
}

int redis_pipeline(struct uow *uow, int ncmds, const int *argcs, const char *const *const *cmds,
                   struct rreply **replies)
{
	enum err e = run(uow, ncmds, argcs, cmds, NULL, replies);
	return e == ERR_NONE ? 0 : uow_error(uow, e, NULL);
}

int redis_try_pipeline(struct uow *uow, int ncmds, const int *argcs, const char *const *const *cmds,
                       struct rreply **replies)
{
	return run(uow, ncmds, argcs, cmds, NULL, replies) == ERR_NONE ? 0 : -1;
}
