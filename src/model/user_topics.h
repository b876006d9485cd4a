/*
 * Users' topic preferences (the reference's UserTopic, zerver/lib/user_topics.py, zerver/actions/user_topics.py): a
 * visibility policy per user, channel and topic (a topic is matched ignoring case), stored in user_topics
 * (migrations/0014_user_topics.sql); "inherit" is the absence of a row. Changes record the user_topic event, and the
 * legacy muted_topics event before it (events/ serves that one only to queues that did not ask for user_topic).
 */
#ifndef CONFAB_USER_TOPICS_H
#define CONFAB_USER_TOPICS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;
struct channel;

/* UserTopic.VisibilityPolicy. */
enum topic_policy {
	TOPIC_INHERIT = 0,
	TOPIC_MUTED = 1,
	TOPIC_UNMUTED = 2,
	TOPIC_FOLLOWED = 3,
};

/*
 * SQL: whether a channel message is muted for a user (the reference's is_row_muted in get_raw_unread_data), given
 * the boolean SQL expression `channel_muted` (the user's subscription mutes the channel) and `policy` (the user's
 * user_topics.visibility_policy for the message's topic, NULL for none): in a muted channel only unmuted and
 * followed topics are not muted; elsewhere only muted topics are.
 */
#define USER_TOPICS_MUTED_SQL(channel_muted, policy)                                                                   \
	"(CASE WHEN COALESCE(" channel_muted ", false) THEN COALESCE(" policy ", 0) NOT IN (2, 3)"                     \
	" ELSE COALESCE(" policy ", 0) = 1 END)"

/*
 * bulk_do_set_user_topic_visibility_policy: sets the policy of the topic of channel c for the n users (inherit
 * deletes their rows), and records for each user whose row changed (created, updated or deleted) the muted_topics
 * event (unless skip_muted_topics_event) and the user_topic event, last_updated now. Setting a policy to its current
 * value changes nothing and records nothing. Returns 0 or -1 (error recorded).
 */
int user_topics_set(struct uow *uow, const int64_t *users, int n, const struct channel *c, const char *topic,
                    int policy, bool skip_muted_topics_event);

/*
 * The topic preferences a message move carries (the reference's do_update_message, when the move took every message
 * of the topic the acting user could see): from topic orig_topic of channel orig to target_topic of channel target,
 * merged with the target topic's preferences when it already had messages (target_had_messages, before the move);
 * users in losing (ascending: who lost access to the moved messages on a channel move) lose theirs instead.
 * Records the events of user_topics_set(). Returns 0 or -1.
 */
int user_topics_move(struct uow *uow, const struct channel *orig, const char *orig_topic, const struct channel *target,
                     const char *target_topic, bool target_had_messages, const int64_t *losing, int nlosing);

/*
 * For POST /register: the user's preferences in channels that are not archived, oldest first, as user_topics
 * objects (empty topic names as the display name unless empty_topic_name), or in the legacy muted_topics form
 * ([channel name, topic, timestamp] of muted topics). A new array owned by the uow, or NULL with the error recorded.
 */
json_object *user_topics_list(struct uow *uow, int64_t user_id, bool empty_topic_name);
json_object *user_topics_muted_list(struct uow *uow, int64_t user_id, bool empty_topic_name);

#endif
