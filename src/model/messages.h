/*
 * Messages: the checks the reference makes before sending, sending itself (one messages row, one set-based
 * INSERT of every recipient's user_messages row), access to a message, narrows turned into parameterized SQL,
 * per-user flags, and the Message object clients see. Everything works within the calling request (its arena,
 * its database connection and transaction); errors are recorded on the request with the reference's message.
 */
#ifndef CONFAB_MESSAGES_H
#define CONFAB_MESSAGES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uow;
struct user;
struct channel;
struct markdown_result;

/* Bits of user_messages.flags (migrations/0002_core_chat.sql). */
enum message_flag {
	MF_READ = 1,
	MF_STARRED = 2,
	MF_COLLAPSED = 4,
	MF_MENTIONED = 8,
	MF_STREAM_WILDCARD_MENTIONED = 16,
	MF_TOPIC_WILDCARD_MENTIONED = 32,
	MF_HAS_ALERT_WORD = 64,
	MF_HISTORICAL = 128,
	MF_IS_PRIVATE = 256,
	MF_ACTIVE_MOBILE_PUSH = 512,
};
/* The flags of a message the user can read but never received: what the reference reports for it. */
#define MF_DEFAULT_HISTORICAL (MF_READ | MF_HISTORICAL)

#define MESSAGE_MAX_LENGTH       10000
#define MESSAGE_MAX_TOPIC_LENGTH 60
/* Channel or topic wildcard mentions need can_mention_many_users_group above this many users. */
#define MESSAGE_WILDCARD_THRESHOLD 15
/* GET /messages returns at most this many messages. */
#define MESSAGE_MAX_FETCH 5000
/* POST /messages/flags changes at most this many (the reference's MAX_MESSAGES_PER_UPDATE, which it applies to the
 * narrow variant only). */
#define MESSAGE_MAX_FLAGS_UPDATE 5000
/* A direct message has at most this many recipients, a dm narrow at most this many users ("Too many recipients
 * (limit: 1000)"); the reference has no bound. */
#define MESSAGE_MAX_RECIPIENTS 1000
/* A narrow's search terms hold at most this many words (BAD_NARROW "search has too many words (limit: 100)"). */
#define MESSAGE_MAX_SEARCH_WORDS 100

/* ---- checks before sending ----------------------------------------------------------------------------------- */

/*
 * The `to` of a channel message as the reference's extract_stream_indicator reads it: a JSON integer is a channel
 * id, a JSON string or any non-JSON text a name; a JSON list must hold exactly one ("Expected exactly one
 * channel"), other JSON is "Invalid data type for channel". Sets *name (arena) or, when *name is NULL, *id.
 */
int message_channel_indicator(struct uow *uow, const char *to, int64_t *id, const char **name);
/*
 * The channel a message is sent to, by name (stripped and validated: "Channel name can't be empty.", "Channel
 * name too long (limit: 60 characters).", "Invalid character in channel name, at position N.") or by id; no
 * access check. Unknown: STREAM_DOES_NOT_EXIST "Channel 'x' does not exist" with `stream`, or "Channel with ID
 * 'N' does not exist" with `stream_id`. Returns NULL with the error recorded. From the process's cache
 * (model/channel_cache.h), with its members, unless the copy says the channel is not recently active.
 */
const struct channel *message_channel_for_send(struct uow *uow, int64_t id, const char *name);

/*
 * The reference's normalize_body: trailing white space and leading newlines removed, "Message must not be
 * empty", "Message must not contain null bytes", and content over 10000 characters truncated to end in
 * "\n[message truncated]". raw may contain NUL bytes (len bytes). Returns an arena string or NULL.
 */
const char *message_normalize_content(struct uow *uow, const char *raw, size_t len);
/*
 * A topic as given by a client: white space stripped, "(no topic)" and the empty-topic display name ("general
 * chat") read as the empty topic, "Invalid character in topic, at position N!" for control characters. Does not
 * truncate (see message_truncate_topic). raw may contain NUL bytes. Returns an arena string or NULL.
 */
const char *message_clean_topic(struct uow *uow, const char *raw, size_t len);
/* Topics over 60 characters are truncated to end in "..."; returns an arena string (or topic itself). */
const char *message_truncate_topic(struct uow *uow, const char *topic);
/*
 * A topic as PATCH /messages/{id} reads it (the reference's OptionalTopic, then
 * maybe_rename_general_chat_to_empty_topic): white space stripped, the empty-topic display name ("general chat")
 * read as the empty topic, "(no topic)" kept as written. Not validated here: *bad_position receives the 1-based
 * position of the first character the reference's check_stream_topic refuses, 0 if none (the caller reports it
 * in the reference's order). raw may contain NUL bytes. Returns an arena string.
 */
