/*
 * Default channels: the channels of an organization that new users are subscribed to (channels.is_default), and
 * the `default_streams` event that tells clients the list changed (zerver/actions/default_streams.py).
 */
#ifndef CONFAB_DEFAULT_CHANNELS_H
#define CONFAB_DEFAULT_CHANNELS_H

#include <stdbool.h>
#include <stdint.h>

struct uow;
struct channel;

/*
 * Makes channel c of the request's organization a default channel (is_default true) or not, as the reference's
 * do_add_default_stream / do_remove_default_stream: adding records the `default_streams` event (the ids of all
 * default channels that are not archived, ascending, to every active non-guest user) only when the channel was
 * not a default channel yet; removing always records it. No permission or privacy check: the caller's. 0 or -1
 * (error recorded).
 */
int default_channel_set(struct uow *uow, const struct channel *c, bool is_default);

/*
 * Subscribes a new user of realm_id to the organization's default channels that are not archived (the reference's
 * do_create_user for a human: bulk_add_subscriptions of the default streams), with the default colors. No events
 * (default_channels_events_subscribed() records them where there are queues to tell). 0 or -1.
 */
int default_channels_subscribe(struct uow *uow, int64_t realm_id, int64_t user_id);
/* The events of default_channels_subscribe() for user_id of the request's organization: subscription add to the
 * user and peer_add to the channels' other viewers (channel_events_subscribe()). 0 or -1. */
int default_channels_events_subscribed(struct uow *uow, int64_t user_id);

#endif
