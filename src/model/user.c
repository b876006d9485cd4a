/* Users: lookup, authentication, creation and the User object; see user.h. */
#include "model/user.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/crypto.h"
#include "core/jsonx.h"
#include "db/db.h"
#include "core/utf8.h"
#include "events/events.h"
#include "core/uow.h"
#include "model/cache.h"
#include "model/default_channels.h"
#include "model/groups.h"
#include "model/realm.h"

#define USER_FIELD(member, type, sql) DB_FIELD(struct user, member, type)
#define USER_FLAG(member, type)       DB_FIELD(struct user, member, type)
static const struct db_field user_fields[] = {USER_FIELDS(USER_FIELD, USER_FIELD, USER_FLAG)};

int user_read_row(const struct db_res *res, int row, int col, struct user *u)
{
	return db_read_row(res, row, col, user_fields, DB_NFIELDS(user_fields), u);
}

struct user *user_from_row(struct uow *uow, const struct db_res *res, int row, int col)
{
	struct user *u = arena_alloc(&uow->arena, sizeof(*u));
	user_read_row(res, row, col, u);
	return u;
}

static struct db_stmt st_by_id = DB_STMT("SELECT " USER_COLUMNS " FROM users u WHERE u.realm_id = $1 AND u.id = $2");
static struct db_stmt st_by_email =
    DB_STMT("SELECT " USER_COLUMNS " FROM users u WHERE u.realm_id = $1 AND lower(u.delivery_email) = lower($2)");

struct user *user_by_id(struct uow *uow, int64_t realm_id, int64_t id)
{
	struct db_res *res = DB_EXEC(uow, &st_by_id, db_arg_int(uow, realm_id), db_arg_int(uow, id));
	return res && db_rows(res) ? user_from_row(uow, res, 0, 0) : NULL;
}

struct user *user_by_email(struct uow *uow, int64_t realm_id, const char *email)
{
	struct db_res *res = DB_EXEC(uow, &st_by_email, db_arg_int(uow, realm_id), email);
	return res && db_rows(res) ? user_from_row(uow, res, 0, 0) : NULL;
}

/* u, or NULL with "No such user" recorded when the lookup found none (a failure recorded first wins). */
static struct user *or_no_such_user(struct uow *uow, struct user *u)
{
	if (u == NULL)
		uow_error(uow, ERR_BAD_REQUEST, "No such user");
	return u;
}

struct user *user_by_id_or_error(struct uow *uow, int64_t realm_id, int64_t id)
{
	return or_no_such_user(uow, user_by_id(uow, realm_id, id));
}

struct user *user_by_email_or_error(struct uow *uow, int64_t realm_id, const char *email)
{
	return or_no_such_user(uow, user_by_email(uow, realm_id, email));
}

static bool has_api_key_format(const char *key)
{
	size_t n = 0;
	for (; key[n]; n++)
		if (!isalnum((unsigned char)key[n]))
			return false;
	return n == API_KEY_LEN;
}

static struct db_stmt st_by_key =
    DB_STMT("SELECT " USER_COLUMNS ", " REALM_COLUMNS "  FROM api_keys k JOIN users u ON u.id = k.user_id"
            "  JOIN realms r ON r.id = u.realm_id WHERE k.key_hash = $1");

/*
 * The user and organization of an API key hash: from the process's cache (model/cache.h), else from the database,
 * then kept. 0, 1 for no such key, -1 on failure (recorded).
 */
static int key_owner(struct uow *uow, const char *hash, struct user **user, struct realm **realm)
{
	struct cache *cache = uow->worker->cache;
	if (cache_auth_get(cache, uow, hash, user, realm))
		return 0;
	uint64_t ticket = cache_ticket(cache);
	struct db_res *res = DB_EXEC(uow, &st_by_key, hash);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return 1;
	*user = arena_alloc(&uow->arena, sizeof(**user));
	*realm = realm_from_row(uow, res, 0, user_read_row(res, 0, 0, *user));
	cache_auth_put(cache, ticket, hash, *user, *realm);
	return 0;
}

