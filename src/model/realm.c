/* Realm lookup and URLs; see realm.h. */
#include "model/realm.h"

#include <string.h>
#include <strings.h>

#include "core/config.h"
#include "db/db.h"
#include "core/uow.h"

/* The configured external host without its port, lowercased as nginx passes Host. */
static const char *root_host(struct uow *uow)
{
	const char *ext = uow->worker->cfg->external_host;
	const char *colon = strrchr(ext, ':');
	size_t len = colon && !strchr(colon, ']') ? (size_t)(colon - ext) : strlen(ext);
	char *host = arena_strndup(&uow->arena, ext, len);
	for (char *p = host; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return host;
}

const char *realm_subdomain_for_host(struct uow *uow, const char *host)
{
	const char *root = root_host(uow);
	size_t hlen = strlen(host), rlen = strlen(root);
	/* "sub.<root>" selects "sub"; anything else (the root itself, an IP address, localhost) the root realm. */
	if (hlen > rlen + 1 && host[hlen - rlen - 1] == '.' && strcasecmp(host + hlen - rlen, root) == 0) {
		char *sub = arena_strndup(&uow->arena, host, hlen - rlen - 1);
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

struct realm *realm_from_row(struct uow *uow, const struct db_res *res, int row, int col)
{
	struct realm *r = arena_alloc(&uow->arena, sizeof(*r));
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

struct realm *realm_by_subdomain(struct uow *uow, const char *subdomain)
{
	struct db_res *res = DB_EXEC(uow, &st_realm, subdomain);
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	return realm_from_row(uow, res, 0, 0);
}

const struct realm *realm_for_host(struct uow *uow, const char *host)
{
	if (uow->realm == NULL)
		uow->realm = realm_by_subdomain(uow, realm_subdomain_for_host(uow, host));
	return uow->realm;
}

const char *realm_url(struct uow *uow, const struct realm *realm)
{
	const struct config *cfg = uow->worker->cfg;
	if (*realm->subdomain == '\0')
		return arena_printf(&uow->arena, "%s://%s", cfg->external_scheme, cfg->external_host);
	return arena_printf(&uow->arena, "%s://%s.%s", cfg->external_scheme, realm->subdomain, cfg->external_host);
}

const char *realm_fake_email_domain(struct uow *uow, const struct realm *realm)
{
	if (*realm->subdomain == '\0')
		return root_host(uow);
	return arena_printf(&uow->arena, "%s.%s", realm->subdomain, root_host(uow));
}
