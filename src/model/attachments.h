/*
 * Uploaded files: the attachment rows behind /user_uploads/<path_id>, and the links between messages and the
 * files their content refers to.
 */
#ifndef CONFAB_ATTACHMENTS_H
#define CONFAB_ATTACHMENTS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct request;

/*
 * Links message_id to every attachment its content refers to (/user_uploads/<path_id> links, relative or
 * absolute to the organization's URL) that the sender may share: their own uploads, and uploads already linked
 * from a message the sender can read. Replaces the message's previous links (for edits). Returns the number of
 * attachments linked (the message's has_attachment), or -1 with the error recorded.
 */
int attachments_link_message(struct request *req, int64_t message_id, int64_t sender_id, const char *content);

/*
 * The attachments owned by owner_id that were linked to message_id before an edit and are now linked to no
 * message at all, as the spec's Attachment objects ({id, name, path_id, size, create_time, message_ids}); a new
 * array. Call after attachments_link_message() for the edited content.
 */
json_object *attachments_detached(struct request *req, int64_t owner_id, const int64_t *previous_ids, int n);

#endif
