/*
 * Sending one composed message to one recipient through an SMTP relay, with libcurl's SMTP support: smtp:// (with
 * STARTTLS as configured) or smtps:// URLs, optional credentials, bounded timeouts. Thread-safe once
 * curl_global_init() has run.
 */
#ifndef CONFAB_SMTP_H
#define CONFAB_SMTP_H

#include <stddef.h>

struct smtp_relay {
	const char *url;      /* "smtp://host:port", "smtps://host:465" */
	const char *username; /* "" or NULL: no authentication */
	const char *password;
	const char *tls; /* "none", "try" (STARTTLS when offered) or "required" */
};

/* Returns 0 once the relay accepted message for to, or -1 with the reason in err. */
int smtp_send(const struct smtp_relay *relay, const char *from, const char *to, const char *message, char *err,
              size_t errlen);

#endif
