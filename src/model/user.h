/*
 * Users: lookup, creation, API keys, passwords, and the User object clients see (spec "User"). Everything here
 * works within the calling request (its arena, its database connection and transaction).
 */
#ifndef CONFAB_USER_H
#define CONFAB_USER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;
struct db_res;
struct realm;
struct realm;

enum role { ROLE_OWNER = 100, ROLE_ADMIN = 200, ROLE_MODERATOR = 300, ROLE_MEMBER = 400, ROLE_GUEST = 600 };
enum bot_type { BOT_GENERIC = 1, BOT_INCOMING_WEBHOOK = 2, BOT_OUTGOING_WEBHOOK = 3, BOT_EMBEDDED = 4 };

struct user {
	int64_t id;
	int64_t realm_id;
	const char *delivery_email;
	const char *full_name;
	int role;
	bool is_active;
	bool is_bot;
	int bot_type;         /* 0 for humans */
	int64_t bot_owner_id; /* 0 for none */
	const char *timezone;
	char avatar_source;
	int avatar_version;
	int email_address_visibility;
	const char *date_joined; /* ISO 8601, as the reference formats it */
	bool is_imported_stub;
	bool is_deleted;
	bool can_create_users;
	bool can_change_user_emails;
	const char *email_md5; /* of the lowercased delivery email, for Gravatar */
};

/* The columns user_from_row() reads, for queries on users as u (see "Rows read by name" in db/db.h). */
/* clang-format off */
#define USER_FIELDS(X0, X, F) \
	X0(id, DB_I64, "u.id") X(realm_id, DB_I64, "u.realm_id") X(delivery_email, DB_STR, "u.delivery_email") \
	X(full_name, DB_STR, "u.full_name") X(role, DB_INT, "u.role") X(is_active, DB_BOOL, "u.is_active") \
	X(is_bot, DB_BOOL, "u.is_bot") X(bot_type, DB_INT, "u.bot_type") X(bot_owner_id, DB_I64, "u.bot_owner_id") \
	X(timezone, DB_STR, "u.timezone") X(avatar_source, DB_CHAR, "u.avatar_source") \
	X(avatar_version, DB_INT, "u.avatar_version") \
	X(email_address_visibility, DB_INT, "u.email_address_visibility") \
	X(date_joined, DB_STR, "to_char(u.date_joined AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || " \
	  "CASE WHEN date_part('microseconds', u.date_joined)::bigint % 1000000 = 0 THEN '' " \
	  "ELSE to_char(u.date_joined AT TIME ZONE 'UTC', '.US') END || '+00:00'") \
	X(is_imported_stub, DB_BOOL, "u.is_imported_stub") X(is_deleted, DB_BOOL, "u.is_deleted") \
	X(can_create_users, DB_BOOL, "u.can_create_users") \
	X(can_change_user_emails, DB_BOOL, "u.can_change_user_emails") \
	X(email_md5, DB_STR, "md5(lower(u.delivery_email))")
/* clang-format on */
#define USER_COLUMNS USER_FIELDS(DB_SQL0, DB_SQL, DB_SQL_FLAG)
/*
 * SQL condition: the user whose id is expr is active. An anti-join with the (few) deactivated users by the index
 * users_inactive, where a join with users would make generic plans hash the whole table at every execution.
 */
#define USER_ACTIVE_SQL(expr) "NOT EXISTS (SELECT 1 FROM users ux WHERE ux.id = " expr " AND NOT ux.is_active)"

static inline bool user_is_owner(const struct user *u)
{
	return u->role == ROLE_OWNER;
}
static inline bool user_is_admin(const struct user *u)
{
	return u->role <= ROLE_ADMIN;
}
static inline bool user_is_moderator(const struct user *u)
{
	return u->role <= ROLE_MODERATOR;
}
static inline bool user_is_guest(const struct user *u)
{
	return u->role == ROLE_GUEST;
}

/* Builds a user (in the arena) from USER_COLUMNS starting at column col of row. */
struct user *user_from_row(struct uow *uow, const struct db_res *res, int row, int col);
/* Reads USER_COLUMNS from column col of row into u; returns the number of columns read. */
int user_read_row(const struct db_res *res, int row, int col, struct user *u);
/* Looks a user of the realm up by id, or by delivery e-mail (case-insensitively). NULL if there is none. */
struct user *user_by_id(struct uow *uow, int64_t realm_id, int64_t id);
struct user *user_by_email(struct uow *uow, int64_t realm_id, const char *email);
/* The same, recording the reference's "No such user" when there is none. */
struct user *user_by_id_or_error(struct uow *uow, int64_t realm_id, int64_t id);
struct user *user_by_email_or_error(struct uow *uow, int64_t realm_id, const char *email);

/*
 * Authenticates an API key: sets uow->user and uow->realm and returns 0; returns 1 with *refusal set to the
 * reference's 401 message (nothing recorded) when the key is refused, or -1 on failure (error recorded). email is the
 * Basic-auth user name and must match the key's user; subdomain is the one the request's host names
 * (realm_subdomain_for_host()), which must be the user's organization.
 */
int user_authenticate_key(struct uow *uow, const char *subdomain, const char *email, const char *key,
                          const char **refusal);
