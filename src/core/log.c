/* logfmt lines to one file descriptor; see log.h. */
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/utf8.h"

/* Longer values are cut (with "..."): escaped (up to 6 bytes per byte), a path and a user agent fit a line. */
#define LOG_VALUE_MAX 512

static int log_fd = 2;
static const char *log_program = "confab";
static char *log_path;

int log_open(const char *path, const char *program)
{
	if (program != NULL)
		log_program = program;
	if (path == NULL || *path == '\0')
		return 0;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0)
		return -1;
	free(log_path);
	log_path = strdup(path);
	log_fd = fd;
	return 0;
}

const char *log_program_name(void)
{
	return log_program;
}

int log_reopen(void)
{
	if (log_path == NULL)
		return 0;
	int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0)
		return -1;
	/* dup2 swaps the file under log_fd atomically: a concurrent write goes to the old or the new file. */
	if (dup3(fd, log_fd, O_CLOEXEC) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

void log_write_raw(const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(log_fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* Appends n bytes if they fit (one byte stays free for the newline). */
static bool put(struct log_rec *r, const char *s, size_t n)
{
	if (r->len + n >= sizeof(r->buf) - 1)
		return false;
	memcpy(r->buf + r->len, s, n);
	r->len += n;
	return true;
}

static bool bare_char(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '"' && c != '=' && c != '\\';
}

/* One character of a quoted value at s (n bytes left); returns the bytes it took, 0 when out of room. */
static size_t put_quoted_char(struct log_rec *r, const unsigned char *s, size_t n)
{
	char esc[16];
	unsigned char c = s[0];
	if (c == '"' || c == '\\')
		return put(r, (char[]){'\\', (char)c}, 2) ? 1 : 0;
	if (c == '\n' || c == '\r' || c == '\t')
		return put(r, c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t", 2) ? 1 : 0;
	if (c >= 0x20 && c < 0x7f)
		return put(r, (const char *)s, 1) ? 1 : 0;
	if (c < 0x80) {
		snprintf(esc, sizeof(esc), "\\u%04x", c);
		return put(r, esc, 6) ? 1 : 0;
	}
	uint32_t cp;
	size_t len = utf8_decode(s, n, &cp);
	if (len == 0) {
		snprintf(esc, sizeof(esc), "\\x%02x", c);
		return put(r, esc, 4) ? 1 : 0;
	}
	if (utf8_is_printable(cp) && cp != 0x2028 && cp != 0x2029)
		return put(r, (const char *)s, len) ? len : 0;
	int m = snprintf(esc, sizeof(esc), cp > 0xffff ? "\\U%08x" : "\\u%04x", (unsigned)cp);
	return put(r, esc, (size_t)m) ? len : 0;
}

static bool put_value(struct log_rec *r, const char *value)
{
	const unsigned char *s = (const unsigned char *)(value ? value : "");
	size_t n = strlen((const char *)s);
	bool bare = n > 0;
	for (size_t i = 0; i < n && bare; i++)
		bare = bare_char(s[i]);
	if (bare)
		return put(r, (const char *)s, n);
	if (!put(r, "\"", 1))
		return false;
	for (size_t i = 0; i < n;) {
		size_t k = put_quoted_char(r, s + i, n - i);
		if (k == 0)
			return false;
		i += k;
	}
	return put(r, "\"", 1);
}

void log_rec_str(struct log_rec *r, const char *key, const char *value)
{
	char cut[LOG_VALUE_MAX + 4];
	if (value != NULL && strlen(value) > LOG_VALUE_MAX) {
		snprintf(cut, sizeof(cut), "%.*s...", LOG_VALUE_MAX, value);
		value = cut;
	}
	size_t start = r->len;
	if (r->full || !put(r, " ", 1) || !put(r, key, strlen(key)) || !put(r, "=", 1) || !put_value(r, value)) {
		r->len = start;
		r->full = true;
	}
}

void log_rec_int(struct log_rec *r, const char *key, long long value)
{
	char num[32];
	snprintf(num, sizeof(num), "%lld", value);
	log_rec_str(r, key, num);
}

void log_rec_num(struct log_rec *r, const char *key, double value)
{
	char num[64];
	snprintf(num, sizeof(num), "%.3f", value);
	log_rec_str(r, key, num);
}

void log_rec_begin(struct log_rec *r, enum log_level level, const char *msg)
{
	static const char *names[] = {"debug", "info", "warning", "error", "fatal"};
	struct timeval tv;
	struct tm tm;
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	int n = snprintf(r->buf, sizeof(r->buf), "ts=%04d-%02d-%02dT%02d:%02d:%02d.%03dZ level=%s", tm.tm_year + 1900,
	                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000),
	                 names[level]);
	r->len = n > 0 ? (size_t)n : 0;
	r->full = false;
	log_rec_str(r, "proc", log_program);
	log_rec_int(r, "pid", (long long)getpid());
	log_rec_str(r, "msg", msg);
}

void log_rec_end(struct log_rec *r)
{
	r->buf[r->len++] = '\n';
	log_write_raw(r->buf, r->len);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct log_rec r;
	log_rec_begin(&r, level, msg);
	log_rec_end(&r);
}
