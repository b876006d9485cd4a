/* Processes of the stack and client processes for the fault, scale-out and operations suites; see procs.h. */
#include "procs.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool proc_read(pid_t pid, const char *what, char *buf, size_t size, size_t *len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return false;
	size_t n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return n > 0;
}

pid_t proc_parent(pid_t pid)
{
	char buf[512];
	if (!proc_read(pid, "stat", buf, sizeof(buf), NULL))
		return 0;
	char *p = strrchr(buf, ')');
	char state;
	int ppid;
	if (p == NULL || sscanf(p + 1, " %c %d", &state, &ppid) != 2 || state == 'Z' || state == 'X')
		return 0;
	return (pid_t)ppid;
}

/*
 * Not the whole command line but argv[0]: a child of confab-supervise that has not exec'd yet has the supervisor's
 * command line, which names the program too.
 */
int proc_children(pid_t parent, const char *prog, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	REQUIRE(d != NULL, "cannot read /proc");
	int n = 0;
	struct dirent *e;
	char cmd[1024];
	while ((e = readdir(d)) != NULL && n < max) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end == '\0' && pid > 0 && proc_parent((pid_t)pid) == parent &&
		    proc_read((pid_t)pid, "cmdline", cmd, sizeof(cmd), NULL) && strstr(cmd, prog) != NULL)
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

static const char *run_dir(void)
{
	const char *d = getenv("CONFAB_RUN_DIR");
	REQUIRE(d != NULL && *d != '\0', "CONFAB_RUN_DIR is not set");
	return d;
}

pid_t group_supervisor_pid(const char *group)
{
	FILE *f = fopen(fmt("%s/%s.pid", run_dir(), group), "r");
	long pid = 0;
	if (f != NULL) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return (pid_t)pid;
}

pid_t group_supervisor(const char *group)
{
	pid_t pid = group_supervisor_pid(group);
	char cmd[1024] = "(gone)";
	REQUIRE(pid > 0 && proc_read(pid, "cmdline", cmd, sizeof(cmd), NULL) && strstr(cmd, "confab-supervise") != NULL,
	        "%s/%s.pid names pid %d, which is not a confab-supervise: %s", run_dir(), group, (int)pid, cmd);
	return pid;
}

const char *proc_log_file(pid_t pid)
{
	static char buf[65536];
	size_t n = 0;
	REQUIRE(proc_read(pid, "environ", buf, sizeof(buf), &n), "cannot read the environment of %d", (int)pid);
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (strncmp(buf + i, "CONFAB_LOG_FILE=", 16) == 0)
			return fmt("%s", buf + i + 16);
	REQUIRE(false, "process %d has no CONFAB_LOG_FILE", (int)pid);
	return NULL;
}

char *file_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return fmt("%s", "");
	size_t cap = 65536, n = 0, k;
	char *buf = malloc(cap);
	REQUIRE(buf != NULL, "out of memory");
	while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 == cap) {
			char *more = realloc(buf, cap *= 2);
			REQUIRE(more != NULL, "out of memory");
			buf = more;
		}
	}
	fclose(f);
	buf[n] = '\0';
	return keep(buf);
}

char *command_output(const char *cmd, int *status)
{
	fflush(NULL);
	FILE *f = popen(fmt("%s 2>&1", cmd), "r");
	REQUIRE(f != NULL, "popen failed");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	int st = pclose(f);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return fmt("%s", buf);
}

double mono_secs(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void client_main(void (*run)(void *, int, void *), void *arg, int i, size_t size, int report_fd)
{
	itest_http_after_fork();
	char *report = calloc(1, size);
	if (report != NULL) {
		run(arg, i, report);
		for (size_t off = 0; off < size;) {
			ssize_t w = write(report_fd, report + off, size - off);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
	}
	_exit(report != NULL ? 0 : 1);
}

void client_spawn(struct client *c, void (*run)(void *arg, int i, void *report), void *arg, int i, size_t size,
                  const int *close_fds, int nclose)
{
	int fds[2];
	REQUIRE(pipe(fds) == 0, "pipe failed");
	fflush(NULL);
	c->pid = fork();
	REQUIRE(c->pid >= 0, "fork failed");
	if (c->pid == 0) {
		close(fds[0]);
		for (int k = 0; k < nclose; k++)
			close(close_fds[k]);
		client_main(run, arg, i, size, fds[1]);
	}
	close(fds[1]);
	c->fd = fds[0];
}

bool client_collect(struct client *c, void *report, size_t size)
{
	size_t off = 0;
	struct pollfd p = {.fd = c->fd, .events = POLLIN};
	while (off < size && poll(&p, 1, 120000) > 0) {
		ssize_t n = read(c->fd, (char *)report + off, size - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(c->fd);
	kill(c->pid, SIGKILL); /* no-op when it ended */
	waitpid(c->pid, NULL, 0);
	return off == size;
}

bool stop_requested(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return poll(&p, 1, 0) > 0;
}

bool receive_message_ids(struct queue *q, const struct resp *r, int64_t *ids, int *n, int max)
{
	json_object *events = jget(r->json, "events");
	if (r->status != 200 || events == NULL || !json_object_is_type(events, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);
		q->last = jint(e, "id") > q->last ? jint(e, "id") : q->last;
		const char *type = jstr(e, "type");
		if (type != NULL && strcmp(type, "message") == 0 && *n < max)
			ids[(*n)++] = jint(jget(e, "message"), "id");
	}
	return true;
}

void poll_until_stopped(struct queue *q, const char *base_url, int stop_fd,
                        bool (*on_answer)(void *report, struct queue *q, const struct resp *r), void *report)
{
	for (int after_stop = 0; after_stop < 50;) {
		bool stop = stop_requested(stop_fd);
		struct resp *r = http(&(struct request){
		    .base_url = base_url,
		    .path = fmt("/api/v1/events?queue_id=%s&last_event_id=%lld%s", q->id, (long long)q->last,
		                stop ? "&dont_block=true" : ""),
		    .user = q->u,
		    .timeout = 90,
		});
		bool ok = on_answer(report, q, r);
		if (stop && ok)
			break;
		after_stop += stop;
		if (!ok)
			usleep(100000);
	}
}
