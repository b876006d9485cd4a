/*
 * Rate limits in Redis: the per-user API budget (the reference's api_by_user rule: N requests per 60 s) and the
 * throttling of failed authentication (the reference's authenticate_by_username rule, plus per-address limits
 * on failed passwords and failed API keys).
 *
 * Every limit fails open: when Redis cannot be reached the request goes on unthrottled (rate limits are not
 * worth an outage of every authenticated request), the first failure of an outage is logged, and Redis is
 * tried again a second later.
 */
#ifndef CONFAB_RATELIMIT_H
#define CONFAB_RATELIMIT_H

#include <stdbool.h>

struct request;

/*
 * Counts the request against req->user's budget and adds the X-RateLimit-* headers; also refuses a request
 * from an address over its budget of failed API keys (see ratelimit_key_failed). Returns 0, or -1 with
 * RATE_LIMIT_HIT (429, retry-after) recorded. A limit of 0 in the configuration disables the check.
 */
int ratelimit_check(struct request *req);

/*
 * Before a password is checked: counts the attempt for the account (realm_id and e-mail, case-insensitively)
 * and for the client address. Returns 0, or -1 with RATE_LIMIT_HIT recorded when either is over its limit of
 * failures in the window (login_fail_limit_user, login_fail_limit_address, login_fail_window); the attempt is
 * then refused whatever the password, as the reference does.
 */
int ratelimit_login_begin(struct request *req, long long realm_id, const char *email);
/*
 * After ratelimit_login_begin() admitted a login: a success clears the account's failures (as the reference's
 * clear_history) and takes the attempt back from the address, so that only failures count there; a login that
 * was not checked at all (checked false: the server was too busy) is taken back from both.
 */
void ratelimit_login_end(struct request *req, long long realm_id, const char *email, bool checked);

/*
 * After an API key was refused (its 401 not yet recorded): counts the failure for the client address. Returns -1
 * with RATE_LIMIT_HIT recorded past api_key_fail_limit_address failures in api_key_fail_window seconds (instead
 * of the 401), else 0 (the caller records the 401).
 */
int ratelimit_key_failed(struct request *req);

#endif
