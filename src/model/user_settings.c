/*
 * Personal user settings: the table USER_SETTINGS of user_settings.h turned into validation, SQL, register state
 * and events. Column names in SQL come only from that table.
 * Reference: Zulip zerver/views/user_settings.py (json_change_settings, check_settings_values),
 * zerver/models/users.py (UserBaseSettings), zerver/actions/user_settings.py (do_change_user_setting,
 * do_change_full_name, send_delivery_email_update_events), zerver/lib/events.py (user_settings in register).
 */
#include "model/user_settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/uow.h"
#include "core/utf8.h"
#include "db/db.h"
#include "events/events.h"
#include "model/realm.h"
#include "model/presence.h"
#include "model/user.h"

struct setting {
	const char *name;
	enum user_setting_kind kind;
	const char *def;    /* JSON text */
	const char *values; /* US_INT_IN, US_STR_IN: space-separated; US_INT_RANGE: "min max" */
	unsigned legacy;
};

#define SETTING_ROW(n, k, d, v, l) {#n, k, d, v, l},
static const struct setting settings[] = {USER_SETTINGS(SETTING_ROW)};
#define NSETTINGS ((int)(sizeof(settings) / sizeof(settings[0])))

/* One UPDATE per setting, in table order. */
#define SETTING_UPDATE(n, k, d, v, l) DB_STMT("UPDATE users SET " #n " = $2 WHERE id = $1"),
static struct db_stmt st_update[] = {USER_SETTINGS(SETTING_UPDATE)};

/* Every setting of one user, in table order from column 0. */
#define SETTING_COLUMN(n, k, d, v, l) "u." #n ", "
static struct db_stmt st_read = DB_STMT("SELECT " USER_SETTINGS(SETTING_COLUMN) "u.id FROM users u WHERE u.id = $1");
static struct db_stmt st_read_for_update =
    DB_STMT("SELECT " USER_SETTINGS(SETTING_COLUMN) "u.id FROM users u WHERE u.id = $1 FOR UPDATE");

/* The reference's translations (locale/language_name_map.json): code and the language's own name. */
static const struct {
	const char *code, *name;
} languages[] = {
    {"ar", "العربيّة"},
    {"be", "Беларуская"},
    {"bg", "Български"},
    {"bn", "বাংলা"},
    {"ca", "Català"},
    {"cs", "Čeština"},
    {"cy", "Cymraeg"},
    {"da", "Dansk"},
    {"de", "Deutsch"},
    {"el", "Ελληνικά"},
    {"en", "English"},
    {"en-gb", "British English"},
    {"eo", "Esperanto"},
    {"es", "Español"},
    {"fa", "فارسی"},
    {"fi", "Suomi"},
    {"fr", "Français"},
    {"gl", "Galego"},
    {"gu", "ગુજરાતી"},
    {"hi", "हिंदी"},
    {"hu", "Magyar"},
    {"id", "Bahasa Indonesia"},
    {"it", "Italiano"},
    {"ja", "日本語"},
    {"ko", "한국어"},
    {"lt", "Lietuviškai"},
    {"ml", "മലയാളം"},
    {"mn", "Монгол"},
    {"nl", "Nederlands"},
    {"pl", "Polski"},
    {"pt", "Português"},
    {"pt-br", "Português Brasileiro"},
    {"pt-pt", "Português (Portugal)"},
    {"ro", "Română"},
    {"ru", "Русский"},
    {"si", "සිංහල"},
    {"sr", "Српски"},
    {"sv", "Svenska"},
    {"ta", "தமிழ்"},
    {"te", "తెలుగు"},
    {"tl", "Tagalog"},
    {"tr", "Türkçe"},
    {"uk", "Українська"},
    {"uz", "Oʻzbekcha"},
    {"vi", "Tiếng Việt"},
    {"zh-hans", "简体中文"},
    {"zh-hant", "繁體中文"},
};

/* The reference's static/audio/notification_sounds (the .ogg files), sorted as it lists them. */
static const char *const sounds[] = {
    "ascend",      "beep_boop", "bink",       "bright",    "brlip",        "chime",
    "deep tom",    "ding",      "double tap", "down",      "dry bongos",   "dutdut",
    "fast ascend", "flute",     "friendly",   "kick roll", "loud tintong", "metallic snare",
    "pan",         "shaker",    "simple",     "stairs",    "subtle",       "swish",
    "tintong",     "up",        "wood block", "zaping",    "zing",         "zulip",
};

