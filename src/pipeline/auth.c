/* HTTP Basic authentication; see auth.h. */
#include "pipeline/auth.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "api/ratelimit.h"
#include "core/crypto.h"
#include "http/form.h"
#include "http/request.h"
#include "model/realm.h"
#include "model/user.h"

/* True if s (len bytes) is valid UTF-8. */
static bool is_utf8(const char *s, size_t len)
{
	size_t outlen;
	form_repair_utf8(NULL, s, len, &outlen);
	return outlen == len;
}

int auth_parse_basic(struct request *req, const char *header, char **user, char **password)
{
	/* The reference splits the header on white space and needs exactly "<scheme> <credentials>". */
	char *copy = arena_strdup(&req->arena, header);
	char *tokens[3] = {NULL, NULL, NULL}, *save = NULL;
	int n = 0;
	for (char *t = strtok_r(copy, " \t\r\n", &save); t != NULL && n < 3; t = strtok_r(NULL, " \t\r\n", &save))
		tokens[n++] = t;
	if (n != 2)
		return -2;
	if (strcasecmp(tokens[0], "basic") != 0)
		return -1;
	size_t cap = strlen(tokens[1]) + 1;
	char *decoded = arena_alloc(&req->arena, cap);
	long len = crypto_base64_decode(tokens[1], decoded, cap);
	if (len < 0 || memchr(decoded, '\0', (size_t)len) != NULL || !is_utf8(decoded, (size_t)len))
		return -2;
	char *colon = strchr(decoded, ':');
	if (colon == NULL || strchr(colon + 1, ':') != NULL)
		return -2;
	*colon = '\0';
	*user = decoded;
	*password = colon + 1;
	return 0;
}

int auth_request(struct request *req)
{
	if (req->authorization == NULL)
		return api_error(req, ERR_UNAUTHORIZED, NULL);
	char *email, *key;
	switch (auth_parse_basic(req, req->authorization, &email, &key)) {
	case -1: return api_error(req, ERR_BAD_REQUEST, "This endpoint requires HTTP basic authentication.");
	case -2: return api_error(req, ERR_UNAUTHORIZED, "Invalid authorization header for basic auth");
	}
	const char *refusal = NULL;
	int rc = user_authenticate_key(&req->uow, realm_subdomain_for_host(&req->uow, req->host), email, key, &refusal);
	if (rc <= 0)
		return rc; /* in, or a database failure: only a key that was checked counts, an outage is no guess */
	if (ratelimit_key_failed(req) < 0)
		return -1;
	return api_error(req, ERR_UNAUTHORIZED, "%s", refusal);
}
