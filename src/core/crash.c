/* The requests in flight written to the log when a fatal signal ends the process; see crash.h. */
#include "core/crash.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"

/* " request=N method=M path=P", escaped: a path is cut to fit (log_rec_str cuts at 512, this at less). */
#define SLOT_LINE       320
#define PATH_MAX_LOGGED 200

struct slot {
	atomic_int used;
	char line[SLOT_LINE];
};

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
#define NFATAL ((int)(sizeof(fatal_signals) / sizeof(fatal_signals[0])))

static struct slot *slots;
static int nslots;
static atomic_int next_slot;
static _Thread_local int my_slot = -1;
static struct sigaction previous[NFATAL];

void crash_note(unsigned long long request_id, const char *method, const char *path)
{
	if (my_slot < 0)
		my_slot = atomic_fetch_add(&next_slot, 1);
	if (slots == NULL || my_slot >= nslots)
		return;
	char cut[PATH_MAX_LOGGED + 4];
	if (strlen(path) > PATH_MAX_LOGGED) {
		memcpy(cut, path, PATH_MAX_LOGGED);
		strcpy(cut + PATH_MAX_LOGGED, "...");
		path = cut;
	}
	struct log_rec r = {.len = 0, .full = false};
	log_rec_int(&r, "request", (long long)request_id);
	log_rec_str(&r, "method", method);
	log_rec_str(&r, "path", path);
	struct slot *s = &slots[my_slot];
	atomic_store(&s->used, 0);
	size_t n = r.len < SLOT_LINE - 1 ? r.len : SLOT_LINE - 1;
	memcpy(s->line, r.buf, n);
	s->line[n] = '\0';
	atomic_store(&s->used, 1);
}

void crash_clear(void)
{
	if (slots != NULL && my_slot >= 0 && my_slot < nslots)
		atomic_store(&slots[my_slot].used, 0);
}

/* ---- the handler: async-signal-safe calls only (write, getpid, clock_gettime, sigaction, raise) ---------------- */

/* Appends s to buf (of size) at *len. */
static void put(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s != '\0' && *len + 1 < size)
		buf[(*len)++] = *s++;
	buf[*len] = '\0';
}

/* Appends v in decimal, zero-padded to width digits. */
static void put_num(char *buf, size_t size, size_t *len, long long v, int width)
{
	char digits[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u > 0 && n < (int)sizeof(digits));
	while (n < width && n < (int)sizeof(digits))
		digits[n++] = '0';
	if (v < 0)
		put(buf, size, len, "-");
	char out[2] = {0, 0};
	while (n > 0) {
		out[0] = digits[--n];
		put(buf, size, len, out);
	}
}

/* "ts=YYYY-MM-DDTHH:MM:SS.mmmZ" as log.c writes it, without gmtime_r (not async-signal-safe). */
static void put_ts(char *buf, size_t size, size_t *len)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	long long days = (long long)t.tv_sec / 86400, secs = (long long)t.tv_sec % 86400;
	/* civil_from_days (Howard Hinnant's algorithm) */
	long long z = days + 719468, era = z / 146097, doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365,
	          doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	long long y = yoe + era * 400 + (m <= 2);
	put(buf, size, len, "ts=");
	put_num(buf, size, len, y, 4);
	put(buf, size, len, "-");
	put_num(buf, size, len, m, 2);
	put(buf, size, len, "-");
	put_num(buf, size, len, d, 2);
	put(buf, size, len, "T");
	put_num(buf, size, len, secs / 3600, 2);
	put(buf, size, len, ":");
	put_num(buf, size, len, secs / 60 % 60, 2);
	put(buf, size, len, ":");
	put_num(buf, size, len, secs % 60, 2);
	put(buf, size, len, ".");
	put_num(buf, size, len, t.tv_nsec / 1000000, 3);
	put(buf, size, len, "Z");
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGABRT: return "SIGABRT";
	case SIGFPE: return "SIGFPE";
	default: return "SIGILL";
	}
}

static void write_line(const char *head, const char *tail)
{
	char line[SLOT_LINE + 256];
	size_t len = 0;
	put(line, sizeof(line) - 1, &len, head);
	put(line, sizeof(line) - 1, &len, tail);
	line[len++] = '\n';
	log_write_raw(line, len);
}

static void on_fatal(int sig)
{
	int saved = errno;
	char head[256];
	size_t len = 0;
	put_ts(head, sizeof(head), &len);
	put(head, sizeof(head), &len, " level=fatal proc=");
	put(head, sizeof(head), &len, log_program_name());
	put(head, sizeof(head), &len, " pid=");
	put_num(head, sizeof(head), &len, (long long)getpid(), 1);
	put(head, sizeof(head), &len, " msg=\"process crashed\" signal=");
	put(head, sizeof(head), &len, signal_name(sig));
	int written = 0;
	for (int i = 0; i < nslots; i++) {
		if (atomic_load(&slots[i].used)) {
			write_line(head, slots[i].line);
			written++;
		}
	}
	if (written == 0)
		write_line(head, " requests=0");
	/* The action of before (the default: the process dies; ASan's: its report), delivered when this returns. */
	for (int i = 0; i < NFATAL; i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &previous[i], NULL);
	raise(sig);
	errno = saved;
}

int crash_init(int threads)
{
	nslots = threads > 0 ? threads : 1;
	slots = calloc((size_t)nslots, sizeof(*slots));
	if (slots == NULL)
		return -1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < NFATAL; i++)
		if (sigaction(fatal_signals[i], &sa, &previous[i]) < 0)
			return -1;
	return 0;
}
