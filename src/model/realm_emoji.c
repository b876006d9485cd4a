/* Custom emoji: names, rows, image files and events; see realm_emoji.h. */
#include "model/realm_emoji.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "core/jsonx.h"
#include "core/uow.h"
#include "db/db.h"
#include "events/events.h"
#include "model/attachments.h"
#include "model/realm.h"
#include "model/user.h"

/* ---- names and types ---------------------------------------------------------------------------------------- */

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int realm_emoji_check_name(struct uow *uow, const char *name)
{
	if (*name == '\0')
		return uow_error(uow, ERR_BAD_REQUEST, "Emoji name is missing");
	for (const char *p = name; *p; p++)
		if (!is_name_char(*p))
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "Emoji names must contain only lowercase English letters, digits, spaces, "
			                 "dashes, and underscores.");
	char last = name[strlen(name) - 1];
	if (last == '-' || last == '_')
		return uow_error(uow, ERR_BAD_REQUEST, "Emoji names must end with either a letter or digit.");
	return 0;
}

/* The reference accepts the image types it can thumbnail that browsers show inline; Python's guess_extension
 * names their files. */
static const struct {
	const char *type, *ext;
} image_types[] = {
    {"image/avif", ".avif"}, {"image/gif", ".gif"},   {"image/jpeg", ".jpg"},
    {"image/png", ".png"},   {"image/webp", ".webp"},
};

