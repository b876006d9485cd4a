/*
 * The unread_msgs of POST /register: the user's latest unread messages in buckets (channel and topic, one-on-one
 * conversation, group conversation), the mentions among them and the count of those not muted.
 *
 * PostgreSQL groups the messages into conversations (one statement: the unread rows joined with their messages
 * once, the subscription, topic policy and conversation read once per group, not per message), and the message
 * ids of each bucket come as text that is spliced into the answer without json-c objects for each id.
 * Reference: Zulip zerver/lib/message.py (get_raw_unread_data, aggregate_unread_data).
 */
#ifndef CONFAB_UNREAD_H
#define CONFAB_UNREAD_H

#include <json-c/json.h>
#include <stdbool.h>

struct uow;

/* The most unread messages read (newest first); old_unreads_missing when there are as many. */
#define UNREAD_MAX_MESSAGES 50000

struct unread_job;

/*
 * Starts reading uow->user's unread_msgs on a second connection of the pool, in the snapshot of uow's REPEATABLE READ
 * transaction (exported, and imported there with SET TRANSACTION SNAPSHOT): PostgreSQL reads them, on another core,
 * while the request builds the rest of its answer. NULL when no connection is free now (or for a spectator):
 * unread_state() reads them on uow's connection then. The job ends with uow's memory.
 */
struct unread_job *unread_start(struct uow *uow, bool empty_topic_name);
/*
 * Adds unread_msgs to out for uow->user (empty for a spectator): job's (NULL: none started), or read on uow's
 * connection when there is no job or it failed; empty_topic_name: the client's capability (else the empty topic shows
 * as "general chat", in that topic's bucket). 0, or -1 with the error recorded.
 */
int unread_state(struct uow *uow, struct unread_job *job, bool empty_topic_name, json_object *out);

#endif
