/* Password login for API clients. */
#include <json-c/json.h>

#include "api/api.h"
#include "db/db.h"
#include "http/auth.h"
#include "http/params.h"
#include "http/request.h"
#include "model/realm.h"
#include "model/user.h"

/* POST /api/v1/fetch_api_key */
int api_key_fetch(struct request *req)
{
	const char *username = param_str(req, "username");
	const char *password = param_str(req, "password");
	if (req->realm == NULL)
		return api_error(req, ERR_BAD_REQUEST, "Invalid subdomain");
	if (!user_email_is_valid(username))
		return api_error(req, ERR_BAD_REQUEST, "Enter a valid email address.");
	const struct user *u = auth_password(req, req->realm, username, password);
	if (u == NULL)
		return -1;
	/* Keys are stored only as hashes, so each login issues a key of its own; earlier keys stay valid. */
	if (db_begin(&req->uow) < 0)
		return -1;
	const char *key = user_issue_api_key(&req->uow, u->id);
	if (key == NULL)
		return -1;
	json_object *out = request_result(req);
	json_object_object_add(out, "api_key", json_object_new_string(key));
	json_object_object_add(out, "email", json_object_new_string(u->delivery_email));
	json_object_object_add(out, "user_id", json_object_new_int64(u->id));
	return 0;
}
