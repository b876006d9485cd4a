/* The LISTEN thread; see listen.h. */
#include "db/listen.h"

#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/xalloc.h"

/*
 * Seconds of silence after which the connection is pinged, and after which an unanswered ping counts as lost. A ping
 * is a notification to the listener itself: its echo proves that notifications still arrive (a LISTEN sent through a
 * pooler in transaction mode answers, but never receives anything).
 */
#define LISTEN_PING_SECS 2

struct listener {
	char *conninfo;
	char *listen_sql;
	char *ping_payload; /* "ping:<pid>:<n>": this listener's own */
	char *ping_sql;
	struct db_listener_ops ops;
};

static double now_secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Connects and runs LISTEN; NULL (logged once per outage by the caller's flag) on failure. */
static PGconn *connect_listen(struct listener *l, bool *logged)
{
	PGconn *pg = PQconnectdb(l->conninfo);
	if (PQstatus(pg) == CONNECTION_OK) {
		PGresult *r = PQexec(pg, l->listen_sql);
		bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
		PQclear(r);
		if (ok && PQsetnonblocking(pg, 1) == 0)
			return pg;
	}
	if (!*logged)
		log_msg(LOG_WARNING, "cache listener: could not listen: %s", PQerrorMessage(pg));
	*logged = true;
	PQfinish(pg);
	return NULL;
}

/*
 * Reads what arrived: notifications to on_notify, except pings (this listener's own echo clears *ping_pending; other
 * processes' are dropped), query results dropped. -1 when the connection is gone.
 */
static int consume(struct listener *l, PGconn *pg, bool *ping_pending)
{
	if (PQconsumeInput(pg) == 0)
		return -1;
	while (!PQisBusy(pg)) {
		PGresult *r = PQgetResult(pg);
		if (r == NULL)
			break;
		PQclear(r);
	}
	PGnotify *n;
	while ((n = PQnotifies(pg)) != NULL) {
		if (strcmp(n->extra, l->ping_payload) == 0)
			*ping_pending = false;
		else if (strncmp(n->extra, "ping:", 5) != 0)
			l->ops.on_notify(l->ops.arg, n->extra);
		PQfreemem(n);
	}
	return PQstatus(pg) == CONNECTION_OK ? 0 : -1;
}

/* Sends a ping (the caller waits for its echo). */
static bool send_ping(struct listener *l, PGconn *pg)
{
	return PQsendQuery(pg, l->ping_sql) != 0 && PQflush(pg) == 0;
}

/* True once the first ping's echo arrived within LISTEN_PING_SECS: notifications reach this connection. */
static bool echoes(struct listener *l, PGconn *pg)
{
	bool ping_pending = true;
	if (!send_ping(l, pg))
		return false;
	for (double start = now_secs(); ping_pending && now_secs() - start < LISTEN_PING_SECS;) {
		struct pollfd p = {.fd = PQsocket(pg), .events = POLLIN};
		if (poll(&p, 1, 100) > 0 && consume(l, pg, &ping_pending) < 0)
			return false;
	}
	return !ping_pending;
}

/* Serves one connection until it is lost. */
static void serve(struct listener *l, PGconn *pg)
{
	bool ping_pending = false;
	double last = now_secs();
	for (;;) {
		struct pollfd p = {.fd = PQsocket(pg), .events = POLLIN};
		int rc = poll(&p, 1, 1000);
		if (rc > 0) {
			if (consume(l, pg, &ping_pending) < 0)
				return;
			last = now_secs();
			continue;
		}
		if (now_secs() - last < LISTEN_PING_SECS)
			continue;
		if (ping_pending || !send_ping(l, pg))
			return; /* no echo of the last ping within LISTEN_PING_SECS */
		ping_pending = true;
		last = now_secs();
	}
}

static void *run(void *arg)
{
	struct listener *l = arg;
	bool logged = false;
	useconds_t wait = 100000;
	for (;;) {
		PGconn *pg = connect_listen(l, &logged);
		if (pg != NULL && !echoes(l, pg)) {
			if (!logged)
				log_msg(LOG_WARNING,
				        "cache listener: LISTEN receives no notifications (a pooler in transaction "
				        "mode? point pg_listen_conninfo at PostgreSQL itself); caches stay bypassed");
			logged = true;
			PQfinish(pg);
			pg = NULL;
		}
		if (pg == NULL) {
			usleep(wait);
			wait = wait < 1000000 ? wait * 2 : 1000000;
			continue;
		}
		if (logged)
			log_msg(LOG_INFO, "cache listener: listening again");
		logged = false;
		wait = 100000;
		l->ops.on_up(l->ops.arg);
		serve(l, pg);
		l->ops.on_down(l->ops.arg);
		log_msg(LOG_WARNING, "cache listener: lost its connection: %s", PQerrorMessage(pg));
		PQfinish(pg);
	}
	return NULL;
}

int db_listener_start(const char *conninfo, const char *channel, const struct db_listener_ops *ops)
{
	struct listener *l = xmalloc(sizeof(*l));
	l->conninfo = xstrdup(conninfo);
	size_t len = strlen(channel) + 16;
	l->listen_sql = xmalloc(len);
	snprintf(l->listen_sql, len, "LISTEN %s", channel); /* a constant of the caller, never client data */
	static int listeners;
	l->ping_payload = xmalloc(48);
	snprintf(l->ping_payload, 48, "ping:%ld:%d", (long)getpid(),
	         __atomic_add_fetch(&listeners, 1, __ATOMIC_RELAXED));
	len = strlen(channel) + strlen(l->ping_payload) + 32;
	l->ping_sql = xmalloc(len);
	snprintf(l->ping_sql, len, "SELECT pg_notify('%s', '%s')", channel, l->ping_payload);
	l->ops = *ops;
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&t, &attr, run, l);
	pthread_attr_destroy(&attr);
	return rc == 0 ? 0 : -1;
}
