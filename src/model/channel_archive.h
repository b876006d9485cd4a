/*
 * Archiving and unarchiving channels (the reference's do_deactivate_stream and do_unarchive_stream in
 * zerver/actions/streams.py), the access check of the channel administration endpoints, and the Notification Bot
 * messages in a channel's "channel events" topic.
 *
 * An archived channel keeps its messages and subscriptions; it leaves the default channels and the organization's
 * moderation request channel. Clients that declared the archived_channels capability keep seeing it (a `stream`
 * update with property is_archived); the others see it deleted (`stream` delete) and created again when it is
 * unarchived (`stream` create): events/events.c chooses per queue, from the private keys _for_archiving and
 * _for_unarchiving.
 */
#ifndef CONFAB_CHANNEL_ARCHIVE_H
#define CONFAB_CHANNEL_ARCHIVE_H

#include <stdbool.h>
#include <stdint.h>

struct uow;
struct channel;

/*
 * The reference's access_stream_for_delete_or_update_requiring_metadata_access: the channel id of the request's
 * organization if the user may administer it (an organization administrator, or a non-guest member of its
 * can_administer_channel_group). Otherwise NULL with "You do not have permission to administer this channel." when
 * the user has content access, else "Invalid channel ID" (also for an unknown id).
 */
struct channel *channel_admin_access_by_id(struct uow *uow, int64_t id);

/*
 * Archives channel c: "Channel is already deactivated" if it is; otherwise marks it archived, removes it from the
 * default channels (default_streams event) and from the moderation request channel (realm update_dict event),
 * records `stream` update is_archived=true and `stream` delete for everyone who could see it, and posts
 * "Channel #**name** has been archived." as the Notification Bot, read by everyone. 0 or -1 (error recorded).
 */
int channel_archive(struct uow *uow, struct channel *c);

/*
 * Unarchives channel c: "Channel is not currently deactivated" if it is not archived, "Channel is private and have
 * no subscribers" for a private channel without subscribers; otherwise marks it active (and not web-public if it is
 * private), records `stream` update is_archived=false and `stream` create for everyone who can see it, and posts
 * "Channel #**name** has been unarchived." as the Notification Bot. 0 or -1 (error recorded).
 */
int channel_unarchive(struct uow *uow, struct channel *c);

/*
 * Sends content to channel c's "channel events" topic (the empty topic when the channel allows only that) as the
 * organization's Notification Bot, as the reference's maybe_send_channel_events_notice, with its message events.
 * all_read marks it read for every recipient (limit_unread_user_ids=set()), else it is unread for them all. Returns
 * the message id, or 0 on error.
 */
int64_t channel_events_notice(struct uow *uow, struct channel *c, const char *content, bool all_read);

#endif