/* The index in image_types of content_type's bare type, or -1. */
static int image_type(const char *content_type)
{
	if (content_type == NULL)
		return -1;
	size_t n = strcspn(content_type, ";");
	while (n > 0 && (content_type[n - 1] == ' ' || content_type[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < sizeof(image_types) / sizeof(image_types[0]); i++)
		if (strlen(image_types[i].type) == n && strncasecmp(content_type, image_types[i].type, n) == 0)
			return (int)i;
	return -1;
}

const char *realm_emoji_extension(const char *content_type)
{
	int i = image_type(content_type);
	return i < 0 ? NULL : image_types[i].ext;
}

/* ---- rows ----------------------------------------------------------------------------------------------------- */

#define EMOJI_URL "'" REALM_EMOJI_URL_PREFIX "' || e.realm_id || '/emoji/images/' || e.file_name"
#define EMOJI_JSON                                                                                                     \
	"json_build_object('id', e.id::text, 'name', e.name, 'source_url', " EMOJI_URL                                 \
	", 'deactivated', e.deactivated,"                                                                              \
	" 'author_id', e.author_id, 'still_url', NULL)"
#define EMOJI_COLUMNS "e.id, e.name, " EMOJI_URL ", COALESCE(e.author_id, 0), e.deactivated"

static struct db_stmt st_map = DB_STMT("SELECT COALESCE(json_object_agg(e.id::text, " EMOJI_JSON
                                       " ORDER BY e.id), '{}')::text FROM realm_emoji e WHERE e.realm_id = $1");

json_object *realm_emoji_map(struct uow *uow)
{
	struct db_res *res = DB_EXEC(uow, &st_map, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	json_object *map = NULL;
	const char *text = db_val(res, 0, 0);
	jsonx_parse(text, strlen(text), &map);
	return map;
}

static struct realm_emoji *from_row(struct uow *uow, struct db_res *res)
{
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	struct realm_emoji *e = arena_alloc(&uow->arena, sizeof(*e));
	e->id = db_int(res, 0, 0);
	e->name = db_val(res, 0, 1);
	e->source_url = db_val(res, 0, 2);
	e->author_id = db_int(res, 0, 3);
	e->deactivated = db_bool(res, 0, 4);
	return e;
}

static struct db_stmt st_active = DB_STMT("SELECT " EMOJI_COLUMNS " FROM realm_emoji e"
                                          " WHERE e.realm_id = $1 AND e.name = $2 AND NOT e.deactivated");

struct realm_emoji *realm_emoji_active(struct uow *uow, const char *name)
{
	return from_row(uow, DB_EXEC(uow, &st_active, db_arg_int(uow, uow->realm->id), name));
}

static struct db_stmt st_by_id =
    DB_STMT("SELECT " EMOJI_COLUMNS " FROM realm_emoji e WHERE e.realm_id = $1 AND e.id = $2");

struct realm_emoji *realm_emoji_by_code(struct uow *uow, const char *code)
{
	/* The reference looks the code up among the id texts: only a plain decimal id matches. */
	size_t n = strspn(code, "0123456789");
	if (n == 0 || n > 18 || code[n] != '\0' || code[0] == '0')
		return NULL;
	return from_row(uow, DB_EXEC(uow, &st_by_id, db_arg_int(uow, uow->realm->id), code));
}

/* ---- events --------------------------------------------------------------------------------------------------- */

/*
 * A change is recorded twice: the modern event (op "add" or "update_one") for clients that declared
 * individual_emoji_changes, and the legacy op "update" with every custom emoji for the others (events.c serves
 * each to its own clients).
 */
static int notify(struct uow *uow, json_object *modern)
{
	json_object *legacy = events_new(uow, "realm_emoji", "update");
	json_object *map = realm_emoji_map(uow);
	if (map == NULL)
		return -1;
	json_object_object_add(legacy, "realm_emoji", map);
	int n;
	int64_t *users = user_active_ids(uow, uow->realm->id, &n);
	if (users == NULL)
		return -1;
	events_add_some(uow, modern, users, n);
	return events_add_some(uow, legacy, users, n);
}

/* ---- changes -------------------------------------------------------------------------------------------------- */

static struct db_stmt st_insert =
    DB_STMT("INSERT INTO realm_emoji AS e (realm_id, author_id, name, file_name, content_type)"
            " SELECT $1, $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM realm_emoji o"
            "   WHERE o.realm_id = $1 AND o.name = $3 AND NOT o.deactivated)"
            " ON CONFLICT DO NOTHING RETURNING " EMOJI_JSON);

/* 8 random hex digits and the extension (the reference's salted hash of the id, truncated to 8). */
static char *new_file_name(struct uow *uow, const char *ext)
{
	unsigned char rnd[4];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return NULL;
	return arena_printf(&uow->arena, "%02x%02x%02x%02x%s", rnd[0], rnd[1], rnd[2], rnd[3], ext);
}

int realm_emoji_add(struct uow *uow, const char *name, const char *content_type, const char *data, size_t len)
{
	int type = image_type(content_type);
	const char *file = type < 0 ? NULL : new_file_name(uow, image_types[type].ext);
	if (file == NULL)
		return uow_error(uow, ERR_INTERNAL, NULL);
	/* The bare type is stored (and served): the client's parameters are not kept. */
	struct db_res *res = DB_EXEC(uow, &st_insert, db_arg_int(uow, uow->realm->id), db_arg_int(uow, uow->user->id),
	                             name, file, image_types[type].type);
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return uow_error(uow, ERR_BAD_REQUEST, "A custom emoji with this name already exists.");
	const char *path = arena_printf(&uow->arena, "emoji/%lld/%s", (long long)uow->realm->id, file);
	if (attachments_write(uow, path, data, len) < 0)
		return -1;
	json_object *event = events_new(uow, "realm_emoji", "add");
	json_object *emoji = NULL;
	jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &emoji);
	json_object_object_add(event, "emoji", emoji);
	return notify(uow, event);
}

static struct db_stmt st_deactivate =
    DB_STMT("UPDATE realm_emoji SET deactivated = true WHERE realm_id = $1 AND id = $2 AND NOT deactivated");

int realm_emoji_deactivate(struct uow *uow, const struct realm_emoji *e)
{
	if (DB_EXEC(uow, &st_deactivate, db_arg_int(uow, uow->realm->id), db_arg_int(uow, e->id)) == NULL)
		return -1;
	json_object *event = events_new(uow, "realm_emoji", "update_one");
	json_object_object_add(event, "emoji_id",
	                       json_object_new_string(arena_printf(&uow->arena, "%lld", (long long)e->id)));
	json_object *data = json_object_new_object();
	json_object_object_add(data, "deactivated", json_object_new_boolean(true));
	json_object_object_add(event, "data", data);
	return notify(uow, event);
}

/* ---- files ---------------------------------------------------------------------------------------------------- */

static struct db_stmt st_file =
    DB_STMT("SELECT e.content_type FROM realm_emoji e WHERE e.realm_id = $1 AND e.file_name = $2");

const char *realm_emoji_file(struct uow *uow, const char *path, const char **content_type)
{
	static const char middle[] = "/emoji/images/";
	size_t digits = strspn(path, "0123456789");
	if (digits == 0 || digits > 18 || *path == '0' || strncmp(path + digits, middle, sizeof(middle) - 1) != 0)
		return NULL;
	long long realm_id = strtoll(path, NULL, 10);
	const char *end = path + digits;
	const char *file = end + sizeof(middle) - 1;
	size_t hex = strspn(file, "0123456789abcdef");
	if (hex != 8 || file[8] != '.' || file[9] == '\0' ||
	    strspn(file + 9, "abcdefghijklmnopqrstuvwxyz") != strlen(file + 9))
		return NULL;
	struct db_res *res = DB_EXEC(uow, &st_file, db_arg_int(uow, realm_id), file);
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	*content_type = db_val(res, 0, 0);
	return arena_printf(&uow->arena, "emoji/%lld/%s", realm_id, file);
}
