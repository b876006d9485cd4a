/* Uploaded files, their rows, access to them and their links to messages; see attachments.h. */
#include "model/attachments.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wctype.h>

#include "core/utf8.h"
#include "core/arena.h"
#include "core/config.h"
#include "core/log.h"
#include "db/db.h"
#include "core/header.h"
#include "core/jsonx.h"
#include "core/uow.h"
#include "model/realm.h"
#include "model/user.h"
#include "redis/redis.h"

#define MAX_FILE_NAME_BYTES 255  /* a path component on Linux file systems */
#define MAX_UPLOAD_NAME     255  /* characters of an uploaded file's name (Django's UploadedFile) */
#define TOKEN_TTL_SECONDS   "60" /* the reference's SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS */

/* ---- code points ---------------------------------------------------------------------------------------- */

/* A string as code points, so that the reference's Unicode rules can be applied one character at a time. */
struct cps {
	uint32_t *v;
	size_t n;
};

static struct cps cps_decode(struct arena *a, const char *s, size_t len)
{
	struct cps out = {arena_alloc(a, (len + 1) * sizeof(uint32_t)), 0};
	for (size_t i = 0; i < len;) {
		size_t l = utf8_decode((const unsigned char *)s + i, len - i, &out.v[out.n++]);
		i += l ? l : 1; /* an invalid byte counts as one U+FFFD */
	}
	return out;
}

static size_t utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static char *cps_encode(struct arena *a, struct cps s)
{
	char *out = arena_alloc(a, s.n * 4 + 1);
	size_t m = 0;
	for (size_t i = 0; i < s.n; i++)
		m += utf8_encode(s.v[i], out + m);
	out[m] = '\0';
	return out;
}

/* The "C.UTF-8" character classes (glibc's, generated from Unicode), for letters and digits beyond ASCII. */
static locale_t utf8_locale;
static pthread_once_t utf8_locale_once = PTHREAD_ONCE_INIT;

static void utf8_locale_init(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Python's str.isspace(), which \s and strip() use. */
static bool is_space(uint32_t c)
{
	return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/* Python's \w: letters, digits and '_' of any script. */
static bool is_word(uint32_t c)
{
	if (c < 0x80)
		return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
	pthread_once(&utf8_locale_once, utf8_locale_init);
	/* Without the locale, keep every non-ASCII character: still a valid file name and URL path. */
	return utf8_locale == (locale_t)0 || iswalnum_l((wint_t)c, utf8_locale);
}

/* Format characters (Unicode Cf) that Python's str.isprintable() refuses. */
static bool is_format(uint32_t c)
{
	return c == 0xad || (c >= 0x600 && c <= 0x605) || c == 0x61c || c == 0x6dd || c == 0x70f || c == 0x180e ||
	       (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
	       (c >= 0x2066 && c <= 0x206f) || c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb) || c == 0x110bd ||
	       (c >= 0x1d173 && c <= 0x1d17a) || c == 0xe0001 || (c >= 0xe0020 && c <= 0xe007f);
}

/* Python's str.isprintable(): no control, format, private-use or unassigned characters, no space but ' '. */
static bool is_printable(uint32_t c)
{
	if (c < 0x80)
		return c >= 0x20 && c != 0x7f;
	if (c <= 0x9f || (is_space(c) && c != 0x20) || is_format(c) || (c >= 0xe000 && c <= 0xf8ff) || c >= 0xf0000)
		return false;
	pthread_once(&utf8_locale_once, utf8_locale_init);
	return utf8_locale == (locale_t)0 || iswprint_l((wint_t)c, utf8_locale);
}

/* ---- the uploaded file's name ----------------------------------------------------------------------------- */

static const struct {
	const char *name;
	uint32_t cp;
} entities[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}, {"nbsp", 0xa0}};

/* The character of the HTML character reference at s[*i] ('&'); advances *i past it. 0 if there is none. */
static uint32_t html_reference(struct cps s, size_t *i)
{
	size_t j = *i + 1, end = j;
	while (end < s.n && end - j < 10 && s.v[end] != ';')
		end++;
	if (end >= s.n || s.v[end] != ';' || end == j)
		return 0;
	char name[12];
	for (size_t k = j; k < end; k++)
		name[k - j] = s.v[k] < 0x80 ? (char)s.v[k] : '?';
	name[end - j] = '\0';
	uint32_t cp = 0;
	if (name[0] == '#') {
		char *stop;
		bool hex = name[1] == 'x' || name[1] == 'X';
		unsigned long v = strtoul(name + (hex ? 2 : 1), &stop, hex ? 16 : 10);
		if (*stop != '\0' || stop == name + (hex ? 2 : 1))
			return 0;
		cp = (v == 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) ? 0xfffd : (uint32_t)v;
	} else {
		for (size_t k = 0; k < sizeof(entities) / sizeof(entities[0]) && cp == 0; k++)
			if (strcmp(name, entities[k].name) == 0)
				cp = entities[k].cp;
		if (cp == 0)
			return 0;
	}
	*i = end;
	return cp;
}

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

/* Decodes the %XX escapes of s (Python's unquote); the bytes they give are read as UTF-8 later. */
static char *percent_decode(struct arena *a, const char *s, size_t *len)
{
	size_t n = strlen(s), m = 0;
	char *out = arena_alloc(a, n + 1);
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n + 1 && (hi = hexval(s[i + 1])) >= 0 && (lo = hexval(s[i + 2])) >= 0) {
			out[m++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[m++] = s[i];
		}
	}
	out[m] = '\0';
	*len = m;
	return out;
}

