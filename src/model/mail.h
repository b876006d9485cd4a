/*
 * Outgoing e-mail through the mail outbox: mail_enqueue() adds a mail in the caller's transaction, so that it is
 * sent if and only if the change that sends it commits; the reaper's mailer thread (mail_send_due()) sends due mails
 * one at a time through the configured SMTP relay, retrying a failed one after 30 s, 1, 2, 4 ... minutes (at most an
 * hour apart) and marking it failed after MAIL_MAX_ATTEMPTS. A claimed mail is leased for MAIL_LEASE_SECS, so a mailer
 * that dies while sending leaves it to be sent again (a mail may arrive twice, never not at all).
 */
#ifndef CONFAB_MAIL_H
#define CONFAB_MAIL_H

#include <stdint.h>

struct uow;
struct worker;

#define MAIL_MAX_ATTEMPTS 12
#define MAIL_LEASE_SECS   300

struct mail_draft {
	int64_t realm_id;      /* 0: none */
	const char *from_name; /* display name of the sender, e.g. "Iago (via confab)"; NULL for none */
	const char *to;        /* a valid address (callers check it) */
	const char *subject;
	const char *text;
	const char *html;
};

/* Adds the mail; returns its id, or 0 with the error recorded (also for an address with CR, LF, '<' or '>'). */
int64_t mail_enqueue(struct uow *uow, const struct mail_draft *m);

/*
 * Sends at most max due mails through the relay of w's configuration (smtp_url empty: none are sent). Returns how
 * many were sent, or -1 if PostgreSQL failed or the relay refused one (the caller waits before trying again).
 */
int mail_send_due(struct worker *w, unsigned long long n, int max);

#endif