/* UserProfile.emojiset_choices(), in the reference's order. */
static const struct {
	const char *key, *text;
} emojisets[] = {{"google", "Google"}, {"twitter", "Twitter"}, {"text", "Plain text"}, {"google-blob", "Google blobs"}};

#define TZDIR "/usr/share/zoneinfo/"

int user_settings_count(void)
{
	return NSETTINGS;
}

const char *user_settings_name(int index)
{
	return settings[index].name;
}

enum user_setting_kind user_settings_kind(int index)
{
	return settings[index].kind;
}

/* Whether word is one of the space-separated words of list. */
static bool in_words(const char *list, const char *word)
{
	size_t len = strlen(word);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, " ");
		if (n == len && len > 0 && strncmp(p, word, n) == 0)
			return true;
		p += n + (p[n] == ' ');
	}
	return false;
}

static const char *language_name(const char *code)
{
	for (size_t i = 0; i < sizeof(languages) / sizeof(languages[0]); i++)
		if (strcmp(languages[i].code, code) == 0)
			return languages[i].name;
	return NULL;
}

static bool is_sound(const char *s)
{
	for (size_t i = 0; i < sizeof(sounds) / sizeof(sounds[0]); i++)
		if (strcmp(sounds[i], s) == 0)
			return true;
	return strcmp(s, "none") == 0;
}

/*
 * The reference's canonicalize_timezone: the target of a Link line ("L Asia/Kolkata Asia/Calcutta") of the
 * database's tzdata.zi whose alias is name, else name itself (an arena string either way).
 */
static const char *canonical_timezone(struct uow *uow, const char *name)
{
	FILE *f = fopen(TZDIR "tzdata.zi", "r");
	char line[256], target[128], alias[128];
	const char *out = name;
	while (f != NULL && out == name && fgets(line, sizeof(line), f) != NULL)
		if (line[0] == 'L' && line[1] == ' ' && sscanf(line + 2, "%127s %127s", target, alias) == 2 &&
		    strcmp(alias, name) == 0)
			out = arena_strdup(&uow->arena, target);
	if (f != NULL)
		fclose(f);
	return out;
}

/*
 * The reference asks Python's zoneinfo: a relative name without "." or ".." components naming a TZif file of the
 * time zone database. The characters allowed are those of the database's names.
 */
static bool is_timezone(const char *name)
{
	size_t len = strlen(name);
	if (len == 0 || len > 64 || name[0] == '/' || name[len - 1] == '/' || strstr(name, "//") != NULL ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-.") != len)
		return false;
	for (const char *p = name; *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : p + strlen(p))
		if (p[0] == '.' && (p[1] == '/' || p[1] == '\0' || (p[1] == '.' && (p[2] == '/' || p[2] == '\0'))))
			return false;
	char path[sizeof(TZDIR) + 64], magic[4];
	snprintf(path, sizeof(path), TZDIR "%s", name);
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return false;
	bool ok = fread(magic, 1, 4, f) == 4 && memcmp(magic, "TZif", 4) == 0;
	fclose(f);
	return ok;
}

int user_settings_check(struct uow *uow, const struct user_setting_value *v)
{
	const struct setting *s = &settings[v->index];
	char num[24];
	switch (s->kind) {
	case US_INT_IN:
		snprintf(num, sizeof(num), "%lld", (long long)v->i);
		if (!in_words(s->values, num))
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "Invalid %s: Value error, Not in the list of possible values", s->name);
		return 0;
	case US_STR_IN:
		if (!in_words(s->values, v->s))
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "Invalid %s: Value error, Not in the list of possible values", s->name);
		return 0;
	case US_INT_RANGE: {
		long long lo = 0, hi = 0;
		sscanf(s->values, "%lld %lld", &lo, &hi);
		if (v->i < lo)
			return uow_error(uow, ERR_BAD_REQUEST, "%s is too small", s->name);
		if (v->i > hi)
			return uow_error(uow, ERR_BAD_REQUEST, "%s is too large", s->name);
		return 0;
	}
	case US_TIMEZONE:
		if (!is_timezone(canonical_timezone(uow, v->s)))
			return uow_error(uow, ERR_BAD_REQUEST, "Invalid %s: Value error, Not a recognized time zone",
			                 s->name);
		return 0;
	default: return 0;
	}
}