/*
 * Django's UploadedFile name rule: at most max characters, keeping the extension (os.path.splitext: from the last
 * '.', unless only dots come before it; an extension longer than max is cut to max characters). In place.
 */
static void truncate_chars(struct cps *s, size_t max)
{
	if (s->n <= max)
		return;
	size_t ext = 0; /* the extension's length, its '.' included */
	size_t dot = s->n;
	while (dot > 0 && s->v[dot - 1] != '.')
		dot--;
	for (size_t i = 0; dot > 0 && i + 1 < dot; i++)
		if (s->v[i] != '.') {
			ext = s->n - (dot - 1);
			break;
		}
	size_t kept = ext > max ? max : ext;
	memmove(s->v + (max - kept), s->v + (s->n - ext), kept * sizeof(*s->v));
	s->n = max;
}

char *attachments_file_name(struct arena *a, const char *raw, size_t len)
{
	/* As Django's MultiPartParser.sanitize_file_name ... */
	struct cps s = cps_decode(a, raw, len);
	size_t n = 0, start = 0;
	for (size_t i = 0; i < s.n; i++) {
		uint32_t c = s.v[i];
		if (c == '&') {
			uint32_t ref = html_reference(s, &i);
			c = ref ? ref : '&';
		}
		s.v[n++] = c;
		if (c == '/' || c == '\\')
			start = n;
	}
	size_t m = 0;
	for (size_t i = start; i < n; i++)
		if (is_printable(s.v[i]))
			s.v[m++] = s.v[i];
	s.n = m;
	if (m == 0 || (m == 1 && s.v[0] == '.') || (m == 2 && s.v[0] == '.' && s.v[1] == '.'))
		return NULL;
	/* ... then as UploadedFile does (the bound keeps Content-Disposition within nginx's header buffer) ... */
	truncate_chars(&s, MAX_UPLOAD_NAME);
	/* ... then as the reference's get_file_info (unquote) and upload_message_attachment (no NUL). */
	size_t dlen;
	char *decoded = percent_decode(a, cps_encode(a, s), &dlen);
	s = cps_decode(a, decoded, dlen);
	m = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i] != 0)
			s.v[m++] = s.v[i];
	s.n = m;
	return cps_encode(a, s);
}

/* Precomposed Latin letters: what NFKC makes of a letter followed by one of the common combining marks. */
static const struct {
	uint32_t base, mark, composed;
} compositions[] = {
    {'A', 0x300, 0xc0},  {'E', 0x300, 0xc8},  {'I', 0x300, 0xcc},  {'O', 0x300, 0xd2},  {'U', 0x300, 0xd9},
    {'a', 0x300, 0xe0},  {'e', 0x300, 0xe8},  {'i', 0x300, 0xec},  {'o', 0x300, 0xf2},  {'u', 0x300, 0xf9},
    {'A', 0x301, 0xc1},  {'E', 0x301, 0xc9},  {'I', 0x301, 0xcd},  {'O', 0x301, 0xd3},  {'U', 0x301, 0xda},
    {'Y', 0x301, 0xdd},  {'a', 0x301, 0xe1},  {'e', 0x301, 0xe9},  {'i', 0x301, 0xed},  {'o', 0x301, 0xf3},
    {'u', 0x301, 0xfa},  {'y', 0x301, 0xfd},  {'C', 0x301, 0x106}, {'c', 0x301, 0x107}, {'N', 0x301, 0x143},
    {'n', 0x301, 0x144}, {'S', 0x301, 0x15a}, {'s', 0x301, 0x15b}, {'Z', 0x301, 0x179}, {'z', 0x301, 0x17a},
    {'A', 0x302, 0xc2},  {'E', 0x302, 0xca},  {'I', 0x302, 0xce},  {'O', 0x302, 0xd4},  {'U', 0x302, 0xdb},
    {'a', 0x302, 0xe2},  {'e', 0x302, 0xea},  {'i', 0x302, 0xee},  {'o', 0x302, 0xf4},  {'u', 0x302, 0xfb},
    {'A', 0x303, 0xc3},  {'N', 0x303, 0xd1},  {'O', 0x303, 0xd5},  {'a', 0x303, 0xe3},  {'n', 0x303, 0xf1},
    {'o', 0x303, 0xf5},  {'A', 0x308, 0xc4},  {'E', 0x308, 0xcb},  {'I', 0x308, 0xcf},  {'O', 0x308, 0xd6},
    {'U', 0x308, 0xdc},  {'a', 0x308, 0xe4},  {'e', 0x308, 0xeb},  {'i', 0x308, 0xef},  {'o', 0x308, 0xf6},
    {'u', 0x308, 0xfc},  {'y', 0x308, 0xff},  {'Y', 0x308, 0x178}, {'A', 0x30a, 0xc5},  {'a', 0x30a, 0xe5},
    {'U', 0x30a, 0x16e}, {'u', 0x30a, 0x16f}, {'C', 0x327, 0xc7},  {'c', 0x327, 0xe7},  {'S', 0x327, 0x15e},
    {'s', 0x327, 0x15f}, {'C', 0x30c, 0x10c}, {'c', 0x30c, 0x10d}, {'D', 0x30c, 0x10e}, {'d', 0x30c, 0x10f},
    {'E', 0x30c, 0x11a}, {'e', 0x30c, 0x11b}, {'N', 0x30c, 0x147}, {'n', 0x30c, 0x148}, {'R', 0x30c, 0x158},
    {'r', 0x30c, 0x159}, {'S', 0x30c, 0x160}, {'s', 0x30c, 0x161}, {'T', 0x30c, 0x164}, {'t', 0x30c, 0x165},
    {'Z', 0x30c, 0x17d}, {'z', 0x30c, 0x17e},
};

