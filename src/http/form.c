/* Query string, urlencoded and multipart parsing; see form.h. */
#include "http/form.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/limits.h"
#include "core/utf8.h"
#include "http/request.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The length of s with every invalid UTF-8 byte replaced by U+FFFD (3 bytes); *valid: nothing to replace. */
static size_t repaired_length(const unsigned char *s, size_t len, bool *valid)
{
	size_t m = 0;
	*valid = true;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t l = utf8_decode(s + i, len - i, &cp);
		*valid = *valid && l != 0;
		m += l ? l : 3;
		i += l ? l : 1;
	}
	return m;
}

/* Writes s with every invalid byte replaced by U+FFFD into out (repaired_length() bytes and a NUL). */
static void repair_into(char *out, const unsigned char *s, size_t len)
{
	size_t m = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t l = utf8_decode(s + i, len - i, &cp);
		memcpy(out + m, l ? (const void *)(s + i) : "\xef\xbf\xbd", l ? l : 3);
		m += l ? l : 3;
		i += l ? l : 1;
	}
	out[m] = '\0';
}

char *form_repair_utf8(struct request *req, const char *data, size_t len, size_t *outlen)
{
	bool valid;
	*outlen = repaired_length((const unsigned char *)data, len, &valid);
	if (req == NULL)
		return NULL;
	char *out = arena_alloc(&req->arena, *outlen + 1);
	repair_into(out, (const unsigned char *)data, len);
	return out;
}

char *form_repercent_utf8(struct request *req, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s);
	bool valid;
	size_t n = repaired_length(u, len, &valid);
	if (valid)
		return (char *)s;
	char *out = arena_alloc(&req->arena, n + 1), *o = out; /* %XX takes 3 bytes, as U+FFFD does */
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t l = utf8_decode(u + i, len - i, &cp);
		if (l == 0)
			o += sprintf(o, "%%%02X", u[i]);
		else
			o = (char *)memcpy(o, u + i, l) + l;
		i += l ? l : 1;
	}
	*o = '\0';
	return out;
}

/* Decodes %XX escapes and '+' of a form field, then repairs UTF-8: one copy when the field is valid UTF-8. */
static char *form_decode(struct request *req, const char *s, size_t len, size_t *outlen)
{
	char *tmp = arena_alloc(&req->arena, len + 1);
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < len && (hi = hexval(s[i + 1])) >= 0 && (lo = hexval(s[i + 2])) >= 0) {
			tmp[n++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			tmp[n++] = s[i] == '+' ? ' ' : s[i];
		}
	}
	tmp[n] = '\0';
	bool valid;
	*outlen = repaired_length((const unsigned char *)tmp, n, &valid);
	return valid ? tmp : form_repair_utf8(req, tmp, n, outlen);
}

/* The reference's Django refuses more than DATA_UPLOAD_MAX_NUMBER_FIELDS (FORM_MAX_FIELDS) fields in a query string
 * or a body, counting 1 + the separators, before it parses any: TooManyFieldsSent, its 400 page. */
static int too_many_fields(struct request *req)
{
	return api_error(req, ERR_BAD_REQUEST, "Bad Request");
}

int form_parse_urlencoded(struct request *req, const char *s, size_t len)
{
	size_t fields = 1;
	for (const char *amp = s; (amp = memchr(amp, '&', (size_t)(s + len - amp))) != NULL; amp++)
		if (++fields > FORM_MAX_FIELDS)
			return too_many_fields(req);
	size_t i = 0;
	while (i < len) {
		size_t end = i;
		while (end < len && s[end] != '&')
			end++;
		if (end > i) {
			const char *eq = memchr(s + i, '=', end - i);
			size_t klen = eq ? (size_t)(eq - (s + i)) : end - i;
			size_t nlen, vlen;
			char *name = form_decode(req, s + i, klen, &nlen);
			char *value = "";
			vlen = 0;
			if (eq != NULL)
				value = form_decode(req, eq + 1, (size_t)(s + end - eq - 1), &vlen);
			if (nlen > 0)
				request_add_param(req, name, value, vlen);
		}
		i = end + 1;
	}
	return 0;
}

