/*
 * Logging in PostgreSQL's message style: lower case, no final period, the bad value included.
 * Lines go to the file given to log_open() (stderr until then), one write() per line, so threads and
 * processes sharing the file do not interleave.
 */
#ifndef CONFAB_LOG_H
#define CONFAB_LOG_H

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR, LOG_FATAL };

/* Opens path for appending (NULL or "" keeps stderr). Returns 0 or -1 with errno set. */
int log_open(const char *path, const char *program);
/* Writes "TIMESTAMP program[pid] LEVEL: message". */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes a raw preformatted line (a newline is added). */
void log_line(const char *line);

#endif
