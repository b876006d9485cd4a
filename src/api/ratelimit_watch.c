/* The addresses whose failed API keys are checked in Redis; see ratelimit_watch.h. */
#include "api/ratelimit_watch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "db/db.h"
#include "db/listen.h"
#include "http/request.h"
#include "redis/redis.h"

#define WATCH_MAX  1024
#define ADDR_MAX   64
#define WATCH_KEY  "confab:rl:key:watch"
#define CHANNEL    "confab_ratelimit"
#define LOAD_RETRY 1 /* seconds between attempts to load the set while Redis fails */
/* Seconds between two reads of the set while loaded: a failure whose NOTIFY was lost (or sent by a process of an
 * older version) is known everywhere within this time. */
#define RELOAD_SECS 1

enum watch_state {
	W_DOWN,     /* not listening: every address is checked */
	W_UNLOADED, /* listening, the set not yet read from Redis: every address is checked */
	W_LOADED, /* listening and loaded: only the addresses in the set are checked (the set read again each second) */
};

struct watched {
	char addr[ADDR_MAX];
	long long until; /* realtime second after which its window has ended */
};

/* Process-wide by nature, like the LISTEN connection that feeds it. */
static struct {
	pthread_mutex_t lock;
	enum watch_state state;
	unsigned long long gen; /* moves on at every (re)connection: a load begun before it is dropped */
	long long all_until;    /* realtime: every address is checked until then (the set overflowed) */
	long long load_at;      /* monotonic second of the next read of the set */
	bool loading;           /* a request reads the set: the others do not also */
	int n;
	struct watched addrs[WATCH_MAX];
} w = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct db_stmt st_notify = DB_STMT("SELECT pg_notify('" CHANNEL "', $1)");

static long long now_seconds(void)
{
	return (long long)time(NULL);
}

static long long monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

/* Adds or extends addr until until (realtime seconds). Lock held. */
static void add(const char *addr, long long until)
{
	long long now = now_seconds();
	int kept = 0, found = -1;
	for (int i = 0; i < w.n; i++) {
		if (w.addrs[i].until < now)
			continue; /* its window has ended */
		w.addrs[kept] = w.addrs[i];
		if (strcmp(w.addrs[kept].addr, addr) == 0)
			found = kept;
		kept++;
	}
	w.n = kept;
	if (strlen(addr) >= ADDR_MAX || (found < 0 && w.n == WATCH_MAX)) {
		w.all_until = until > w.all_until ? until : w.all_until;
		return;
	}
	if (found < 0) {
		found = w.n++;
		strcpy(w.addrs[found].addr, addr);
		w.addrs[found].until = until;
	}
	if (until > w.addrs[found].until)
		w.addrs[found].until = until;
}

static void on_up(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&w.lock);
	w.state = W_UNLOADED;
	w.gen++;
	w.load_at = 0;
	/* Starts again from what Redis holds, like the caches start empty (model/cache.h). */
	w.n = 0;
	w.all_until = 0;
	pthread_mutex_unlock(&w.lock);
}

static void on_down(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&w.lock);
	w.state = W_DOWN;
	w.gen++;
	pthread_mutex_unlock(&w.lock);
}

/* "<until> <address>" */
static void on_notify(void *arg, const char *payload)
{
	(void)arg;
	char *end;
	long long until = strtoll(payload, &end, 10);
	if (*end != ' ' || end[1] == '\0')
		return;
	pthread_mutex_lock(&w.lock);
	add(end + 1, until);
	pthread_mutex_unlock(&w.lock);
}

int ratelimit_watch_start(const char *conninfo)
{
	struct db_listener_ops ops = {.on_up = on_up, .on_down = on_down, .on_notify = on_notify, .arg = NULL};
	if (db_listener_start(conninfo, CHANNEL, &ops) < 0) {
		log_msg(LOG_WARNING, "could not start the rate limit listener: every address is checked in redis");
		return -1;
	}
	return 0;
}

/*
 * Reads the set from Redis (one command, at most WATCH_MAX + 1 addresses: add() checks every address while more are
 * watched) and, if no reconnection came in between, uses it from now on; read again after RELOAD_SECS.
 */
