/*
 * Custom emoji (the reference's RealmEmoji: zerver/models/realm_emoji.py, zerver/actions/realm_emoji.py,
 * zerver/lib/emoji.py): an organization's uploaded images, each named. Deleting one deactivates it; old messages,
 * reactions and statuses keep showing it. The image is served at /user_avatars/<realm id>/emoji/images/<file>.
 * Everything works within the calling unit of work (uow->realm, uow->user).
 */
#ifndef CONFAB_REALM_EMOJI_H
#define CONFAB_REALM_EMOJI_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uow;

#define REALM_EMOJI_MAX_FILE_SIZE_MIB 5 /* the reference's MAX_EMOJI_FILE_SIZE_MIB default */
#define REALM_EMOJI_URL_PREFIX        "/user_avatars/"

struct realm_emoji {
	int64_t id;
	const char *name;
	const char *source_url; /* /user_avatars/<realm id>/emoji/images/<file name> */
	int64_t author_id;      /* 0 when unknown */
	bool deactivated;
};

/*
 * The reference's check_valid_emoji_name for an uploaded name (already stripped, spaces made '_'): "Emoji name is
 * missing", "Emoji names must end with either a letter or digit.", "Emoji names must contain only lowercase English
 * letters, digits, spaces, dashes, and underscores.". 0, or -1 with the error recorded.
 */
int realm_emoji_check_name(struct uow *uow, const char *name);
/* The file extension the reference gives an accepted image type (".png", ".gif", ".jpg", ".webp", ".avif"), or
 * NULL for any other type ("Invalid image format"). content_type may carry parameters. */
const char *realm_emoji_extension(const char *content_type);

/* Every custom emoji of the organization, deactivated ones too, as the reference's get_emoji(): an object keyed by
 * id text, in id order, of {id, name, source_url, deactivated, author_id, still_url}. A new object, or NULL with
 * the error recorded. */
json_object *realm_emoji_map(struct uow *uow);
/* The active custom emoji called name, or NULL (check uow->error for a database failure). */
struct realm_emoji *realm_emoji_active(struct uow *uow, const char *name);
/* The custom emoji whose id text is code, active or not, or NULL (none, or code is no id; see uow->error). */
struct realm_emoji *realm_emoji_by_code(struct uow *uow, const char *code);

/*
 * Adds a custom emoji by the requesting user: the row, then the image (len bytes of data, of an accepted
 * content_type) under upload_dir, then the realm_emoji events to every active user. "A custom emoji with this name
 * already exists." if an active one has the name. 0, or -1 with the error recorded.
 */
int realm_emoji_add(struct uow *uow, const char *name, const char *content_type, const char *data, size_t len);
/* Deactivates the active emoji e, with its realm_emoji events. 0 or -1. */
int realm_emoji_deactivate(struct uow *uow, const struct realm_emoji *e);

/*
 * The image of /user_avatars/<realm id>/emoji/images/<file> (path is what follows /user_avatars/): its path_id
 * under upload_dir (an arena string), with its stored *content_type; NULL if path names no custom emoji's image
 * (check uow->error for a database failure).
 */
const char *realm_emoji_file(struct uow *uow, const char *path, const char **content_type);

#endif
