/*
 * GET /metrics: the Prometheus text exposition format (version 0.0.4), on the internal address only (R_INTERNAL).
 * The counters of every worker group and of the reaper come from their shared metrics files (core/metrics.h), each
 * labelled with its group; queues and scheduled messages are counted in Redis and PostgreSQL at the scrape.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/version.h"
#include "core/buf.h"
#include "core/config.h"
#include "core/metrics.h"
#include "events/events.h"
#include "http/request.h"
#include "http/route.h"
#include "model/scheduled_messages.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MAX_BYTES    (64u << 20)

static void family(struct buf *b, const char *name, const char *type, const char *help)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample per group of slot value k, divided by scale (1e6 for microseconds); only groups where it is not 0
 * unless all_groups. */
static void per_group(struct buf *b, const char *name, const struct metrics_group *g, int n, enum metric k,
                      double scale, bool all_groups)
{
	for (int i = 0; i < n; i++) {
		if (!all_groups && g[i].v[k] == 0)
			continue;
		buf_printf(b, "%s{group=\"", name);
		metrics_label_value(b, g[i].name);
		if (scale == 1)
			buf_printf(b, "\"} %lld\n", (long long)g[i].v[k]);
		else
			buf_printf(b, "\"} %.6f\n", (double)g[i].v[k] / scale);
	}
}

/* group, method and route labels of route r of group g (r == nroutes: none), without the closing brace. */
static void route_labels(struct buf *b, const struct metrics_group *g, int r)
{
	buf_adds(b, "{group=\"");
	metrics_label_value(b, g->name);
	buf_adds(b, "\",method=\"");
	metrics_label_value(b, r < g->nroutes ? routes[r].method : "");
	buf_adds(b, "\",route=\"");
	if (r < g->nroutes && !(routes[r].flags & R_ROOT))
		buf_adds(b, "/api/v1");
	metrics_label_value(b, r < g->nroutes ? routes[r].pattern : "none");
	buf_adds(b, "\"");
}

static void requests(struct buf *b, const struct metrics_group *g, int n)
{
	family(b, "confab_http_requests_total", "counter",
	       "Requests answered, by route pattern (\"none\": no route matched) and status.");
	for (int i = 0; i < n; i++) {
		for (int r = 0; g[i].requests != NULL && r <= g[i].nroutes; r++) {
			const uint64_t *c = g[i].requests + (size_t)r * (METRICS_NSTATUS + 1);
			for (int s = 0; s <= METRICS_NSTATUS; s++) {
				if (c[s] == 0)
					continue;
				buf_adds(b, "confab_http_requests_total");
				route_labels(b, &g[i], r);
				if (s < METRICS_NSTATUS)
					buf_printf(b, ",status=\"%d\"} %llu\n", metrics_statuses[s],
					           (unsigned long long)c[s]);
				else
					buf_printf(b, ",status=\"other\"} %llu\n", (unsigned long long)c[s]);
			}
		}
	}
}

static void latency(struct buf *b, const struct metrics_group *g, int n)
{
	const char *name = "confab_http_request_duration_seconds";
	family(b, name, "histogram", "Time from a request's arrival at the worker to its response, by route pattern.");
	for (int i = 0; i < n; i++) {
		for (int r = 0; g[i].buckets != NULL && r <= g[i].nroutes; r++) {
			const uint64_t *c = g[i].buckets + (size_t)r * (METRICS_NBUCKETS + 1);
			unsigned long long total = 0;
			for (int k = 0; k <= METRICS_NBUCKETS; k++)
				total += c[k];
			if (total == 0)
				continue;
			unsigned long long cumulative = 0;
			for (int k = 0; k <= METRICS_NBUCKETS; k++) {
				cumulative += c[k];
				buf_printf(b, "%s_bucket", name);
				route_labels(b, &g[i], r);
				if (k < METRICS_NBUCKETS)
					buf_printf(b, ",le=\"%g\"} %llu\n", metrics_buckets[k], cumulative);
				else
					buf_printf(b, ",le=\"+Inf\"} %llu\n", cumulative);
			}
			buf_printf(b, "%s_sum", name);
			route_labels(b, &g[i], r);
			buf_printf(b, "} %.6f\n%s_count", (double)g[i].sum_usec[r] / 1e6, name);
			route_labels(b, &g[i], r);
			buf_printf(b, "} %llu\n", total);
		}
	}
}

static void processes(struct buf *b, const struct metrics_group *g, int n)
{
	family(b, "confab_build_info", "gauge", "The version of the worker that answered the scrape.");
	buf_adds(b, "confab_build_info{version=\"");
	metrics_label_value(b, ZULIP_VERSION);
	buf_printf(b, "\",feature_level=\"%d\"} 1\n", ZULIP_FEATURE_LEVEL);
	family(b, "confab_processes", "gauge", "Live processes of each group.");
	for (int i = 0; i < n; i++) {
		buf_adds(b, "confab_processes{group=\"");
		metrics_label_value(b, g[i].name);
		buf_printf(b, "\"} %d\n", g[i].processes);
	}
	family(b, "confab_process_start_time_seconds", "gauge", "Start time of each live process, Unix seconds.");
	for (int i = 0; i < n; i++) {
		for (int p = 0; p < g[i].nstart; p++) {
			buf_adds(b, "confab_process_start_time_seconds{group=\"");
			metrics_label_value(b, g[i].name);
			buf_printf(b, "\",process=\"%d\"} %lld\n", p, (long long)g[i].start_time[p]);
		}
	}
}

