/*
 * confab-reaper: the periodic work no request triggers, about once a second: heartbeats to long-polls that have
 * waited 45-55 s and deletion of event queues idle past their timeout (events_reap), and publication of outbox
 * rows a worker left behind when it died between COMMIT and publish (events_outbox_reap), delivery of due scheduled
 * messages (deliver_scheduled); and, from its start and then every retention_interval seconds, message retention
 * (model/retention.h), one batch a tick; from its start and then every traffic_interval seconds, the channels'
 * daily message counts of the completed days (model/traffic.h); from its start and then every
 * attachment_cleanup_interval seconds, the deletion of uploads no message has linked for unclaimed_attachment_days
 * (model/attachment_space.h), one batch a tick; expiry of invitations past their time
 * (expire_invitations); and, in a thread of its own, the mail outbox (model/mail.h). Every step claims its work
 * atomically in Redis or PostgreSQL, so two reapers running at once are harmless. It outlives Redis and PostgreSQL
 * restarts (a lost connection is reconnected on the next attempt, with backoff) and is itself restarted by
 * confab-supervise or systemd if it dies.
 */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/crash.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/metrics.h"
#include "db/db.h"
#include "events/events.h"
#include "model/attachment_space.h"
#include "model/invites.h"
#include "model/mail.h"
#include "model/realm_users.h"
#include "model/retention.h"
#include "model/traffic.h"
#include "core/uow.h"
#include "model/scheduled_messages.h"
#include "redis/redis.h"

/* Longest wait between two attempts while the work keeps failing (Redis down): 1, 2, 4, 8, 16, 16 ... s. */
#define MAX_BACKOFF_SECS 16

/* Most scheduled messages one round sends; the rest go in the next round, a second later. */
#define MAX_SCHEDULED_PER_ROUND 100

/* A scheduled message the checks of sending refused (reason) becomes failed, in a transaction of its own. */
static int fail_scheduled(struct worker *w, unsigned long long n, int64_t id, const char *reason)
{
	struct uow uow;
	uow_init(&uow, w, n);
	int rc = scheduled_message_fail(&uow, id, reason) < 0 || events_commit(&uow) < 0 ? -1 : 0;
	if (rc < 0)
		log_msg(LOG_WARNING, "could not mark scheduled message %lld failed: %s", (long long)id,
		        uow.error_msg ? uow.error_msg : "?");
	else
		log_msg(LOG_INFO, "scheduled message %lld failed: %s", (long long)id, reason);
	uow_finish(&uow);
	return rc;
}

/*
 * Sends the due scheduled messages, each claimed and sent in one transaction of its own (so a reaper killed in the
 * middle leaves it unsent and unclaimed); one the send checks refuse is rolled back, then marked failed. Returns
 * how many were handled, or -1 (PostgreSQL or Redis down: the rest wait for the next round).
 */
static int deliver_scheduled(struct worker *w, unsigned long long n)
{
	int handled = 0;
	while (handled < MAX_SCHEDULED_PER_ROUND) {
		struct uow uow;
		uow_init(&uow, w, n);
		int64_t id;
		int rc = scheduled_message_deliver_due(&uow, &id);
		if (rc > 0 && events_commit(&uow) < 0)
			rc = -1;
		/* A refusal (a 4xx error) is the message's failure; anything else is the server's, to be retried. */
		bool refused = rc < 0 && id > 0 && err_info(uow.error)->status < 500;
		char reason[1024];
		snprintf(reason, sizeof(reason), "%s", uow.error_msg ? uow.error_msg : err_info(uow.error)->msg);
		uow_finish(&uow);
		if (rc == 0)
			break;
		if (rc < 0 && !refused) {
			log_msg(LOG_WARNING, "could not deliver scheduled messages: %s", reason);
			return -1;
		}
		if (refused && fail_scheduled(w, n, id, reason) < 0)
			return -1;
		handled++;
	}
	return handled;
}

/* Most invitations one round marks expired; the rest go in the next round. */
#define MAX_EXPIRED_PER_ROUND 1000

/* Marks pending invitations past their expires_at as expired (their links then show the expired page) and forgets
 * the daily-limit counts older than a day. 0, or -1 (PostgreSQL down). */
static int expire_invitations(struct worker *w, unsigned long long n)
{
	struct uow uow;
	uow_init(&uow, w, n);
	int expired = invites_expire_due(&uow, MAX_EXPIRED_PER_ROUND);
	if (expired < 0)
		log_msg(LOG_WARNING, "could not expire invitations: %s", uow.error_msg ? uow.error_msg : "?");
	else if (expired > 0)
		log_msg(LOG_INFO, "expired %d invitations", expired);
	uow_finish(&uow);
	return expired < 0 ? -1 : 0;
}