/* The value of kind k in vals, or NULL. */
static const struct user_setting_value *find_kind(const struct user_setting_value *vals, int n,
                                                  enum user_setting_kind k)
{
	for (int i = 0; i < n; i++)
		if (settings[vals[i].index].kind == k)
			return &vals[i];
	return NULL;
}

int user_settings_check_values(struct uow *uow, const struct user_setting_value *vals, int n)
{
	const struct user_setting_value *v;
	if ((v = find_kind(vals, n, US_LANGUAGE)) != NULL && language_name(v->s) == NULL)
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid default_language");
	if ((v = find_kind(vals, n, US_SOUND)) != NULL && !is_sound(v->s))
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid notification sound '%s'", v->s);
	if ((v = find_kind(vals, n, US_BATCHING)) != NULL && (v->i <= 0 || v->i > 7 * 24 * 60 * 60))
		return uow_error(uow, ERR_BAD_REQUEST, "Invalid email batching period: %lld seconds", (long long)v->i);
	return 0;
}

/* ---- values as JSON ----------------------------------------------------------------------------------------- */

static bool is_int_kind(enum user_setting_kind k)
{
	return k == US_INT_IN || k == US_INT_RANGE || k == US_BATCHING;
}

static json_object *value_json(const struct setting *s, const struct user_setting_value *v)
{
	if (s->kind == US_BOOL)
		return json_object_new_boolean(v->b);
	if (is_int_kind(s->kind))
		return json_object_new_int64(v->i);
	return json_object_new_string(v->s);
}

/* The stored value of setting i in row 0 of res (columns in table order). */
static struct user_setting_value stored(const struct db_res *res, int i)
{
	struct user_setting_value v = {.index = i};
	if (settings[i].kind == US_BOOL)
		v.b = db_bool(res, 0, i);
	else if (is_int_kind(settings[i].kind))
		v.i = db_int(res, 0, i);
	else
		v.s = db_val(res, 0, i);
	return v;
}

static bool same_value(const struct user_setting_value *a, const struct user_setting_value *b)
{
	enum user_setting_kind k = settings[a->index].kind;
	if (k == US_BOOL)
		return a->b == b->b;
	if (is_int_kind(k))
		return a->i == b->i;
	return strcmp(a->s, b->s) == 0;
}

static const char *value_arg(struct uow *uow, const struct user_setting_value *v)
{
	enum user_setting_kind k = settings[v->index].kind;
	if (k == US_BOOL)
		return v->b ? "true" : "false";
	if (is_int_kind(k))
		return db_arg_int(uow, v->i);
	return v->s;
}

/* ---- events ------------------------------------------------------------------------------------------------- */

static struct db_stmt st_audience =
    DB_STMT("SELECT id, role FROM users WHERE realm_id = $1 AND is_active AND NOT is_system_bot ORDER BY id");

/*
 * The users who can access the acting user (the reference's get_user_ids_who_can_access_user): every active user,
 * less the guests when the organization limits what guests see (confab does not yet give those guests the users
 * they share a channel with). Each with its id and role, in the arena; NULL on error.
 */
static struct user *audience(struct uow *uow, int *n)
{
	struct db_res *res = DB_EXEC(uow, &st_audience, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	struct user *out = arena_alloc(&uow->arena, (size_t)(db_rows(res) + 1) * sizeof(*out));
	*n = 0;
	for (int i = 0; i < db_rows(res); i++) {
		struct user u = {.id = db_int(res, i, 0), .role = (int)db_int(res, i, 1)};
		if (uow->realm->everyone_can_access_all_users || !user_is_guest(&u) || u.id == uow->user->id)
			out[(*n)++] = u;
	}
	return out;
}

static int64_t *ids_of(struct uow *uow, const struct user *users, int n)
{
	int64_t *ids = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*ids));
	for (int i = 0; i < n; i++)
		ids[i] = users[i].id;
	return ids;
}