/* A refused credential: its 401 message, for the caller to record (or replace by a rate limit). */
static int refuse(const char **refusal, const char *msg)
{
	*refusal = msg;
	return 1;
}

int user_authenticate_key(struct uow *uow, const char *subdomain, const char *email, const char *key,
                          const char **refusal)
{
	key = arena_strip(&uow->arena, key);
	email = arena_strip(&uow->arena, email);
	if (!has_api_key_format(key))
		return refuse(refusal, "Malformed API key");
	char hash[65];
	crypto_key_hash(key, hash);
	struct user *u;
	struct realm *realm;
	int rc = key_owner(uow, hash, &u, &realm);
	if (rc != 0)
		return rc < 0 ? -1 : refuse(refusal, "Invalid API key");
	if (strcasecmp(u->delivery_email, email) != 0)
		return refuse(refusal, "Invalid API key");
	if (realm->deactivated)
		return refuse(refusal, "This organization has been deactivated");
	if (!u->is_active)
		return refuse(refusal, "Account is deactivated");
	if (strcmp(realm->subdomain, subdomain) != 0)
		return refuse(refusal, "Account is not associated with this subdomain");
	if (u->bot_type == BOT_INCOMING_WEBHOOK)
		return refuse(refusal, "This API is not available to incoming webhook bots.");
	uow->user = u;
	uow->realm = realm;
	return 0;
}

static struct db_stmt st_password = DB_STMT("SELECT password_hash FROM users WHERE id = $1");

/*
 * The hash of a random password, checked for an unknown account so that its failure costs what a known one's
 * does: the time of a failed login tells nothing about whether the account exists. Made once per process.
 */
static pthread_once_t dummy_hash_once = PTHREAD_ONCE_INIT;
static char *dummy_hash;

static void make_dummy_hash(void)
{
	char password[API_KEY_LEN + 1];
	crypto_new_api_key(password);
	dummy_hash = crypto_password_hash(password);
}

/* Checks password against stored; a NULL stored (no password login) is checked against the dummy, and fails. */
static bool password_matches(const char *stored, const char *password)
{
	if (stored != NULL)
		return crypto_password_verify(stored, password);
	pthread_once(&dummy_hash_once, make_dummy_hash);
	if (dummy_hash != NULL)
		crypto_password_verify(dummy_hash, password);
	return false;
}

/* A password check takes ~90 ms of CPU: outside a transaction the connection goes back to the pool meanwhile. */
static void release_for_hashing(struct uow *uow)
{
	if (!uow->in_txn)
		db_release(uow);
}

struct user *user_authenticate_password(struct uow *uow, const struct realm *realm, const char *email,
                                        const char *password)
{
	/* The reference looks the account up first: a deactivated one fails whatever the password. */
	struct user *u = user_by_email(uow, realm->id, email);
	if (u == NULL) {
		if (uow->error != ERR_NONE)
			return NULL;
		release_for_hashing(uow);
		password_matches(NULL, password);
		uow_error(uow, ERR_AUTH_FAILED, NULL);
		return NULL;
	}
	if (!u->is_active) {
		uow_error(uow, ERR_USER_DEACTIVATED, NULL);
		return NULL;
	}
	if (realm->deactivated) {
		uow_error(uow, ERR_REALM_DEACTIVATED, NULL);
		return NULL;
	}
	struct db_res *res = DB_EXEC(uow, &st_password, db_arg_int(uow, u->id));
	if (res == NULL)
		return NULL;
	release_for_hashing(uow);
	if (!password_matches(db_null(res, 0, 0) ? NULL : db_val(res, 0, 0), password)) {
		uow_error(uow, ERR_AUTH_FAILED, NULL);
		return NULL;
	}
	return u;
}

/* Whether every character of name is valid UTF-8, allowed in a name (utf8_is_name_char) and not one of the
 * reference's NAME_INVALID_CHARS. */