/* Forgets the organization changes no kept list of users can predate (model/realm_users.h). 0, or -1. */
static int prune_realm_changes(struct worker *w, unsigned long long n)
{
	struct uow uow;
	uow_init(&uow, w, n);
	int rc = realm_users_prune(&uow);
	if (rc < 0)
		log_msg(LOG_WARNING, "could not prune realm_changes: %s", uow.error_msg ? uow.error_msg : "?");
	uow_finish(&uow);
	return rc;
}

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
	/* After uow_finish(): each scheduled message takes a unit of work of its own, and the pool one connection. */
	if (touched < 0 || deliver_scheduled(w, n) < 0 || expire_invitations(w, n) < 0 || prune_realm_changes(w, n) < 0)
		return -1;
	return 0;
}

/* Rounds start just after each whole second, so that a message scheduled for second T goes out right after T. */
static struct timespec until_next_second(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	long ns = 1000000000L - now.tv_nsec + 5000000L;
	return (struct timespec){ns / 1000000000L, ns % 1000000000L};
}

/* The moment a wait of length wait starts now ends (CLOCK_REALTIME, as until_next_second()). */
static struct timespec due_after(struct timespec wait)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += wait.tv_sec;
	t.tv_nsec += wait.tv_nsec;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Records how late this round starts against due, the end of the wait it was scheduled by (/metrics). */
static void record_lag(struct metrics *m, struct timespec due)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	long long lag = (long long)(now.tv_sec - due.tv_sec) * 1000000 + (now.tv_nsec - due.tv_nsec) / 1000;
	if (lag < 0)
		lag = 0;
	metrics_add(m, M_REAPER_TICKS, 1);
	metrics_add(m, M_REAPER_LAG_USEC, lag);
	metrics_set(m, M_REAPER_LAST_LAG_USEC, lag);
	metrics_set(m, M_REAPER_LAST_TICK, (int64_t)now.tv_sec);
}

/* The wait after a failed round: 1 s after a success, then twice the last, up to MAX_BACKOFF_SECS. */
static struct timespec backoff(struct timespec last)
{
	time_t secs = last.tv_sec < 1 ? 1 : last.tv_sec;
	if (last.tv_sec >= 1 && secs < MAX_BACKOFF_SECS)
		secs *= 2;
	return (struct timespec){secs, 0};
}

/*
 * A periodic job done in batches: a run starts interval seconds after the last one started (the first at start-up;
 * interval 0: never) and does one batch per tick until a batch does fewer than `batch` items, so that heartbeats and
 * the outbox never wait for a long run. A failed batch ends the run (logged); the next one starts at the next
 * interval.
 */
struct batch_job {
	const char *what;  /* for the log: "message retention" */
	const char *items; /* "messages" */
	int batch;
	int (*run)(struct uow *uow); /* one batch: the number of items done, or -1 with the error recorded */
	time_t next;                 /* monotonic second when the next run starts (0: at once) */
	bool running;                /* a run is under way */
};

static void batch_job_tick(struct worker *w, unsigned long long n, struct batch_job *job, int interval)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (interval <= 0 || (!job->running && now.tv_sec < job->next))
		return;
	if (!job->running) {
		job->running = true;
		job->next = now.tv_sec + interval;
	}
	struct uow uow;
	uow_init(&uow, w, n);
	int done = job->run(&uow);
	if (done < 0)
		log_msg(LOG_WARNING, "%s failed: %s", job->what, uow.error_msg ? uow.error_msg : "?");
	else if (done > 0)
		log_msg(LOG_INFO, "%s: deleted %d %s", job->what, done, job->items);
	if (done < job->batch)
		job->running = false;
	uow_finish(&uow);
}

/* Message retention (model/retention.h), every retention_interval seconds. */
static int retention_batch(struct uow *uow)
{
	return retention_delete_batch(uow, RETENTION_BATCH);
}

/* Uploads no message links, unclaimed_attachment_days after their upload (model/attachment_space.h), every
 * attachment_cleanup_interval seconds. */
static int unclaimed_attachments_batch(struct uow *uow)
{
	int days = uow->worker->cfg->unclaimed_attachment_days;
	return days > 0 ? attachment_space_reap(uow, days) : 0;
}

/* The channels' daily message counts (model/traffic.h): at start-up, then traffic_interval seconds after the last
 * run started (*next: that monotonic second). A failed run is logged and tried again at the next interval. */
