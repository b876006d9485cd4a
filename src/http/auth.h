/* HTTP Basic authentication of API requests (user name: the e-mail address, password: the API key). */
#ifndef CONFAB_AUTH_H
#define CONFAB_AUTH_H

struct realm;
struct request;
struct user;

/*
 * Authenticates req from its Authorization header: sets req->user and req->realm, or records the reference's
 * error (401 UNAUTHORIZED with its message, or 400 for a scheme other than Basic) and returns -1.
 */
int auth_request(struct request *req);

/*
 * Checks a password login (POST /fetch_api_key) in realm. Failures are throttled per account and per client
 * address (http/ratelimit.h), and the check runs on one of password_hash_slots slots of the process, so that
 * logins can never take every CPU from API requests. Returns the user, or NULL with the error recorded:
 * RATE_LIMIT_HIT (429, Retry-After) when throttled or when no slot frees up within password_hash_wait_ms,
 * else as user_authenticate_password().
 */
const struct user *auth_password(struct request *req, const struct realm *realm, const char *email,
                                 const char *password);

/*
 * Splits a Basic credential header into user and password (arena strings). Returns 0, -1 if the scheme is
 * not Basic, or -2 if the header is not exactly "<scheme> <base64 of UTF-8 user:password>".
 */
int auth_parse_basic(struct request *req, const char *header, char **user, char **password);

#endif