static bool has_name_chars_only(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t left = strlen(name);
	while (left > 0) {
		uint32_t c;
		size_t n = utf8_decode(p, left, &c);
		if (n == 0 || !utf8_is_name_char(c) || (c < 0x80 && strchr("*`\\>\"@", (int)c) != NULL))
			return false;
		p += n;
		left -= n;
	}
	return true;
}

const char *user_full_name_problem(const char *name)
{
	size_t len = utf8_length(name);
	if (len > USER_NAME_MAX)
		return "Name too long!";
	if (len < USER_NAME_MIN)
		return "Name too short!";
	if (!has_name_chars_only(name))
		return "Invalid characters in name!";
	/* "Name|15" would be ambiguous in the mention syntax @**Name|15**. */
	const char *bar = strrchr(name, '|');
	if (bar != NULL && bar[1] != '\0' && strspn(bar + 1, "0123456789") == strlen(bar + 1))
		return "Invalid format!";
	return NULL;
}

int user_check_full_name(struct uow *uow, const char *name)
{
	const char *problem = user_full_name_problem(name);
	return problem == NULL ? 0 : uow_error(uow, ERR_BAD_REQUEST, "%s", problem);
}

static struct db_stmt st_name_in_use =
    DB_STMT("SELECT EXISTS (SELECT 1 FROM users WHERE realm_id = $1 AND upper(full_name) = upper($2) AND is_active)");

int user_check_bot_name_available(struct uow *uow, int64_t realm_id, const char *name)
{
	struct db_res *res = DB_EXEC(uow, &st_name_in_use, db_arg_int(uow, realm_id), name);
	if (res == NULL)
		return -1;
	return db_bool(res, 0, 0) ? uow_error(uow, ERR_BAD_REQUEST, "Name is already in use.") : 0;
}

bool user_password_is_strong(const char *password)
{
	static const char *const common[] = {
	    "password", "passw0rd",   "password1", "password123", "123456789", "12345678",  "1234567890",
	    "qwerty",   "qwertyuiop", "abc123",    "111111",      "123123",    "iloveyou",  "letmein",
	    "welcome",  "monkey",     "dragon",    "football",    "baseball",  "sunshine",  "princess",
	    "admin",    "login",      "starwars",  "trustno1",    "zaq12wsx",  "qwerty123", "1q2w3e4r",
	    "1qaz2wsx", "master",     "shadow",    "superman",    "michael",   "changeme",  "secret",
	};
	size_t len = utf8_length(password);
	if (len < 6)
		return false;
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		if (strcasecmp(password, common[i]) == 0)
			return false;
	static const char *const runs[] = {"abcdefghijklmnopqrstuvwxyz", "01234567890", "qwertyuiopasdfghjklzxcvbnm",
	                                   "9876543210", "zyxwvutsrqponmlkjihgfedcba"};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		if (strcasestr(runs[i], password) != NULL)
			return false;
	return strspn(password, (char[]){password[0], '\0'}) != strlen(password);
}

/* Django's dot-atom local part: atext runs separated by single dots; ASCII only. */
static bool is_dot_atom(const char *s, size_t n)
{
	static const char atext[] = "!#$%&'*+-/=?^_`{|}~";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool dot_ok = c == '.' && i > 0 && i + 1 < n && s[i + 1] != '.';
		if (!dot_ok && (c >= 0x80 || (!isalnum(c) && strchr(atext, c) == NULL)))
			return false;
	}
	return n > 0;
}

/* Django's domain: at least two labels of ASCII letters, digits and inner hyphens, the last one 2 or more long.
 * An internationalized domain is accepted in its ASCII (xn--) form only: none of its letters can pass for others. */