static void traffic(struct worker *w, unsigned long long n, time_t *next)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (w->cfg->traffic_interval <= 0 || now.tv_sec < *next)
		return;
	*next = now.tv_sec + w->cfg->traffic_interval;
	struct uow uow;
	uow_init(&uow, w, n);
	int rows = traffic_fill(&uow);
	if (rows < 0)
		log_msg(LOG_WARNING, "channel traffic counts failed: %s", uow.error_msg ? uow.error_msg : "?");
	else if (rows > 0)
		log_msg(LOG_INFO, "channel traffic counts: %d channel days counted", rows);
	uow_finish(&uow);
}

/* The mailer thread: SMTP waits (up to a minute for a slow relay) must not delay heartbeats, so mail has a thread
 * and a database connection of its own. After a failure it waits 1, 2, 4 ... up to MAX_BACKOFF_SECS seconds. */
struct mailer {
	struct worker w;
	pthread_t thread;
	volatile sig_atomic_t stop;
};

static void *mailer_main(void *arg)
{
	struct mailer *m = arg;
	struct timespec wait = {1, 0};
	for (unsigned long long n = 1; !m->stop; n++) {
		int sent = mail_send_due(&m->w, n, 100);
		wait = sent < 0 ? backoff(wait) : (struct timespec){1, 0};
		for (time_t s = 0; s < wait.tv_sec && !m->stop; s++)
			nanosleep(&(struct timespec){1, 0}, NULL);
	}
	return NULL;
}

static void reopen_log(void)
{
	if (log_reopen() < 0)
		log_msg(LOG_ERROR, "could not reopen the log file: %s", strerror(errno));
	else
		log_msg(LOG_INFO, "log file reopened");
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
	if (crypto_init() < 0 || crash_init(1) < 0) {
		log_msg(LOG_FATAL, "could not initialize libsodium or the crash handler");
		return 1;
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1); /* reopen the log file; USR2 too (what logrotate sends the supervisors) */
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* A write to a Redis that went away must fail with EPIPE (and be reconnected), not end the process. */
	signal(SIGPIPE, SIG_IGN);
	struct worker w = {.cfg = &cfg,
	                   .db = db_pool_new(cfg.pg_conninfo, 1, cfg.pg_prepared_statements),
	                   .redis = redis_pool_new(&cfg),
	                   .metrics = metrics_open(cfg.metrics_dir, "reaper", 0, 0)};
	curl_global_init(CURL_GLOBAL_DEFAULT);
	struct mailer mailer = {.w = {.cfg = &cfg,
	                              .db = db_pool_new(cfg.pg_conninfo, 1, cfg.pg_prepared_statements),
	                              .redis = w.redis,
	                              .metrics = w.metrics}};
	if (pthread_create(&mailer.thread, NULL, mailer_main, &mailer) != 0) {
		log_msg(LOG_FATAL, "could not start the mailer thread");
		return 1;
	}
	log_msg(LOG_INFO, "started");
	int failures = 0;
	time_t next_traffic = 0;
	struct batch_job retention = {"message retention", "messages", RETENTION_BATCH, retention_batch, 0, false};
	struct batch_job cleanup = {"unclaimed upload cleanup",  "uploads", ATTACHMENT_REAP_BATCH,
	                            unclaimed_attachments_batch, 0,         false};
	struct timespec wait = {1, 0}, due = due_after(wait);
	for (unsigned long long n = 1;; n++) {
		int sig = sigtimedwait(&set, NULL, &wait);
		if (sig == SIGTERM || sig == SIGINT) {
			log_msg(LOG_INFO, "received signal %d, shutting down", sig);
			break;
		}
		if (sig == SIGUSR1 || sig == SIGUSR2) {
			reopen_log();
			continue;
		}
		if (sig < 0 && errno == EINTR)
			continue;
		record_lag(w.metrics, due);
		if (tick(&w, n, &failures) == 0) {
			wait = until_next_second();
			due = due_after(wait);
			batch_job_tick(&w, n, &retention, cfg.retention_interval);
			traffic(&w, n, &next_traffic);
			batch_job_tick(&w, n, &cleanup, cfg.attachment_cleanup_interval);
		} else {
			wait = backoff(wait);
			due = due_after(wait);
		}
	}
	mailer.stop = 1;
	pthread_join(mailer.thread, NULL);
	db_pool_free(mailer.w.db);
	db_pool_free(w.db);
	redis_pool_free(w.redis);
	metrics_close(w.metrics);
	curl_global_cleanup();
	config_free(&cfg);
	return 0;
}
