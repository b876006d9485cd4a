/* Server settings and health: what a client or an operator asks before logging in. */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/version.h"
#include "db/db.h"
#include "http/request.h"
#include "model/realm.h"
#include "redis/redis.h"

static json_object *auth_methods(void)
{
	static const char *const disabled[] = {"dev",    "ldap",  "remoteuser", "github", "azuread",
	                                       "gitlab", "apple", "google",     "saml",   "openid connect"};
	json_object *m = json_object_new_object();
	json_object_object_add(m, "password", json_object_new_boolean(1));
	json_object_object_add(m, "email", json_object_new_boolean(1));
	for (size_t i = 0; i < sizeof(disabled) / sizeof(disabled[0]); i++)
		json_object_object_add(m, disabled[i], json_object_new_boolean(0));
	return m;
}

/* Plain-text description as HTML until Markdown rendering exists: escaped, one paragraph. */
static const char *description_html(struct request *req, const char *text)
{
	if (*text == '\0')
		return "";
	size_t n = 0;
	for (const char *p = text; *p; p++)
		n += *p == '&' ? 5 : (*p == '<' || *p == '>') ? 4 : *p == '"' ? 6 : 1;
	char *out = arena_alloc(&req->arena, n + 8), *o = out;
	o += sprintf(o, "<p>");
	for (const char *p = text; *p; p++)
		o += *p == '&'   ? sprintf(o, "&amp;")
		     : *p == '<' ? sprintf(o, "&lt;")
		     : *p == '>' ? sprintf(o, "&gt;")
		     : *p == '"' ? sprintf(o, "&quot;")
		                 : sprintf(o, "%c", *p);
	sprintf(o, "</p>");
	return out;
}

static struct db_stmt st_web_public =
    DB_STMT("SELECT 1 FROM channels WHERE realm_id = $1 AND is_web_public AND NOT is_archived LIMIT 1");

/* GET /api/v1/server_settings */
int server_settings_get(struct request *req)
{
	json_object *out = request_result(req);
	json_object_object_add(out, "authentication_methods", auth_methods());
	json_object_object_add(out, "external_authentication_methods", json_object_new_array());
	json_object_object_add(out, "zulip_feature_level", json_object_new_int(ZULIP_FEATURE_LEVEL));
	json_object_object_add(out, "zulip_version", json_object_new_string(ZULIP_VERSION));
	json_object_object_add(out, "zulip_merge_base", json_object_new_string(ZULIP_MERGE_BASE));
	json_object_object_add(out, "push_notifications_enabled", json_object_new_boolean(0));
	json_object_object_add(out, "is_incompatible", json_object_new_boolean(0));
	json_object_object_add(out, "email_auth_enabled", json_object_new_boolean(1));
	json_object_object_add(out, "require_email_format_usernames", json_object_new_boolean(1));
	const struct realm *realm = req->realm;
	if (realm == NULL)
		return 0; /* no organization at this host: only the server-wide settings */
	const char *url = realm_url(&req->uow, realm);
	json_object_object_add(out, "realm_uri", json_object_new_string(url));
	json_object_object_add(out, "realm_url", json_object_new_string(url));
	json_object_object_add(out, "realm_name", json_object_new_string(realm->name));
	json_object_object_add(
	    out, "realm_icon",
	    json_object_new_string(
	        arena_printf(&req->arena, "https://secure.gravatar.com/avatar/%s?d=identicon", realm->subdomain_md5)));
	json_object_object_add(out, "realm_description",
	                       json_object_new_string(description_html(req, realm->description)));
	/* Spectators need both the setting and a web-public channel to look at. */
	bool web_public = false;
	if (realm->enable_spectator_access) {
		struct db_res *res = DB_EXEC(&req->uow, &st_web_public, db_arg_int(&req->uow, realm->id));
		if (res == NULL)
			return -1;
		web_public = db_rows(res) > 0;
	}
	json_object_object_add(out, "realm_web_public_access_enabled", json_object_new_boolean(web_public));
	return 0;
}

/* "ok" if a probe (0 or -1, nothing recorded: health reports, not fails) succeeded, else "down". */
static const char *dependency(int probe)
{
	return probe == 0 ? "ok" : "down";
}

/* GET /health: 200 when PostgreSQL and Redis answer, else 503; both say which is which. */
int health_get(struct request *req)
{
	const char *pg = dependency(db_ping(&req->uow));
	const char *redis = dependency(REDIS_TRY_CMD(&req->uow, "PING") == NULL ? -1 : 0);
	if (strcmp(pg, "ok") == 0 && strcmp(redis, "ok") == 0) {
		json_object *out = request_result(req);
		json_object_object_add(out, "postgres", json_object_new_string(pg));
		json_object_object_add(out, "redis", json_object_new_string(redis));
		return 0;
	}
	api_error(req, ERR_UNAVAILABLE, NULL);
	api_error_field(req, "postgres", json_object_new_string(pg));
	api_error_field(req, "redis", json_object_new_string(redis));
	return -1;
}

/* GET /bench/noop */
int bench_noop(struct request *req)
{
	(void)req;
	return 0;
}
