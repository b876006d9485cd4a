/*
 * File uploads: storing an uploaded file, and serving it to those who may read it. nginx sends the bytes: a
 * worker checks access and answers with X-Accel-Redirect to the internal location that maps upload_dir.
 */
#include <json-c/json.h>
#include <string.h>
#include <sys/stat.h>

#include "api/api.h"
#include "core/config.h"
#include "http/params.h"
#include "http/request.h"
#include "model/attachment_space.h"
#include "model/attachments.h"
#include "model/realm.h"
#include "model/user.h"

#define UPLOADS_PREFIX "/user_uploads/"
#define HTML_TYPE      "text/html; charset=utf-8"

/*
 * The file part of the request, and its name, as the reference counts them: one file per field name (the last
 * part of a repeated name wins); parts whose name is empty, "." or ".." are no files.
 */
static int the_file(struct request *req, const struct raw_param **file, const char **name)
{
	*file = NULL;
	for (size_t i = 0; i < req->nraw; i++) {
		struct raw_param *p = &req->raw[i];
		p->used = true; /* the reference's upload view reports no ignored parameters */
		char *n = p->filename ? attachments_file_name(&req->arena, p->filename, strlen(p->filename)) : NULL;
		if (n == NULL)
			continue;
		if (*file != NULL && strcmp((*file)->name, p->name) != 0)
			return api_error(req, ERR_BAD_REQUEST, "You may only upload one file at a time");
		*file = p;
		*name = n;
	}
	if (*file == NULL)
		return api_error(req, ERR_BAD_REQUEST, "You must specify a file to upload");
	return 0;
}

/* POST /api/v1/user_uploads */
int uploads_create(struct request *req)
{
	const struct raw_param *file = NULL;
	const char *name = NULL;
	if (the_file(req, &file, &name) < 0)
		return -1;
	int max_mib = req->worker->cfg->max_file_upload_mb;
	if (file->len > (size_t)max_mib * 1024 * 1024)
		return api_error(req, ERR_BAD_REQUEST,
		                 "File is larger than this server's configured maximum upload size (%d MiB).", max_mib);
	if (attachment_space_check_quota(&req->uow, (int64_t)file->len) < 0)
		return -1;
	const char *type = attachments_content_type(&req->arena, file->content_type, name, file->value, file->len);
	struct attachment *at = attachments_store(&req->uow, name, type, file->value, file->len);
	if (at == NULL || attachment_space_hold_quota(&req->uow) < 0 || attachment_space_added(&req->uow, at->id) < 0)
		return -1;
	const char *url = arena_printf(&req->arena, UPLOADS_PREFIX "%s", at->path_id);
	json_object *out = request_result(req);
	json_object_object_add(out, "uri", json_object_new_string(url)); /* deprecated alias of url */
	json_object_object_add(out, "url", json_object_new_string(url));
	json_object_object_add(out, "filename", json_object_new_string(at->file_name));
	return 0;
}

/* The reference's HTML answers when a file is not served (to API clients as well). */
static int html_error(struct request *req, int status, const char *body)
{
	request_add_header(req, "Vary", "Accept");
	request_set_raw(req, status, HTML_TYPE, body, strlen(body));
	return 0;
}

static int not_found(struct request *req)
{
	return html_error(req, 404, "<p>This file does not exist or has been deleted.</p>");
}

static int forbidden(struct request *req)
{
	return html_error(req, 403, "<p>You are not authorized to view this file.</p>");
}

/*
 * nginx: X-Accel-Redirect to the internal location that maps upload_dir, %-escaped. Apache (mod_xsendfile, which
 * sends only files under XSendFilePath): X-Sendfile with the file's path as it is, since mod_xsendfile does not
 * decode it; sanitized names hold no control character (request_add_header() would drop such a value).
 */
void uploads_send_file(struct request *req, const char *path_id)
{
	if (req->x_sendfile)
		request_add_header(req, "X-Sendfile", attachments_local_path(&req->uow, path_id));
	else
		request_add_header(
		    req, "X-Accel-Redirect",
		    arena_printf(&req->arena, "/internal/uploads/%s", attachments_quote(&req->arena, path_id)));
}

