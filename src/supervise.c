/*
 * confab-supervise: runs N processes of a program (a worker group on one FastCGI socket, or the reaper) and starts a
 * new one in place of each that dies, for as long as it runs. A process that ran 10 s or more is replaced at once;
 * one that died sooner after a delay that doubles with each such quick death in a row (0.1 s, 0.2 s, ... at most
 * 5 s), so that a program that cannot start does not spin, and one that a request crashes (an attacker's, say) is
 * replaced for as long as the crashes go on. Every death is logged with the delay before the next start, in the
 * log file of the configuration (log_file or CONFAB_LOG_FILE: the one the processes write, where a crashed worker
 * has logged the requests it was serving, core/crash.h).
 *
 *   confab-supervise [-n PROCESSES] -- PROGRAM [ARGUMENT...]
 *
 * The processes inherit everything (the FastCGI socket on fd 0, the environment, the user) and get SIGTERM when the
 * supervisor dies (PR_SET_PDEATHSIG, set before the exec), so that none outlives it unsupervised: whoever restarts
 * the supervisor (systemd's Restart=, scripts/up) starts a whole new group. TERM, INT or QUIT stops it: passed on
 * to the processes, the supervisor exits once they have (a second one is passed on again). HUP, USR1 and USR2 are
 * passed on; USR1 and USR2 also reopen the supervisor's log (logrotate).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"

#define STABLE_SECS    10.0 /* a process that ran this long died of something new: replaced at once */
#define FIRST_DELAY_MS 100
#define MAX_DELAY_MS   5000
#define MAX_PROCS      256

struct child {
	pid_t pid;        /* 0: not running */
	double started;   /* monotonic seconds */
	int quick_deaths; /* in a row, each within STABLE_SECS of its start */
	double due;       /* when to start it again, while pid is 0 */
};

struct supervisor {
	char **argv; /* the program and its arguments */
	int n;
	struct child kids[MAX_PROCS];
	sigset_t handled, original;
	pid_t self;
	bool stopping;
};

