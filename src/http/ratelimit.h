/* Per-user API rate limiting in Redis (the reference's api_by_user rule: N requests per 60 s). */
#ifndef CONFAB_RATELIMIT_H
#define CONFAB_RATELIMIT_H

struct request;

/*
 * Counts the request against req->user's budget and adds the X-RateLimit-* headers. Returns 0, or -1 with
 * RATE_LIMIT_HIT (429, retry-after) or the Redis failure recorded. A limit of 0 in the configuration
 * disables the check.
 */
int ratelimit_check(struct request *req);

#endif
