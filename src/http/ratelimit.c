/*
 * Fixed 60-second windows: one counter key per user and window, created by INCR and expired with the window,
 * both sent in one round trip. Any worker sees the same counters, so the limit holds across processes.
 */
#include "http/ratelimit.h"

#include <time.h>

#include "core/config.h"
#include "http/request.h"
#include "model/user.h"
#include "redis/redis.h"

#define WINDOW_SECONDS 60

int ratelimit_check(struct request *req)
{
	int limit = req->worker->cfg->rate_limit_per_minute;
	if (limit <= 0 || req->user == NULL)
		return 0;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	long long window = now.tv_sec / WINDOW_SECONDS;
	long long reset = (window + 1) * WINDOW_SECONDS;
	char *key = arena_printf(&req->arena, "confab:rl:{%lld}:%lld", (long long)req->user->id, window);
	const char *incr[] = {"INCR", key};
	const char *expire[] = {"EXPIRE", key, arena_printf(&req->arena, "%d", WINDOW_SECONDS + 1)};
	const char *const *cmds[] = {incr, expire};
	const int argcs[] = {2, 3};
	struct rreply *replies[2];
	if (redis_pipeline(req, 2, argcs, cmds, replies) < 0)
		return -1;
	long long count = replies[0]->integer;
	long long remaining = count >= limit ? 0 : limit - count;
	request_add_header(req, "X-RateLimit-Limit", arena_printf(&req->arena, "%d", limit));
	request_add_header(req, "X-RateLimit-Remaining", arena_printf(&req->arena, "%lld", remaining));
	request_add_header(req, "X-RateLimit-Reset", arena_printf(&req->arena, "%lld", reset));
	if (count <= limit)
		return 0;
	double retry = (double)reset - ((double)now.tv_sec + (double)now.tv_nsec / 1e9);
	request_add_header(req, "Retry-After", arena_printf(&req->arena, "%lld", (long long)retry + 1));
	api_error(req, ERR_RATE_LIMIT, NULL);
	api_error_field(req, "retry-after", json_object_new_double(retry));
	return -1;
}
