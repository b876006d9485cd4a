/*
 * Scheduled messages (the reference's zerver/actions/scheduled_messages.py): messages a user asked to be sent
 * later, their checks (those of a message sent now), the ScheduledMessage object, their events to the owner's
 * queues, and their delivery by confab-reaper as their sender through the normal send path. A scheduled message is
 * visible to its sender only: every lookup is by the acting user (uow->user).
 */
#ifndef CONFAB_SCHEDULED_MESSAGES_H
#define CONFAB_SCHEDULED_MESSAGES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uow;
struct message_draft;

/* The reference's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES: a message more this late is not sent but failed. */
#define SCHEDULED_MESSAGE_LATE_CUTOFF_SECS (10 * 60)

/* What a scheduled message is to be sent as, as the client gave it. */
struct scheduled_target {
	bool to_channel;
	json_object *to;   /* a channel id (JSON integer), or a JSON list of user ids */
	const char *topic; /* NULL: not given */
	size_t topic_len;
	const char *content;
	size_t content_len;
};

/*
 * The reference's extract_stream_id / extract_direct_message_recipient_ids, Addressee.legacy_build and
 * check_message for the acting user: "Invalid data type for channel ID", "Invalid data type for recipients",
 * "Missing topic", "Message must have recipients", "Invalid user ID N", the content and topic checks,
 * STREAM_DOES_NOT_EXIST with stream_id, and every permission check of sending now. Fills *d (arena; sender is
 * uow->user) and, when rendered is not NULL, the HTML of the content. Returns 0 or -1 with the error recorded.
 */
int scheduled_message_check(struct uow *uow, const struct scheduled_target *t, struct message_draft *d,
                            const char **rendered);

/* A scheduled message of the acting user. */
struct scheduled_message {
	int64_t id;
	int64_t channel_id; /* 0: a direct message */
	const char *topic;
	json_object *to; /* as the API shows it: the channel id or the recipients (owned by the unit of work) */
	const char *content;
	bool delivered;
	bool failed;
};

/* Stores a checked message (d, rendered) to be sent at deliver_at (UNIX seconds) and records the scheduled_messages
 * add event. Returns its id, or 0 with the error recorded. */
int64_t scheduled_message_create(struct uow *uow, const struct message_draft *d, const char *rendered,
                                 int64_t deliver_at);
/*
 * The acting user's scheduled message id (delivered or not), locked FOR NO KEY UPDATE so that an edit waits for a
 * delivery in progress; NULL with nothing recorded if the user has none of that id (check uow->error).
 */
struct scheduled_message *scheduled_message_find(struct uow *uow, int64_t id);
/* scheduled_message_find(), recording the reference's 404 "Scheduled message does not exist" when there is none. */
struct scheduled_message *scheduled_message_find_or_error(struct uow *uow, int64_t id);

/* A change to a scheduled message: NULL and 0 fields stay as they are. */
struct scheduled_change {
	const struct message_draft *draft; /* new recipient and content, checked (NULL: unchanged) */
	bool set_recipient;                /* take the draft's channel, topic or participants */
	bool set_content;                  /* take the draft's content and rendered */
	const char *rendered;
	const char *topic; /* a new topic alone (cleaned and truncated) */
	int64_t deliver_at;
};
/* Applies c, clears failed and records the scheduled_messages update event. Returns 0 or -1. */
int scheduled_message_update(struct uow *uow, const struct scheduled_message *m, const struct scheduled_change *c);
/* Deletes it and records the scheduled_messages remove event. Returns 0 or -1. */
int scheduled_message_delete(struct uow *uow, int64_t id);

/* The acting user's undelivered scheduled messages by delivery time (failed ones included): a new array, or NULL
 * with the error recorded. A spectator has none. */
json_object *scheduled_messages_json(struct uow *uow);

/*
 * For the reaper, in a transaction of its own on uow (no acting user yet): claims the oldest due scheduled message
 * no one else holds (FOR UPDATE SKIP LOCKED), then, as its sender, makes the checks of sending now and sends it
 * (Markdown, recipients, message events), marks it delivered and records the remove event, all in that
 * transaction; the caller commits it and publishes (events_commit()). *id receives the message's id (0 if none was
 * due). Returns 1 if one was sent, 0 if none was due, -1 with the error recorded (with *id set, a refusal the
 * caller reports with scheduled_message_fail() after rolling this transaction back).
 */
int scheduled_message_deliver_due(struct uow *uow, int64_t *id);
/*
 * For the reaper, in a transaction of its own on a fresh uow: marks scheduled message id failed with reason (the
 * refusal's message) unless it was delivered or failed meanwhile, records the scheduled_messages update event and
 * sends its sender the reference's Notification Bot direct message; for a deactivated sender or organization only
 * marks it. The caller commits and publishes. Returns 0 or -1.
 */
int scheduled_message_fail(struct uow *uow, int64_t id, const char *reason);

/* For /metrics: the messages due (past their time, neither sent nor failed) and failed, of every organization, by
 * their partial indexes. Returns 0, or -1 with nothing recorded (logged). */
int scheduled_messages_counts(struct uow *uow, long long *due, long long *failed);

#endif