/* The NFKC replacement of compatibility character c (buf may hold it), or NULL. */
static const char *compatibility(uint32_t c, char buf[2])
{
	static const char *const super[] = {"0", "i", NULL, NULL, "4", "5", "6", "7", "8", "9"};
	static const char *const ligatures[] = {"ff", "fi", "fl", "ffi", "ffl", "st", "st"};
	buf[1] = '\0';
	if (c >= 0xff01 && c <= 0xff5e) {
		buf[0] = (char)(c - 0xfee0); /* fullwidth ASCII */
		return buf;
	}
	if (c >= 0x2080 && c <= 0x2089) {
		buf[0] = (char)('0' + c - 0x2080);
		return buf;
	}
	if (c == 0xa0 || (c >= 0x2000 && c <= 0x200a) || c == 0x202f || c == 0x205f || c == 0x3000)
		return " ";
	if (c >= 0x2070 && c <= 0x2079)
		return super[c - 0x2070];
	if (c >= 0xfb00 && c <= 0xfb06)
		return ligatures[c - 0xfb00];
	switch (c) {
	case 0xaa: return "a";
	case 0xb2: return "2";
	case 0xb3: return "3";
	case 0xb9: return "1";
	case 0xba: return "o";
	case 0xbc: return "1\u20444";
	case 0xbd: return "1\u20442";
	case 0xbe: return "3\u20444";
	case 0x2026: return "...";
	case 0x2122: return "TM";
	default: return NULL;
	}
}

/* An approximation of NFKC: common compatibility characters and precomposed Latin letters. */
static struct cps nfkc(struct arena *a, struct cps s)
{
	struct cps out = {arena_alloc(a, (s.n * 3 + 1) * sizeof(uint32_t)), 0};
	for (size_t i = 0; i < s.n; i++) {
		uint32_t c = s.v[i];
		char buf[2];
		const char *repl = compatibility(c, buf);
		if (repl != NULL) {
			struct cps r = cps_decode(a, repl, strlen(repl));
			for (size_t k = 0; k < r.n; k++)
				out.v[out.n++] = r.v[k];
			continue;
		}
		if (out.n > 0)
			for (size_t k = 0; k < sizeof(compositions) / sizeof(compositions[0]); k++)
				if (compositions[k].mark == c && compositions[k].base == out.v[out.n - 1]) {
					out.v[out.n - 1] = compositions[k].composed;
					c = 0;
					break;
				}
		if (c != 0)
			out.v[out.n++] = c;
	}
	return out;
}

/* Python's truncate_file_name: at most max bytes, keeping the extension when the rest of the name fits. */
static char *truncate_name(struct arena *a, char *name, size_t max)
{
	size_t len = strlen(name);
	if (len <= max)
		return name;
	/* os.path.splitext: the last '.', unless only dots come before it. */
	char *dot = strrchr(name, '.');
	size_t ext = 0;
	if (dot != NULL && strspn(name, ".") < (size_t)(dot - name))
		ext = len - (size_t)(dot - name);
	if (ext >= max)
		ext = 0;
	size_t stem = max - ext;
	/* Cutting the UTF-8 of the stem can split a character: drop the partial one. */
	while (stem > 0 && ((unsigned char)name[stem] & 0xc0) == 0x80)
		stem--;
	char *out = arena_alloc(a, max + 1);
	memcpy(out, name, stem);
	memcpy(out + stem, name + len - ext, ext);
	out[stem + ext] = '\0';
	return out;
}

char *attachments_sanitize_name(struct arena *a, const char *name)
{
	struct cps s = nfkc(a, cps_decode(a, name, strlen(name)));
	size_t n = 0;
	for (size_t i = 0; i < s.n; i++)
		if (is_word(s.v[i]) || is_space(s.v[i]) || s.v[i] == '.' || s.v[i] == '-')
			s.v[n++] = s.v[i];
	size_t start = 0;
	while (start < n && is_space(s.v[start]))
		start++;
	while (n > start && is_space(s.v[n - 1]))
		n--;
	struct cps out = {s.v, 0};
	for (size_t i = start; i < n; i++) {
		bool dash = s.v[i] == '-' || is_space(s.v[i]);
		if (dash && i > start && (s.v[i - 1] == '-' || is_space(s.v[i - 1])))
			continue; /* one '-' for the whole run */
		out.v[out.n++] = dash ? '-' : s.v[i];
	}
	char *value = truncate_name(a, cps_encode(a, out), MAX_FILE_NAME_BYTES);
	if (strcmp(value, "") == 0 || strcmp(value, ".") == 0 || strcmp(value, "..") == 0)
		return arena_strdup(a, "uploaded-file");
	return value;
}

/* ---- content types ---------------------------------------------------------------------------------------- */

