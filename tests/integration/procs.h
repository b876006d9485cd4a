/*
 * What the fault, scale-out and operations suites share: the stack's processes as /proc shows them (the
 * confab-supervise of each group named by CONFAB_RUN_DIR/<group>.pid, and its children), and clients that run in child
 * processes while the test kills or restarts parts of the stack, each sending its report back on a pipe.
 */
#ifndef CONFAB_ITEST_PROCS_H
#define CONFAB_ITEST_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "itest.h"

/* ---- processes ---- */

/* /proc/<pid>/<what> into buf (NUL-terminated; *len its length if len is not NULL); false if pid is gone. */
bool proc_read(pid_t pid, const char *what, char *buf, size_t size, size_t *len);
/* The parent of pid, or 0 if pid is gone or a zombie. */
pid_t proc_parent(pid_t pid);
/* Fills out with the live children of parent whose argv[0] contains prog; returns how many (at most max). */
int proc_children(pid_t parent, const char *prog, pid_t *out, int max);
/* The confab-supervise of a group (CONFAB_RUN_DIR/<group>.pid); a fatal assertion if the file names something else. */
pid_t group_supervisor(const char *group);
/* The supervisor's pid of CONFAB_RUN_DIR/<group>.pid, or 0 (no assertion: the group may be down on purpose). */
pid_t group_supervisor_pid(const char *group);
/* The value of CONFAB_LOG_FILE in the environment of pid (freed after the test): the log file it writes. */
const char *proc_log_file(pid_t pid);
/* The whole file (freed after the test), "" if it does not exist. */
char *file_text(const char *path);
/* Runs cmd through sh, stderr with stdout; its output (up to 4 KB, freed after the test), its exit status in *status
 * (128 when it did not exit). */
char *command_output(const char *cmd, int *status);
/* Seconds on the monotonic clock. */
double mono_secs(void);

/* ---- clients in child processes ---- */

/* A client process and the read end of its report pipe. */
struct client {
	pid_t pid;
	int fd;
};

/*
 * Forks client i: the child closes close_fds (the write ends of the parent's stop pipes), runs run(arg, i, report)
 * with a zeroed report of size bytes, writes the report to its pipe and exits.
 */
void client_spawn(struct client *c, void (*run)(void *arg, int i, void *report), void *arg, int i, size_t size,
                  const int *close_fds, int nclose);
/* Reads a client's report (killing a client silent for 120 s) and reaps it; false if the report is incomplete. */
bool client_collect(struct client *c, void *report, size_t size);
/* True once the parent closed the write end of the stop pipe whose read end is fd. */
bool stop_requested(int fd);
/*
 * The message ids of a GET /events answer appended to ids (*n of max used), q->last moved on; false if the answer
 * was not a 200 with an events array.
 */
bool receive_message_ids(struct queue *q, const struct resp *r, int64_t *ids, int *n, int max);
/*
 * Long-polls q through base_url (NULL: CONFAB_URL) until the pipe of stop_fd is closed, then drains the queue without
 * blocking. Every answer goes to on_answer, which returns false for a failure: that poll is repeated after 0.1 s
 * with the same last_event_id.
 */
void poll_until_stopped(struct queue *q, const char *base_url, int stop_fd,
                        bool (*on_answer)(void *report, struct queue *q, const struct resp *r), void *report);

#endif