static double now_secs(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Forks and execs one process into k; logs a failed fork and tries again a second later. */
static void start_child(struct supervisor *s, struct child *k)
{
	pid_t pid = fork();
	if (pid < 0) {
		log_msg(LOG_ERROR, "could not fork: %s", strerror(errno));
		k->due = now_secs() + 1;
		return;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &s->original, NULL);
		/* Dies with the supervisor; if that already happened, before the call took effect, it exits now. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != s->self)
			_exit(1);
		execvp(s->argv[0], s->argv);
		log_msg(LOG_FATAL, "could not run \"%s\": %s", s->argv[0], strerror(errno));
		_exit(127);
	}
	k->pid = pid;
	k->started = now_secs();
}

/* The delay before k is started again, after a death that came after ran seconds. */
static int restart_delay_ms(struct child *k, double ran)
{
	k->quick_deaths = ran < STABLE_SECS ? k->quick_deaths + 1 : 0;
	if (k->quick_deaths == 0)
		return 0;
	int ms = FIRST_DELAY_MS;
	for (int i = 1; i < k->quick_deaths && ms < MAX_DELAY_MS; i++)
		ms *= 2;
	return ms < MAX_DELAY_MS ? ms : MAX_DELAY_MS;
}

/* One line per death: how the process ended, how long it ran, when the next one starts. */
static void log_death(const struct supervisor *s, pid_t pid, int status, double ran, int delay_ms,
                      const struct child *k)
{
	bool crashed = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
	struct log_rec r;
	log_rec_begin(&r,
	              s->stopping ? LOG_INFO
	              : crashed   ? LOG_ERROR
	                          : LOG_WARNING,
	              s->stopping ? "process exited" : "process died, starting a new one");
	log_rec_int(&r, "child", (long long)pid);
	log_rec_str(&r, "program", s->argv[0]);
	if (WIFSIGNALED(status)) {
		char name[32];
		const char *abbrev = sigabbrev_np(WTERMSIG(status));
		snprintf(name, sizeof(name), "SIG%s", abbrev ? abbrev : "?");
		log_rec_str(&r, "signal", name);
	} else {
		log_rec_int(&r, "exit_status", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	log_rec_num(&r, "ran_s", ran);
	if (!s->stopping) {
		log_rec_int(&r, "restart_in_ms", delay_ms);
		log_rec_int(&r, "quick_deaths", k->quick_deaths);
	}
	log_rec_end(&r);
}

/* Collects every child that ended and plans its replacement. */
static void reap(struct supervisor *s)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (int i = 0; i < s->n; i++) {
			struct child *k = &s->kids[i];
			if (k->pid != pid)
				continue;
			double ran = now_secs() - k->started;
			int delay = s->stopping ? 0 : restart_delay_ms(k, ran);
			log_death(s, pid, status, ran, delay, k);
			k->pid = 0;
			k->due = now_secs() + delay / 1e3;
		}
	}
}

static void pass_on(const struct supervisor *s, int sig)
{
	for (int i = 0; i < s->n; i++)
		if (s->kids[i].pid > 0)
			kill(s->kids[i].pid, sig);
}

/* Starts the children that are due; returns how many run and sets *wait to the time until the next is due. */
static int start_due(struct supervisor *s, struct timespec *wait)
{
	double now = now_secs(), next = -1;
	int running = 0;
	for (int i = 0; i < s->n; i++) {
		struct child *k = &s->kids[i];
		if (k->pid == 0 && !s->stopping && k->due <= now)
			start_child(s, k);
		if (k->pid > 0)
			running++;
		else if (!s->stopping && (next < 0 || k->due < next))
			next = k->due;
	}
	double secs = next < 0 ? 3600 : next - now > 0 ? next - now : 0.001;
	wait->tv_sec = (time_t)secs;
	wait->tv_nsec = (long)((secs - (double)wait->tv_sec) * 1e9);
	return running;
}

static void on_signal(struct supervisor *s, int sig)
{
	if (sig == SIGTERM || sig == SIGINT || sig == SIGQUIT) {
		if (!s->stopping)
			log_msg(LOG_INFO, "received signal %d, stopping %s", sig, s->argv[0]);
		s->stopping = true;
		pass_on(s, SIGTERM);
		return;
	}
	if ((sig == SIGUSR1 || sig == SIGUSR2) && log_reopen() < 0)
		log_msg(LOG_ERROR, "could not reopen the log file: %s", strerror(errno));
	pass_on(s, sig);
}

static void run(struct supervisor *s)
{
	log_msg(LOG_INFO, "supervising %d processes of %s", s->n, s->argv[0]);
	for (;;) {
		reap(s);
		struct timespec wait;
		if (start_due(s, &wait) == 0 && s->stopping)
			return;
		int sig = sigtimedwait(&s->handled, NULL, &wait);
		if (sig > 0 && sig != SIGCHLD)
			on_signal(s, sig);
	}
}

static void noop(int sig)
{
	(void)sig;
}

static int usage(void)
{
	fprintf(stderr, "usage: confab-supervise [-n PROCESSES] -- PROGRAM [ARGUMENT...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct supervisor s;
	s.n = 1;
	int opt;
	while ((opt = getopt(argc, argv, "+n:")) != -1) { /* "+": PROGRAM's options are its own */
		if (opt != 'n' || (s.n = atoi(optarg)) < 1 || s.n > MAX_PROCS)
			return usage();
	}
	if (optind >= argc)
		return usage();
	s.argv = argv + optind;
	struct config cfg;
	char err[512] = "";
	if (config_load(&cfg, NULL, err, sizeof(err)) < 0 || log_open(cfg.log_file, "confab-supervise") < 0) {
		fprintf(stderr, "confab-supervise: %s\n", err[0] ? err : strerror(errno));
		return 1;
	}
	s.self = getpid();
	/* A handler, not SIG_DFL (discard), so that SIGCHLD is surely queued for sigtimedwait. */
	signal(SIGCHLD, noop);
	sigemptyset(&s.handled);
	int sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&s.handled, sigs[i]);
	sigprocmask(SIG_BLOCK, &s.handled, &s.original);
	run(&s);
	log_msg(LOG_INFO, "stopped");
	config_free(&cfg);
	return 0;
}
