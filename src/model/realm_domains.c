/* Allowed e-mail domains of an organization; see realm_domains.h. */
#include "model/realm_domains.h"

#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/jsonx.h"
#include "core/uow.h"
#include "core/utf8.h"
#include "db/db.h"
#include "events/events.h"
#include "model/realm.h"
#include "model/user.h"

/* ---- normalization and validation (domain.strip().lower(), validate_domain) -------------------------------- */

/* Appends the lowercase of code point cp (bytes b, k of them) as Python's str.lower() has it where it matters: ASCII
 * letters, and the two characters whose lowercase has another length or is ASCII; any other character is kept, since
 * it fails validation either way and its lowercase has as many code points. */
static char *append_lower(char *out, const char *b, size_t k, uint32_t cp)
{
	if (cp >= 'A' && cp <= 'Z')
		*out++ = (char)(cp - 'A' + 'a');
	else if (cp == 0x212a) /* KELVIN SIGN */
		*out++ = 'k';
	else if (cp == 0x130) /* LATIN CAPITAL LETTER I WITH DOT ABOVE: "i" and COMBINING DOT ABOVE */
		out = stpcpy(out, "i\xcc\x87");
	else
		out = mempcpy(out, b, k);
	return out;
}

const char *realm_domain_normalize(struct uow *uow, const char *raw)
{
	size_t n = strlen(raw), start = n, end = n;
	uint32_t cp;
	for (size_t i = 0, k; i < n; i += k) {
		k = utf8_decode((const unsigned char *)raw + i, n - i, &cp);
		k = k ? k : 1;
		if (!utf8_is_space(cp)) {
			start = start == n ? i : start;
			end = i + k;
		}
	}
	if (start == n)
		return "";
	/* Every character grows to at most 3 bytes from at least 2 (U+0130), ASCII stays 1. */
	char *out = arena_alloc(&uow->arena, 2 * (end - start) + 1), *p = out;
	for (size_t i = start, k; i < end; i += k) {
		k = utf8_decode((const unsigned char *)raw + i, end - i, &cp);
		k = k ? k : 1;
		p = append_lower(p, raw + i, k, cp);
	}
	*p = '\0';
	return out;
}

/*
 * One label between dots against the reference's re.match('^[a-z0-9-]*$', label): Python's $ also matches before a
 * final newline, so a label may end in one "\n" after its characters (the reference stores such a domain).
 */
