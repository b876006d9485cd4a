/* HTTP Basic authentication of API requests (user name: the e-mail address, password: the API key). */
#ifndef CONFAB_AUTH_H
#define CONFAB_AUTH_H

struct request;

/*
 * Authenticates req from its Authorization header: sets req->user and req->realm, or records the reference's
 * error (401 UNAUTHORIZED with its message, or 400 for a scheme other than Basic) and returns -1.
 */
int auth_request(struct request *req);

/*
 * Splits a Basic credential header into user and password (arena strings). Returns 0, -1 if the scheme is
 * not Basic, or -2 if the header is not exactly "<scheme> <base64 of UTF-8 user:password>".
 */
int auth_parse_basic(struct request *req, const char *header, char **user, char **password);

#endif