/* The reference's INLINE_MIME_TYPES: what may be shown in the browser rather than downloaded. */
static const char *const inline_types[] = {
    "audio/aac",  "audio/flac", "audio/mp4",  "audio/mpeg", "audio/wav",  "audio/webm", "application/pdf", "image/apng",
    "image/avif", "image/gif",  "image/jpeg", "image/png",  "image/webp", "text/plain", "video/mp4",       "video/webm",
};

/* Python's mimetypes (with the reference's additions) for the usual extensions. */
static const struct {
	const char *ext, *type;
} mime_types[] = {
    {"7z", "application/x-7z-compressed"},
    {"aac", "audio/aac"},
    {"apng", "image/apng"},
    {"avi", "video/x-msvideo"},
    {"avif", "image/avif"},
    {"bin", "application/octet-stream"},
    {"bmp", "image/bmp"},
    {"c", "text/x-csrc"},
    {"css", "text/css"},
    {"csv", "text/csv"},
    {"doc", "application/msword"},
    {"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
    {"eml", "message/rfc822"},
    {"epub", "application/epub+zip"},
    {"flac", "audio/flac"},
    {"gif", "image/gif"},
    {"h", "text/x-chdr"},
    {"heic", "image/heic"},
    {"htm", "text/html"},
    {"html", "text/html"},
    {"ico", "image/vnd.microsoft.icon"},
    {"ics", "text/calendar"},
    {"jpe", "image/jpeg"},
    {"jpeg", "image/jpeg"},
    {"jpg", "image/jpeg"},
    {"js", "text/javascript"},
    {"json", "application/json"},
    {"m4a", "audio/mp4"},
    {"m4v", "video/mp4"},
    {"md", "text/markdown"},
    {"mjs", "text/javascript"},
    {"mkv", "video/x-matroska"},
    {"mov", "video/quicktime"},
    {"mp3", "audio/mpeg"},
    {"mp4", "video/mp4"},
    {"odp", "application/vnd.oasis.opendocument.presentation"},
    {"ods", "application/vnd.oasis.opendocument.spreadsheet"},
    {"odt", "application/vnd.oasis.opendocument.text"},
    {"oga", "audio/ogg"},
    {"ogg", "audio/ogg"},
    {"opus", "audio/ogg"},
    {"pdf", "application/pdf"},
    {"png", "image/png"},
    {"ppt", "application/vnd.ms-powerpoint"},
    {"pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
    {"py", "text/x-python"},
    {"rar", "application/vnd.rar"},
    {"rtf", "application/rtf"},
    {"sh", "text/x-sh"},
    {"svg", "image/svg+xml"},
    {"tar", "application/x-tar"},
    {"tif", "image/tiff"},
    {"tiff", "image/tiff"},
    {"tsv", "text/tab-separated-values"},
    {"txt", "text/plain"},
    {"wasm", "application/wasm"},
    {"wav", "audio/wav"},
    {"weba", "audio/webm"},
    {"webm", "video/webm"},
    {"webp", "image/webp"},
    {"xls", "application/vnd.ms-excel"},
    {"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
    {"xml", "application/xml"},
    {"zip", "application/zip"},
};

/* mimetypes.guess_type(name)[0]: by extension (case-insensitively), behind a compression suffix. */
static const char *guess_type(struct arena *a, const char *name)
{
	static const char *const suffixes[][2] = {{".tgz", ".tar.gz"},   {".taz", ".tar.gz"}, {".tz", ".tar.gz"},
	                                          {".tbz2", ".tar.bz2"}, {".txz", ".tar.xz"}, {".svgz", ".svg.gz"}};
	static const char *const encodings[] = {".gz", ".Z", ".bz2", ".xz", ".br"};
	char *s = arena_strdup(a, name);
	char *dot = strrchr(s, '.');
	for (size_t i = 0; dot != NULL && i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (strcasecmp(dot, suffixes[i][0]) == 0) {
			*dot = '\0';
			s = arena_printf(a, "%s%s", s, suffixes[i][1]);
			dot = strrchr(s, '.');
		}
	for (size_t i = 0; dot != NULL && i < sizeof(encodings) / sizeof(encodings[0]); i++)
		if (strcmp(dot, encodings[i]) == 0) {
			*dot = '\0';
			dot = strrchr(s, '.');
			break;
		}
	if (dot == NULL || strchr(dot, '/') != NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(mime_types) / sizeof(mime_types[0]); i++)
		if (strcasecmp(dot + 1, mime_types[i].ext) == 0)
			return mime_types[i].type;
	return NULL;
}

/* The media type of a Content-Type value as Python's email package reads it: lowercase, text/plain if invalid. */
static char *bare_type(struct arena *a, const char *content_type)
{
	char *s = arena_strdup(a, content_type);
	s[strcspn(s, ";")] = '\0';
	s = arena_strip(a, s);
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	char *slash = strchr(s, '/');
	if (slash == NULL || strchr(slash + 1, '/') != NULL)
		return arena_strdup(a, "text/plain");
	return s;
}

bool attachments_is_inline(const char *content_type)
{
	struct arena a;
	arena_init(&a);
	const char *bare = bare_type(&a, content_type);
	bool found = false;
	for (size_t i = 0; i < sizeof(inline_types) / sizeof(inline_types[0]) && !found; i++)
		found = strcmp(bare, inline_types[i]) == 0;
	arena_free(&a);
	return found;
}

/* The charset chardet would report with enough confidence for the reference to add it, or NULL. */
static const char *detect_charset(const char *data, size_t len)
{
	if (len == 0)
		return NULL;
	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		return "UTF-8-SIG";
	size_t multibyte = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_decode((const unsigned char *)data + i, len - i, &cp);
		if (n == 0)
			return NULL; /* not UTF-8: chardet's guess between legacy encodings is not reproduced */
		multibyte += n > 1;
		i += n;
	}
	/* chardet's UTF-8 confidence is 1 - 0.99 * 0.5^n below 6 characters; the reference wants 0.66. */
	return multibyte == 0 ? "ascii" : multibyte >= 2 ? "utf-8" : NULL;
}

/* A header parameter as Python's email package formats it: name="value", or RFC 2231 for non-ASCII. */
static char *format_param(struct arena *a, const char *name, const char *value)
{
	for (const char *p = value; *p; p++)
		if ((unsigned char)*p >= 0x80)
			return arena_printf(a, "%s*=utf-8''%s", name, attachments_quote(a, value));
	char *q = arena_alloc(a, strlen(value) * 2 + 1), *o = q;
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == '"')
			*o++ = '\\';
		*o++ = *p;
	}
	return arena_printf(a, "%s=\"%s\"", name, q);
}

/*
 * Django's parse of a part's Content-Type: the media type (lowercase) and its parameters, re-formatted as the
 * reference's get_file_info does. Sets *has_charset.
 */
static char *part_type_with_params(struct arena *a, const char *value, bool *has_charset)
{
	char *s = arena_strdup(a, value), *out = NULL;
	*has_charset = false;
	for (char *p = s;;) {
		/* Split at ';' outside quoted strings. */
		char *q = p;
		bool quoted = false;
		while (*q && (quoted || *q != ';')) {
			if (*q == '"' && (q == p || q[-1] != '\\'))
				quoted = !quoted;
			q++;
		}
		bool last = *q == '\0';
		*q = '\0';
		char *part = arena_strip(a, p);
		if (out == NULL) {
			for (char *c = part; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			out = part;
		} else if (strchr(part, '=') != NULL) {
			char *eq = strchr(part, '=');
			*eq = '\0';
			char *name = arena_strip(a, part), *v = arena_strip(a, eq + 1);
			for (char *c = name; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			size_t vl = strlen(v);
			if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
				v[vl - 1] = '\0';
				v++;
			}
			*has_charset = *has_charset || strcmp(name, "charset") == 0;
			out = arena_printf(a, "%s; %s", out, format_param(a, name, v));
		}
		if (last)
			break;
		p = q + 1;
	}
	return out;
}

char *attachments_content_type(struct arena *a, const char *part_type, const char *file_name, const char *data,
                               size_t len)
{
	bool has_charset = false;
	char *type = part_type ? part_type_with_params(a, part_type, &has_charset) : "";
	/* What is no media type (or too long to serve) is stored as if the part had none: it is served in a header. */
	if (!header_is_media_type(type)) {
		const char *guessed = guess_type(a, file_name);
		type = arena_strdup(a, guessed ? guessed : "application/octet-stream");
		has_charset = false;
	}
	const char *charset = NULL;
	if (!has_charset && strcmp(bare_type(a, type), "text/plain") == 0 && (charset = detect_charset(data, len))) {
		char *with_charset = arena_printf(a, "%s; %s", type, format_param(a, "charset", charset));
		if (header_is_media_type(with_charset))
			type = with_charset;
	}
	return type;
}

const char *attachments_served_type(const char *content_type)
{
	if (content_type == NULL || header_is_media_type(content_type))
		return content_type;
	return "application/octet-stream";
}

/* Python's urllib.parse.quote(s, safe): every byte but letters, digits, "_.-~" and those of safe %-escaped. */
static char *quote_safe(struct arena *a, const char *s, const char *safe)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = arena_alloc(a, strlen(s) * 3 + 1), *o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    strchr("_.-~", *p) != NULL || strchr(safe, *p) != NULL) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}

