/*
 * Fixed windows in Redis. The API budget: one counter key per user and 60-second window, created by INCR and
 * expired with the window, both sent in one round trip. Failed authentication: one counter per account or
 * address whose window starts at its first failure (a script increments it and sets the expiry atomically, so
 * a counter can never be left without one). Any worker sees the same counters, so the limits hold across
 * processes.
 */
#include "api/ratelimit.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "api/ratelimit_watch.h"
#include "core/config.h"
#include "core/log.h"
#include "http/request.h"
#include "model/user.h"
#include "redis/redis.h"

#define WINDOW_SECONDS 60
/* After a Redis failure the limiter leaves Redis alone this long, so that an outage costs one attempt a second. */
#define OUTAGE_RETRY_SECONDS 1

/*
 * Every counter is written by a script flagged allow-oom: a Redis at its maxmemory (noeviction) refuses plain
 * writes, and the limits must not fail open then (docs/LIMITS.md, "Event queues": members can fill Redis with
 * queues they never read). A counter is a few dozen bytes with an expiry.
 */
#define ALLOW_OOM "#!lua flags=allow-oom\n"
/*
 * Increments KEYS[1] and returns {count, seconds left}; the first increment (or a key found without expiry)
 * starts the window of ARGV[1] seconds.
 */
static const char count_script[] =
    ALLOW_OOM "local n = redis.call('INCR', KEYS[1]) local t = redis.call('TTL', KEYS[1]) "
              "if t < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) t = tonumber(ARGV[1]) end return {n, t}";
/* Takes one back from the counter KEYS[1]; one that had expired meanwhile is not left behind at -1. */
static const char uncount_script[] =
    ALLOW_OOM "if redis.call('DECR', KEYS[1]) < 0 then redis.call('DEL', KEYS[1]) end return 0";
/* The API budget: increments the window's counter KEYS[1], which expires ARGV[1] seconds later; returns the count. */
static const char budget_script[] =
    ALLOW_OOM "local n = redis.call('INCR', KEYS[1]) redis.call('EXPIRE', KEYS[1], ARGV[1]) return n";

/*
 * The outage state of this process: whether an outage was logged (and its end not yet), and the monotonic
 * second before which Redis is not tried again. Process-wide by nature, like the Redis pool it guards.
 */
static atomic_bool outage_logged;
static atomic_llong retry_at;

static long long monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

/*
 * redis_pipeline() that fails open: returns 0, or -1 when Redis failed, with nothing recorded (the request goes
 * on unthrottled).
 */
static int try_pipeline(struct request *req, int n, const int *argcs, const char *const *const *cmds,
                        struct rreply **replies)
{
	if (monotonic_seconds() < atomic_load(&retry_at))
		return -1;
	int rc = redis_try_pipeline(&req->uow, n, argcs, cmds, replies);
	/* The connection goes back to the pool now: a login keeps its request for a password check after this. */
	redis_release(&req->uow);
	if (rc == 0) {
		if (atomic_exchange(&outage_logged, false))
			log_msg(LOG_INFO, "request %llu: redis answers again, rate limits apply", req->id);
		return 0;
	}
	atomic_store(&retry_at, monotonic_seconds() + OUTAGE_RETRY_SECONDS);
	if (!atomic_exchange(&outage_logged, true))
		log_msg(LOG_WARNING, "request %llu: redis unavailable, rate limits not applied until it answers again",
		        req->id);
	return -1;
}

/* Records RATE_LIMIT_HIT as the reference answers it: Retry-After (whole seconds) and "retry-after". */
static int limited(struct request *req, double retry)
{
	request_add_header(req, "Retry-After", arena_printf(&req->arena, "%lld", (long long)retry + 1));
	api_error(req, ERR_RATE_LIMIT, NULL);
	api_error_field(req, "retry-after", json_object_new_double(retry));
	return -1;
}

/* The EVAL of count_script on key with a window of window seconds (5 arguments, in the arena). */
static const char *const *count_cmd(struct request *req, const char *key, int window)
{
	const char **argv = arena_alloc(&req->arena, 5 * sizeof(*argv));
	argv[0] = "EVAL";
	argv[1] = count_script;
	argv[2] = "1";
	argv[3] = key;
	argv[4] = arena_printf(&req->arena, "%d", window);
	return argv;
}

/* Seconds left in the window of a count_script reply if its count is over limit, else 0. */
static long long over_limit(const struct rreply *r, int limit)
{
	if (r->type != RR_ARRAY || r->n != 2 || r->elem[0]->type != RR_INT || r->elem[1]->type != RR_INT)
		return 0;
	return r->elem[0]->integer > limit ? (r->elem[1]->integer > 0 ? r->elem[1]->integer : 1) : 0;
}

