/*
 * Crash reports (core/crash.h) and the paths the logs may show (request_log_path): a process that aborts logs one
 * line per request its threads were serving, then dies of the signal; no invitation key or upload path is logged.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/crash.h"
#include "core/log.h"
#include "http/request.h"
#include "unit.h"

static int ready[2];

/* A second serving thread: notes its request, says so, and waits for the crash. */
static void *other_thread(void *arg)
{
	(void)arg;
	crash_note(8, "GET", "/api/v1/events");
	if (write(ready[1], "x", 1) != 1)
		_exit(3);
	pause();
	return NULL;
}

/*
 * In a child process logging to a new file: notes a request (cleared again when clear is set) while another thread
 * serves one too when two_threads is set, then aborts. Returns the log and the child's wait status in *status.
 */
static char *crash_in_child(bool clear, bool two_threads, int *status)
{
	char path[] = "/tmp/confab-test-crash-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_FATAL(pipe(ready) == 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		if (log_open(path, "confab-worker") < 0 || crash_init(4) < 0)
			_exit(2);
		pthread_t t;
		char c;
		if (two_threads && (pthread_create(&t, NULL, other_thread, NULL) != 0 || read(ready[0], &c, 1) != 1))
			_exit(2);
		crash_note(7, "POST", "/api/v1/users/me/subscriptions/properties");
		if (clear)
			crash_clear();
		abort();
	}
	waitpid(pid, status, 0);
	close(ready[0]);
	close(ready[1]);
	char *buf = calloc(1, 8192);
	FILE *f = fopen(path, "r");
	if (f != NULL) {
		size_t n = fread(buf, 1, 8191, f);
		buf[n] = '\0';
		fclose(f);
	}
	unlink(path);
	return buf;
}

static void test_crash_logs_the_routes_in_flight(void)
{
	int status;
	char *log = crash_in_child(false, true, &status);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, " level=fatal proc=confab-worker pid="));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, " msg=\"process crashed\" signal=SIGABRT request=7 method=POST "
	                                   "path=/api/v1/users/me/subscriptions/properties\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, " msg=\"process crashed\" signal=SIGABRT request=8 method=GET "
	                                   "path=/api/v1/events\n"));
	CU_ASSERT_EQUAL(strncmp(log, "ts=20", 5), 0);
	free(log);
}

static void test_crash_without_requests(void)
{
	int status;
	char *log = crash_in_child(true, false, &status);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, " msg=\"process crashed\" signal=SIGABRT requests=0\n"));
	CU_ASSERT_PTR_NULL(strstr(log, "request=7"));
	free(log);
}

static void test_request_log_path_masks_secrets(void)
{
	struct request req;
	request_init(&req, NULL, 1);
	static const char *const cases[][2] = {
	    {"/join/Zx81kQ2vTnM0aWc4pLr7sYb3/", "/join/***"},
	    {"/join/Zx81kQ2vTnM0aWc4pLr7sYb3", "/join/***"},
	    {"/user_uploads/temporary/abcDEF123/secret%20plan.pdf", "/user_uploads/***"},
	    {"/user_uploads/2/4e/bVA5kkoHaYiJOaBS4DP2vadz/private.txt", "/user_uploads/***"},
	    {"/api/v1/user_uploads/2/4e/bVA5kkoHaYiJOaBS4DP2vadz/private.txt", "/api/v1/user_uploads/***"},
	    {"/api/v1/users/me", "/api/v1/users/me"},
	    {"/api/v1/user_uploads", "/api/v1/user_uploads"},
	    {"/join/", "/join/"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CU_ASSERT_STRING_EQUAL(request_log_path(&req, cases[i][0]), cases[i][1]);
	request_finish(&req);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_crash_logs_the_routes_in_flight", test_crash_logs_the_routes_in_flight},
	    {"test_crash_without_requests", test_crash_without_requests},
	    {"test_request_log_path_masks_secrets", test_request_log_path_masks_secrets},
	    {NULL, NULL},
	};
	return unit_run("crash", tests);
}
