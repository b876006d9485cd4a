/*
 * Crash reports: the requests a process was serving when a fatal signal (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL)
 * ended it. Each serving thread notes the request it runs in a slot of its own and clears it when the response is
 * written; the handler writes one log line per noted request, with write(2) only (async-signal-safe):
 *
 *   ts=... level=fatal proc=confab-worker pid=42 msg="process crashed" signal=SIGSEGV request=7 method=POST path=...
 *
 * (or one line with requests=0 when none was running), then lets the signal take its course: the action that was
 * there before (ASan's handler in a sanitizer build) or the default one, so the process dies as it would have and
 * its supervisor (confab-supervise) starts a new one.
 */
#ifndef CONFAB_CRASH_H
#define CONFAB_CRASH_H

/*
 * Installs the handler for a process of up to threads serving threads (a thread past that many is not reported).
 * Call once, before the threads start, after log_open(). Returns 0, or -1 with errno set.
 */
int crash_init(int threads);
/*
 * Notes the request the calling thread serves from now on: its id, method and path (already free of secrets: the
 * caller masks them). Values are escaped as log.h does and cut to fit the slot (about 300 bytes).
 */
void crash_note(unsigned long long request_id, const char *method, const char *path);
/* The calling thread serves no request any more. */
void crash_clear(void);

#endif
