/*
 * Process metrics shared by the processes of a group (api, events, reaper) through one memory-mapped file per group,
 * <metrics_dir>/<group>.metrics: spawn-fcgi and confab-supervise run N processes on one socket and a scrape lands on
 * one of them, so each process counts into a slot of its own in the file and /metrics sums every slot of every
 * group's file.
 * Counting is one relaxed atomic add on the process's slot: no lock, no system call, no round trip.
 *
 * A process takes a free slot, or the slot of a process that is gone (its pid no longer exists), at metrics_open():
 * counters then go on from where the dead process left them, so a worker restarted by its supervisor resets nothing;
 * the gauges of a slot whose process is gone are not reported and are zeroed when the slot is taken again. The file
 * lives as long as the run directory (tmpfs): a reboot, or a binary whose layout differs (another route table),
 * starts from zero, which Prometheus reads as a counter reset.
 */
#ifndef CONFAB_METRICS_H
#define CONFAB_METRICS_H

#include <stdbool.h>
#include <stdint.h>

struct buf;

/* Counters (monotonic) and gauges (marked) of a slot. */
enum metric {
	M_PG_ACQUIRES,          /* connections taken from the PostgreSQL pool */
	M_PG_WAITS,             /* ... that had to wait for a free one */
	M_PG_WAIT_USEC,         /* time spent waiting, microseconds */
	M_PG_CONNECT_ERRORS,    /* failed connection attempts and lost connections */
	M_PG_QUERY_ERRORS,      /* statements that failed on a working connection */
	M_REDIS_ACQUIRES,       /* connections taken from the Redis pool */
	M_REDIS_WAITS,          /* ... that had to wait for a free one */
	M_REDIS_WAIT_USEC,      /* time spent waiting, microseconds */
	M_REDIS_CONNECT_ERRORS, /* failed connection attempts and lost connections */
	M_REDIS_COMMAND_ERRORS, /* error replies */
	M_EVENTS_PUBLISHED,     /* events published (each once, whatever the number of queues) */
	M_EVENT_PUSHES,         /* events pushed to queues (one per receiving queue) */
	M_EVENTS_SERVED,        /* events returned by GET /events */
	M_POLLS_HELD,           /* gauge: long-polls waiting now */
	M_REAPER_TICKS,         /* reaper rounds */
	M_REAPER_LAG_USEC,      /* how late the rounds started against their schedule, summed, microseconds */
	M_REAPER_LAST_LAG_USEC, /* gauge: the last round's lag */
	M_REAPER_LAST_TICK,     /* gauge: when the last round started, Unix seconds */
	M_COUNT
};

/* Latency buckets of the request histograms, upper bounds in seconds (+Inf follows). */
#define METRICS_NBUCKETS 13
extern const double metrics_buckets[METRICS_NBUCKETS];
/* The HTTP statuses counted apart; any other counts as "other" (index METRICS_NSTATUS). */
#define METRICS_NSTATUS 17
extern const int metrics_statuses[METRICS_NSTATUS];

/* This process's slot (struct worker's `metrics`); NULL means metrics are off and every call is a no-op. */
struct metrics;

/*
 * Takes a slot in <dir>/<group>.metrics for this process (creating the file, or replacing one of another layout),
 * with nroutes per-route request counters and histograms (index nroutes: no route) and layout a hash of the route
 * table. Returns the slot, or NULL when dir is "" or on failure (logged): metrics are then off for this process.
 * Call once, before the threads start; metrics_close() at exit.
 */
struct metrics *metrics_open(const char *dir, const char *group, int nroutes, uint64_t layout);
void metrics_close(struct metrics *m);
/* Adds n to counter (or gauge) k of this process. */
void metrics_add(struct metrics *m, enum metric k, int64_t n);
/* Sets gauge k of this process. */
void metrics_set(struct metrics *m, enum metric k, int64_t v);
/* Counts one connection taken from a pool after waiting waited_usec: acquires is M_PG_ACQUIRES or M_REDIS_ACQUIRES
 * (its waits and wait time follow it in enum metric). */
void metrics_pool_take(struct metrics *m, enum metric acquires, long long waited_usec);
/* Counts one request of route (0 .. nroutes-1, or -1 for none) answered with status after seconds. */
void metrics_request(struct metrics *m, int route, int status, double seconds);

/* The figures of one group, summed over its slots (per-route arrays empty when the layout is not the caller's). */
struct metrics_group {
	char name[64];
	int processes; /* slots whose process is alive */
	int64_t v[M_COUNT];
	int nroutes;           /* 0 when the file's layout differs from the caller's */
	uint64_t *requests;    /* [nroutes + 1][METRICS_NSTATUS + 1] */
	uint64_t *buckets;     /* [nroutes + 1][METRICS_NBUCKETS + 1], not cumulative; the last is +Inf */
	uint64_t *sum_usec;    /* [nroutes + 1] */
	int64_t start_time[8]; /* start times (Unix seconds) of up to 8 live processes */
	int nstart;
};

/*
 * Reads every <dir>/GROUP.metrics file, in name order, into *out (malloc'ed array of *n groups; metrics_groups_free()).
 * Returns 0, or -1 if dir cannot be read.
 */
int metrics_read(const char *dir, int nroutes, uint64_t layout, struct metrics_group **out, int *n);
void metrics_groups_free(struct metrics_group *groups, int n);

/* Appends v to b as a label value of the text format: backslash, double quote and line feed escaped. */
void metrics_label_value(struct buf *b, const char *v);

/* True if s is a usable group name: 1 to 63 of [a-z0-9_-]. */
bool metrics_group_name_ok(const char *s);

#endif
