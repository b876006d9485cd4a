/* Message retention: deleting messages older than their channel's or organization's message_retention_days. */
#ifndef CONFAB_RETENTION_H
#define CONFAB_RETENTION_H

struct uow;
struct worker;

/* Messages deleted per transaction. */
#define RETENTION_BATCH 1000

/*
 * Deletes, in one transaction of uow, at most limit expired messages (oldest first): channel messages older than
 * their channel's message_retention_days (NULL: the organization's), direct messages older than the
 * organization's; -1 or NULL there keeps them forever. Each with the delete_message events of
 * DELETE /messages/{id} (message_events_delete()), published after COMMIT; their attachment links go with them.
 * Rows another run holds are skipped. Returns how many it deleted, or -1 with the error recorded (nothing deleted).
 */
int retention_delete_batch(struct uow *uow, int limit);

/* Runs batches, each in a unit of work of its own (log id), until one finds fewer than RETENTION_BATCH expired
 * messages. Returns how many messages it deleted, or -1 when a batch failed (logged; earlier batches stay). */
long retention_run(struct worker *w, unsigned long long id);

#endif