static void pools(struct buf *b, const struct metrics_group *g, int n)
{
	static const struct {
		const char *name, *type, *help;
		enum metric k;
		double scale;
	} list[] = {
	    {"confab_pg_pool_acquires_total", "counter", "PostgreSQL connections taken from the pool.", M_PG_ACQUIRES,
	     1},
	    {"confab_pg_pool_waits_total", "counter", "Takings that waited for a free PostgreSQL connection.",
	     M_PG_WAITS, 1},
	    {"confab_pg_pool_wait_seconds_total", "counter", "Time spent waiting for a free PostgreSQL connection.",
	     M_PG_WAIT_USEC, 1e6},
	    {"confab_pg_connection_errors_total", "counter", "Failed or lost PostgreSQL connections.",
	     M_PG_CONNECT_ERRORS, 1},
	    {"confab_pg_query_errors_total", "counter", "Statements that failed on a working connection.",
	     M_PG_QUERY_ERRORS, 1},
	    {"confab_redis_pool_acquires_total", "counter", "Redis connections taken from the pool.", M_REDIS_ACQUIRES,
	     1},
	    {"confab_redis_pool_waits_total", "counter", "Takings that waited for a free Redis connection.",
	     M_REDIS_WAITS, 1},
	    {"confab_redis_pool_wait_seconds_total", "counter", "Time spent waiting for a free Redis connection.",
	     M_REDIS_WAIT_USEC, 1e6},
	    {"confab_redis_connection_errors_total", "counter", "Failed or lost Redis connections.",
	     M_REDIS_CONNECT_ERRORS, 1},
	    {"confab_redis_command_errors_total", "counter", "Redis commands answered with an error.",
	     M_REDIS_COMMAND_ERRORS, 1},
	    {"confab_events_published_total", "counter", "Events published after their transaction committed.",
	     M_EVENTS_PUBLISHED, 1},
	    {"confab_event_queue_pushes_total", "counter", "Events pushed to event queues (one per receiving queue).",
	     M_EVENT_PUSHES, 1},
	    {"confab_events_served_total", "counter", "Events returned by GET /api/v1/events.", M_EVENTS_SERVED, 1},
	    {"confab_long_polls_held", "gauge", "GET /api/v1/events polls waiting for an event now.", M_POLLS_HELD, 1},
	};
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		family(b, list[i].name, list[i].type, list[i].help);
		per_group(b, list[i].name, g, n, list[i].k, list[i].scale, true);
	}
}

static void reaper(struct buf *b, const struct metrics_group *g, int n)
{
	family(b, "confab_reaper_lag_seconds", "summary",
	       "How late the reaper's rounds started against their schedule.");
	per_group(b, "confab_reaper_lag_seconds_sum", g, n, M_REAPER_LAG_USEC, 1e6, false);
	per_group(b, "confab_reaper_lag_seconds_count", g, n, M_REAPER_TICKS, 1, false);
	family(b, "confab_reaper_last_lag_seconds", "gauge", "The lag of the reaper's last round.");
	per_group(b, "confab_reaper_last_lag_seconds", g, n, M_REAPER_LAST_LAG_USEC, 1e6, false);
	family(b, "confab_reaper_last_round_timestamp_seconds", "gauge", "When the reaper's last round started.");
	per_group(b, "confab_reaper_last_round_timestamp_seconds", g, n, M_REAPER_LAST_TICK, 1, false);
}

/* The figures read at the scrape; a sample is left out when PostgreSQL or Redis does not answer. */
static void backlog(struct request *req, struct buf *b)
{
	long long queues, waiting, due, failed;
	bool redis = events_queue_counts(&req->uow, &queues, &waiting) == 0;
	bool pg = scheduled_messages_counts(&req->uow, &due, &failed) == 0;
	family(b, "confab_event_queues", "gauge", "Event queues that exist (registered, not yet expired or deleted).");
	if (redis)
		buf_printf(b, "confab_event_queues %lld\n", queues);
	family(b, "confab_event_queues_polled", "gauge", "Event queues with a poll waiting on them, on every host.");
	if (redis)
		buf_printf(b, "confab_event_queues_polled %lld\n", waiting);
	family(b, "confab_scheduled_messages_due", "gauge", "Scheduled messages past their time, not yet sent.");
	if (pg)
		buf_printf(b, "confab_scheduled_messages_due %lld\n", due);
	family(b, "confab_scheduled_messages_failed", "gauge", "Scheduled messages the reaper could not send.");
	if (pg)
		buf_printf(b, "confab_scheduled_messages_failed %lld\n", failed);
}

/* GET /metrics */
int prometheus_get(struct request *req)
{
	struct metrics_group *g = NULL;
	int n = 0;
	const char *dir = req->worker->cfg->metrics_dir;
	if (*dir != '\0')
		metrics_read(dir, (int)nroutes, routes_layout(), &g, &n);
	struct buf b;
	buf_init(&b, MAX_BYTES);
	processes(&b, g, n);
	requests(&b, g, n);
	latency(&b, g, n);
	pools(&b, g, n);
	reaper(&b, g, n);
	backlog(req, &b);
	metrics_groups_free(g, n);
	char *body = arena_alloc(&req->arena, b.len + 1);
	memcpy(body, buf_str(&b), b.len + 1);
	request_set_raw(req, 200, CONTENT_TYPE, body, b.len);
	buf_release(&b);
	return 0;
}