/* Finds needle (nlen bytes) in hay (hlen bytes). */
static const char *memmem_s(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
	if (nlen == 0 || hlen < nlen)
		return NULL;
	for (size_t i = 0; i + nlen <= hlen; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
			return hay + i;
	return NULL;
}

/*
 * Extracts the value of attribute attr (e.g. "boundary" or "name") from a header value such as
 * `form-data; name="x"; filename="y"`. Returns an arena string or NULL.
 */
static char *header_attr(struct request *req, const char *h, size_t hlen, const char *attr)
{
	size_t alen = strlen(attr);
	for (size_t i = 0; i + alen < hlen; i++) {
		if ((i == 0 || h[i - 1] == ';' || h[i - 1] == ' ' || h[i - 1] == '\t') &&
		    strncasecmp(h + i, attr, alen) == 0 && h[i + alen] == '=') {
			const char *v = h + i + alen + 1;
			const char *end = h + hlen;
			if (v < end && *v == '"') {
				const char *q = memchr(v + 1, '"', (size_t)(end - v - 1));
				if (q == NULL)
					return NULL;
				return arena_strndup(&req->arena, v + 1, (size_t)(q - v - 1));
			}
			const char *e = v;
			while (e < end && *e != ';' && *e != ' ' && *e != '\t' && *e != '\r')
				e++;
			return arena_strndup(&req->arena, v, (size_t)(e - v));
		}
	}
	return NULL;
}

struct part {
	char *name, *filename, *ctype;
	const char *data;
	size_t len;
};

/*
 * True if every CR and LF of the header block [p, end) belongs to a CRLF line break. A header line ends at CRLF
 * only (RFC 7578 section 4.8, RFC 5322 section 2.2); a bare CR or LF would be kept inside a value, and a value
 * such as a part's Content-Type is later written into response headers.
 */
static bool has_only_crlf_breaks(const char *p, const char *end)
{
	for (const char *c = p; c < end; c++) {
		if (*c == '\r' && (c + 1 >= end || c[1] != '\n'))
			return false;
		if (*c == '\n' && (c == p || c[-1] != '\r'))
			return false;
	}
	return true;
}

/* Parses the headers of one part (from p to the blank line). Returns 0 or -1. */
static int parse_part(struct request *req, const char *p, size_t len, struct part *out)
{
	const char *sep = memmem_s(p, len, "\r\n\r\n", 4);
	if (sep == NULL || !has_only_crlf_breaks(p, sep + 2))
		return -1;
	memset(out, 0, sizeof(*out));
	const char *line = p;
	while (line < sep) {
		const char *eol = memmem_s(line, (size_t)(sep + 2 - line), "\r\n", 2);
		size_t llen = (size_t)(eol - line);
		if (llen > 20 && strncasecmp(line, "Content-Disposition:", 20) == 0) {
			out->name = header_attr(req, line + 20, llen - 20, "name");
			out->filename = header_attr(req, line + 20, llen - 20, "filename");
		} else if (llen > 13 && strncasecmp(line, "Content-Type:", 13) == 0) {
			const char *v = line + 13;
			while (*v == ' ')
				v++;
			out->ctype = arena_strndup(&req->arena, v, (size_t)(eol - v));
		}
		line = eol + 2;
	}
	if (out->name == NULL)
		return -1;
	out->data = sep + 4;
	out->len = (size_t)(p + len - out->data);
	return 0;
}

/* Django's bounds on a multipart body, as FORM_MAX_FIELDS on a urlencoded one: at most FORM_MAX_FIELDS fields
 * (TooManyFieldsSent) and FORM_MAX_FILES files (TooManyFilesSent), both its 400; and at most FORM_MAX_BYTES of
 * fields, files not counted (its DATA_UPLOAD_MAX_MEMORY_SIZE; a 413 here, as for a body over its bound). */
static int check_parts(struct request *req, const struct part *parts, size_t nparts)
{
	size_t files = 0, fields = 0, bytes = 0;
	for (size_t i = 0; i < nparts; i++) {
		if (parts[i].filename != NULL) {
			files++;
		} else {
			fields++;
			bytes += parts[i].len;
		}
	}
	if (files > FORM_MAX_FILES || fields > FORM_MAX_FIELDS)
		return too_many_fields(req);
	return bytes > FORM_MAX_BYTES ? api_error(req, ERR_TOO_LARGE, NULL) : 0;
}

/* Adds the parts as parameters: file parts keep their bytes (copied, NUL-terminated), the others are repaired. */
static void add_parts(struct request *req, const struct part *parts, size_t nparts)
{
	for (size_t i = 0; i < nparts; i++) {
		const struct part *pt = &parts[i];
		/* Names are repaired like values (as the reference does): they are echoed in JSON responses. */
		size_t nlen, vlen;
		char *name = form_repair_utf8(req, pt->name, strlen(pt->name), &nlen);
		if (pt->filename != NULL) {
			request_add_param(req, name, arena_strndup(&req->arena, pt->data, pt->len), pt->len);
			req->raw[req->nraw - 1].filename = pt->filename;
			req->raw[req->nraw - 1].content_type = pt->ctype;
			continue;
		}
		char *value = form_repair_utf8(req, pt->data, pt->len, &vlen);
		request_add_param(req, name, value, vlen);
	}
}

int form_parse_multipart(struct request *req, const char *content_type, const char *body, size_t len)
{
	char *b = header_attr(req, content_type, strlen(content_type), "boundary");
	if (b == NULL || *b == '\0' || strlen(b) > 200)
		return -1;
	char *delim = arena_printf(&req->arena, "--%s", b);
	char *next_delim = arena_printf(&req->arena, "\r\n%s", delim);
	size_t dlen = strlen(delim);
	const char *p = memmem_s(body, len, delim, dlen);
	if (p == NULL)
		return -1;
	size_t nparts = 0, cap = 8;
	struct part *parts = arena_alloc(&req->arena, cap * sizeof(*parts));
	for (;;) {
		p += dlen;
		const char *end = body + len;
		if (end - p >= 2 && p[0] == '-' && p[1] == '-')
			break; /* closing delimiter */
		if (end - p < 2 || p[0] != '\r' || p[1] != '\n')
			return -1;
		p += 2;
		const char *next = memmem_s(p, (size_t)(end - p), next_delim, dlen + 2);
		if (next == NULL)
			return -1;
		if (nparts == FORM_MAX_FIELDS + FORM_MAX_FILES)
			return too_many_fields(req);
		if (nparts == cap) {
			struct part *np = arena_alloc(&req->arena, cap * 2 * sizeof(*np));
			memcpy(np, parts, cap * sizeof(*np));
			parts = np;
			cap *= 2;
		}
		if (parse_part(req, p, (size_t)(next - p), &parts[nparts]) < 0)
			return -1;
		nparts++;
		p = next + 2;
	}
	if (check_parts(req, parts, nparts) < 0)
		return -1;
	add_parts(req, parts, nparts);
	return 0;
}

int form_parse_body(struct request *req)
{
	const char *ct = req->content_type;
	const char *m = req->method;
	/* Like the reference (Django plus its PATCH/PUT/DELETE support): GET bodies are not parameters. */
	if (req->body_len == 0 ||
	    (strcmp(m, "POST") != 0 && strcmp(m, "PATCH") != 0 && strcmp(m, "PUT") != 0 && strcmp(m, "DELETE") != 0))
		return 0;
	if (strncasecmp(ct, "application/x-www-form-urlencoded", 33) == 0) {
		if (req->body_len > FORM_MAX_BYTES)
			return api_error(req, ERR_TOO_LARGE, NULL);
		return form_parse_urlencoded(req, req->body, req->body_len);
	}
	if (strncasecmp(ct, "multipart/form-data", 19) == 0) {
		if (form_parse_multipart(req, ct, req->body, req->body_len) < 0)
			return api_error(req, ERR_BAD_REQUEST, "Malformed multipart request body");
		return 0;
	}
	return 0;
}
