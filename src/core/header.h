/*
 * The grammar of HTTP header fields (RFC 9110 section 5.6, as RFC 7230 and 7231 had it): every value taken from
 * a client or from storage is checked against it before it is written into a response header, so that no byte
 * of it can end the header line or start another header.
 */
#ifndef CONFAB_HEADER_H
#define CONFAB_HEADER_H

#include <stdbool.h>
#include <stddef.h>

/* The longest media type accepted (type and subtype are at most 127 characters each, RFC 6838 section 4.2). */
#define HEADER_MAX_MEDIA_TYPE 255

/* True if s (NUL-terminated) is a non-empty token: letters, digits and !#$%&'*+-.^_`|~. */
bool header_is_token(const char *s);
/*
 * True if s (NUL-terminated) is a field value: visible ASCII, space, horizontal tab and bytes >= 0x80 (obs-text),
 * not starting or ending with white space. No CR, LF, NUL or other control character.
 */
bool header_is_value(const char *s);
/*
 * True if s is a media type as Content-Type carries it: type "/" subtype *( OWS ";" OWS token "=" ( token /
 * quoted-string ) ), at most HEADER_MAX_MEDIA_TYPE bytes.
 */
bool header_is_media_type(const char *s);

#endif
