/* HTTP Basic authentication; see auth.h. */
#include "http/auth.h"

#include <string.h>
#include <strings.h>

#include "core/crypto.h"
#include "http/request.h"
#include "model/user.h"

int auth_parse_basic(struct request *req, const char *header, char **user, char **password)
{
	while (*header == ' ')
		header++;
	if (strncasecmp(header, "Basic", 5) != 0 || (header[5] != ' ' && header[5] != '\0'))
		return -1;
	const char *b64 = header + 5;
	while (*b64 == ' ')
		b64++;
	size_t cap = strlen(b64) + 1;
	char *decoded = arena_alloc(&req->arena, cap);
	long len = crypto_base64_decode(b64, decoded, cap);
	if (len <= 0 || memchr(decoded, '\0', (size_t)len) != NULL)
		return -2;
	char *colon = strchr(decoded, ':');
	if (colon == NULL)
		return -2;
	*colon = '\0';
	*user = decoded;
	*password = colon + 1;
	return 0;
}

int auth_request(struct request *req)
{
	if (*req->authorization == '\0')
		return api_error(req, ERR_UNAUTHORIZED, NULL);
	char *email, *key;
	switch (auth_parse_basic(req, req->authorization, &email, &key)) {
	case -1: return api_error(req, ERR_BAD_REQUEST, "This endpoint requires HTTP basic authentication.");
	case -2: return api_error(req, ERR_UNAUTHORIZED, "Invalid authorization header for basic auth");
	}
	return user_authenticate_key(req, email, key);
}