char *attachments_quote(struct arena *a, const char *s)
{
	return quote_safe(a, s, "/");
}

char *attachments_disposition(struct arena *a, bool download, const char *file_name)
{
	const char *kind = download ? "attachment" : "inline";
	/* Names stored before uploads were bounded: the header must still fit nginx's buffer. */
	struct cps name = cps_decode(a, file_name, strlen(file_name));
	if (name.n > MAX_UPLOAD_NAME) {
		truncate_chars(&name, MAX_UPLOAD_NAME);
		file_name = cps_encode(a, name);
	}
	/* Django's content_disposition_header: a quoted string when it can hold the name, else RFC 5987. */
	bool quotable = true;
	for (const unsigned char *p = (const unsigned char *)file_name; *p && quotable; p++)
		quotable = *p == '\t' || (*p >= 0x20 && *p <= 0x7e);
	if (!quotable)
		/* '/' is no attr-char of RFC 5987 (Python's quote() would keep it): escaped too. */
		return arena_printf(a, "%s; filename*=utf-8''%s", kind, quote_safe(a, file_name, ""));
	return arena_printf(a, "%s; %s", kind, format_param(a, "filename", file_name));
}

/* ---- links in message content ----------------------------------------------------------------------------- */

/* Characters of a path_id in a link (sanitized names: word characters, '.', '-'; escapes; any non-ASCII). */
static bool is_path_char(unsigned char c)
{
	return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       strchr("_.-/%", c) != NULL;
}

