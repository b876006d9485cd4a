/*
 * Outgoing mail end to end: the mail outbox (model/mail.c), the reaper's mailer thread, libcurl's SMTP client and
 * the SMTP sink of the test stack (scripts/smtp-sink, files in CONFAB_MAIL_DIR). Invitations (issue 17) send
 * through the same path.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itest.h"

/* confabctl send-test-mail waits for the mailer; the mail arrives with both parts and the headers. */
static void test_send_test_mail(void)
{
	char *to = unique_email("mail");
	json_object *out = ctl((const char *const[]){"send-test-mail", "--email", to, NULL});
	REQUIRE(out != NULL, "confabctl send-test-mail failed");
	EXPECT_BOOL(out, "sent", true);
	char *mail = wait_for_mail(to, 5);
	REQUIRE(mail != NULL, "no mail for %s in CONFAB_MAIL_DIR", to);
	CHECK(strcmp(mail_header(mail, "Subject"), "Test mail from confab") == 0, "Subject: %s",
	      mail_header(mail, "Subject"));
	CHECK(strcmp(mail_header(mail, "To"), fmt("<%s>", to)) == 0, "To: %s", mail_header(mail, "To"));
	CHECK(strncmp(mail_header(mail, "From"), "<noreply@", 9) == 0, "From: %s", mail_header(mail, "From"));
	CHECK(mail_header(mail, "Message-ID") != NULL && mail_header(mail, "Date") != NULL, "%s", mail);
	char *text = mail_part(mail, "text/plain"), *html = mail_part(mail, "text/html");
	CHECK(text && strstr(text, "confabctl send-test-mail"), "text part: %s", text ? text : "(none)");
	CHECK(html && strstr(html, "<code>confabctl send-test-mail</code>"), "html part: %s", html ? html : "(none)");
	char *state = psql_ok("SELECT attempts, sent_at IS NOT NULL, failed_at IS NULL, last_error IS NULL"
	                      " FROM mail_outbox WHERE to_address = '%s'",
	                      to);
	CHECK(strcmp(state, "1|t|t|t") == 0, "outbox row: %s", state);
}

/* A mail waits for a relay that is down, records why, and goes out with the next attempt once it is back. */
static void test_relay_outage(void)
{
	char *to = unique_email("outage");
	run_env_command("CONFAB_STOP_SMTP");
	char *id = psql_ok("INSERT INTO mail_outbox (to_address, subject, text_body, html_body)"
	                   " VALUES ('%s', 'Outage', 'text', '<p>html</p>') RETURNING id",
	                   to);
	char *state = NULL;
	for (int i = 0; i < 100; i++) {
		state = psql_ok("SELECT attempts, last_error IS NOT NULL, sent_at IS NULL FROM mail_outbox WHERE id = %s", id);
		if (strcmp(state, "1|t|t") == 0)
			break;
		nanosleep(&(struct timespec){0, 100000000L}, NULL);
	}
	CHECK(strcmp(state, "1|t|t") == 0, "after a failed attempt: %s", state);
	char *wait = psql_ok("SELECT next_attempt_at - now() BETWEEN interval '20 s' AND interval '31 s'"
	                     " FROM mail_outbox WHERE id = %s",
	                     id);
	CHECK(strcmp(wait, "t") == 0, "the retry is not about 30 s later");
	run_env_command("CONFAB_START_SMTP");
	psql_ok("UPDATE mail_outbox SET next_attempt_at = now() WHERE id = %s", id); /* the 30 s have passed */
	char *mail = wait_for_mail(to, 20);
	CHECK(mail != NULL, "the mail did not arrive after the relay came back");
	state = psql_ok("SELECT attempts, sent_at IS NOT NULL, last_error IS NULL FROM mail_outbox WHERE id = %s", id);
	CHECK(strcmp(state, "2|t|t") == 0, "after the relay came back: %s", state);
}

void register_mail_tests(void)
{
	CU_pSuite s = CU_add_suite("mail", NULL, NULL);
	CU_add_test(s, "send_test_mail", test_send_test_mail);
	CU_add_test(s, "relay_outage", test_relay_outage);
}