const char *message_edit_topic(struct uow *uow, const char *raw, size_t len, int *bad_position);
/* Whether raw (len bytes) is empty once trailing white space is removed (Python's str.rstrip() == ""). */
bool message_is_blank(const char *raw, size_t len);

/*
 * The requesting user's right to send to channel c with topic (already cleaned and truncated), in the
 * reference's order: can_send_message_group ("You do not have permission to post in this channel."), archived or
 * private without access ("Not authorized to send to channel 'x'"), can_create_topic_group for a new topic, and
 * the channel's (or the organization's) topics_policy. Returns 0 or -1.
 */
int message_check_channel_send(struct uow *uow, const struct channel *c, const char *topic);

/* A participant of a direct message. */
struct message_user {
	int64_t id;
	const char *api_email; /* the address clients see (a placeholder when the real one is hidden) */
	const char *full_name;
	bool is_active;
	bool is_bot;
	int role;
};

/* Looks up users by their API e-mail addresses (message_recipients.c). Unknown ones keep id 0 in out (nothing
 * recorded); returns 0 or -1. */
int message_users_find(struct uow *uow, const char *const *emails, int n, struct message_user *out);
/*
 * Resolves the `to` of a direct message as the reference does: a JSON list of user ids or of e-mail addresses, a
 * JSON string, or a plain comma-separated string ("Invalid data type for recipients", "Recipient lists may contain
 * emails or user IDs, but not both.", "Message must have recipients", "Invalid user ID N", "Invalid email 'x'").
 * Duplicates are removed; *out is sorted by id (arena). Returns 0 or -1.
 */
int message_resolve_direct(struct uow *uow, const char *to, struct message_user **out, int *n);
/* The same, but a refusal is returned (1, its message in *refusal), not recorded; -1 is a failure (recorded). */
int message_lookup_direct(struct uow *uow, const char *to, struct message_user **out, int *n, const char **refusal);
/* The recipients of a direct message's `to` as sent, before any lookup: e-mail addresses (stripped, empty ones
 * dropped) or user ids, repeats removed, in the arena. */
struct message_recipients {
	bool by_email;
	int n;
	const char **emails; /* by_email */
	const int64_t *ids;  /* !by_email */
};
/* The part of message_lookup_direct() that needs no database: 0 and *r, 1 with the refusal in *refusal, or -1 with
 * 413 recorded (a `to` that would cost more memory than the request may hold). */
int message_parse_direct(struct uow *uow, const char *to, struct message_recipients *r, const char **refusal);
/*
 * Checks that the requesting user may send a direct message to users (as resolved above): access to the users
 * ("You do not have permission to access some of the recipients."), no deactivated recipient ("'x' is no longer
 * using Zulip."), and the organization's direct_message_permission_group and direct_message_initiator_group.
 * On success *participants holds the sorted ids of everyone in the conversation, sender included. Returns 0 or -1.
 */
int message_check_direct(struct uow *uow, const struct message_user *users, int n, int64_t **participants, int *np);

/* ---- sending ------------------------------------------------------------------------------------------------- */

/* What to send. Exactly one of channel and participants is set; content and topic are already normalized. */
struct message_draft {
	const struct user *sender;
	const struct channel *channel;
	const char *topic;
	const int64_t *participants; /* direct message: every participant, sender included, sorted, distinct */
	int n_participants;
	const char *content;
	const char *client; /* NULL: "API" */
	bool read_by_sender;
	/* Internal senders (notification bots) skip the wildcard and group mention permission checks. */
	bool skip_mention_checks;
};

/* A user who received the message: the user_messages row written (the event queue delivers to these). */
struct message_recipient {
	int64_t user_id;
	int flags;
};

struct message_sent {
	int64_t id;
	struct message_recipient *recipients; /* arena */
	int n_recipients;
	struct db_res *object; /* its Message object's row (model/message_json.h), read in the insert's round trip */
};

/*
 * Renders and stores a message as d->sender (who need not be the requesting user; the caller has made the checks
 * above as it sees fit): Markdown with the sender's mentions, channel wildcard mention permission
 * (STREAM_WILDCARD_MENTION_NOT_ALLOWED above 15 subscribers), topic wildcard permission (above 15 topic
 * participants), group mention permission ("You are not allowed to mention user group 'x'."), the messages row,
 * attachment links, and one INSERT ... SELECT of the recipients' user_messages rows with their flags (read for the
 * sender when asked, mentioned, stream/topic wildcard mentioned, is_private). Returns 0 with *out filled, or -1.
 */
int message_send(struct uow *uow, const struct message_draft *d, struct message_sent *out);
/*
 * Sends content (raw Markdown) to channel c's topic as the organization's Notification Bot, as the reference's
 * internal_send_stream_message: content normalized, topic truncated, client "Internal", mention checks skipped,
 * the message events recorded. Returns the new message's id, or 0 with the error recorded.
 */