/* Characters that continue a URL before "/user_uploads/": then the link is absolute, to some host. */
static bool continues_url(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || strchr(".-:/%@~+=&?#", c);
}

static void add_candidate(json_object *list, const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == '/' || s[len - 1] == '.'))
		len--; /* "see /user_uploads/1/ab/x/f.txt." */
	if (len > 0)
		json_object_array_add(list, json_object_new_string_len(s, (int)len));
}

json_object *attachments_linked_paths(const char *content, const char *realm_url)
{
	static const char marker[] = "/user_uploads/";
	json_object *out = json_object_new_array();
	size_t ulen = realm_url ? strlen(realm_url) : 0;
	for (const char *p = strstr(content, marker); p != NULL; p = strstr(p + 1, marker)) {
		size_t before = (size_t)(p - content);
		bool own_host = ulen > 0 && before >= ulen && strncasecmp(p - ulen, realm_url, ulen) == 0 &&
		                (before == ulen || !continues_url((unsigned char)p[-ulen - 1]));
		if (!own_host && before > 0 && continues_url((unsigned char)p[-1]))
			continue; /* another server's upload, or not a link */
		const char *s = p + sizeof(marker) - 1, *e = s;
		while (*e && is_path_char((unsigned char)*e))
			e++;
		add_candidate(out, s, (size_t)(e - s));
		if (memchr(s, '%', (size_t)(e - s)) != NULL) {
			struct arena a;
			arena_init(&a);
			size_t dlen;
			char *d = percent_decode(&a, arena_strndup(&a, s, (size_t)(e - s)), &dlen);
			add_candidate(out, d, strnlen(d, dlen));
			arena_free(&a);
		}
	}
	return out;
}

/* ---- rows and access -------------------------------------------------------------------------------------- */

/*
 * May user u read attachment a? The reference's validate_attachment_request, as one SQL condition: the owner;
 * anyone but guests of the attachment's organization once a message in a public channel links it; the
 * recipients of a direct message that links it; and, for a channel message that links it, the channel's
 * subscribers and the members of its can_subscribe and can_add_subscribers groups, when the channel's history is
 * public to subscribers or they received that message. (Guests have role 600.)
 */
#define CAN_READ_ATTACHMENT                                                                                            \
	"(a.owner_id = u.id OR EXISTS (SELECT 1 FROM attachment_messages am JOIN messages m ON m.id = am.message_id "  \
	"LEFT JOIN channels c ON c.id = m.channel_id WHERE am.attachment_id = a.id AND ("                              \
	"(c.id IS NOT NULL AND NOT c.invite_only AND m.realm_id = u.realm_id AND a.realm_id = u.realm_id "             \
	" AND u.role <> 600) "                                                                                         \
	"OR (m.channel_id IS NULL AND EXISTS (SELECT 1 FROM user_messages um "                                         \
	" WHERE um.user_id = u.id AND um.message_id = m.id)) "                                                         \
	"OR (c.id IS NOT NULL AND (c.history_public_to_subscribers OR EXISTS (SELECT 1 FROM user_messages um "         \
	" WHERE um.user_id = u.id AND um.message_id = m.id)) "                                                         \
	" AND (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = u.id AND s.channel_id = c.id AND s.active) "    \
	"  OR confab_group_contains(c.can_subscribe_group_id, u.id) "                                                  \
	"  OR confab_group_contains(c.can_add_subscribers_group_id, u.id))))))"

/* May a spectator read attachment a of organization $3? When a web-public channel's message links it. */
#define SPECTATOR_CAN_READ                                                                                             \
	"(a.realm_id = $3 AND EXISTS (SELECT 1 FROM realms r WHERE r.id = a.realm_id AND r.enable_spectator_access) "  \
	"AND EXISTS (SELECT 1 FROM attachment_messages am JOIN messages m ON m.id = am.message_id "                    \
	"JOIN channels c ON c.id = m.channel_id WHERE am.attachment_id = a.id AND m.realm_id = a.realm_id "            \
	"AND c.is_web_public AND NOT c.invite_only))"

#define ATTACHMENT_COLUMNS "a.id, a.realm_id, a.owner_id, a.path_id, a.file_name, a.content_type, a.size"

static struct attachment *attachment_from_row(struct uow *uow, const struct db_res *res, int row)
{
	struct attachment *at = arena_alloc(&uow->arena, sizeof(*at));
	at->id = db_int(res, row, 0);
	at->realm_id = db_int(res, row, 1);
	at->owner_id = db_int(res, row, 2);
	at->path_id = arena_strdup(&uow->arena, db_val(res, row, 3));
	at->file_name = arena_strdup(&uow->arena, db_val(res, row, 4));
	at->content_type = db_null(res, row, 5) ? NULL : arena_strdup(&uow->arena, db_val(res, row, 5));
	at->size = db_int(res, row, 6);
	return at;
}

static struct db_stmt st_find =
    DB_STMT("SELECT " ATTACHMENT_COLUMNS ", CASE WHEN $2::bigint IS NULL THEN " SPECTATOR_CAN_READ
            " ELSE COALESCE(" CAN_READ_ATTACHMENT ", false) END "
            "FROM attachments a LEFT JOIN users u ON u.id = $2 WHERE a.path_id = $1");