/*
 * Checks a password in realm; returns the user, or NULL with AUTHENTICATION_FAILED, USER_DEACTIVATED or
 * REALM_DEACTIVATED recorded (in the reference's order).
 */
struct user *user_authenticate_password(struct uow *uow, const struct realm *realm, const char *email,
                                        const char *password);

struct user_new {
	const char *email;
	const char *full_name;
	int role;
	int bot_type;             /* 0: a human */
	int64_t bot_owner_id;     /* 0: none */
	const char *password;     /* NULL: no password login */
	bool no_default_channels; /* a human not subscribed to the default channels (an invitation says which) */
};

/* Bounds of a full name in characters (code points), after stripping (the reference's MAX/MIN_NAME_LENGTH). */
#define USER_NAME_MAX 100
#define USER_NAME_MIN 2

/*
 * Checks a full name as the reference does; returns 0 or -1 with "Name too long!" and kin recorded. Every place a
 * person's name is set (PATCH /settings, POST /users, PATCH /users/{id}, the join page, confabctl) goes through
 * it. Beyond the reference's check (control characters, surrogates, noncharacters, * ` \ > " @, a trailing
 * "|digits"), invisible and reordering characters are refused too (utf8_is_name_char(): U+202E, U+200B, U+FEFF,
 * U+2028 ...): "Invalid characters in name!".
 */
int user_check_full_name(struct uow *uow, const char *name);
/* The reference's check_bot_name_available for a new bot named name (stripped): 0, or -1 with "Name is already in
 * use." recorded when an active user or bot of realm_id has that name. */
int user_check_bot_name_available(struct uow *uow, int64_t realm_id, const char *name);
/* The same check without recording: the reference's message, or NULL for a good name. */
const char *user_full_name_problem(const char *name);
/*
 * The reference asks for 6 characters and 10,000 guesses by zxcvbn. Without zxcvbn this refuses what it
 * would rate lowest: the most common passwords, one repeated character, and straight keyboard or alphabet runs.
 */
bool user_password_is_strong(const char *password);
/*
 * True for an address the reference's e-mail validator (Django's validate_email) accepts: a dot-atom local part of
 * at most 64 characters, '@', localhost or an ASCII domain, at most 254 in all. Stricter than Django in one way:
 * a domain with non-ASCII characters is refused (Django accepts it through IDNA, which maps a zero-width space
 * away and keeps a Cyrillic letter that looks Latin); such a domain is written in its xn-- form. Every address
 * that enters (invitations, the join page, POST /users, new_email, confabctl) is checked with it.
 */
bool user_email_is_valid(const char *email);
/*
 * Creates a user in realm_id (system group membership follows from the role; a human joins the default channels
 * unless spec->no_default_channels, without events). Returns the new id, or 0 with
 * the error recorded ("Email 'x' already in use" when the address is taken).
 */
int64_t user_create(struct uow *uow, int64_t realm_id, const struct user_new *spec);
/* Issues an additional API key for the user and returns it (arena string), or NULL on error. */
const char *user_issue_api_key(struct uow *uow, int64_t user_id);
/* Revokes all API keys of the user and issues a new one. */
const char *user_reset_api_key(struct uow *uow, int64_t user_id);

/* The id in a placeholder address user<ID>@<the organization's placeholder domain>, or 0. */
int64_t user_placeholder_email_id(struct uow *uow, const char *email);
/* The reference's can_access_delivery_email: may acting (NULL: a spectator) see target's real address? */
bool user_can_see_email(const struct user *acting, const struct user *target);
/*
 * The User object as acting sees target. client_gravatar: leave avatar_url null for Gravatar users whose
 * address acting can see. profile_data: the target's custom profile values (NULL: the key is left out;
 * ignored for bots). Returns a new object owned by the caller's tree.
 */
json_object *user_to_json(struct uow *uow, const struct user *target, const struct user *acting, bool client_gravatar,
                          json_object *profile_data);
/* Custom profile values of one user ({"<field id>": {"value", "rendered_value"?}}), or of every user of the
 * realm keyed by user id (then each value is such an object). Owned by the request (take a reference to keep one); NULL
 * on error. With max_message_id, the same query also gives the user's highest message id (-1 if none). */
json_object *user_profile_data(struct uow *uow, int64_t user_id, int64_t *max_message_id);
json_object *user_profile_data_all(struct uow *uow, int64_t realm_id);
/*
 * user_profile_data(u's id, max_message_id) for GET /users/me: the values kept as JSON text by the process's cache
 * (model/cache.h; spliced as they are), so that only max_message_id is read from the database once they are kept.
 */
json_object *user_own_profile_data(struct uow *uow, const struct user *u, int64_t *max_message_id);

/* ---- events ------------------------------------------------------------------------------------------------- */

/* The ids of the organization's active users (bots included), ascending, in the arena; NULL on error. */
int64_t *user_active_ids(struct uow *uow, int64_t realm_id, int *n);
/*
 * Records the events of an account just created (the reference's notify_created_user and the system group
 * events of do_create_user): realm_user add to every active user, with the User object as the first of those
 * who may (or may not) see the real address sees it; in an organization limiting guests' access, guests get the
 * placeholder person instead. Then user_group add_members for each system group the account joined. 0 or -1.
 */
int user_events_created(struct uow *uow, int64_t user_id);

#endif
