/*
 * Composing an e-mail message (RFC 5322) with a plain-text and an HTML alternative (RFC 2046 multipart/alternative),
 * both UTF-8 in base64 (RFC 2045), and non-ASCII or long header text as RFC 2047 encoded-words. No I/O.
 */
#ifndef CONFAB_MIME_H
#define CONFAB_MIME_H

#include <time.h>

struct arena;

struct mime_mail {
	const char *from_name; /* display name (UTF-8), NULL or "" for none */
	const char *from;      /* address */
	const char *to;        /* address */
	const char *subject;   /* UTF-8 */
	const char *text;      /* UTF-8, the text/plain part */
	const char *html;      /* UTF-8, the text/html part */
	time_t date;
	const char *boundary;   /* of the multipart body: 1-70 characters of [0-9A-Za-z'()+_,-./:=?] (RFC 2046) */
	const char *message_id; /* "local@domain", without the angle brackets */
};

/*
 * The whole message, lines ending in CRLF, in a's memory; NULL if an address, the boundary or the message id
 * contains a character that has no place there (control characters, '<', '>', white space), so that no value can
 * add a header line.
 */
char *mime_message(struct arena *a, const struct mime_mail *m);

/* RFC 2047: s as it may stand in a header: unchanged if it is printable ASCII without "=?" and short (at most 60
 * bytes), else as "=?UTF-8?B?...?=" encoded-words of at most 75 characters, folded with CRLF SP, cut only between
 * UTF-8 characters. */
char *mime_header_text(struct arena *a, const char *s);

#endif