/* Lets the front end send the file of at, with the reference's Content-Type, Content-Disposition and Cache-Control. */
static int send_file(struct request *req, const struct attachment *at, bool download)
{
	struct stat sb;
	if (stat(attachments_local_path(&req->uow, at->path_id), &sb) < 0 || !S_ISREG(sb.st_mode)) {
		const char *body = "<p>File not found</p>";
		request_set_raw(req, 404, HTML_TYPE, body, strlen(body));
		return 0;
	}
	const char *type = attachments_served_type(at->content_type);
	bool attachment = download || type == NULL || !attachments_is_inline(type);
	uploads_send_file(req, at->path_id);
	request_add_header(req, "Content-Disposition", attachments_disposition(&req->arena, attachment, at->file_name));
	request_add_header(req, "Cache-Control", "private, immutable");
	request_set_raw(req, 200, type, "", 0);
	return 0;
}

/* The last segment of a path. */
static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* GET /user_uploads/temporary/{token}/{filename}: no authentication, the token stands for it. */
static int serve_temporary(struct request *req, const char *token, const char *filename)
{
	const char *path_id = attachments_token_path(&req->uow, token);
	if (path_id == NULL)
		return req->error != ERR_NONE ? -1 : api_error(req, ERR_BAD_REQUEST, "Invalid token");
	if (strcmp(basename_of(path_id), filename) != 0)
		return api_error(req, ERR_BAD_REQUEST, "Invalid filename");
	bool can_read;
	struct attachment *at = attachments_find(&req->uow, path_id, 0, &can_read);
	if (at == NULL)
		return req->error != ERR_NONE ? -1 : api_error(req, ERR_BAD_REQUEST, "Invalid token");
	return send_file(req, at, false);
}

/* True if p is "<segment>/<anything>" with both parts non-empty (the reference's <realm_id_str>/<path:...>). */
static bool is_file_path(const char *p)
{
	const char *slash = strchr(p, '/');
	return slash != NULL && slash != p && slash[1] != '\0';
}

/* GET /user_uploads/temporary/{token}/{filename} (public: the token is the credential) */
int uploads_serve_temporary(struct request *req)
{
	const char *tail = req->path + strlen(UPLOADS_PREFIX "temporary/");
	return serve_temporary(req, arena_strndup(&req->arena, tail, strcspn(tail, "/")), strchr(tail, '/') + 1);
}

/*
 * GET /user_uploads/{realm_id_str}/{filename...} and /user_uploads/download/... The reader (R_AUTH_OPTIONAL) is
 * the user of the Authorization header, else a spectator of the host's organization, who needs one.
 */
int uploads_serve(struct request *req)
{
	const char *rest = req->path + strlen(UPLOADS_PREFIX);
	bool download = strncmp(rest, "download/", 9) == 0 && is_file_path(rest + 9);
	if (download)
		rest += 9;
	if (req->user == NULL && req->realm == NULL)
		return api_error(req, ERR_UNAUTHORIZED, NULL);
	bool can_read;
	struct attachment *at = attachments_find(&req->uow, rest, req->realm->id, &can_read);
	if (at == NULL)
		return req->error != ERR_NONE ? -1 : not_found(req);
	if (!can_read)
		return req->user == NULL ? api_error(req, ERR_UNAUTHORIZED, NULL) : forbidden(req);
	return send_file(req, at, download);
}

/* GET /api/v1/user_uploads/{realm_id_str}/{filename} */
int uploads_temporary_url(struct request *req)
{
	const char *path_id =
	    arena_printf(&req->arena, "%s/%s/%s/%s", param_str(req, "realm_id_str"), param_str(req, "directory"),
	                 param_str(req, "random"), param_str(req, "filename"));
	bool can_read;
	struct attachment *at = attachments_find(&req->uow, path_id, req->realm->id, &can_read);
	if (at == NULL)
		return req->error != ERR_NONE ? -1 : not_found(req);
	if (!can_read)
		return forbidden(req);
	const char *token = attachments_temporary_token(&req->uow, at->path_id);
	if (token == NULL)
		return -1;
	const char *url = arena_printf(&req->arena, UPLOADS_PREFIX "temporary/%s/%s", token,
	                               attachments_quote(&req->arena, basename_of(at->path_id)));
	json_object_object_add(request_result(req), "url", json_object_new_string(url));
	return 0;
}