static bool is_ascii_domain(const char *domain)
{
	int labels = 0;
	size_t last = 0;
	for (const char *p = domain; *p;) {
		size_t n = strcspn(p, ".");
		if (n == 0 || n > 63 || p[0] == '-' || p[n - 1] == '-')
			return false;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] >= 0x80 || (!isalnum((unsigned char)p[i]) && p[i] != '-'))
				return false;
		labels++;
		last = n;
		p += n;
		if (*p == '.' && *++p == '\0')
			return false;
	}
	return labels >= 2 && last >= 2;
}

bool user_email_is_valid(const char *email)
{
	const char *at = strrchr(email, '@');
	if (at == NULL || at - email > 64 || strlen(email) > 254 || !is_dot_atom(email, (size_t)(at - email)))
		return false;
	return strcmp(at + 1, "localhost") == 0 || is_ascii_domain(at + 1);
}

static struct db_stmt st_insert = DB_STMT(
    "INSERT INTO users (realm_id, delivery_email, full_name, role, is_bot, bot_type, bot_owner_id, password_hash)"
    " SELECT $1, $2, $3, $4, $5::smallint IS NOT NULL, $5, $6, $7"
    "  WHERE NOT EXISTS (SELECT 1 FROM users WHERE realm_id = $1 AND lower(delivery_email) = lower($2))"
    " RETURNING id");

int64_t user_create(struct uow *uow, int64_t realm_id, const struct user_new *spec)
{
	char *hash = NULL;
	if (spec->password != NULL && (hash = crypto_password_hash(spec->password)) == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return 0;
	}
	arena_defer(&uow->arena, free, hash);
	struct db_res *res =
	    DB_EXEC(uow, &st_insert, db_arg_int(uow, realm_id), spec->email, spec->full_name,
	            db_arg_int(uow, spec->role), spec->bot_type ? db_arg_int(uow, spec->bot_type) : NULL,
	            spec->bot_owner_id ? db_arg_int(uow, spec->bot_owner_id) : NULL, hash);
	if (res == NULL)
		return 0;
	if (db_rows(res) == 0) {
		uow_error(uow, ERR_BAD_REQUEST, "Email '%s' already in use", spec->email);
		return 0;
	}
	int64_t id = db_int(res, 0, 0);
	/* Humans join the organization's default channels. */
	if (spec->bot_type == 0 && !spec->no_default_channels && default_channels_subscribe(uow, realm_id, id) < 0)
		return 0;
	return id;
}

static struct db_stmt st_add_key = DB_STMT("INSERT INTO api_keys (key_hash, user_id) VALUES ($1, $2)");
static struct db_stmt st_drop_keys = DB_STMT("DELETE FROM api_keys WHERE user_id = $1");

const char *user_issue_api_key(struct uow *uow, int64_t user_id)
{
	char key[API_KEY_LEN + 1], hash[65];
	crypto_new_api_key(key);
	crypto_key_hash(key, hash);
	if (DB_EXEC(uow, &st_add_key, hash, db_arg_int(uow, user_id)) == NULL)
		return NULL;
	return arena_strdup(&uow->arena, key);
}

const char *user_reset_api_key(struct uow *uow, int64_t user_id)
{
	if (DB_EXEC(uow, &st_drop_keys, db_arg_int(uow, user_id)) == NULL)
		return NULL;
	return user_issue_api_key(uow, user_id);
}

int64_t user_placeholder_email_id(struct uow *uow, const char *email)
{
	if (strncasecmp(email, "user", 4) != 0 || !isdigit((unsigned char)email[4]))
		return 0;
	char *end;
	long long id = strtoll(email + 4, &end, 10);
	if (*end != '@' || strcasecmp(end + 1, realm_fake_email_domain(uow, uow->realm)) != 0)
		return 0;
	return id;
}

bool user_can_see_email(const struct user *acting, const struct user *target)
{
	if (acting == NULL)
		return false;
	if (acting->id == target->id || target->email_address_visibility == 1)
		return true;
	switch (target->email_address_visibility) {
	case 2: return !user_is_guest(acting);
	case 3: return user_is_admin(acting);
	case 5: return user_is_moderator(acting);
	default: return false;
	}
}

