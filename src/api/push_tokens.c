/*
 * APNs device tokens (deprecated, still used by older iOS apps): POST and DELETE /users/me/apns_device_token.
 * Reference: zerver/views/push_notifications.py (add_apns_device_token, remove_apns_device_token) and
 * zerver/lib/push_notifications.py (validate_token, add_push_device_token, remove_push_device_token).
 */
#include <stdbool.h>
#include <string.h>

#include "api/api.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/user.h"

#define APNS_TOKEN_MAX 4096 /* characters */

static struct db_stmt st_add = DB_STMT("INSERT INTO apns_device_tokens (user_id, token, ios_app_id) VALUES ($1, $2, $3)"
                                       " ON CONFLICT (user_id, md5(token)) DO NOTHING");
static struct db_stmt st_remove =
    DB_STMT("DELETE FROM apns_device_tokens WHERE user_id = $1 AND md5(token) = md5($2) AND token = $2 RETURNING id");

static bool is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Python's bytes.fromhex: pairs of hex digits, ASCII whitespace allowed between pairs (not inside one). */
static bool is_hex_bytes(const char *s)
{
	while (*s) {
		if (strchr(" \t\n\r\v\f", *s) != NULL) {
			s++;
			continue;
		}
		if (!is_hex_digit(s[0]) || !is_hex_digit(s[1]))
			return false;
		s += 2;
	}
	return true;
}

/* The reference's validate_token for an APNs token. (Bots are refused by the routes' R_HUMAN.) */
static int check_token(struct request *req, const char *token)
{
	if (*token == '\0' || utf8_length(token) > APNS_TOKEN_MAX)
		return api_error(req, ERR_BAD_REQUEST, "Empty or invalid length token");
	if (!is_hex_bytes(token))
		return api_error(req, ERR_BAD_REQUEST, "Invalid APNS token");
	return 0;
}

/* The app id's grammar, ^[.a-zA-Z0-9-]+$. */
static bool is_app_id(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!(is_hex_digit(*s) || (*s >= 'g' && *s <= 'z') || (*s >= 'G' && *s <= 'Z') || *s == '.' ||
		      *s == '-'))
			return false;
	return true;
}

/* POST /api/v1/users/me/apns_device_token */
int apns_token_add(struct request *req)
{
	const char *token = param_str(req, "token"), *appid = param_str(req, "appid");
	if (check_token(req, token) < 0)
		return -1;
	if (!is_app_id(appid))
		return api_error(req, ERR_BAD_REQUEST, "appid has invalid format");
	/* The same token registered again is the same row, with the app id of its first registration. */
	return DB_EXEC(&req->uow, &st_add, db_arg_int(&req->uow, req->user->id), token, appid) ? 0 : -1;
}

/* DELETE /api/v1/users/me/apns_device_token */
int apns_token_remove(struct request *req)
{
	const char *token = param_str(req, "token");
	if (check_token(req, token) < 0)
		return -1;
	struct db_res *res = DB_EXEC(&req->uow, &st_remove, db_arg_int(&req->uow, req->user->id), token);
	if (res == NULL)
		return -1;
	return db_rows(res) > 0 ? 0 : api_error(req, ERR_BAD_REQUEST, "Token does not exist");
}
