/*
 * Request parameter parsing: query strings and application/x-www-form-urlencoded bodies, and
 * multipart/form-data bodies. Every value is made valid UTF-8 (invalid bytes become U+FFFD), as the
 * reference does when it decodes form data.
 */
#ifndef CONFAB_FORM_H
#define CONFAB_FORM_H

#include <stddef.h>

struct request;

/*
 * Adds every name=value pair of s (len bytes) to req; malformed escapes are kept literally. Returns 0, or -1 with
 * the error recorded (nothing added) when s has more than FORM_MAX_FIELDS fields (core/limits.h): 400 "Bad Request".
 */
int form_parse_urlencoded(struct request *req, const char *s, size_t len);
/*
 * Adds the parts of a multipart body; content_type is the full header (with boundary=). File parts keep
 * their bytes as they are. Returns 0, or -1 if the body is not valid multipart (nothing is added then), a part
 * whose headers hold a CR or LF outside a CRLF line break included; or -1 with the error recorded past the bounds
 * of core/limits.h: more than FORM_MAX_FIELDS fields or FORM_MAX_FILES files (400 "Bad Request"), more than
 * FORM_MAX_BYTES in its fields (413).
 */
int form_parse_multipart(struct request *req, const char *content_type, const char *body, size_t len);
/*
 * Copies len bytes into req's arena with every invalid UTF-8 byte replaced by U+FFFD; the new length goes to
 * *outlen. With req NULL nothing is copied (returns NULL) and only *outlen is computed.
 */
char *form_repair_utf8(struct request *req, const char *s, size_t len, size_t *outlen);
/*
 * A path with every byte that is not part of valid UTF-8 written as %XX, as the reference's Django decodes a path
 * (repercent_broken_unicode): s itself when it is valid, else a copy in req's arena. Nothing invalid reaches SQL.
 */
char *form_repercent_utf8(struct request *req, const char *s);
/*
 * Parses the body of a POST, PATCH, PUT or DELETE according to req->content_type; other methods' bodies and
 * unknown types are ignored. A urlencoded body holds at most FORM_MAX_BYTES (413 past it). Returns 0 or -1 (error
 * recorded).
 */
int form_parse_body(struct request *req);

#endif