/* The acting user's API e-mail address under visibility vis (the placeholder unless everyone may see it). */
static const char *api_email(struct uow *uow, int vis)
{
	const struct user *me = uow->user;
	if (vis == 1 || me->is_bot)
		return me->delivery_email;
	return arena_printf(&uow->arena, "user%lld@%s", (long long)me->id, realm_fake_email_domain(uow, uow->realm));
}

/* A realm_user update with person (whose user_id is added first) for ids (nothing when n is 0). */
static int person_event(struct uow *uow, json_object *person, const int64_t *ids, int n)
{
	json_object *e = events_new(uow, "realm_user", "update"), *p = json_object_new_object();
	json_object_object_add(p, "user_id", json_object_new_int64(uow->user->id));
	json_object_object_foreach (person, key, val)
		json_object_object_add(p, key, json_object_get(val));
	json_object_put(person);
	json_object_object_add(e, "person", p);
	return n > 0 ? events_add(uow, e, ids, n, 0) : 0;
}

/* The reference's notify_avatar_url_change: the Gravatar URL follows the address (a new one is visible). */
static int avatar_event(struct uow *uow, const int64_t *ids, int n)
{
	const struct user *me = uow->user;
	json_object *p = json_object_new_object();
	bool g = me->avatar_source == 'G';
	const char *base =
	    g ? arena_printf(&uow->arena, "https://secure.gravatar.com/avatar/%s?d=identicon&version=%d", me->email_md5,
	                     me->avatar_version)
	      : arena_printf(&uow->arena, "/user_avatars/%lld/%lld", (long long)me->realm_id, (long long)me->id);
	json_object_object_add(p, "avatar_source", json_object_new_string_len(&me->avatar_source, 1));
	json_object_object_add(
	    p, "avatar_url",
	    json_object_new_string(g ? base
	                             : arena_printf(&uow->arena, "%s.png?version=%d", base, me->avatar_version)));
	json_object_object_add(p, "avatar_url_medium",
	                       json_object_new_string(g ? arena_printf(&uow->arena, "%s&s=500", base)
	                                                : arena_printf(&uow->arena, "%s-medium.png?version=%d", base,
	                                                               me->avatar_version)));
	json_object_object_add(p, "avatar_version", json_object_new_int(me->avatar_version));
	return person_event(uow, p, ids, n);
}

/*
 * The reference's send_delivery_email_update_events and, when the address becomes or stops being public, the
 * new_email and avatar events: what others see of the acting user's address after email_address_visibility
 * went from old to new.
 */
static int visibility_events(struct uow *uow, int old, int new)
{
	int n;
	struct user *viewers = audience(uow, &n);
	if (viewers == NULL)
		return -1;
	struct user before = *uow->user, after = *uow->user;
	before.email_address_visibility = old;
	after.email_address_visibility = new;
	int64_t *shown = arena_alloc(&uow->arena, (size_t)(2 * n + 2) * sizeof(*shown)), *hidden = shown + n + 1;
	int nshown = 0, nhidden = 0;
	for (int i = 0; i < n; i++) {
		bool was = user_can_see_email(&viewers[i], &before), is = user_can_see_email(&viewers[i], &after);
		if (is && !was)
			shown[nshown++] = viewers[i].id;
		else if (was && !is)
			hidden[nhidden++] = viewers[i].id;
	}
	json_object *p = json_object_new_object();
	json_object_object_add(p, "delivery_email", json_object_new_string(uow->user->delivery_email));
	if (person_event(uow, p, shown, nshown) < 0)
		return -1;
	p = json_object_new_object();
	json_object_object_add(p, "delivery_email", NULL);
	if (person_event(uow, p, hidden, nhidden) < 0)
		return -1;
	if (old != 1 && new != 1)
		return 0;
	int64_t *all = ids_of(uow, viewers, n);
	p = json_object_new_object();
	json_object_object_add(p, "new_email", json_object_new_string(api_email(uow, new)));
	return person_event(uow, p, all, n) < 0 ? -1 : avatar_event(uow, all, n);
}

static int timezone_event(struct uow *uow, const char *tz, int vis)
{
	int n;
	struct user *viewers = audience(uow, &n);
	if (viewers == NULL)
		return -1;
	json_object *p = json_object_new_object();
	json_object_object_add(p, "email", json_object_new_string(api_email(uow, vis)));
	json_object_object_add(p, "timezone", json_object_new_string(tz));
	return person_event(uow, p, ids_of(uow, viewers, n), n);
}