struct attachment *attachments_find(struct uow *uow, const char *path_id, int64_t realm_id, bool *can_read)
{
	const char *user = uow->user ? db_arg_int(uow, uow->user->id) : NULL;
	struct db_res *res = DB_EXEC(uow, &st_find, path_id, user, db_arg_int(uow, realm_id));
	if (res == NULL || db_rows(res) == 0)
		return NULL;
	*can_read = db_bool(res, 0, 7);
	return attachment_from_row(uow, res, 0);
}

/* Removes the stale links of message_id: those to attachments its content no longer names. */
static struct db_stmt st_unlink = DB_STMT("DELETE FROM attachment_messages am USING attachments a "
                                          "WHERE am.message_id = $1 AND a.id = am.attachment_id "
                                          "AND a.path_id NOT IN (SELECT jsonb_array_elements_text($2::jsonb))");
/* Links the named attachments the sender may read, and counts the message's links. The rows are locked as the
 * links' foreign keys would lock them, but before they are read: one the reaper or its owner is deleting is waited
 * for and then skipped, rather than linked and failing the foreign key check. */
static struct db_stmt st_link =
    DB_STMT("WITH linked AS (INSERT INTO attachment_messages (attachment_id, message_id) "
            "SELECT a.id, $1 FROM attachments a JOIN users u ON u.id = $2 "
            "WHERE a.path_id IN (SELECT jsonb_array_elements_text($3::jsonb)) AND " CAN_READ_ATTACHMENT " "
            "FOR KEY SHARE OF a ON CONFLICT DO NOTHING RETURNING 1) "
            "SELECT (SELECT count(*) FROM linked) + (SELECT count(*) FROM attachment_messages WHERE message_id = $1)");

int attachments_link_message(struct uow *uow, int64_t message_id, int64_t sender_id, const char *content,
                             bool new_message)
{
	const char *url = uow->realm ? realm_url(uow, uow->realm) : NULL;
	json_object *paths = uow_own_json(uow, attachments_linked_paths(content, url));
	if (new_message && json_object_array_length(paths) == 0)
		return 0; /* nothing to link, nothing linked before: no round trips */
	const char *json = json_object_to_json_string_ext(paths, JSON_C_TO_STRING_PLAIN);
	const char *mid = db_arg_int(uow, message_id);
	if (!new_message && DB_EXEC(uow, &st_unlink, mid, json) == NULL)
		return -1;
	struct db_res *res = DB_EXEC(uow, &st_link, mid, db_arg_int(uow, sender_id), json);
	return res == NULL ? -1 : (int)db_int(res, 0, 0);
}

static struct db_stmt st_of_message =
    DB_STMT("SELECT attachment_id FROM attachment_messages WHERE message_id = $1 ORDER BY attachment_id");

int attachments_of_message(struct uow *uow, int64_t message_id, int64_t **ids)
{
	struct db_res *res = DB_EXEC(uow, &st_of_message, db_arg_int(uow, message_id));
	if (res == NULL)
		return -1;
	int n;
	*ids = db_ids(uow, res, 0, &n);
	return n;
}

static struct db_stmt st_detached =
    DB_STMT("SELECT COALESCE(json_agg(" ATTACHMENT_JSON " ORDER BY a.id), '[]')::text "
            "FROM attachments a WHERE a.id IN (SELECT jsonb_array_elements_text($2::jsonb)::bigint) "
            "AND a.owner_id = $1 AND NOT EXISTS (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id)");

json_object *attachments_detached(struct uow *uow, int64_t owner_id, const int64_t *previous_ids, int n)
{
	json_object *ids = uow_own_json(uow, json_object_new_array_ext(n));
	for (int i = 0; i < n; i++)
		json_object_array_add(ids, json_object_new_int64(previous_ids[i]));
	struct db_res *res = DB_EXEC(uow, &st_detached, db_arg_int(uow, owner_id),
	                             json_object_to_json_string_ext(ids, JSON_C_TO_STRING_PLAIN));
	json_object *out = NULL;
	if (res == NULL || jsonx_parse(db_val(res, 0, 0), strlen(db_val(res, 0, 0)), &out) < 0)
		return NULL;
	return out;
}

/* ---- files ------------------------------------------------------------------------------------------------ */

const char *attachments_local_path(struct uow *uow, const char *path_id)
{
	return arena_printf(&uow->arena, "%s/%s", uow->worker->cfg->upload_dir, path_id);
}

/* A new path_id as the reference's local backend makes them: realm, one of 256 directories, 24 random URL-safe
 * characters (secrets.token_urlsafe(18)), the sanitized name. */
static char *new_path_id(struct uow *uow, const char *file_name)
{
	static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char rnd[19];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return NULL;
	char token[25];
	for (int i = 0; i < 6; i++) {
		uint32_t v = (uint32_t)rnd[3 * i] << 16 | (uint32_t)rnd[3 * i + 1] << 8 | rnd[3 * i + 2];
		for (int k = 0; k < 4; k++)
			token[4 * i + k] = b64url[(v >> (18 - 6 * k)) & 63];
	}
	token[24] = '\0';
	return arena_printf(&uow->arena, "%lld/%x/%s/%s", (long long)uow->realm->id, rnd[18], token,
	                    attachments_sanitize_name(&uow->arena, file_name));
}

