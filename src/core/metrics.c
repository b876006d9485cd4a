/* Per-group metrics files of one slot per process; see metrics.h. */
#include "core/metrics.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/xalloc.h"

const double metrics_buckets[METRICS_NBUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
const int metrics_statuses[METRICS_NSTATUS] = {200, 201, 204, 301, 302, 304, 400, 401, 403,
                                               404, 405, 409, 413, 429, 500, 502, 503};

#define MAGIC  "CFMETR1"
#define NSLOTS 64
#define PAGE   4096

/* The file: one page of header, then NSLOTS slots of slot_size bytes (whole pages: no false sharing). */
struct file_head {
	char magic[8];
	uint32_t nroutes, nslots, ncounters, nbuckets, nstatus, pad;
	uint64_t layout, slot_size;
};

/* A slot: this head, then requests[nroutes + 1][NSTATUS + 1], buckets[nroutes + 1][NBUCKETS + 1], sum[nroutes + 1]. */
struct slot_head {
	_Atomic int32_t pid; /* 0: free */
	int32_t pad;
	_Atomic int64_t start_time;
	_Atomic int64_t v[M_COUNT];
};

struct metrics {
	void *map;
	size_t size;
	struct slot_head *slot;
	_Atomic uint64_t *requests, *buckets, *sum_usec;
	int nroutes;
};

static size_t slot_size(int nroutes)
{
	size_t words = (size_t)(nroutes + 1) * (METRICS_NSTATUS + 1 + METRICS_NBUCKETS + 1 + 1);
	size_t bytes = sizeof(struct slot_head) + words * sizeof(uint64_t);
	return (bytes + PAGE - 1) / PAGE * PAGE;
}

static struct file_head expected_head(int nroutes, uint64_t layout)
{
	struct file_head h = {.nroutes = (uint32_t)nroutes,
	                      .nslots = NSLOTS,
	                      .ncounters = M_COUNT,
	                      .nbuckets = METRICS_NBUCKETS,
	                      .nstatus = METRICS_NSTATUS,
	                      .layout = layout,
	                      .slot_size = slot_size(nroutes)};
	memcpy(h.magic, MAGIC, sizeof(h.magic));
	return h;
}

static bool head_matches(int fd, const struct file_head *want)
{
	struct file_head got;
	struct stat st;
	return fstat(fd, &st) == 0 && (size_t)st.st_size == PAGE + NSLOTS * want->slot_size &&
	       pread(fd, &got, sizeof(got), 0) == (ssize_t)sizeof(got) && memcmp(&got, want, sizeof(got)) == 0;
}

/*
 * A fresh file of the expected layout at path: linked there only if path does not exist (-1 with EEXIST if another
 * process was first), or, with replace, renamed over the file there (processes mapping the old one keep it).
 * Returns an fd.
 */
static int create_file(const char *path, const struct file_head *head, bool replace)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0644) < 0 || ftruncate(fd, (off_t)(PAGE + NSLOTS * head->slot_size)) < 0 ||
	    pwrite(fd, head, sizeof(*head), 0) != (ssize_t)sizeof(*head) ||
	    (replace ? rename(tmp, path) : link(tmp, path)) < 0) {
		int e = errno;
		unlink(tmp);
		close(fd);
		errno = e;
		return -1;
	}
	if (!replace)
		unlink(tmp);
	return fd;
}

/* path opened and locked (flock) with the expected layout; -1 on failure. */
static int open_locked(const char *path, const struct file_head *head)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			fd = create_file(path, head, false);
			if (fd < 0 && errno == EEXIST)
				continue; /* another process created it meanwhile: open that one */
		}
		if (fd < 0)
			return -1;
		struct stat a, b;
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &a) < 0) {
			close(fd);
			return -1;
		}
		/* Another process may have replaced the file while this one waited for the lock: take the new one. */
		if (stat(path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
			if (head_matches(fd, head))
				return fd;
			int fresh =
			    create_file(path, head, true); /* another layout: replaced under the old file's lock */
			close(fd);
			if (fresh >= 0 && flock(fresh, LOCK_EX) == 0)
				return fresh;
			if (fresh >= 0)
				close(fresh);
			return -1;
		}
		close(fd);
	}
	return -1;
}

