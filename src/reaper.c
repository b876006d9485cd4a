/*
 * confab-reaper: the periodic work no request triggers, about once a second: heartbeats to long-polls that have
 * waited 45-55 s and deletion of event queues idle past their timeout (events_reap), and publication of outbox
 * rows a worker left behind when it died between COMMIT and publish (events_outbox_reap); and, from its start and
 * then every retention_interval seconds, message retention (model/retention.h), one batch a tick. Scheduled messages
 * and invitation expiry join it with their features. Every step claims its work atomically in Redis or PostgreSQL, so
 * two reapers running at once are harmless. It outlives Redis and PostgreSQL restarts (a lost connection is reconnected
 * on the next attempt, with backoff) and is itself restarted by multiwatch or systemd if it dies.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/crypto.h"
#include "core/log.h"
#include "db/db.h"
#include "events/events.h"
#include "model/retention.h"
#include "core/uow.h"
#include "redis/redis.h"

/* Longest wait between two attempts while the work keeps failing (Redis down): 1, 2, 4, 8, 16, 16 ... s. */
#define MAX_BACKOFF_SECS 16

/*
 * One round of work. Returns 0, or -1 if it failed; *failures counts the failed rounds in a row, so that an
 * outage is logged when it starts and when it ends instead of at every attempt.
 */
static int tick(struct worker *w, unsigned long long n, int *failures)
{
	struct uow uow;
	uow_init(&uow, w, n);
	int touched = events_reap(&uow);
	/* Events a worker committed but did not publish (it died in between); with Redis down, nothing to do. */
	int published = touched < 0 ? -1 : events_outbox_reap(&uow);
	if (published < 0)
		touched = -1;
	if (touched < 0 && (*failures)++ == 0)
		log_msg(LOG_WARNING, "event queue maintenance failed, retrying with backoff: %s",
		        uow.error_msg ? uow.error_msg : "?");
	if (touched >= 0 && *failures > 0) {
		log_msg(LOG_INFO, "event queue maintenance works again after %d failed attempts", *failures);
		*failures = 0;
	}
	if (touched > 0)
		log_msg(LOG_DEBUG, "event queue maintenance: %d queues", touched);
	uow_finish(&uow);
	return touched < 0 ? -1 : 0;
}

/*
 * Message retention: a run starts retention_interval seconds after the last one started (the first at start-up)
 * and deletes one batch per tick until a batch finds fewer than RETENTION_BATCH messages, so that heartbeats and
 * the outbox never wait for a long run. *next: monotonic second when the next run starts (0: at once); *running:
 * a run is under way. A failed batch ends the run (logged); the next one starts at the next interval.
 */
static void retention(struct worker *w, unsigned long long n, time_t *next, bool *running)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (w->cfg->retention_interval <= 0 || (!*running && now.tv_sec < *next))
		return;
	if (!*running) {
		*running = true;
		*next = now.tv_sec + w->cfg->retention_interval;
	}
	struct uow uow;
	uow_init(&uow, w, n);
	int deleted = retention_delete_batch(&uow, RETENTION_BATCH);
	if (deleted < 0)
		log_msg(LOG_WARNING, "message retention failed: %s", uow.error_msg ? uow.error_msg : "?");
	else if (deleted > 0)
		log_msg(LOG_INFO, "message retention: deleted %d messages", deleted);
	if (deleted < RETENTION_BATCH) /* done, or failed: tried again at the next interval */
		*running = false;
	uow_finish(&uow);
}

int main(int argc, char **argv)
{
	const char *path = argc > 2 && strcmp(argv[1], "-c") == 0 ? argv[2] : NULL;
	struct config cfg;
	char err[512];
	if (config_load(&cfg, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "confab-reaper: %s\n", err);
		return 1;
	}
	if (log_open(cfg.log_file, "confab-reaper") < 0) {
		fprintf(stderr, "confab-reaper: could not open log file \"%s\": %s\n", cfg.log_file, strerror(errno));
		return 1;
	}
	if (crypto_init() < 0) {
		log_msg(LOG_FATAL, "could not initialize libsodium");
		return 1;
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* A write to a Redis that went away must fail with EPIPE (and be reconnected), not end the process. */
	signal(SIGPIPE, SIG_IGN);
	struct worker w = {.cfg = &cfg, .db = db_pool_new(cfg.pg_conninfo, 1), .redis = redis_pool_new(&cfg)};
	log_msg(LOG_INFO, "started");
	int failures = 0;
	time_t next_retention = 0;
	bool retention_running = false;
	struct timespec wait = {1, 0};
	for (unsigned long long n = 1;; n++) {
		int sig = sigtimedwait(&set, NULL, &wait);
		if (sig == SIGTERM || sig == SIGINT) {
			log_msg(LOG_INFO, "received signal %d, shutting down", sig);
			break;
		}
		if (sig < 0 && errno == EINTR)
			continue;
		if (tick(&w, n, &failures) == 0) {
			wait.tv_sec = 1;
			retention(&w, n, &next_retention, &retention_running);
		} else if (wait.tv_sec < MAX_BACKOFF_SECS) {
			wait.tv_sec *= 2;
		}
	}
	db_pool_free(w.db);
	redis_pool_free(w.redis);
	config_free(&cfg);
	return 0;
}