json_object *user_to_json(struct uow *uow, const struct user *target, const struct user *acting, bool client_gravatar,
                          json_object *profile_data)
{
	bool email_visible = user_can_see_email(acting, target);
	json_object *o = json_object_new_object();
	const char *email = target->delivery_email;
	if (target->email_address_visibility != 1 && !target->is_bot)
		email = arena_printf(&uow->arena, "user%lld@%s", (long long)target->id,
		                     realm_fake_email_domain(uow, uow->realm));
	json_object_object_add(o, "email", json_object_new_string(email));
	json_object_object_add(o, "user_id", json_object_new_int64(target->id));
	json_object_object_add(o, "avatar_version", json_object_new_int(target->avatar_version));
	json_object_object_add(o, "is_admin", json_object_new_boolean(user_is_admin(target)));
	json_object_object_add(o, "is_owner", json_object_new_boolean(user_is_owner(target)));
	json_object_object_add(o, "is_guest", json_object_new_boolean(user_is_guest(target)));
	json_object_object_add(o, "role", json_object_new_int(target->role));
	json_object_object_add(o, "is_bot", json_object_new_boolean(target->is_bot));
	json_object_object_add(o, "full_name", json_object_new_string(target->full_name));
	json_object_object_add(o, "timezone", json_object_new_string(target->timezone));
	json_object_object_add(o, "is_active", json_object_new_boolean(target->is_active));
	json_object_object_add(o, "date_joined", json_object_new_string(target->date_joined));
	json_object_object_add(o, "delivery_email",
	                       email_visible ? json_object_new_string(target->delivery_email) : NULL);
	json_object_object_add(o, "is_imported_stub", json_object_new_boolean(target->is_imported_stub));
	if (target->is_deleted)
		json_object_object_add(o, "is_deleted", json_object_new_boolean(true));
	if (target->avatar_source == 'G' && client_gravatar && email_visible)
		json_object_object_add(o, "avatar_url", NULL);
	else if (target->avatar_source == 'G')
		json_object_object_add(o, "avatar_url",
		                       json_object_new_string(arena_printf(
		                           &uow->arena, "https://secure.gravatar.com/avatar/%s?d=identicon&version=%d",
		                           target->email_md5, target->avatar_version)));
	else
		json_object_object_add(
		    o, "avatar_url",
		    json_object_new_string(arena_printf(&uow->arena, "/user_avatars/%lld/%lld.png?version=%d",
		                                        (long long)target->realm_id, (long long)target->id,
		                                        target->avatar_version)));
	json_object_object_add(o, "bot_type", target->is_bot ? json_object_new_int(target->bot_type) : NULL);
	if (target->is_bot)
		json_object_object_add(o, "bot_owner_id",
		                       target->bot_owner_id ? json_object_new_int64(target->bot_owner_id) : NULL);
	else if (profile_data != NULL)
		json_object_object_add(o, "profile_data", json_object_get(profile_data));
	return o;
}

/* At least one row (NULL values when there are none); column 4 is the user's max_message_id when $2. */
static struct db_stmt st_profile_one =
    DB_STMT("SELECT v.user_id, v.field_id, v.value, v.rendered_value, CASE WHEN $2 THEN"
            "  (SELECT COALESCE(max(message_id), -1) FROM user_messages WHERE user_id = $1) END"
            " FROM (SELECT) one LEFT JOIN custom_profile_field_values v ON v.user_id = $1 ORDER BY v.field_id");
static struct db_stmt st_profile_all =
    DB_STMT("SELECT v.user_id, v.field_id, v.value, v.rendered_value FROM custom_profile_field_values v"
            "  JOIN users u ON u.id = v.user_id WHERE u.realm_id = $1 ORDER BY v.user_id, v.field_id");

