/* Realm lookup and URLs; see realm.h. */
#include "model/realm.h"

#include <string.h>
#include <strings.h>

#include "core/config.h"
#include "db/db.h"
#include "http/request.h"

/* The configured external host without its port, lowercased as nginx passes Host. */
static const char *root_host(struct request *req)
{
	const char *ext = req->worker->cfg->external_host;
	const char *colon = strrchr(ext, ':');
	size_t len = colon && !strchr(colon, ']') ? (size_t)(colon - ext) : strlen(ext);
	char *host = arena_strndup(&req->arena, ext, len);
	for (char *p = host; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return host;
}

const char *realm_subdomain_for_host(struct request *req)
{
	const char *host = req->host;
	const char *root = root_host(req);
	size_t hlen = strlen(host), rlen = strlen(root);
	/* "sub.<root>" selects "sub"; anything else (the root itself, an IP address, localhost) the root realm. */
	if (hlen > rlen + 1 && host[hlen - rlen - 1] == '.' && strcasecmp(host + hlen - rlen, root) == 0) {
		char *sub = arena_strndup(&req->arena, host, hlen - rlen - 1);
		for (char *p = sub; *p; p++) {
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
			/* No organization has other characters (a CHECK constraint): "!" matches none. */
			if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
				return "!";
		}
		return sub;
	}
	return "";
}

struct realm *realm_from_row(struct request *req, const struct db_res *res, int row, int col)
{
	struct realm *r = arena_alloc(&req->arena, sizeof(*r));
	r->id = db_int(res, row, col);
	r->subdomain = db_val(res, row, col + 1);
	r->name = db_val(res, row, col + 2);
	r->description = db_val(res, row, col + 3);
	r->deactivated = db_bool(res, row, col + 4);
	r->enable_spectator_access = db_bool(res, row, col + 5);
	r->invite_required = db_bool(res, row, col + 6);
	r->emails_restricted_to_domains = db_bool(res, row, col + 7);
	r->everyone_can_access_all_users = db_bool(res, row, col + 8);
	r->subdomain_md5 = db_val(res, row, col + 9);
	return r;
}

static struct db_stmt st_realm = DB_STMT("SELECT " REALM_COLUMNS " FROM realms r WHERE r.subdomain = $1");

struct realm *realm_by_subdomain(struct request *req, const char *subdomain)
{
	struct db_res *res = DB_EXEC(req, &st_realm, subdomain);
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	return realm_from_row(req, res, 0, 0);
}

const struct realm *realm_for_request(struct request *req)
{
	if (req->realm == NULL)
		req->realm = realm_by_subdomain(req, realm_subdomain_for_host(req));
	return req->realm;
}

const char *realm_url(struct request *req, const struct realm *realm)
{
	const struct config *cfg = req->worker->cfg;
	if (*realm->subdomain == '\0')
		return arena_printf(&req->arena, "%s://%s", cfg->external_scheme, cfg->external_host);
	return arena_printf(&req->arena, "%s://%s.%s", cfg->external_scheme, realm->subdomain, cfg->external_host);
}

const char *realm_fake_email_domain(struct request *req, const struct realm *realm)
{
	if (*realm->subdomain == '\0')
		return root_host(req);
	return arena_printf(&req->arena, "%s.%s", realm->subdomain, root_host(req));
}