static bool label_chars_ok(const char *s, size_t n)
{
	if (n > 0 && s[n - 1] == '\n')
		n--;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

const char *realm_domain_invalid_reason(const char *domain)
{
	size_t len = strlen(domain);
	if (len == 0)
		return "Domain can't be empty.";
	if (strchr(domain, '.') == NULL)
		return "Domain must have at least one dot (.)";
	if (utf8_length(domain) > REALM_DOMAIN_MAX_LENGTH)
		return "Domain is too long";
	if (domain[0] == '.' || domain[len - 1] == '.')
		return "Domain cannot start or end with a dot (.)";
	/* Each label in turn: empty, then its ends, then its characters. */
	for (const char *p = domain;;) {
		const char *end = strchrnul(p, '.');
		size_t n = (size_t)(end - p);
		if (n == 0)
			return "Consecutive '.' are not allowed.";
		if (p[0] == '-' || p[n - 1] == '-')
			return "Subdomains cannot start or end with a '-'.";
		if (!label_chars_ok(p, n))
			return "Domain can only have letters, numbers, '.' and '-'s.";
		if (*end == '\0')
			return NULL;
		p = end + 1;
	}
}

/* ---- the list ------------------------------------------------------------------------------------------------ */

static struct db_stmt st_list = DB_STMT(
    "SELECT COALESCE(json_agg(json_build_object('domain', domain, 'allow_subdomains', allow_subdomains) ORDER BY id),"
    " '[]')::text FROM realm_domains WHERE realm_id = $1");

json_object *realm_domains_json(struct uow *uow, int64_t realm_id)
{
	struct db_res *res = DB_EXEC(uow, &st_list, db_arg_int(uow, realm_id));
	if (res == NULL)
		return NULL;
	json_object *list = NULL;
	if (jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &list) < 0 || list == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	return uow_own_json(uow, list);
}

/* ---- changes and their events -------------------------------------------------------------------------------- */

/* Serializes the changes of one organization's domains (the last one's removal reads the rest). */
static struct db_stmt st_lock_realm =
    DB_STMT("SELECT emails_restricted_to_domains FROM realms WHERE id = $1 FOR UPDATE");

/* Locks the uow's organization; its emails_restricted_to_domains in *restricted. 0 or -1. */
static int lock_realm(struct uow *uow, bool *restricted)
{
	struct db_res *res = DB_EXEC(uow, &st_lock_realm, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	if (db_rows(res) != 1)
		return uow_error(uow, ERR_INTERNAL, NULL);
	*restricted = db_bool(res, 0, 0);
	return 0;
}

/* Records event (owned by the uow) for every active user of the organization (active_user_ids). */
static int to_everyone(struct uow *uow, json_object *event)
{
	int n;
	int64_t *users = user_active_ids(uow, uow->realm->id, &n);
	return users ? events_add_some(uow, event, users, n) : -1;
}

/* The event of an added or changed domain: {type, op, realm_domain: {domain, allow_subdomains}}. */
static int event_domain(struct uow *uow, const char *op, const char *domain, bool allow_subdomains)
{
	json_object *event = events_new(uow, "realm_domains", op);
	json_object *rd = json_object_new_object();
	json_object_object_add(rd, "domain", json_object_new_string(domain));
	json_object_object_add(rd, "allow_subdomains", json_object_new_boolean(allow_subdomains));
	json_object_object_add(event, "realm_domain", rd);
	return to_everyone(uow, event);
}

static struct db_stmt st_add =
    DB_STMT("INSERT INTO realm_domains (realm_id, domain, allow_subdomains) VALUES ($1, $2, $3)"
            " ON CONFLICT (realm_id, domain) DO NOTHING RETURNING id");

int64_t realm_domain_add(struct uow *uow, const char *domain, bool allow_subdomains)
{
	bool restricted;
	if (lock_realm(uow, &restricted) < 0)
		return 0;
	struct db_res *res =
	    DB_EXEC(uow, &st_add, db_arg_int(uow, uow->realm->id), domain, allow_subdomains ? "true" : "false");
	if (res == NULL)
		return 0;
	if (db_rows(res) == 0) {
		uow_error(uow, ERR_BAD_REQUEST, "The domain %s is already a part of your organization.", domain);
		return 0;
	}
	int64_t id = db_int(res, 0, 0);
	return event_domain(uow, "add", domain, allow_subdomains) < 0 ? 0 : id;
}

static struct db_stmt st_change =
    DB_STMT("UPDATE realm_domains SET allow_subdomains = $3 WHERE realm_id = $1 AND domain = $2 RETURNING id");

static int not_found(struct uow *uow, const char *domain)
{
	return uow_error(uow, ERR_BAD_REQUEST, "No entry found for domain %s.", domain);
}

int realm_domain_change(struct uow *uow, const char *domain, bool allow_subdomains)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_change, db_arg_int(uow, uow->realm->id), domain, allow_subdomains ? "true" : "false");
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return not_found(uow, domain);
	return event_domain(uow, "change", domain, allow_subdomains);
}

static struct db_stmt st_remove =
    DB_STMT("DELETE FROM realm_domains WHERE realm_id = $1 AND domain = $2"
            " RETURNING NOT EXISTS (SELECT 1 FROM realm_domains WHERE realm_id = $1 AND domain <> $2)");
static struct db_stmt st_unrestrict = DB_STMT("UPDATE realms SET emails_restricted_to_domains = false WHERE id = $1");

/* do_set_realm_property(realm, "emails_restricted_to_domains", False): the column and its realm update event. */
static int unrestrict(struct uow *uow)
{
	if (DB_EXEC(uow, &st_unrestrict, db_arg_int(uow, uow->realm->id)) == NULL)
		return -1;
	json_object *event = events_new(uow, "realm", "update");
	json_object_object_add(event, "property", json_object_new_string("emails_restricted_to_domains"));
	json_object_object_add(event, "value", json_object_new_boolean(false));
	return to_everyone(uow, event);
}