static const char *account_key(struct request *req, long long realm_id, const char *email)
{
	char *lower = arena_strdup(&req->arena, email);
	for (char *p = lower; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return arena_printf(&req->arena, "confab:rl:login:user:%lld:%s", realm_id, lower);
}

static const char *address_key(struct request *req, const char *what)
{
	return arena_printf(&req->arena, "confab:rl:%s:addr:%s", what, req->remote_addr);
}

/* True if failures from the client address are limited (a limit is set and nginx passed the address). */
static bool has_address(const struct request *req, int limit)
{
	return limit > 0 && req->remote_addr != NULL && *req->remote_addr != '\0';
}

int ratelimit_login_begin(struct request *req, long long realm_id, const char *email)
{
	const struct config *cfg = req->worker->cfg;
	const char *const *cmds[2];
	int argcs[2] = {5, 5}, limits[2], n = 0;
	if (cfg->login_fail_limit_user > 0) {
		cmds[n] = count_cmd(req, account_key(req, realm_id, email), cfg->login_fail_window);
		limits[n++] = cfg->login_fail_limit_user;
	}
	if (has_address(req, cfg->login_fail_limit_address)) {
		cmds[n] = count_cmd(req, address_key(req, "login"), cfg->login_fail_window);
		limits[n++] = cfg->login_fail_limit_address;
	}
	struct rreply *replies[2];
	if (n == 0 || try_pipeline(req, n, argcs, cmds, replies) < 0)
		return 0;
	long long retry = 0;
	for (int i = 0; i < n; i++) {
		long long left = over_limit(replies[i], limits[i]);
		retry = left > retry ? left : retry;
	}
	return retry > 0 ? limited(req, (double)retry) : 0;
}

void ratelimit_login_end(struct request *req, long long realm_id, const char *email, bool checked)
{
	const struct config *cfg = req->worker->cfg;
	const char *account = account_key(req, realm_id, email);
	const char *del[] = {"DEL", account};
	const char *uncount_account[] = {"EVAL", uncount_script, "1", account};
	const char *uncount_address[] = {"EVAL", uncount_script, "1", address_key(req, "login")};
	const char *const *cmds[2];
	int argcs[2], n = 0;
	if (cfg->login_fail_limit_user > 0) {
		cmds[n] = checked ? del : uncount_account;
		argcs[n++] = checked ? 2 : 4;
	}
	if (has_address(req, cfg->login_fail_limit_address)) {
		cmds[n] = uncount_address;
		argcs[n++] = 4;
	}
	struct rreply *replies[2];
	if (n > 0)
		try_pipeline(req, n, argcs, cmds, replies);
}

int ratelimit_key_failed(struct request *req)
{
	const struct config *cfg = req->worker->cfg;
	if (!has_address(req, cfg->api_key_fail_limit_address))
		return 0;
	/* The count, and the address in the set of watched ones (ratelimit_watch.h), in one round trip. */
	const char *const *cmds[2] = {count_cmd(req, address_key(req, "key"), cfg->api_key_fail_window),
	                              ratelimit_watch_cmd(req, req->remote_addr, cfg->api_key_fail_window)};
	const int argcs[2] = {5, 7};
	struct rreply *replies[2];
	if (try_pipeline(req, 2, argcs, cmds, replies) < 0)
		return 0;
	ratelimit_watch_announce(req, req->remote_addr, cfg->api_key_fail_window);
	long long retry = over_limit(replies[0], cfg->api_key_fail_limit_address);
	return retry == 0 ? 0 : limited(req, (double)retry);
}

/* Refuses a request from an address over its budget of failed API keys (replies: GET and TTL of its counter). */
static int check_address(struct request *req, struct rreply **replies)
{
	long long count = replies[0]->type == RR_STR ? strtoll(replies[0]->str, NULL, 10) : 0;
	long long ttl = replies[1]->type == RR_INT ? replies[1]->integer : 0;
	if (count <= req->worker->cfg->api_key_fail_limit_address)
		return 0;
	return limited(req, (double)(ttl > 0 ? ttl : 1));
}

/* The per-user API budget (replies: budget_script's count). */
static int check_user(struct request *req, struct rreply **replies, long long reset, const struct timespec *now)
{
	int limit = req->worker->cfg->rate_limit_per_minute;
	long long count = replies[0]->integer;
	long long remaining = count >= limit ? 0 : limit - count;
	request_add_header(req, "X-RateLimit-Limit", arena_printf(&req->arena, "%d", limit));
	request_add_header(req, "X-RateLimit-Remaining", arena_printf(&req->arena, "%lld", remaining));
	request_add_header(req, "X-RateLimit-Reset", arena_printf(&req->arena, "%lld", reset));
	if (count <= limit)
		return 0;
	return limited(req, (double)reset - ((double)now->tv_sec + (double)now->tv_nsec / 1e9));
}

int ratelimit_check(struct request *req)
{
	const struct config *cfg = req->worker->cfg;
	bool per_user = cfg->rate_limit_per_minute > 0 && req->user != NULL;
	/* Only addresses that failed a key in their window (as every process hears of it) cost a round trip. */
	bool per_address =
	    has_address(req, cfg->api_key_fail_limit_address) && ratelimit_watched(req, req->remote_addr);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	long long window = now.tv_sec / WINDOW_SECONDS;
	long long user_id = per_user ? (long long)req->user->id : 0;
	const char *key = arena_printf(&req->arena, "confab:rl:{%lld}:%lld", user_id, window);
	const char *count[] = {"EVAL", budget_script, "1", key, arena_printf(&req->arena, "%d", WINDOW_SECONDS + 1)};
	const char *get[] = {"GET", address_key(req, "key")};
	const char *ttl[] = {"TTL", get[1]};
	/* One round trip: the address's failures (GET, TTL), then the user's window. */
	const char *const *all[3] = {get, ttl, count};
	const int argcs[3] = {2, 2, 5};
	int first = per_address ? 0 : 2, n = (per_user ? 3 : 2) - first;
	struct rreply *replies[3];
	if (n <= 0 || try_pipeline(req, n, argcs + first, all + first, replies) < 0)
		return 0;
	if (per_address && check_address(req, replies) < 0)
		return -1;
	return per_user ? check_user(req, replies + (per_address ? 2 : 0), (window + 1) * WINDOW_SECONDS, &now) : 0;
}
