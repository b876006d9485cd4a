/*
 * A LISTEN connection of its own, on a thread of its own: the way PostgreSQL tells a process that rows it keeps
 * copies of have changed (model/cache.h). Part of db/ because it is a libpq user.
 *
 * The thread connects to conninfo (pg_listen_conninfo: a direct connection, since LISTEN needs a session and a
 * pooler in transaction mode gives none), runs LISTEN channel, then calls on_up(arg); each notification on the
 * channel calls on_notify(arg, payload). When the connection is lost (a PostgreSQL restart, a dead peer found by a
 * ping every LISTEN_PING_SECS of silence), it calls on_down(arg) at once and reconnects, every 100 ms at first, then
 * every second; on_up() follows each successful LISTEN, so notifications missed in between are made up by it.
 * The callbacks run on the listener's thread and must not block.
 */
#ifndef CONFAB_DB_LISTEN_H
#define CONFAB_DB_LISTEN_H

struct db_listener_ops {
	void (*on_up)(void *arg);
	void (*on_down)(void *arg);
	void (*on_notify)(void *arg, const char *payload);
	void *arg;
};

/* Starts the listener thread (detached; it lives as long as the process). Returns 0, or -1 if no thread. */
int db_listener_start(const char *conninfo, const char *channel, const struct db_listener_ops *ops);

#endif
