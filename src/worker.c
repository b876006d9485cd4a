/*
 * confab-worker: a multi-threaded FastCGI responder serving /api/v1, /health and the uploaded files. Stateless: any
 * worker serves any request. Started by spawn-fcgi (socket on fd 0) or with `listen` set in the configuration.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "api/ratelimit_watch.h"
#include "core/config.h"
#include "core/crash.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/metrics.h"
#include "db/db.h"
#include "events/polls.h"
#include "http/fcgi.h"
#include "http/request.h"
#include "model/cache.h"
#include "http/route.h"
#include "pipeline/router.h"
#include "redis/redis.h"

static volatile int stopping;

struct thread_arg {
	struct worker *w;
	int fd;
};

static void *serve(void *arg)
{
	struct thread_arg *ta = arg;
	/* Every path, /api/v1 or not, is a line of routes[] (src/api/routes.c). */
	fcgi_serve(ta->w, ta->fd, &stopping, router_handle);
	return NULL;
}

/* Signals are taken by sigwait() in main(); libfcgi must not install its own handlers (stack-notes 6). */
static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR1); /* reopen the log file (logrotate), as nginx does */
	sigaddset(set, SIGUSR2); /* the same (what logrotate sends the supervisors, which pass it on) */
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH           78
#define PR_FUTEX_HASH_SET_SLOTS 1
#endif

/*
 * Gives the process a futex hash table of about two buckets a thread. Linux 6.16 and later give each process a table
 * of its own, sized by the CPUs (16 buckets on 2 CPUs), not by the threads, and every idle thread waits on a futex
 * (thousands of them in an events process, for long-polls): each wake in the process then walks the waiters of its
 * bucket, hundreds or thousands of them. GET /events answered up to half as many requests a second. Older kernels
 * know no such call (EINVAL) and have one table for all processes, sized by the CPUs at boot.
 */
static void size_futex_hash(int threads)
{
	unsigned long slots = 16;
	while (slots < 2UL * (unsigned long)threads && slots < 65536)
		slots *= 2;
	if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0, 0) != 0 && errno != EINVAL)
		log_msg(LOG_WARNING, "could not size the futex hash to %lu buckets: %s", slots, strerror(errno));
}

/* Starts the configured number of detached serving threads; -1 (logged) if one cannot start. */
static int start_threads(struct thread_arg *ta)
{
	const struct config *cfg = ta->w->cfg;
	size_futex_hash(cfg->threads);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)cfg->thread_stack_kb * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int rc = 0;
	for (int i = 0; i < cfg->threads && rc == 0; i++) {
		pthread_t t;
		if (pthread_create(&t, &attr, serve, ta) != 0) {
			log_msg(LOG_FATAL, "could not start thread %d of %d", i + 1, cfg->threads);
			rc = -1;
		}
	}
	pthread_attr_destroy(&attr);
	return rc;
}

/* What the process needs before it serves: libsodium, the crash handler, its signals blocked (into *set, for
 * sigwait()), and malloc's mmap threshold. 0, or -1 with the reason logged. */
static int prepare_process(const struct config *cfg, sigset_t *set)
{
	if (crypto_init() < 0) {
		log_msg(LOG_FATAL, "could not initialize libsodium");
		return -1;
	}
	if (crash_init(cfg->threads) < 0) {
		log_msg(LOG_FATAL, "could not install the crash handler: %s", strerror(errno));
		return -1;
	}
	block_signals(set);
	/* glibc raises its mmap threshold to the size of every mapped block freed (up to 32 MiB), so that after one
	 * large request the next ones' large blocks come from the heap and stay there when freed: 3.8 GB held after 16
	 * bodies of 24 MB. A fixed threshold keeps every block of 128 KiB or more mapped, and unmapped when freed. */
	if (mallopt(M_MMAP_THRESHOLD, 128 * 1024) != 1)
		log_msg(LOG_WARNING, "could not fix malloc's mmap threshold");
	return 0;
}

/* Waits for a signal that stops the worker; SIGHUP is ignored, SIGUSR1 and SIGUSR2 reopen the log. */
static void wait_for_stop(sigset_t *set)
{
	int sig = 0;
	while (sigwait(set, &sig) == 0 && (sig == SIGHUP || sig == SIGUSR1 || sig == SIGUSR2)) {
		if (sig == SIGHUP)
			log_msg(LOG_INFO, "SIGHUP ignored: restart the workers to reload the configuration");
		else if (log_reopen() < 0)
			log_msg(LOG_ERROR, "could not reopen the log file: %s", strerror(errno));
		else
			log_msg(LOG_INFO, "log file reopened");
	}
	log_msg(LOG_INFO, "received signal %d, shutting down", sig);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	struct config cfg;
	char err[512];
	if (config_load(&cfg, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "confab-worker: %s\n", err);
		return 1;
	}
	if (log_open(cfg.log_file, "confab-worker") < 0) {
		fprintf(stderr, "confab-worker: could not open log file \"%s\": %s\n", cfg.log_file, strerror(errno));
		return 1;
	}
	sigset_t set;
	if (prepare_process(&cfg, &set) < 0)
		return 1;
	int fd = fcgi_listen(cfg.listen);
	if (fd < 0) {
		log_msg(LOG_FATAL, "could not listen on \"%s\"", cfg.listen);
		return 1;
	}
	struct worker w = {
	    .cfg = &cfg,
	    .db = db_pool_new(cfg.pg_conninfo, cfg.pg_pool_size, cfg.pg_prepared_statements),
	    .redis = redis_pool_new(&cfg),
	    .cache = cache_new(),
	    .polls = polls_new(),
	    .metrics = metrics_open(cfg.metrics_dir, cfg.metrics_group, (int)nroutes, routes_layout()),
	};
	cache_listen(w.cache, config_listen_conninfo(&cfg));
	if (cfg.api_key_fail_limit_address > 0)
		ratelimit_watch_start(config_listen_conninfo(&cfg));
	struct thread_arg ta = {&w, fd};
	if (start_threads(&ta) < 0)
		return 1;
	log_msg(LOG_INFO, "confab %s (%s build, %s) serving with %d threads, %d database and %d redis connections",
	        PACKAGE_VERSION, CONFAB_BUILD_MODE, CONFAB_BUILD_CFLAGS, cfg.threads, cfg.pg_pool_size,
	        cfg.redis_pool_size);

	wait_for_stop(&set);
	/*
	 * Stop accepting (the socket stays open: the group's other processes, and the one confab-supervise or systemd
	 * starts in our place, take the next connections), answer the long-polls held here (their clients poll again
	 * elsewhere), then give requests in progress up to 3 s to finish; idle threads just end with us.
	 */
	stopping = 1;
	fcgi_stop();
	int woken = polls_release(&w);
	log_msg(LOG_INFO, "stopped accepting, %d long-polls answered", woken);
	for (int i = 0; i < 60 && fcgi_busy() > 0; i++)
		usleep(50000);
	if (fcgi_busy() > 0) {
		log_msg(LOG_WARNING, "%d requests still in progress at exit", fcgi_busy());
		return 0; /* they may still use the pools */
	}
	db_pool_free(w.db);
	redis_pool_free(w.redis);
	polls_free(w.polls);
	metrics_close(w.metrics);
	config_free(&cfg);
	return 0;
}