static bool pid_alive(int32_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

static struct slot_head *slot_at(void *map, size_t size, int i)
{
	return (struct slot_head *)((char *)map + PAGE + (size_t)i * size);
}

/* Claims a free slot, or one whose process is gone (its counters go on; its gauges restart at 0). */
static struct slot_head *claim(void *map, size_t size)
{
	for (int i = 0; i < NSLOTS; i++) {
		struct slot_head *s = slot_at(map, size, i);
		int32_t pid = atomic_load(&s->pid);
		if (pid != 0 && pid_alive(pid) && pid != getpid())
			continue;
		atomic_store(&s->v[M_POLLS_HELD], 0);
		atomic_store(&s->v[M_REAPER_LAST_LAG_USEC], 0);
		atomic_store(&s->v[M_REAPER_LAST_TICK], 0);
		atomic_store(&s->start_time, (int64_t)time(NULL));
		atomic_store(&s->pid, (int32_t)getpid());
		return s;
	}
	return NULL;
}

struct metrics *metrics_open(const char *dir, const char *group, int nroutes, uint64_t layout)
{
	if (dir == NULL || *dir == '\0')
		return NULL;
	if (!metrics_group_name_ok(group)) {
		log_msg(LOG_WARNING, "metrics off: invalid metrics_group \"%s\" (1 to 63 of a-z, 0-9, _ and -)", group);
		return NULL;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.metrics", dir, group);
	struct file_head head = expected_head(nroutes, layout);
	int fd = open_locked(path, &head);
	if (fd < 0) {
		log_msg(LOG_WARNING, "metrics off: could not open \"%s\": %s", path, strerror(errno));
		return NULL;
	}
	size_t size = PAGE + NSLOTS * head.slot_size;
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct slot_head *s = map == MAP_FAILED ? NULL : claim(map, head.slot_size);
	/* Unlocked explicitly: the mapping keeps the open file, so close() alone would keep the lock. */
	flock(fd, LOCK_UN);
	close(fd);
	if (s == NULL) {
		log_msg(LOG_WARNING, "metrics off: no free slot in \"%s\" (%d processes)", path, NSLOTS);
		if (map != MAP_FAILED)
			munmap(map, size);
		return NULL;
	}
	struct metrics *m = xcalloc(1, sizeof(*m));
	m->map = map;
	m->size = size;
	m->slot = s;
	m->nroutes = nroutes;
	m->requests = (_Atomic uint64_t *)(s + 1);
	m->buckets = m->requests + (size_t)(nroutes + 1) * (METRICS_NSTATUS + 1);
	m->sum_usec = m->buckets + (size_t)(nroutes + 1) * (METRICS_NBUCKETS + 1);
	return m;
}

void metrics_close(struct metrics *m)
{
	if (m == NULL)
		return;
	atomic_store(&m->slot->v[M_POLLS_HELD], 0);
	atomic_store(&m->slot->pid, 0);
	munmap(m->map, m->size);
	free(m);
}

void metrics_add(struct metrics *m, enum metric k, int64_t n)
{
	if (m != NULL)
		atomic_fetch_add_explicit(&m->slot->v[k], n, memory_order_relaxed);
}

void metrics_set(struct metrics *m, enum metric k, int64_t v)
{
	if (m != NULL)
		atomic_store_explicit(&m->slot->v[k], v, memory_order_relaxed);
}

void metrics_pool_take(struct metrics *m, enum metric acquires, long long waited_usec)
{
	metrics_add(m, acquires, 1);
	if (waited_usec > 0) {
		metrics_add(m, acquires + 1, 1);
		metrics_add(m, acquires + 2, waited_usec);
	}
}

static int status_index(int status)
{
	for (int i = 0; i < METRICS_NSTATUS; i++)
		if (metrics_statuses[i] == status)
			return i;
	return METRICS_NSTATUS;
}

void metrics_request(struct metrics *m, int route, int status, double seconds)
{
	if (m == NULL)
		return;
	size_t r = route < 0 || route >= m->nroutes ? (size_t)m->nroutes : (size_t)route;
	int b = 0;
	while (b < METRICS_NBUCKETS && seconds > metrics_buckets[b])
		b++;
	atomic_fetch_add_explicit(&m->requests[r * (METRICS_NSTATUS + 1) + (size_t)status_index(status)], 1,
	                          memory_order_relaxed);
	atomic_fetch_add_explicit(&m->buckets[r * (METRICS_NBUCKETS + 1) + (size_t)b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m->sum_usec[r], (uint64_t)(seconds * 1e6), memory_order_relaxed);
}

void metrics_label_value(struct buf *b, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			buf_printf(b, "\\%c", *v);
		else if (*v == '\n')
			buf_adds(b, "\\n");
		else
			buf_add(b, v, 1);
	}
}

bool metrics_group_name_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-");
	return n > 0 && n < 64 && s[n] == '\0';
}

/* ---- reading -------------------------------------------------------------------------------------------- */

static void add_words(uint64_t *to, const _Atomic uint64_t *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] += atomic_load_explicit(&from[i], memory_order_relaxed);
}

