/*
 * What other local users can reach of the stack (issue 29, item 8). "access": only the service's user confab (and
 * root) opens PostgreSQL and Redis; www-data, the web server's user that every other site (and every other stack's
 * workers) on the machine shares, opens neither, nor the FastCGI sockets, nor reads the uploads or the mails; nobody
 * opens nothing; and the logs hold no invitation key.
 *
 * Needs CONFAB_RUN_DIR (the state directory is its parent: uploads/, log/), CONFAB_MAIL_DIR, CONFAB_PSQL and
 * CONFAB_REDIS_CLI. Runs commands as other users with runuser (root).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "procs.h"

#define SVC_USER  "confab"
#define WEB_GROUP "confab-web"

/* Runs cmd as user (from /, with stderr), its output in *out; returns the exit status. */
static int run_as(const char *user, const char *cmd, char **out)
{
	int status;
	*out = command_output(fmt("cd / && runuser -u %s -- %s", user, cmd), &status);
	return status;
}

static const char *env_or_fail(const char *name)
{
	const char *v = getenv(name);
	REQUIRE(v != NULL && *v != '\0', "%s is not set", name);
	return v;
}

/* The state directory: the parent of CONFAB_RUN_DIR (scripts/lib.sh's layout). */
static const char *state_dir(void)
{
	char *run = fmt("%s", env_or_fail("CONFAB_RUN_DIR"));
	char *slash = strrchr(run, '/');
	REQUIRE(slash != NULL && slash != run, "CONFAB_RUN_DIR is not an absolute path below /: %s", run);
	*slash = '\0';
	return run;
}

static void test_only_confab_opens_postgresql(void)
{
	const char *psql = env_or_fail("CONFAB_PSQL");
	char *out;
	int rc = run_as(SVC_USER, fmt("%s -c 'SELECT 1'", psql), &out);
	CHECK(rc == 0 && strcmp(out, "1\n") == 0, "the service's user confab cannot query PostgreSQL as confab: %s", out);
	static const char *const as[] = {
	    "-c 'SELECT 1'",                                      /* the role confab on the socket */
	    "-U postgres -d postgres -c 'SELECT 1'",              /* the superuser on the socket */
	    "-h 127.0.0.1 -U postgres -d postgres -c 'SELECT 1'", /* the superuser over TCP */
	};
	static const char *const users[] = {"www-data", "nobody"};
	for (size_t u = 0; u < sizeof(users) / sizeof(*users); u++)
		for (size_t i = 0; i < sizeof(as) / sizeof(*as); i++) {
			rc = run_as(users[u], fmt("%s %s", psql, as[i]), &out);
			CHECK(rc != 0, "user %s ran `psql %s`: exit %d, %s", users[u], as[i], rc, out);
		}
}

static void test_only_confab_opens_redis(void)
{
	const char *cli = env_or_fail("CONFAB_REDIS_CLI");
	char *out;
	run_as(SVC_USER, fmt("%s PING", cli), &out);
	CHECK(strcmp(out, "PONG\n") == 0, "the service's user confab cannot open Redis: %s", out);
	static const char *const users[] = {"www-data", "nobody"};
	for (size_t u = 0; u < sizeof(users) / sizeof(*users); u++) {
		run_as(users[u], fmt("%s PING", cli), &out);
		CHECK(strstr(out, "PONG") == NULL, "user %s opened Redis: %s", users[u], out);
		CHECK(strstr(out, "Permission denied") != NULL, "redis-cli as %s: %s", users[u], out);
	}
}

/* The FastCGI sockets: a client of them sets REMOTE_ADDR and the internal parameters as it likes. */
static void test_www_data_cannot_open_worker_sockets(void)
{
	const char *run = env_or_fail("CONFAB_RUN_DIR");
	static const char *const socks[] = {"api.sock", "events.sock"};
	for (size_t i = 0; i < sizeof(socks) / sizeof(*socks); i++) {
		const char *py = fmt("python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect(\"%s/%s\")'", run,
		                     socks[i]);
		char *out;
		int rc = run_as("www-data", py, &out);
		CHECK(rc != 0 && strstr(out, "PermissionError") != NULL, "www-data connected to %s/%s: %s", run, socks[i],
		      out);
	}
}

/* POST /user_uploads of a small file as the owner; its path under upload_dir. */
static const char *upload_file(void)
{
	const char *body = "--B0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"private.txt\"\r\n"
	                   "Content-Type: text/plain\r\n\r\nnot for other users\r\n--B0undary--\r\n";
	struct resp *r = http(&(struct request){.method = "POST",
	                                        .path = "/api/v1/user_uploads",
	                                        .user = &itest_owner,
	                                        .body = body,
	                                        .body_len = strlen(body),
	                                        .content_type = "multipart/form-data; boundary=B0undary"});
	EXPECT_SUCCESS(r);
	const char *url = jstr(r->json, "url");
	REQUIRE(url != NULL && strncmp(url, "/user_uploads/", 14) == 0, "no upload url: %s", r->body);
	struct resp *got = http(&(struct request){.path = url, .user = &itest_owner});
	CHECK(got->status == 200 && strcmp(got->body, "not for other users") == 0,
	      "the web server does not serve the upload: %ld %s", got->status, got->body);
	return fmt("%s/uploads/%s", state_dir(), url + 14);
}