int64_t message_send_notification(struct uow *uow, const struct channel *c, const char *topic, const char *content);
/* The same, already read by every recipient (the reference's limit_unread_user_ids=set(): archiving notices). */
int64_t message_send_notification_read(struct uow *uow, const struct channel *c, const char *topic,
                                       const char *content);
/*
 * The rendering and mention checks of message_send() without storing anything, for edits: renders d->content with
 * d->sender's mentions and checks the wildcard mentions against d->channel and d->topic and the group mentions
 * (unless d->skip_mention_checks). Fills *md (arena). Returns 0 or -1 with the error recorded.
 */
int message_render(struct uow *uow, const struct message_draft *d, struct markdown_result *md);

/* ---- access -------------------------------------------------------------------------------------------------- */

/* A message row as access checks need it. */
struct message_ref {
	int64_t id;
	int64_t sender_id;
	int64_t sender_bot_owner_id; /* 0: none */
	int64_t channel_id;          /* 0 for direct messages */
	int64_t date_sent;           /* UNIX seconds */
	const char *content;
	bool has_user_message;
	int flags;               /* the user's flags, or MF_DEFAULT_HISTORICAL without a user_messages row */
	struct channel *channel; /* channel messages: as the requesting user sees it */
};

/*
 * The reference's access_message for the requesting user: direct messages they received; channel messages of
 * channels whose content they may read (protected history: only messages they received while subscribed).
 * modifying: messages in archived channels are refused, and the row is locked (FOR UPDATE). Returns the message,
 * or NULL with nothing recorded if there is none the user may read (check uow->error for a failure).
 */
struct message_ref *message_find(struct uow *uow, int64_t id, bool modifying);
/* message_find(), recording the reference's "Invalid message(s)" when there is none. */
struct message_ref *message_access_or_error(struct uow *uow, int64_t id, bool modifying);

/* The highest message id the user has a user_messages row for, -1 if none (0 with the error on failure: check
 * uow->error). */
int64_t message_max_id_for_user(struct uow *uow, int64_t user_id);

/* Whether the organization's message_content_delete_limit_seconds has passed for m (false with the error recorded
 * on a database failure). */
bool message_delete_time_passed(struct uow *uow, const struct message_ref *m);
/* Deletes a message (its user_messages, edits and attachment links go with it). Returns 0 or -1. */
int message_delete(struct uow *uow, int64_t id);

/* ---- flags --------------------------------------------------------------------------------------------------- */

/*
 * POST /messages/flags semantics: op "add"/"remove" of flag on the requesting user's copies of ids. Validates
 * ("Invalid flag: 'x'", "Flag not editable: 'x'", "Invalid message flag operation: 'x'"); marking unread skips
 * messages in channels the user is not subscribed to (their channel ids in *ignored, a new array); changing a
 * flag on an accessible message without a user_messages row creates a historical row, an inaccessible one is
 * "Invalid message(s)". *changed receives the ids whose flag changed, in request order (repeats kept; arena),
 * *nchanged their number. Returns the number of messages changed, or -1.
 */
int message_update_flags(struct uow *uow, const char *op, const char *flag, const int64_t *ids, int n,
                         json_object **ignored, int64_t **changed, int *nchanged);

/* ---- narrows and fetching ------------------------------------------------------------------------------------ */

/* A parsed narrow: the terms of GET /messages resolved to ids, later bound as SQL parameters (model/narrow.h). */
struct narrow;

/*
 * Parses narrow (a JSON array of {operator, operand, negated} objects or [operator, operand] pairs; NULL: no
 * narrow) for the requesting user: channel/stream (id or name), topic, dm/pm-with (ids or e-mails), dm-including,
 * group-pm-with, sender, id, is:(dm|private|starred|unread|mentioned|alerted|resolved|followed),
 * has:(attachment|image|link|reaction), in:(home|all), channels:(public|web-public), near, with, and search
 * (case-insensitive substring match of every word). The first topic term's "general chat" is the empty topic.
 * The narrow and its operands are also validated ("Invalid narrow[0]: Value error, element is not a string pair",
 * "operand is not a string", ...).
 * Errors are BAD_NARROW "Invalid narrow operator: ..." as the reference words them. Returns NULL
 * with the error recorded. Operands are looked up in the database (narrow_parse_with() in narrow.h, messages.c).
 */
struct narrow *narrow_parse(struct uow *uow, json_object *narrow);

/* Anchors of GET /messages. */
#define MESSAGE_ANCHOR_NEWEST       10000000000000000LL
#define MESSAGE_ANCHOR_FIRST_UNREAD (-1LL)

