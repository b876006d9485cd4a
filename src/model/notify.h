/*
 * Direct messages from the organization's Notification Bot (the reference's internal_prep_private_message +
 * do_send_messages with sender NOTIFICATION_BOT), and the silent mention syntax such notices name people with.
 */
#ifndef CONFAB_NOTIFY_H
#define CONFAB_NOTIFY_H

#include <stdint.h>

struct uow;
struct user;

/* The reference's silent_mention_syntax_for_user: "@_**Full Name|id**" (an arena string). */
const char *notify_mention(struct uow *uow, const struct user *u);

/*
 * Sends content (raw Markdown) as the Notification Bot of the unit of work's organization to recipient_id as a
 * one-to-one direct message: content normalized, client "Internal", mention checks skipped, the message events
 * recorded. Returns the new message's id, or 0 with the error recorded.
 */
int64_t notify_direct(struct uow *uow, int64_t recipient_id, const char *content);

enum notify_bot { NOTIFY_NOTIFICATION_BOT, NOTIFY_WELCOME_BOT };
/* notify_direct() from another system bot of the organization. */
int64_t notify_direct_as(struct uow *uow, enum notify_bot which, int64_t recipient_id, const char *content);

#endif
