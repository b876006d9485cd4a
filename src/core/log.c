/* Timestamped log lines to one file descriptor; see log.h. */
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int log_fd = 2;
static const char *log_program = "confab";

int log_open(const char *path, const char *program)
{
	if (program != NULL)
		log_program = program;
	if (path == NULL || *path == '\0')
		return 0;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0)
		return -1;
	log_fd = fd;
	return 0;
}

static void log_write(const char *s, size_t len)
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

void log_line(const char *line)
{
	char buf[4096];
	int n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (n < 0)
		return;
	log_write(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *names[] = {"DEBUG", "INFO", "WARNING", "ERROR", "FATAL"};
	char buf[4096];
	struct timeval tv;
	struct tm tm;
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	int n = snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d.%03d UTC %s[%d] %s: ", tm.tm_year + 1900,
	                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000),
	                 log_program, (int)getpid(), names[level]);
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	log_write(buf, len);
}