struct message_page {
	int64_t *ids; /* ascending */
	int *flags;   /* the user's flags per message (MF_DEFAULT_HISTORICAL when not received) */
	int n;
	int64_t anchor;
	bool found_anchor, found_oldest, found_newest, history_limited;
	bool is_search;
	const char *objects; /* their Message objects as a JSON array when message_fetch() wrote them, else NULL */
	size_t objects_len;
};

/*
 * Fetches the messages of narrow around anchor (a message id, 0 for the oldest, MESSAGE_ANCHOR_NEWEST, or
 * MESSAGE_ANCHOR_FIRST_UNREAD) as the reference's fetch_messages does: num_before messages before, num_after
 * after, the anchor itself when include_anchor. Or, when ids is not NULL, exactly those of ids (n_ids) that match.
 * Every query is driven by an index (see the plans in message_fetch.c). With f, the Message objects may come in the
 * same round trip (out->objects; message_objects_text() otherwise). Returns 0 or -1.
 */
struct message_format;
int message_fetch(struct uow *uow, struct narrow *narrow, int64_t anchor, bool include_anchor, int num_before,
                  int num_after, const int64_t *ids, int n_ids, const struct message_format *f,
                  struct message_page *out);

/* Options of the Message object. */
struct message_format {
	bool apply_markdown;
	bool client_gravatar;
	bool allow_empty_topic_name;
	bool search_fields; /* search narrows: add match_content and match_subject */
};

/*
 * The Message objects of ids (ascending, n) with the given flags, as the requesting user sees them: id,
 * sender_id, sender_full_name, sender_email, sender_realm_str, avatar_url, client, content, content_type,
 * display_recipient, recipient_id, is_me_message, reactions, submessages, subject, topic_links, timestamp, type,
 * stream_id (channel messages), flags, last_edit_timestamp/last_moved_timestamp/edit_history once edited or moved.
 * Returns a new array, or NULL with the error recorded.
 */
json_object *message_objects(struct uow *uow, const int64_t *ids, const int *flags, int n,
                             const struct message_format *f);
/*
 * The same array as JSON text (message_json.c: one statement, written without json-c objects; what GET /messages
 * sends). Returns an arena string (*len bytes), or NULL with the error recorded.
 */
const char *message_objects_text(struct uow *uow, const int64_t *ids, const int *flags, int n,
                                 const struct message_format *f, size_t *len);

/* The API names of the flags set in flags, in the reference's order (plus "wildcard_mentioned"); a new array. */
json_object *message_flags_json(int flags);

/* recipient_id of the Message object: one id per channel and per direct-message conversation. */
/* ---- events (zerver/actions/message_send.py, message_delete.py, message_flags.py) ----------------------------- */

/*
 * Records the `message` events of a message just sent (d and sent as message_send() left them): one event per set
 * of recipients with identical flags, {type, message (the Message object with HTML content, the empty topic as
 * is, the full avatar_url), flags}; for a public channel also one with no flags for the organization's
 * all_public_streams queues (EV_ALL_PUBLIC). A channel that was not recently active first gets stream update
 * is_recently_active. queue_id and local_id (NULL: not sent) are the sender's. Private keys for events.c:
 * _raw_content (the Markdown source), _channel_id and _topic or _dm_user_ids (narrows), _gravatar (true: a
 * client_gravatar queue gets avatar_url null), _sender_queue_id and _local_id (that queue gets
 * local_message_id), _exclude_user_ids (on the all_public_streams event: the recipients, whose own event carries
 * their flags). 0 or -1.
 */
int message_events_send(struct uow *uow, const struct message_draft *d, const struct message_sent *sent,
                        const char *queue_id, const char *local_id);
/*
 * Records delete_message {message_ids, message_type, stream_id, topic (lowercase)} for the users who may see m
 * (the reference's event_recipient_ids_for_action_on_messages, plus the deleting user if any), preceded by stream
 * update first_message_id when m is its channel's first message. Call before message_delete(). 0 or -1.
 */
int message_events_delete(struct uow *uow, const struct message_ref *m);
/*
 * The reference's event_recipient_ids_for_action_on_messages for m: direct messages, the users with a copy;
 * protected history, the subscribers with a copy; private channels, the subscribers; public channels, the
 * subscribers and the non-guests with a copy (historical ones included). Plus extra_user_id (0: none). Returns
 * the ids in ascending order (arena; *n of them), or NULL with the error recorded.
 */
int64_t *message_event_audience(struct uow *uow, const struct message_ref *m, int64_t extra_user_id, int *n);
/* Records update_message_flags {op, operation, flag, messages (ids, n), all: false} for the requesting user, with
 * message_details when marking unread. 0 or -1. */
int message_events_flags(struct uow *uow, const char *op, const char *flag, const int64_t *ids, int n);

static inline int64_t message_recipient_id(int64_t channel_id, int64_t conversation_id)
{
	return channel_id ? 2 * channel_id : 2 * conversation_id + 1;
}

#endif