/* A legacy update_global_notifications / update_display_settings event: {user, <key>: the name, setting}. */
static json_object *legacy_event(struct uow *uow, const char *type, const char *key, const struct user_setting_value *v,
                                 int vis)
{
	const struct setting *s = &settings[v->index];
	json_object *e = events_new(uow, type, NULL);
	json_object_object_add(e, "user", json_object_new_string(api_email(uow, vis)));
	json_object_object_add(e, key, json_object_new_string(s->name));
	json_object_object_add(e, "setting", value_json(s, v));
	return e;
}

/* user_settings update, then the legacy event of the setting's kind; all to the user's own queues. */
static int own_events(struct uow *uow, const struct user_setting_value *v, int vis)
{
	const struct setting *s = &settings[v->index];
	int64_t me = uow->user->id;
	json_object *e = events_new(uow, "user_settings", "update");
	json_object_object_add(e, "property", json_object_new_string(s->name));
	json_object_object_add(e, "value", value_json(s, v));
	if (s->kind == US_LANGUAGE)
		json_object_object_add(e, "language_name", json_object_new_string(language_name(v->s)));
	events_add(uow, e, &me, 1, 0);
	if (s->legacy & US_LEGACY_NOTIFICATION)
		events_add(uow, legacy_event(uow, "update_global_notifications", "notification_name", v, vis), &me, 1,
		           0);
	if (s->legacy & US_LEGACY_DISPLAY) {
		e = legacy_event(uow, "update_display_settings", "setting_name", v, vis);
		if (s->kind == US_LANGUAGE)
			json_object_object_add(e, "language_name", json_object_new_string(language_name(v->s)));
		events_add(uow, e, &me, 1, 0);
	}
	return 0;
}

/* ---- changes ------------------------------------------------------------------------------------------------ */

static int setting_index(const char *name)
{
	for (int i = 0; i < NSETTINGS; i++)
		if (strcmp(settings[i].name, name) == 0)
			return i;
	return -1;
}

/* Writes one changed value and sends its events; *vis follows email_address_visibility. A time zone is stored
 * under its canonical name (it was compared as sent, as the reference does). */
static int change_one(struct uow *uow, const struct user_setting_value *sent, const struct user_setting_value *old,
                      int *vis)
{
	struct user_setting_value canonical = *sent;
	const struct user_setting_value *v = &canonical;
	const struct setting *s = &settings[v->index];
	if (s->kind == US_TIMEZONE)
		canonical.s = canonical_timezone(uow, sent->s);
	if (DB_EXEC(uow, &st_update[v->index], db_arg_int(uow, uow->user->id), value_arg(uow, v)) == NULL)
		return -1;
	bool visibility = strcmp(s->name, "email_address_visibility") == 0;
	if (visibility)
		*vis = (int)v->i;
	if (own_events(uow, v, *vis) < 0)
		return -1;
	if (s->kind == US_TIMEZONE)
		return timezone_event(uow, v->s, *vis);
	/* The reference's do_change_user_setting: the change shows in everyone's presence data at once. */
	if (strcmp(s->name, "presence_enabled") == 0)
		return presence_setting_changed(uow, uow->user, v->b);
	return visibility ? visibility_events(uow, (int)old->i, (int)v->i) : 0;
}

int user_settings_apply(struct uow *uow, const struct user_setting_value *vals, int n)
{
	struct db_res *cur = DB_EXEC(uow, &st_read_for_update, db_arg_int(uow, uow->user->id));
	if (cur == NULL)
		return -1;
	int vis = (int)stored(cur, setting_index("email_address_visibility")).i;
	/* The reference changes timezone after the others. */
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < n; k++) {
			if ((settings[vals[k].index].kind == US_TIMEZONE) != (pass == 1))
				continue;
			struct user_setting_value old = stored(cur, vals[k].index);
			if (!same_value(&old, &vals[k]) && change_one(uow, &vals[k], &old, &vis) < 0)
				return -1;
		}
	return 0;
}

static struct db_stmt st_name_changes_disabled = DB_STMT("SELECT name_changes_disabled FROM realms WHERE id = $1");
static struct db_stmt st_set_full_name = DB_STMT("UPDATE users SET full_name = $2 WHERE id = $1");