/* Sums the slots of one mapped file into g; per-route arrays only if the layout is the reader's. */
static void sum_file(struct metrics_group *g, const void *map, const struct file_head *h, int nroutes, uint64_t layout)
{
	bool routes = h->nroutes == (uint32_t)nroutes && h->layout == layout;
	size_t nr = (size_t)nroutes + 1;
	if (routes) {
		g->nroutes = nroutes;
		g->requests = xcalloc(nr * (METRICS_NSTATUS + 1), sizeof(uint64_t));
		g->buckets = xcalloc(nr * (METRICS_NBUCKETS + 1), sizeof(uint64_t));
		g->sum_usec = xcalloc(nr, sizeof(uint64_t));
	}
	for (uint32_t i = 0; i < h->nslots; i++) {
		struct slot_head *s = slot_at((void *)map, h->slot_size, (int)i);
		int32_t pid = atomic_load(&s->pid);
		bool alive = pid_alive(pid);
		for (int k = 0; k < M_COUNT; k++) {
			bool gauge = k == M_POLLS_HELD || k == M_REAPER_LAST_LAG_USEC || k == M_REAPER_LAST_TICK;
			if (!gauge || alive)
				g->v[k] += atomic_load_explicit(&s->v[k], memory_order_relaxed);
		}
		if (alive) {
			g->processes++;
			if (g->nstart < 8)
				g->start_time[g->nstart++] = atomic_load(&s->start_time);
		}
		if (!routes)
			continue;
		const _Atomic uint64_t *req = (const _Atomic uint64_t *)(s + 1);
		add_words(g->requests, req, nr * (METRICS_NSTATUS + 1));
		add_words(g->buckets, req + nr * (METRICS_NSTATUS + 1), nr * (METRICS_NBUCKETS + 1));
		add_words(g->sum_usec, req + nr * (METRICS_NSTATUS + 1 + METRICS_NBUCKETS + 1), nr);
	}
}

/* Reads dir/name (a group file) into g. Returns 0, or -1 if it is no metrics file of this version. */
static int read_file(const char *dir, const char *name, struct metrics_group *g, int nroutes, uint64_t layout)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct file_head h;
	struct stat st;
	int rc = -1;
	if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && memcmp(h.magic, MAGIC, 8) == 0 &&
	    h.ncounters == M_COUNT && h.nbuckets == METRICS_NBUCKETS && h.nstatus == METRICS_NSTATUS &&
	    h.slot_size == slot_size((int)h.nroutes) && h.nslots <= NSLOTS && fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_size == PAGE + h.nslots * h.slot_size) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (map != MAP_FAILED) {
			snprintf(g->name, sizeof(g->name), "%.*s", (int)(strlen(name) - strlen(".metrics")), name);
			sum_file(g, map, &h, nroutes, layout);
			munmap(map, (size_t)st.st_size);
			rc = 0;
		}
	}
	close(fd);
	return rc;
}

static int is_group_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name), s = strlen(".metrics");
	if (n <= s || strcmp(d->d_name + n - s, ".metrics") != 0 || n - s >= 64)
		return 0;
	char name[64];
	snprintf(name, sizeof(name), "%.*s", (int)(n - s), d->d_name);
	return metrics_group_name_ok(name);
}

int metrics_read(const char *dir, int nroutes, uint64_t layout, struct metrics_group **out, int *n)
{
	struct dirent **names;
	int count = scandir(dir, &names, is_group_file, alphasort);
	*out = NULL;
	*n = 0;
	if (count < 0)
		return -1;
	struct metrics_group *groups = xcalloc((size_t)count + 1, sizeof(*groups));
	for (int i = 0; i < count; i++) {
		if (read_file(dir, names[i]->d_name, &groups[*n], nroutes, layout) == 0)
			(*n)++;
		free(names[i]);
	}
	free(names);
	*out = groups;
	return 0;
}

void metrics_groups_free(struct metrics_group *groups, int n)
{
	for (int i = 0; i < n; i++) {
		free(groups[i].requests);
		free(groups[i].buckets);
		free(groups[i].sum_usec);
	}
	free(groups);
}
