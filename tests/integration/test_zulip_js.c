/*
 * The zulip-js client (npm zulip-js, pinned in tests/js/package.json, unmodified) against the stack, as a bot author
 * uses it: tests/js/client.js reacts to a message with the client's reactions resource and, through callEndpoint,
 * sets presence and mutes a topic, long-polling the other user's queue with the client's events resource for the
 * matching events. CONFAB_JS_DIR names tests/js with its node_modules installed (scripts/test and scripts/itest run
 * `npm ci` there). The users are in an organization of their own: the reference sends no presence events in
 * organizations of more than 100 users, as the root organization of a test run is; tests/js/host-header.js gives
 * the client that organization's host name, which has no DNS entry here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "itest.h"

/* Runs `node DIR/client.js` with env (NAME=VALUE pairs, NULL-terminated); returns its exit status, *out its output. */
static int run_client(const char *const *env, char **out)
{
	const char *dir = getenv("CONFAB_JS_DIR");
	REQUIRE(dir != NULL && *dir, "CONFAB_JS_DIR is not set (scripts/test sets it after npm ci in tests/js)");
	for (const char *const *e = env; *e != NULL; e += 2)
		setenv(e[0], e[1], 1);
	FILE *p = popen(fmt("node -r '%s/host-header.js' '%s/client.js' 2>&1", dir, dir), "r");
	REQUIRE(p != NULL, "cannot run node");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	int status = pclose(p);
	*out = fmt("%s", buf);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_react_presence_mute(void)
{
	struct user *owner = new_realm();
	struct user *a = new_user_in(owner->realm, "member", NULL), *b = new_user_in(owner->realm, "member", NULL);
	char *channel = unique_channel_name("zulip-js");
	create_channel_with(a, channel, fmt("principals=[%lld,%lld]", (long long)a->id, (long long)b->id));
	char *out;
	int rc = run_client((const char *const[]){"ZULIP_URL", itest_url, "ZULIP_HOST", realm_host(owner->realm),
	                                          "A_EMAIL", a->email, "A_KEY", a->key, "B_EMAIL", b->email, "B_KEY",
	                                          b->key, "CHANNEL", channel, NULL},
	                    &out);
	CHECK(rc == 0 && strcmp(out, "OK\n") == 0, "zulip-js client: exit %d, output: %s", rc, out);
}

void register_zulip_js_tests(void)
{
	CU_pSuite s = CU_add_suite("zulip_js", NULL, NULL);
	CU_add_test(s, "react_presence_mute", test_react_presence_mute);
}
