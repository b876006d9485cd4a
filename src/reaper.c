/*
 * confab-reaper: the periodic work no request triggers. For now it only runs its one-second loop and logs;
 * heartbeats, idle queue expiry, scheduled messages and invitation expiry join it with their features.
 * Two reapers running at once must stay harmless.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/log.h"

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
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	log_msg(LOG_INFO, "started");
	struct timespec tick = {1, 0};
	for (;;) {
		int sig = sigtimedwait(&set, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT) {
			log_msg(LOG_INFO, "received signal %d, shutting down", sig);
			config_free(&cfg);
			return 0;
		}
	}
}