int realm_domain_remove(struct uow *uow, const char *domain)
{
	bool restricted;
	if (lock_realm(uow, &restricted) < 0)
		return -1;
	struct db_res *res = DB_EXEC(uow, &st_remove, db_arg_int(uow, uow->realm->id), domain);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return not_found(uow, domain);
	if (restricted && db_bool(res, 0, 0) && unrestrict(uow) < 0)
		return -1;
	json_object *event = events_new(uow, "realm_domains", "remove");
	json_object_object_add(event, "domain", json_object_new_string(domain));
	return to_everyone(uow, event);
}

/* ---- the rule for new addresses (get_realm_email_validator) ------------------------------------------------- */

struct realm_email_rules {
	bool restricted;
	const char **domains; /* every domain, sorted by strcmp */
	int ndomains;
	const char **subdomains; /* those with allow_subdomains, sorted */
	int nsubdomains;
};

static int cmp_ptr_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct realm_email_rules *realm_email_rules_new(struct uow *uow, const char *const *domains,
                                                const bool *allow_subdomains, int n)
{
	struct realm_email_rules *r = arena_alloc(&uow->arena, sizeof(*r));
	r->restricted = true;
	r->domains = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*r->domains));
	r->subdomains = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*r->subdomains));
	for (int i = 0; i < n; i++) {
		const char *d = arena_strdup(&uow->arena, domains[i]);
		r->domains[r->ndomains++] = d;
		if (allow_subdomains[i])
			r->subdomains[r->nsubdomains++] = d;
	}
	qsort(r->domains, (size_t)r->ndomains, sizeof(*r->domains), cmp_ptr_str);
	qsort(r->subdomains, (size_t)r->nsubdomains, sizeof(*r->subdomains), cmp_ptr_str);
	return r;
}

static struct db_stmt st_rules = DB_STMT("SELECT domain, allow_subdomains FROM realm_domains WHERE realm_id = $1");

struct realm_email_rules *realm_email_rules_load(struct uow *uow, const struct realm *realm)
{
	if (!realm->emails_restricted_to_domains)
		return arena_alloc(&uow->arena, sizeof(struct realm_email_rules)); /* restricted false: all allowed */
	struct db_res *res = DB_EXEC(uow, &st_rules, db_arg_int(uow, realm->id));
	if (res == NULL)
		return NULL;
	int n = db_rows(res);
	const char **domains = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*domains));
	bool *allow = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*allow));
	for (int i = 0; i < n; i++) {
		domains[i] = db_val(res, i, 0);
		allow[i] = db_bool(res, i, 1);
	}
	return realm_email_rules_new(uow, domains, allow, n);
}

static int cmp_str(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

static bool in(const char *s, const char **list, int n)
{
	return n > 0 && bsearch(s, list, (size_t)n, sizeof(*list), cmp_str) != NULL;
}

enum realm_email_verdict realm_email_rules_check(const struct realm_email_rules *rules, const char *email)
{
	if (!rules->restricted)
		return REALM_EMAIL_ALLOWED;
	const char *at = strrchr(email, '@');
	const char *host = at ? at + 1 : email;
	if (memchr(email, '+', (size_t)(host - email)) != NULL)
		return REALM_EMAIL_CONTAINS_PLUS;
	char domain[256];
	size_t len = strlen(host);
	if (len >= sizeof(domain))
		return REALM_EMAIL_DOMAIN_NOT_ALLOWED; /* longer than any stored domain */
	for (size_t i = 0; i <= len; i++)
		domain[i] = (host[i] >= 'A' && host[i] <= 'Z') ? (char)(host[i] - 'A' + 'a') : host[i];
	if (in(domain, rules->domains, rules->ndomains))
		return REALM_EMAIL_ALLOWED;
	/* Each parent domain in turn, for the entries that allow subdomains. */
	for (const char *p = strchr(domain, '.'); p != NULL; p = strchr(p + 1, '.'))
		if (in(p + 1, rules->subdomains, rules->nsubdomains))
			return REALM_EMAIL_ALLOWED;
	return REALM_EMAIL_DOMAIN_NOT_ALLOWED;
}

int realm_email_check(struct uow *uow, const struct realm *realm, const char *email)
{
	struct realm_email_rules *rules = realm_email_rules_load(uow, realm);
	return rules ? (int)realm_email_rules_check(rules, email) : -1;
}