/* Python's str.strip(): the ASCII white space and the separators it counts. */
static char *strip(struct uow *uow, const char *s)
{
	static const char ws[] = " \t\n\v\f\r\x1c\x1d\x1e\x1f";
	s += strspn(s, ws);
	size_t len = strlen(s);
	while (len > 0 && strchr(ws, s[len - 1]) != NULL)
		len--;
	char *out = arena_alloc(&uow->arena, len + 1);
	memcpy(out, s, len);
	out[len] = '\0';
	return out;
}

int user_settings_change_full_name(struct uow *uow, const char *full_name)
{
	const struct user *me = uow->user;
	if (strcmp(me->full_name, full_name) == 0)
		return 0;
	struct db_res *res = DB_EXEC(uow, &st_name_changes_disabled, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	/* The reference fails silently: the web app offers no way to try. */
	if (db_bool(res, 0, 0) && !user_is_admin(me))
		return 0;
	const char *name = strip(uow, full_name);
	if (user_check_full_name(uow, name) < 0)
		return -1;
	if (DB_EXEC(uow, &st_set_full_name, db_arg_int(uow, me->id), name) == NULL)
		return -1;
	int n;
	struct user *viewers = audience(uow, &n);
	if (viewers == NULL)
		return -1;
	json_object *p = json_object_new_object();
	json_object_object_add(p, "full_name", json_object_new_string(name));
	return person_event(uow, p, ids_of(uow, viewers, n), n);
}

static struct db_stmt st_stream_defaults =
    DB_STMT("SELECT enable_stream_desktop_notifications, enable_stream_audible_notifications,"
            " enable_stream_push_notifications, enable_stream_email_notifications FROM users WHERE id = $1");

json_object *user_settings_stream_defaults(struct uow *uow)
{
	static const char *const keys[] = {"desktop_notifications", "audible_notifications", "push_notifications",
	                                   "email_notifications"};
	struct db_res *res = DB_EXEC(uow, &st_stream_defaults, db_arg_int(uow, uow->user->id));
	if (res == NULL)
		return NULL;
	json_object *out = uow_own_json(uow, json_object_new_object());
	for (int i = 0; i < 4; i++)
		json_object_object_add(out, keys[i], json_object_new_boolean(db_rows(res) > 0 && db_bool(res, 0, i)));
	return out;
}

/* ---- register ----------------------------------------------------------------------------------------------- */

static json_object *emojiset_choices(void)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < sizeof(emojisets) / sizeof(emojisets[0]); i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "key", json_object_new_string(emojisets[i].key));
		json_object_object_add(o, "text", json_object_new_string(emojisets[i].text));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *notification_sounds(void)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < sizeof(sounds) / sizeof(sounds[0]); i++)
		json_object_array_add(a, json_object_new_string(sounds[i]));
	return a;
}

int user_settings_state(struct uow *uow, bool user_settings, bool display_legacy, bool notification_legacy,
                        json_object *out)
{
	if (!user_settings && !display_legacy && !notification_legacy)
		return 0;
	struct db_res *res = NULL;
	if (uow->user != NULL && (res = DB_EXEC(uow, &st_read, db_arg_int(uow, uow->user->id))) == NULL)
		return -1;
	json_object *obj = user_settings ? json_object_new_object() : NULL;
	for (int i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		struct user_setting_value v = res ? stored(res, i) : (struct user_setting_value){.index = i};
		json_object *val = res ? value_json(s, &v) : json_tokener_parse(s->def);
		if ((display_legacy && (s->legacy & US_LEGACY_DISPLAY)) ||
		    (notification_legacy && (s->legacy & US_LEGACY_NOTIFICATION)))
			json_object_object_add(out, s->name, json_object_get(val));
		if (obj != NULL)
			json_object_object_add(obj, s->name, json_object_get(val));
		json_object_put(val);
	}
	if (display_legacy)
		json_object_object_add(out, "emojiset_choices", emojiset_choices());
	if (notification_legacy)
		json_object_object_add(out, "available_notification_sounds", notification_sounds());
	if (obj != NULL) {
		json_object_object_add(obj, "emojiset_choices", emojiset_choices());
		json_object_object_add(obj, "available_notification_sounds", notification_sounds());
		json_object_object_add(out, "user_settings", obj);
	}
	return 0;
}
