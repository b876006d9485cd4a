/*
 * Uploaded files: the attachment rows behind /user_uploads/<path_id>, the files under upload_dir, who may read
 * them, and the links between messages and the files their content refers to.
 */
#ifndef CONFAB_ATTACHMENTS_H
#define CONFAB_ATTACHMENTS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct uow;

/*
 * An attachment as the API shows it (the reference's Attachment.to_dict), on `attachments a`: id, name, path_id,
 * size, create_time (seconds) and message_ids (the messages linking it, ascending); a json value (aggregate it, or
 * cast it to text).
 */
#define ATTACHMENT_JSON                                                                                                \
	"json_build_object('id', a.id, 'name', a.file_name, 'path_id', a.path_id, 'size', a.size,"                     \
	" 'create_time', floor(extract(epoch FROM a.create_time))::bigint, 'message_ids', COALESCE((SELECT"            \
	" json_agg(am.message_id ORDER BY am.message_id) FROM attachment_messages am WHERE am.attachment_id = a.id),"  \
	" '[]'))"

struct attachment {
	int64_t id;
	int64_t realm_id;
	int64_t owner_id;
	const char *path_id;      /* <realm id>/<hex>/<random>/<sanitized name>, under upload_dir and /user_uploads/ */
	const char *file_name;    /* the name as uploaded (Content-Disposition uses it) */
	const char *content_type; /* NULL for rows that never had one */
	int64_t size;
};

/*
 * Links message_id to every attachment its content refers to (/user_uploads/<path_id> links, relative or
 * absolute to the organization's URL) that the sender may share: their own uploads, and uploads already linked
 * from a message the sender can read. Replaces the message's previous links (for edits). Returns the number of
 * attachments linked (the message's has_attachment), or -1 with the error recorded. new_message: the message has
 * no links yet (nothing to replace).
 */
int attachments_link_message(struct uow *uow, int64_t message_id, int64_t sender_id, const char *content,
                             bool new_message);

/*
 * The attachments owned by owner_id that were linked to message_id before an edit and are now linked to no
 * message at all, as the spec's Attachment objects ({id, name, path_id, size, create_time, message_ids}); a new
 * array. Call after attachments_link_message() for the edited content.
 */
json_object *attachments_detached(struct uow *uow, int64_t owner_id, const int64_t *previous_ids, int n);

/*
 * The ids of the attachments linked to message_id (an arena array in *ids), to pass to attachments_detached()
 * after an edit. Returns their number, or -1 with the error recorded.
 */
int attachments_of_message(struct uow *uow, int64_t message_id, int64_t **ids);

/*
 * Stores an upload of the request's user: writes data (len bytes) atomically to upload_dir/<new path_id>,
 * readable by the web server, and inserts its row. file_name is the name as uploaded (attachments_file_name()),
 * content_type as attachments_content_type() chose it. Returns the attachment (arena) or NULL with the error
 * recorded. The file is removed when the unit of work ends with an error recorded (a failed insert, a later
 * failure that rolls the row back, a failed COMMIT).
 */
struct attachment *attachments_store(struct uow *uow, const char *file_name, const char *content_type, const char *data,
                                     size_t len);

/*
 * Writes data (len bytes) atomically to upload_dir/<path_id>, creating its directories, readable by the web server:
 * for files that are no attachments (custom emoji images). 0, or -1 with ERR_INTERNAL recorded. As for
 * attachments_store(), the file is removed when the unit of work ends with an error recorded.
 */
int attachments_write(struct uow *uow, const char *path_id, const char *data, size_t len);

/*
 * Looks path_id up for a reader: the request's user, or a spectator when uow->user is NULL (who may read files
 * linked from web-public channels of an organization with spectator access, realm_id). Returns the attachment
 * with *can_read set, or NULL if there is none (check uow->error for a database failure).
 */
struct attachment *attachments_find(struct uow *uow, const char *path_id, int64_t realm_id, bool *can_read);

/* Removes the file of path_id and the directories that leaves empty (a missing file is no error). */
void attachments_remove_file(struct uow *uow, const char *path_id);
/* Removes the file of path_id when the unit of work ends, if its transaction committed (no error recorded): for a
 * row deleted in it. */
void attachments_remove_file_at_commit(struct uow *uow, const char *path_id);

/* The file of path_id under upload_dir (an arena string). */
const char *attachments_local_path(struct uow *uow, const char *path_id);

/* A token good for 60 seconds of unauthenticated access to path_id (an arena string), or NULL on error. */
const char *attachments_temporary_token(struct uow *uow, const char *path_id);
/* The path_id a token from attachments_temporary_token() grants, or NULL (expired or unknown; see uow->error). */
const char *attachments_token_path(struct uow *uow, const char *token);

/* ---- pure helpers (arena only), as the reference computes them ---- */

/*
 * The name of an uploaded file part as the reference keeps it: from the multipart filename (len bytes), HTML
 * entities decoded, anything up to the last '/' or '\' dropped, non-printable characters dropped, at most 255
 * characters kept (the extension with them, as Django's UploadedFile does), then %-escapes decoded and NUL
 * characters dropped. NULL when nothing is left (or only "." or ".."): then the part is no file.
 */
char *attachments_file_name(struct arena *a, const char *raw, size_t len);
/*
 * The reference's sanitize_name: compatibility characters normalized, only word characters, white space, '.'
 * and '-' kept, surrounding space stripped, runs of '-' and space made one '-', at most 255 bytes (keeping the
 * extension), "uploaded-file" for "", "." and "..". The result never contains '/'.
 */
char *attachments_sanitize_name(struct arena *a, const char *name);
/*
 * The content type stored for an upload: the part's Content-Type (part_type, NULL if absent) with its
 * parameters, else one guessed from file_name, else application/octet-stream; text/plain without a charset
 * gets the charset the data looks like (ascii, utf-8). A part type that is no media type by the header grammar
 * (header_is_media_type(): control characters, more than 255 bytes, ...) counts as absent, so the result is
 * always one.
 */
char *attachments_content_type(struct arena *a, const char *part_type, const char *file_name, const char *data,
                               size_t len);
/*
 * The Content-Type to serve a stored content type with: itself when it is a valid media type, NULL for NULL,
 * else (rows stored before types were checked) application/octet-stream.
 */
const char *attachments_served_type(const char *content_type);
/* True if browsers may show content_type inline (images, audio, video, PDF, plain text). */
bool attachments_is_inline(const char *content_type);
/*
 * The Content-Disposition value for file_name, as Django's content_disposition_header writes it: "inline; " or
 * "attachment; ", then filename="..." (a quoted-string, '\' and '"' escaped) when the name is printable ASCII,
 * else filename*=utf-8''... (RFC 5987/8187, every byte but unreserved characters %-escaped). A name longer than
 * 255 characters is cut as attachments_file_name() cuts it. Always a valid header value.
 */
char *attachments_disposition(struct arena *a, bool download, const char *file_name);
/* s with every byte but unreserved characters and '/' %-escaped (Python's urllib.parse.quote). */
char *attachments_quote(struct arena *a, const char *s);
/*
 * The candidate path_ids of the /user_uploads/ links in content: relative links, and absolute ones starting with
 * realm_url; a new JSON array of strings (the caller owns it). Candidates that name no attachment are harmless.
 */
json_object *attachments_linked_paths(const char *content, const char *realm_url);

#endif
