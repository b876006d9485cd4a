/* Realm lookup and URLs; see realm.h. */
#include "model/realm.h"

#include <string.h>
#include <strings.h>

#include "core/config.h"
#include "db/db.h"
#include "core/uow.h"
#include "model/cache.h"

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

#define REALM_FIELD(member, type, sql) DB_FIELD(struct realm, member, type)
#define REALM_FLAG(member, type)       DB_FIELD(struct realm, member, type)
static const struct db_field realm_fields[] = {REALM_FIELDS(REALM_FIELD, REALM_FIELD, REALM_FLAG)};

int realm_read_row(const struct db_res *res, int row, int col, struct realm *r)
{
	return db_read_row(res, row, col, realm_fields, DB_NFIELDS(realm_fields), r);
}

struct realm *realm_from_row(struct uow *uow, const struct db_res *res, int row, int col)
{
	struct realm *r = arena_alloc(&uow->arena, sizeof(*r));
	realm_read_row(res, row, col, r);
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

/* realm_by_subdomain() through the process's cache (model/cache.h). */
static struct realm *cached_realm(struct uow *uow, const char *subdomain)
{
	struct cache *cache = uow->worker->cache;
	struct realm *r = cache_realm_get(cache, uow, subdomain);
	if (r != NULL)
		return r;
	uint64_t ticket = cache_ticket(cache);
	r = realm_by_subdomain(uow, subdomain);
	if (r != NULL)
		cache_realm_put(cache, ticket, subdomain, r);
	return r;
}

const struct realm *realm_for_host(struct uow *uow, const char *host)
{
	if (uow->realm == NULL)
		uow->realm = cached_realm(uow, realm_subdomain_for_host(uow, host));
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
