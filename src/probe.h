/*
 * confabctl probe: a send -> receive check through the real path (nginx -> workers -> PostgreSQL -> Redis -> the
 * long-poll workers), for Nagios and the like. A generic bot "Health probe" (health-probe-bot@<the organization's
 * placeholder domain>), created on first use, registers an event queue, sends a direct message to itself (no
 * human sees it), waits for it on the queue and reports the time from the send to its arrival. Its API key is
 * issued for the run and revoked after it (keys of runs that died are revoked after an hour): nothing secret is
 * kept outside the database. The message is deleted after the run when the organization lets the bot do so.
 *
 * Output: one line "CONFAB OK|WARNING|CRITICAL|UNKNOWN - text | latency_ms=VALUE;WARN;CRIT;0" (VALUE "U" when no
 * message arrived), exit status 0, 1, 2 or 3 (the Nagios plugin convention). With --prometheus, that line as a
 * comment and the gauges confab_probe_success, confab_probe_state and confab_probe_latency_seconds (for
 * node_exporter's textfile collector), with the same exit status.
 */
#ifndef CONFAB_PROBE_H
#define CONFAB_PROBE_H

#include <stdbool.h>

#include "core/uow.h"

struct probe_opts {
	const char *subdomain; /* the organization ("" = the root one) */
	const char *url;       /* NULL: the organization's URL; else requests go there, with its Host header */
	double warning_ms;     /* latency over which the result is WARNING */
	double critical_ms;    /* ... CRITICAL */
	double timeout_s;      /* the whole run, from the first request */
	bool prometheus;       /* print the Prometheus text format (the Nagios line as a comment) */
};

/* Runs the probe, prints its line; returns the exit status. uow holds the database connection. */
int probe_run(struct uow *uow, const struct probe_opts *o);

#endif
