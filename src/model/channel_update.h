/*
 * Changing a channel's properties (PATCH /streams/{id}; the reference's zerver/actions/streams.py): each function
 * stores one property of channel c, updates c in memory, records the reference's `stream` events for the users
 * who may see the channel (can_access_stream_metadata_user_ids), and posts the Notification Bot's notice in the
 * channel's "channel events" topic where the reference does. The checks are the caller's. Each returns 0, or -1
 * with the error recorded.
 */
#ifndef CONFAB_CHANNEL_UPDATE_H
#define CONFAB_CHANNEL_UPDATE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/channels.h"

struct uow;

/* invite_only, history_public_to_subscribers and is_web_public at once (do_change_stream_permission): users who
 * now see the channel get stream create and peer_add, users who no longer do get stream delete, the others the
 * update with property invite_only; notice "changed the access permissions". Sent even when nothing changes. */
int channel_set_privacy(struct uow *uow, struct channel *c, bool invite_only, bool history_public, bool web_public);
/* message_retention_days: is_null for the organization's setting, days -1 for forever. */
int channel_set_retention(struct uow *uow, struct channel *c, bool is_null, int days);
/* topics_policy (one of the four names); nothing when unchanged. */
int channel_set_topics_policy(struct uow *uow, struct channel *c, const char *policy);
/* description (already checked; newlines replaced) and its rendering. */
int channel_set_description(struct uow *uow, struct channel *c, const char *description);
/* name (already checked); the event's name is the old one. */
int channel_rename(struct uow *uow, struct channel *c, const char *name);
/* folder_id; 0 removes the channel from its folder. No notice. */
int channel_set_folder(struct uow *uow, struct channel *c, int64_t folder_id);
/*
 * Permission setting s to the client's group-setting value (checked and stored by group_setting_update() with
 * channel_setting_flags[s]). The settings that grant metadata access send stream create + peer_add to users who
 * gain it and stream delete to users who lose it; can_send_message_group also sends stream_post_policy and
 * is_announcement_only when the legacy policy changes, and the "posting permissions" notice.
 */
int channel_set_setting(struct uow *uow, struct channel *c, enum channel_setting s, json_object *value);

/* 1 if channel c has a message outside the empty topic, 0 if not, -1 on error. */
int channel_has_named_topics(struct uow *uow, const struct channel *c);

#endif
