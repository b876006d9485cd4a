/*
 * Logging: one logfmt line per record, written with one write() so that threads and processes sharing the file do
 * not interleave:
 *
 *   ts=2026-11-24T09:10:11.123Z level=info proc=confab-worker pid=42 msg="..." key=value ...
 *
 * Messages are in PostgreSQL's style (lower case, no final period, the bad value included). Every value is
 * escaped (see log_rec_str), so no client value can start a line or forge a field. Lines go to the file given
 * to log_open() (stderr until then); log_reopen() opens it again, for log rotation (SIGUSR1).
 */
#ifndef CONFAB_LOG_H
#define CONFAB_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR, LOG_FATAL };

/* Opens path for appending (NULL or "" keeps stderr). Returns 0 or -1 with errno set. */
int log_open(const char *path, const char *program);
/*
 * Opens the path of log_open() again (after a rename by logrotate) and puts it in place of the old descriptor at
 * once (dup2), so concurrent writers never see a closed one. Returns 0 (also with no file), -1 with errno set.
 */
int log_reopen(void);
/*
 * Writes len bytes to the log as they are, with write(2) only: async-signal-safe, for a fatal signal's handler
 * (core/crash.c), whose caller formats the line. Errors are ignored.
 */
void log_write_raw(const char *s, size_t len);
/* The program name given to log_open() ("confab" before). */
const char *log_program_name(void);
/* Writes a line with msg="the formatted message". */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line with fields of its own: log_rec_begin, log_rec_str/int/num in order, log_rec_end (which writes it). */
struct log_rec {
	char buf[8192];
	size_t len;
	bool full;
};
void log_rec_begin(struct log_rec *r, enum log_level level, const char *msg);
/*
 * key=value; value bare when it is printable ASCII without '"', '=' or '\', else quoted: \" \\ \n \r \t, other
 * control and non-printable characters as \uXXXX (\UXXXXXXXX past U+FFFF), bytes that are not UTF-8 as \xXX.
 * NULL is written as "". Values past 512 bytes are cut there and end with "...". Keys are the caller's constants
 * ([a-z_]+). A line longer than the buffer loses the fields that do not fit whole.
 */
void log_rec_str(struct log_rec *r, const char *key, const char *value);
void log_rec_int(struct log_rec *r, const char *key, long long value);
void log_rec_num(struct log_rec *r, const char *key, double value);
void log_rec_end(struct log_rec *r);

#endif
