/*
 * Custom emoji: the list, uploading one, deactivating one, and serving the images. Reference:
 * zerver/views/realm_emoji.py, zerver/lib/emoji.py (check_valid_emoji_name, check_remove_custom_emoji),
 * zerver/actions/realm_emoji.py.
 */
#include <json-c/json.h>
#include <string.h>
#include <sys/stat.h>

#include "api/api.h"
#include "http/form.h"
#include "http/params.h"
#include "http/request.h"
#include "model/attachments.h"
#include "model/emoji.h"
#include "model/permissions.h"
#include "model/realm_emoji.h"
#include "model/user.h"

/* GET /api/v1/realm/emoji */
int realm_emoji_list(struct request *req)
{
	json_object *map = realm_emoji_map(&req->uow);
	if (map == NULL)
		return -1;
	json_object_object_add(request_result(req), "emoji", map);
	return 0;
}

/* The uploaded name as the reference takes it: stripped, spaces made '_'. */
static char *normalized_name(struct request *req)
{
	const char *s = param_str(req, "emoji_name");
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || (s[n - 1] >= '\t' && s[n - 1] <= '\r')))
		n--;
	char *name = arena_strndup(&req->arena, s, n);
	for (char *p = name; *p; p++)
		if (*p == ' ')
			*p = '_';
	return name;
}

/* The request's files, counted as the reference's request.FILES: one per field name (the last part of a repeated
 * name). Marks every part used (the reference reports no ignored parameters here). */
static int count_files(struct request *req, const struct raw_param **file)
{
	int n = 0;
	*file = NULL;
	for (size_t i = 0; i < req->nraw; i++) {
		struct raw_param *p = &req->raw[i];
		p->used = true;
		if (p->filename == NULL)
			continue;
		if (*file == NULL || strcmp((*file)->name, p->name) != 0)
			n++;
		*file = p;
	}
	return n;
}

/* POST /api/v1/realm/emoji/{emoji_name} */
int realm_emoji_upload(struct request *req)
{
	const char *name = normalized_name(req);
	if (realm_emoji_check_name(&req->uow, name) < 0)
		return -1;
	if (!perm_realm(&req->uow, RS_ADD_CUSTOM_EMOJI))
		return req->error != ERR_NONE ? -1 : api_error(req, ERR_BAD_REQUEST, "Insufficient permission");
	if (realm_emoji_active(&req->uow, name) != NULL)
		return api_error(req, ERR_BAD_REQUEST, "A custom emoji with this name already exists.");
	if (req->error != ERR_NONE)
		return -1;
	const struct raw_param *file;
	if (count_files(req, &file) != 1)
		return api_error(req, ERR_BAD_REQUEST, "You must upload exactly one file.");
	if (emoji_unicode_code(name) != NULL && !user_is_admin(req->user))
		return api_error(req, ERR_BAD_REQUEST, "Only administrators can override default emoji.");
	if (file->len > (size_t)REALM_EMOJI_MAX_FILE_SIZE_MIB * 1024 * 1024)
		return api_error(req, ERR_BAD_REQUEST, "Uploaded file is larger than the allowed limit of %d MiB",
		                 REALM_EMOJI_MAX_FILE_SIZE_MIB);
	if (realm_emoji_extension(file->content_type) == NULL)
		return api_error(req, ERR_BAD_REQUEST, "Invalid image format");
	return realm_emoji_add(&req->uow, name, file->content_type, file->value, file->len);
}

/* The reference's path converter lets the name contain '/': then it is the rest of the path. */
static const char *nested_name(struct request *req)
{
	const char *rest = req->path + strlen("/realm/emoji/");
	size_t len;
	return form_repair_utf8(req, rest, strlen(rest), &len);
}

/* POST /api/v1/realm/emoji/{emoji_name}, with a '/' in the name: never a valid name. */
int realm_emoji_upload_nested(struct request *req)
{
	const struct raw_param *file;
	count_files(req, &file);
	return realm_emoji_check_name(&req->uow, nested_name(req));
}

static int delete_named(struct request *req, const char *name)
{
	struct realm_emoji *e = realm_emoji_active(&req->uow, name);
	if (e == NULL)
		return req->error != ERR_NONE ? -1 : api_error(req, ERR_NOT_FOUND, "Emoji '%s' does not exist", name);
	if (!user_is_admin(req->user) && e->author_id != req->user->id)
		return api_error(req, ERR_BAD_REQUEST, "Must be an organization administrator or emoji author");
	return realm_emoji_deactivate(&req->uow, e);
}

/* DELETE /api/v1/realm/emoji/{emoji_name} */
int realm_emoji_delete(struct request *req)
{
	return delete_named(req, param_str(req, "emoji_name"));
}

/* DELETE /api/v1/realm/emoji/{emoji_name}, with a '/' in the name */
int realm_emoji_delete_nested(struct request *req)
{
	return delete_named(req, nested_name(req));
}

/* GET /user_avatars/{realm_id}/emoji/images/{file}: public, as the reference's avatar directory; the front end
 * sends the file (uploads_send_file), with the stored type. */
int realm_emoji_serve(struct request *req)
{
	const char *type = NULL;
	const char *path_id = realm_emoji_file(&req->uow, req->path + strlen(REALM_EMOJI_URL_PREFIX), &type);
	struct stat sb;
	if (path_id == NULL || stat(attachments_local_path(&req->uow, path_id), &sb) < 0 || !S_ISREG(sb.st_mode)) {
		if (req->error != ERR_NONE)
			return -1;
		const char *body = "<p>File not found</p>";
		request_set_raw(req, 404, "text/html; charset=utf-8", body, strlen(body));
		return 0;
	}
	uploads_send_file(req, path_id);
	request_add_header(req, "Cache-Control", "public, max-age=86400");
	request_set_raw(req, 200, type, "", 0);
	return 0;
}