/* Creates the directories of path_id's file under upload_dir (which must exist). */
static int make_dirs(struct uow *uow, const char *path_id)
{
	char *dir = arena_strdup(&uow->arena, attachments_local_path(uow, path_id));
	size_t root = strlen(uow->worker->cfg->upload_dir);
	*strrchr(dir, '/') = '\0';
	for (char *p = dir + root + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
			log_msg(LOG_ERROR, "request %llu: could not create directory \"%s\": %s", uow->id, dir,
			        strerror(errno));
			return -1;
		}
		*p = c;
		if (c == '\0')
			return 0;
	}
}

/* Writes data to the file of path_id: a temporary file in its directory, flushed, then renamed into place. */
static int write_file(struct uow *uow, const char *path_id, const char *data, size_t len)
{
	const char *path = attachments_local_path(uow, path_id);
	char *tmp = arena_printf(&uow->arena, "%.*s/.upload-XXXXXX", (int)(strrchr(path, '/') - path), path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		log_msg(LOG_ERROR, "request %llu: could not create \"%s\": %s", uow->id, tmp, strerror(errno));
		return -1;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	/* mkstemp makes the file private; the web server (another user, of upload_dir's group) serves it, no one else
	 * reads it (docs/OPERATIONS.md "Local users"). */
	bool ok = done == len && fchmod(fd, 0640) == 0 && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) < 0) {
		log_msg(LOG_ERROR, "request %llu: could not write \"%s\": %s", uow->id, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* A shared directory stays (rmdir fails on it). */
void attachments_remove_file(struct uow *uow, const char *path_id)
{
	char *path = arena_strdup(&uow->arena, attachments_local_path(uow, path_id));
	unlink(path);
	for (int i = 0; i < 2; i++) {
		*strrchr(path, '/') = '\0';
		if (rmdir(path) < 0)
			break;
	}
}

/* A file whose fate waits for the transaction of its row: removed at the end of the unit of work if it failed (a
 * new file), or if it succeeded (a deleted row's file). */
struct file_fate {
	struct uow *uow;
	const char *path_id;
	bool remove_on_success;
};

/*
 * At the end of the unit of work (before its connection is given back; a failed COMMIT records an error too): a new
 * file goes if its row was rolled back, so that no file stays without a row, where neither the quota nor the reaper
 * would ever see it; a deleted row's file goes only once the deletion committed, so that no row stays without its file.
 */
static void settle_file(void *arg)
{
	struct file_fate *f = arg;
	if ((f->uow->error == ERR_NONE) == f->remove_on_success)
		attachments_remove_file(f->uow, f->path_id);
}

static void defer_file(struct uow *uow, const char *path_id, bool remove_on_success)
{
	struct file_fate *f = arena_alloc(&uow->arena, sizeof(*f));
	*f = (struct file_fate){uow, arena_strdup(&uow->arena, path_id), remove_on_success};
	arena_defer(&uow->arena, settle_file, f);
}

/* Makes the new file of path_id the unit of work's until it ends. */
static void own_new_file(struct uow *uow, const char *path_id)
{
	defer_file(uow, path_id, false);
}

void attachments_remove_file_at_commit(struct uow *uow, const char *path_id)
{
	defer_file(uow, path_id, true);
}

int attachments_write(struct uow *uow, const char *path_id, const char *data, size_t len)
{
	if (make_dirs(uow, path_id) < 0 || write_file(uow, path_id, data, len) < 0)
		return uow_error(uow, ERR_INTERNAL, NULL);
	own_new_file(uow, path_id);
	return 0;
}

static struct db_stmt st_insert =
    DB_STMT("INSERT INTO attachments AS a (realm_id, owner_id, path_id, file_name, size, content_type) "
            "VALUES ($1, $2, $3, $4, $5, $6) RETURNING " ATTACHMENT_COLUMNS);

struct attachment *attachments_store(struct uow *uow, const char *file_name, const char *content_type, const char *data,
                                     size_t len)
{
	const char *path_id = new_path_id(uow, file_name);
	if (path_id == NULL || make_dirs(uow, path_id) < 0 || write_file(uow, path_id, data, len) < 0) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	own_new_file(uow, path_id);
	struct db_res *res = DB_EXEC(uow, &st_insert, db_arg_int(uow, uow->realm->id), db_arg_int(uow, uow->user->id),
	                             path_id, file_name, db_arg_int(uow, (int64_t)len), content_type);
	return res == NULL ? NULL : attachment_from_row(uow, res, 0);
}

/* ---- temporary access tokens -------------------------------------------------------------------------------- */

const char *attachments_temporary_token(struct uow *uow, const char *path_id)
{
	unsigned char rnd[32];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		uow_error(uow, ERR_INTERNAL, NULL);
		return NULL;
	}
	char *token = arena_alloc(&uow->arena, 2 * sizeof(rnd) + 1);
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(token + 2 * i, 3, "%02X", rnd[i]);
	const char *key = arena_printf(&uow->arena, "confab:upload_token:%s", token);
	if (REDIS_CMD(uow, "SET", key, path_id, "EX", TOKEN_TTL_SECONDS) == NULL)
		return NULL;
	return token;
}

const char *attachments_token_path(struct uow *uow, const char *token)
{
	struct rreply *r = REDIS_CMD(uow, "GET", arena_printf(&uow->arena, "confab:upload_token:%s", token));
	if (r == NULL || r->type != RR_STR)
		return NULL;
	return r->str;
}
