/* Organizations (realms): lookup by the request's host and the fields clients see. */
#ifndef CONFAB_REALM_H
#define CONFAB_REALM_H

#include <stdbool.h>
#include <stdint.h>

struct uow;

/* How the empty topic is shown to clients that do not declare the empty_topic_name capability. */
#define REALM_EMPTY_TOPIC_DISPLAY_NAME "general chat"

struct realm {
	int64_t id;
	const char *subdomain;
	const char *name;
	const char *description;
	bool deactivated;
	bool enable_spectator_access;
	bool invite_required;
	bool emails_restricted_to_domains;
	bool everyone_can_access_all_users; /* can_access_all_users_group is role:everyone */
	bool presence_disabled;             /* the organization shows no presence (model/presence.h) */
	const char *subdomain_md5;          /* for the default (Gravatar) organization icon */
	const char *topics_policy;          /* the organization's, which channels set to "inherit" follow */
	int64_t linkifier_version;          /* linkifier_versions' counter (0: never changed; model/linkifiers.h) */
};

struct db_res;

/* The columns realm_from_row() reads, for queries that join realms as r (see "Rows read by name" in db/db.h). */
/* clang-format off */
#define REALM_FIELDS(X0, X, F) \
	X0(id, DB_I64, "r.id") X(subdomain, DB_STR, "r.subdomain") X(name, DB_STR, "r.name") \
	X(description, DB_STR, "r.description") X(deactivated, DB_BOOL, "r.deactivated") \
	X(enable_spectator_access, DB_BOOL, "r.enable_spectator_access") \
	X(invite_required, DB_BOOL, "r.invite_required") \
	X(emails_restricted_to_domains, DB_BOOL, "r.emails_restricted_to_domains") \
	X(everyone_can_access_all_users, DB_BOOL, "EXISTS (SELECT 1 FROM user_groups eg WHERE " \
	  "eg.id = r.can_access_all_users_group_id AND eg.is_system_group AND eg.name = 'role:everyone')") \
	X(presence_disabled, DB_BOOL, "r.presence_disabled") X(subdomain_md5, DB_STR, "md5(r.subdomain)") \
	X(topics_policy, DB_STR, "r.topics_policy") \
	X(linkifier_version, DB_I64, "COALESCE((SELECT lv.version FROM linkifier_versions lv WHERE lv.realm_id = r.id), 0)")
/* clang-format on */
#define REALM_COLUMNS REALM_FIELDS(DB_SQL0, DB_SQL, DB_SQL_FLAG)

/* Builds a realm (in the arena) from REALM_COLUMNS starting at column col of row. */
struct realm *realm_from_row(struct uow *uow, const struct db_res *res, int row, int col);
/* Reads REALM_COLUMNS from column col of row into r; returns the number of columns read. */
int realm_read_row(const struct db_res *res, int row, int col, struct realm *r);
/* The realm subdomain a Host header names ("" for the root domain); an arena string. */
const char *realm_subdomain_for_host(struct uow *uow, const char *host);
/* Loads the realm with that subdomain; NULL if there is none (check uow->error for a database failure). */
struct realm *realm_by_subdomain(struct uow *uow, const char *subdomain);
/* Loads the realm a Host header names into uow->realm (unless one is set); NULL if there is none. */
const struct realm *realm_for_host(struct uow *uow, const char *host);
/* The organization's URL, e.g. http://sub.example.com:9991; an arena string. */
const char *realm_url(struct uow *uow, const struct realm *realm);
/* The host part used for placeholder e-mail addresses (user123@<host>); an arena string. */
const char *realm_fake_email_domain(struct uow *uow, const struct realm *realm);

#endif
