/*
 * Default channels: the channels of an organization that new users are subscribed to (channels.is_default), and
 * the `default_streams` event that tells clients the list changed (zerver/actions/default_streams.py).
 */
#ifndef CONFAB_DEFAULT_CHANNELS_H
#define CONFAB_DEFAULT_CHANNELS_H

#include <stdbool.h>

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

#endif