/* The newest mail in CONFAB_MAIL_DIR that mentions text, as a path; NULL if none. */
static const char *mail_file_with(const char *text)
{
	const char *dir = env_or_fail("CONFAB_MAIL_DIR");
	DIR *d = opendir(dir);
	REQUIRE(d != NULL, "cannot open %s", dir);
	const char *found = NULL;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		const char *path = fmt("%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && strstr(file_text(path), text) != NULL && (found == NULL || strcmp(path, found) > 0))
			found = path;
	}
	closedir(d);
	return found;
}

/* An invitation mailed to a fresh address: its mail file and the key of its /join/ link. */
static const char *invite(char **key)
{
	char *to = unique_email("access");
	EXPECT_SUCCESS(api_post(&itest_owner, "/invites", fmt("invitee_emails=%s&stream_ids=%%5B%%5D", url_encode(to))));
	REQUIRE(wait_for_mail(to, 10) != NULL, "no invitation mail for %s", to);
	const char *file = mail_file_with(to);
	REQUIRE(file != NULL, "no mail file for %s", to);
	const char *text = mail_part(file_text(file), "text/plain");
	const char *link = text ? strstr(text, "/join/") : NULL;
	REQUIRE(link != NULL, "no /join/ link in %s", file);
	size_t n = 0;
	while (isalnum((unsigned char)link[6 + n]))
		n++;
	REQUIRE(n >= 16, "no key after /join/ in %s", file);
	*key = fmt("%.*s", (int)n, link + 6);
	return file;
}

/* Uploads and mails are the service's (and the web server's group's): www-data lists and reads none of them. */
static void test_www_data_cannot_read_uploads_or_mail(void)
{
	const char *file = upload_file();
	struct stat st;
	REQUIRE(stat(file, &st) == 0, "no file %s", file);
	CHECK((st.st_mode & 07777) == 0640, "upload mode %o, expected 0640", (unsigned)(st.st_mode & 07777));
	const char *uploads = fmt("%s/uploads", state_dir());
	REQUIRE(stat(uploads, &st) == 0, "no %s", uploads);
	CHECK((st.st_mode & 07777) == 02750, "upload_dir mode %o, expected 02750", (unsigned)(st.st_mode & 07777));
	char *key, *out;
	const char *mail = invite(&key);
	const char *const paths[] = {file, uploads, mail, env_or_fail("CONFAB_MAIL_DIR")};
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		int rc = run_as("www-data", fmt("sh -c 'ls %s && cat %s' </dev/null", paths[i], paths[i]), &out);
		CHECK(rc != 0 && strstr(out, "Permission denied") != NULL, "www-data reads %s: exit %d, %s", paths[i], rc,
		      out);
	}
}

/* The page of an invitation link is logged without its key (item 8: the key is the invitation). */
static void test_logs_hold_no_join_key(void)
{
	char *key;
	invite(&key);
	struct resp *page = http(&(struct request){.path = fmt("/join/%s/", key)});
	CHECK(page->status == 200, "GET /join/<key>/: %ld", page->status);
	pid_t kids[4];
	REQUIRE(proc_children(group_supervisor("api"), "confab-worker", kids, 4) > 0, "no api worker");
	const char *log = proc_log_file(kids[0]);
	bool masked = false;
	for (int i = 0; i < 40 && !masked; i++, usleep(50000))
		masked = strstr(file_text(log), "method=GET path=/join/*** status=200") != NULL;
	CHECK(masked, "no access line for /join/*** in %s", log);
	DIR *d = opendir(fmt("%s/log", state_dir()));
	REQUIRE(d != NULL, "cannot open the log directory");
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		const char *path = fmt("%s/log/%s", state_dir(), e->d_name);
		CHECK(e->d_name[0] == '.' || strstr(file_text(path), key) == NULL, "%s holds the invitation key", path);
	}
	closedir(d);
}

void register_access_tests(void)
{
	static const struct itest_case cases[] = {
	    {"only_confab_opens_postgresql", test_only_confab_opens_postgresql},
	    {"only_confab_opens_redis", test_only_confab_opens_redis},
	    {"www_data_cannot_open_worker_sockets", test_www_data_cannot_open_worker_sockets},
	    {"www_data_cannot_read_uploads_or_mail", test_www_data_cannot_read_uploads_or_mail},
	    {"logs_hold_no_join_key", test_logs_hold_no_join_key},
	    {NULL, NULL},
	};
	itest_add_suite("access", cases);
}
