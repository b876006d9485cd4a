/*
 * Marking many messages read at once (the deprecated POST /mark_all_as_read, /mark_stream_as_read and
 * /mark_topic_as_read). Reference: zerver/actions/message_flags.py (do_mark_all_as_read,
 * do_mark_stream_messages_as_read), zerver/lib/topic.py (user_message_exists_for_topic). Each records the
 * update_message_flags event (op "add", flag "read") for the requesting user.
 */
#ifndef CONFAB_MESSAGE_READ_H
#define CONFAB_MESSAGE_READ_H

#include <stdbool.h>
#include <stdint.h>

struct uow;

/* Messages marked per transaction by message_read_all(), and the time after which it stops (seconds). */
#define MESSAGE_READ_BATCH       2000
#define MESSAGE_READ_ALL_TIMEOUT 50

/*
 * Marks every unread message of the user read, newest first, MESSAGE_READ_BATCH per transaction (each batch is
 * committed, as the reference's are, so that progress survives a timeout). *complete is false when the time ran out
 * first; then no event is recorded. Otherwise the event says "all": true with no message ids. Returns 0 or -1.
 */
int message_read_all(struct uow *uow, bool *complete);

/* Marks the user's unread messages of channel channel_id read, only those of topic (ignoring case) unless topic is
 * NULL, and records the event with their ids when there were any. Returns 0 or -1. */
int message_read_channel(struct uow *uow, int64_t channel_id, const char *topic);

/* Whether the user has a copy of a message in topic (ignoring case) of the channel; false with the error recorded on
 * a database failure (check uow->error). */
bool message_read_topic_exists(struct uow *uow, int64_t channel_id, const char *topic);

#endif