/* Adds the values of res to by_user (keyed by user id) or, when by_user is NULL, to single. */
static void add_profile_rows(const struct db_res *res, json_object *by_user, json_object *single)
{
	for (int i = 0; i < db_rows(res); i++) {
		if (db_null(res, i, 1))
			continue;
		json_object *target = single;
		if (by_user != NULL && !json_object_object_get_ex(by_user, db_val(res, i, 0), &target)) {
			target = json_object_new_object();
			json_object_object_add(by_user, db_val(res, i, 0), target);
		}
		json_object *v = json_object_new_object();
		json_object_object_add(v, "value", json_object_new_string(db_val(res, i, 2)));
		if (!db_null(res, i, 3))
			json_object_object_add(v, "rendered_value", json_object_new_string(db_val(res, i, 3)));
		json_object_object_add(target, db_val(res, i, 1), v);
	}
}

json_object *user_profile_data(struct uow *uow, int64_t user_id, int64_t *max_message_id)
{
	struct db_res *res =
	    DB_EXEC(uow, &st_profile_one, db_arg_int(uow, user_id), max_message_id != NULL ? "true" : "false");
	if (res == NULL)
		return NULL;
	if (max_message_id != NULL)
		*max_message_id = db_int(res, 0, 4);
	json_object *out = uow_own_json(uow, json_object_new_object());
	add_profile_rows(res, NULL, out);
	return out;
}

static struct db_stmt st_max_message =
    DB_STMT("SELECT COALESCE(max(message_id), -1) FROM user_messages WHERE user_id = $1");

json_object *user_own_profile_data(struct uow *uow, const struct user *u, int64_t *max_message_id)
{
	struct cache *cache = uow->worker->cache;
	const char *text = cache_profile_get(cache, uow, u->id);
	if (text == NULL) {
		uint64_t ticket = cache_ticket(cache);
		json_object *profile = user_profile_data(uow, u->id, max_message_id);
		if (profile != NULL)
			cache_profile_put(cache, ticket, u->realm_id, u->id, jsonx_string(profile));
		return profile;
	}
	struct db_res *res = DB_EXEC(uow, &st_max_message, db_arg_int(uow, u->id));
	if (res == NULL)
		return NULL;
	*max_message_id = db_int(res, 0, 0);
	size_t len = strlen(text);
	return uow_own_json(uow, jsonx_raw(&text, &len, 1, NULL, NULL));
}

json_object *user_profile_data_all(struct uow *uow, int64_t realm_id)
{
	struct db_res *res = DB_EXEC(uow, &st_profile_all, db_arg_int(uow, realm_id));
	if (res == NULL)
		return NULL;
	json_object *out = uow_own_json(uow, json_object_new_object());
	add_profile_rows(res, out, NULL);
	return out;
}

/* ---- events ------------------------------------------------------------------------------------------------- */

static struct db_stmt st_active_ids = DB_STMT("SELECT id FROM users WHERE realm_id = $1 AND is_active ORDER BY id");

int64_t *user_active_ids(struct uow *uow, int64_t realm_id, int *n)
{
	struct db_res *res = DB_EXEC(uow, &st_active_ids, db_arg_int(uow, realm_id));
	return db_ids(uow, res, 0, n);
}

static struct db_stmt st_active_users =
    DB_STMT("SELECT " USER_COLUMNS " FROM users u WHERE u.realm_id = $1 AND u.is_active ORDER BY u.id");
/* The system groups a new account joined: its role's group first, then role:fullmembers. */
static struct db_stmt st_system_groups_of =
    DB_STMT("SELECT g.id FROM user_group_members m JOIN user_groups g ON g.id = m.group_id"
            " WHERE m.user_id = $1 AND g.is_system_group ORDER BY g.name = 'role:fullmembers', g.id");

