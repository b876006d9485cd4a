/*
 * Editing a message: its content, its topic, its channel, or all three for a whole topic at once, with the
 * reference's checks, edit history, events and Notification Bot messages (moves, resolved topics).
 *
 * Everything works within the calling request (its arena, its database connection and transaction). Errors are
 * recorded on the request with the reference's message. Moves are set-based: one statement per table for the
 * whole set of moved messages, whatever its size.
 */
#ifndef CONFAB_MESSAGE_EDIT_H
#define CONFAB_MESSAGE_EDIT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uow;
struct message_ref;

/* Which messages a topic or channel change applies to. */
enum propagate_mode {
	PROPAGATE_ONE,   /* change_one: the message alone */
	PROPAGATE_LATER, /* change_later: it and the later messages of its topic */
	PROPAGATE_ALL,   /* change_all: its whole topic */
};

/* What the client asked for, as the handler read it. */
struct message_edit_input {
	const char *topic;      /* message_edit_topic()'s reading of topic (or subject), or NULL when not sent */
	int topic_bad_position; /* its first refused character (1-based), 0 if none */
	const char *content;    /* as sent (may hold NUL bytes: content_len bytes), or NULL */
	size_t content_len;
	const char *prev_content_sha256; /* or NULL */
	bool has_stream_id;
	int64_t stream_id;
	enum propagate_mode mode;
	bool notify_old_thread;
	bool notify_new_thread;
};

/* A checked edit, ready to apply. Opaque (arena). */
struct message_edit;

/*
 * Makes every check of the reference's check_update_message for editing m (accessed by message_access_or_error() with
 * modifying set) as the requesting user asked in *in, in the reference's order. Returns the edit, or NULL with
 * the error recorded.
 */
struct message_edit *message_edit_check(struct uow *uow, struct message_ref *m, const struct message_edit_input *in);

/*
 * Applies a checked edit: the message rows (and the moved ones), one message_edits row per changed message,
 * attachment links and mention flags for new content, user_messages of users losing or gaining access on a move
 * to another channel; records the events (delete_message to users losing access, update_message with each
 * recipient's flags) and sends the Notification Bot's messages (resolve notices, which a quick undo deletes
 * instead; breadcrumbs in the old and new topics). Returns the detached_uploads array (owned by the request), or
 * NULL with the error recorded.
 */
json_object *message_edit_apply(struct uow *uow, struct message_edit *e);

#endif