static void load(struct request *req, unsigned long long gen)
{
	const char *now = arena_printf(&req->arena, "%lld", now_seconds());
	/* One more than kept: add() then knows that the set overflowed. */
	const char *limit = arena_printf(&req->arena, "%d", WATCH_MAX + 1);
	const char *const cmd[] = {"ZRANGEBYSCORE", WATCH_KEY, now, "+inf", "WITHSCORES", "LIMIT", "0", limit};
	const char *const *cmds[1] = {cmd};
	const int argcs[1] = {8};
	struct rreply *r;
	int rc = redis_try_pipeline(&req->uow, 1, argcs, cmds, &r);
	redis_release(&req->uow);
	pthread_mutex_lock(&w.lock);
	w.loading = false;
	if (rc < 0 || r->type != RR_ARRAY) {
		w.load_at = monotonic_seconds() + LOAD_RETRY;
	} else if (w.gen == gen && w.state != W_DOWN) {
		for (size_t i = 0; i + 1 < r->n; i += 2)
			if (r->elem[i]->type == RR_STR && r->elem[i + 1]->type == RR_STR)
				add(r->elem[i]->str, strtoll(r->elem[i + 1]->str, NULL, 10));
		w.state = W_LOADED;
		w.load_at = monotonic_seconds() + RELOAD_SECS;
	}
	pthread_mutex_unlock(&w.lock);
}

bool ratelimit_watched(struct request *req, const char *addr)
{
	pthread_mutex_lock(&w.lock);
	enum watch_state state = w.state;
	unsigned long long gen = w.gen;
	/* A set read more than RELOAD_SECS ago is not used: the request that finds it so reads it again, and until that
	 * read is done every address is checked. */
	bool stale = monotonic_seconds() >= w.load_at;
	bool due = state != W_DOWN && !w.loading && stale;
	w.loading = w.loading || due;
	bool watched = state != W_LOADED || stale || now_seconds() <= w.all_until;
	for (int i = 0; !watched && i < w.n; i++)
		watched = strcmp(w.addrs[i].addr, addr) == 0 && w.addrs[i].until >= now_seconds();
	pthread_mutex_unlock(&w.lock);
	if (due)
		load(req, gen);
	return watched;
}

/* Adds ARGV[2] to the watched set KEYS[1] until ARGV[1] and prunes the ended ones (before ARGV[3]). Flagged
 * allow-oom, as the failure counters are (ratelimit.c): a full Redis must not turn the limits off. */
static const char watch_script[] = "#!lua flags=allow-oom\n"
                                   "redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2]) "
                                   "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3]) return 0";

const char *const *ratelimit_watch_cmd(struct request *req, const char *addr, int window)
{
	long long now = now_seconds();
	const char **cmd = arena_alloc(&req->arena, 7 * sizeof(*cmd));
	cmd[0] = "EVAL";
	cmd[1] = watch_script;
	cmd[2] = "1";
	cmd[3] = WATCH_KEY;
	cmd[4] = arena_printf(&req->arena, "%lld", now + window + 1); /* never before the counter's own expiry */
	cmd[5] = addr;
	cmd[6] = arena_printf(&req->arena, "(%lld", now);
	return cmd;
}

/* Whether this process announced (or heard of) addr less than a second ago with the same end. Lock held. */
static bool announced(const char *addr, long long until)
{
	for (int i = 0; i < w.n; i++)
		if (strcmp(w.addrs[i].addr, addr) == 0)
			return w.addrs[i].until >= until;
	return false;
}

void ratelimit_watch_announce(struct request *req, const char *addr, int window)
{
	long long until = now_seconds() + window;
	pthread_mutex_lock(&w.lock);
	/* One NOTIFY per address and second at most: a flood of failures does not flood every process's listener. */
	bool known = announced(addr, until);
	add(addr, until);
	pthread_mutex_unlock(&w.lock);
	if (known)
		return;
	/* A failure here is logged and the refusal answered all the same; the set in Redis has the address. */
	DB_TRY_EXEC(&req->uow, &st_notify, arena_printf(&req->arena, "%lld %s", until, addr));
}