/* The reference's get_data_for_inaccessible_user: what a guest who may not see the user learns of it. */
static json_object *inaccessible_person(struct uow *uow, int64_t id)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "email",
	                       json_object_new_string(arena_printf(&uow->arena, "user%lld@%s", (long long)id,
	                                                           realm_fake_email_domain(uow, uow->realm))));
	json_object_object_add(o, "user_id", json_object_new_int64(id));
	json_object_object_add(o, "avatar_version", json_object_new_int(1));
	json_object_object_add(o, "is_admin", json_object_new_boolean(false));
	json_object_object_add(o, "is_owner", json_object_new_boolean(false));
	json_object_object_add(o, "is_guest", json_object_new_boolean(false));
	json_object_object_add(o, "role", json_object_new_int(ROLE_MEMBER));
	json_object_object_add(o, "is_bot", json_object_new_boolean(false));
	json_object_object_add(o, "full_name", json_object_new_string("Unknown user"));
	json_object_object_add(o, "timezone", json_object_new_string(""));
	json_object_object_add(o, "is_active", json_object_new_boolean(true));
	json_object_object_add(o, "date_joined", json_object_new_string("1970-01-01T00:00:00+00:00"));
	json_object_object_add(o, "delivery_email", NULL);
	json_object_object_add(o, "avatar_url", json_object_new_string("/static/images/unknown-user-avatar.png"));
	json_object_object_add(o, "profile_data", json_object_new_object());
	return o;
}

/* One realm_user add event with person to users (n of them); nothing when n is 0. */
static int add_person_event(struct uow *uow, json_object *person, const int64_t *users, int n, bool inaccessible)
{
	json_object *event = uow_own_json(uow, json_object_new_object());
	json_object_object_add(event, "type", json_object_new_string("realm_user"));
	json_object_object_add(event, "op", json_object_new_string("add"));
	json_object_object_add(event, "person", person);
	/* For events.c: not for clients declaring user_list_incomplete (the reference's inaccessible_user). */
	if (inaccessible)
		json_object_object_add(event, "_inaccessible_user", json_object_new_boolean(true));
	return n > 0 ? events_add(uow, event, users, n, 0) : 0;
}

int user_events_created(struct uow *uow, int64_t user_id)
{
	struct user *target = user_by_id(uow, uow->realm->id, user_id);
	struct db_res *res = target ? DB_EXEC(uow, &st_active_users, db_arg_int(uow, uow->realm->id)) : NULL;
	if (res == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	int n = db_rows(res), nsee = 0, nhidden = 0, nnone = 0;
	int64_t *see = arena_alloc(&uow->arena, (size_t)(3 * n + 3) * sizeof(*see)), *hidden = see + n + 1,
	        *none = hidden + n + 1;
	const struct user *see_as = NULL, *hidden_as = NULL;
	for (int i = 0; i < n; i++) {
		struct user *u = user_from_row(uow, res, i, 0);
		if (!uow->realm->everyone_can_access_all_users && user_is_guest(u) && u->id != user_id)
			none[nnone++] = u->id;
		else if (user_can_see_email(u, target))
			see_as = see_as ? see_as : u, see[nsee++] = u->id;
		else
			hidden_as = hidden_as ? hidden_as : u, hidden[nhidden++] = u->id;
	}
	/* The person as the first recipient of each kind sees it: no Gravatar shortcut, empty custom fields. */
	json_object *empty = uow_own_json(uow, json_object_new_object());
	if ((see_as && add_person_event(uow, user_to_json(uow, target, see_as, false, empty), see, nsee, false) < 0) ||
	    (hidden_as &&
	     add_person_event(uow, user_to_json(uow, target, hidden_as, false, empty), hidden, nhidden, false) < 0) ||
	    (nnone && add_person_event(uow, inaccessible_person(uow, user_id), none, nnone, true) < 0))
		return -1;
	struct db_res *groups = DB_EXEC(uow, &st_system_groups_of, db_arg_int(uow, user_id));
	if (groups == NULL)
		return -1;
	json_object *ids = uow_own_json(uow, json_object_new_array());
	json_object_array_add(ids, json_object_new_int64(user_id));
	for (int i = 0; i < db_rows(groups); i++)
		if (group_events_members(uow, db_int(groups, i, 0), "add_members", ids, NULL) < 0)
			return -1;
	return 0;
}
