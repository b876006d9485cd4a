/* The mail outbox; see mail.h. */
#include "model/mail.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/mime.h"
#include "core/smtp.h"
#include "core/uow.h"
#include "db/db.h"

static struct db_stmt st_insert =
    DB_STMT("INSERT INTO mail_outbox (realm_id, from_name, to_address, subject, text_body, html_body)"
            " VALUES ($1, $2, $3, $4, $5, $6) RETURNING id");

int64_t mail_enqueue(struct uow *uow, const struct mail_draft *m)
{
	if (strpbrk(m->to, "\r\n<> ") != NULL || *m->to == '\0')
		return uow_error(uow, ERR_INTERNAL, "bad mail address"), 0;
	struct db_res *res = DB_EXEC(uow, &st_insert, m->realm_id ? db_arg_int(uow, m->realm_id) : NULL,
	                             m->from_name ? m->from_name : "", m->to, m->subject, m->text, m->html);
	return res ? db_int(res, 0, 0) : 0;
}

/* One statement, so the claim is atomic: the earliest due mail, leased for MAIL_LEASE_SECS. */
static struct db_stmt st_claim = DB_STMT(
    "UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $1)"
    " WHERE id = (SELECT id FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()"
    "   ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
    " RETURNING id, attempts, from_name, to_address, subject, text_body, html_body");
static struct db_stmt st_sent = DB_STMT("UPDATE mail_outbox SET sent_at = now(), last_error = NULL WHERE id = $1");
/* 30 s after the first failure, then twice as long each time, at most an hour; failed after the last attempt. */
static struct db_stmt st_retry =
    DB_STMT("UPDATE mail_outbox SET last_error = $2,"
            " next_attempt_at = now() + make_interval(secs => least(3600, 30 * 2 ^ (attempts - 1))),"
            " failed_at = CASE WHEN attempts >= $3 THEN now() END WHERE id = $1");

/* The sender address: smtp_from, else noreply@ the host of external_host. */
static const char *from_address(struct uow *uow)
{
	const struct config *cfg = uow->worker->cfg;
	if (*cfg->smtp_from != '\0')
		return cfg->smtp_from;
	size_t host_len = strcspn(cfg->external_host, ":/");
	return arena_printf(&uow->arena, "noreply@%.*s", (int)host_len, cfg->external_host);
}

/* Composes and sends row 0 of res; 0, or -1 with the reason in err. */
static int send_claimed(struct uow *uow, const struct db_res *res, char *err, size_t errlen)
{
	const struct config *cfg = uow->worker->cfg;
	char uuid[37], boundary[64], message_id[128];
	const char *from = from_address(uow);
	crypto_uuid4(uuid);
	snprintf(boundary, sizeof(boundary), "confab-%s", uuid);
	crypto_uuid4(uuid);
	snprintf(message_id, sizeof(message_id), "%s@%s", uuid, strchr(from, '@') ? strchr(from, '@') + 1 : "confab");
	struct mime_mail m = {.from_name = db_val(res, 0, 2),
	                      .from = from,
	                      .to = db_val(res, 0, 3),
	                      .subject = db_val(res, 0, 4),
	                      .text = db_val(res, 0, 5),
	                      .html = db_val(res, 0, 6),
	                      .date = time(NULL),
	                      .boundary = boundary,
	                      .message_id = message_id};
	char *message = mime_message(&uow->arena, &m);
	if (message == NULL) {
		snprintf(err, errlen, "invalid sender or recipient address");
		return -1;
	}
	struct smtp_relay relay = {cfg->smtp_url, cfg->smtp_username, cfg->smtp_password, cfg->smtp_tls};
	return smtp_send(&relay, from, m.to, message, err, errlen);
}

/* Claims one due mail and sends it: 1 sent, 0 none due, -1 a failure (logged; a refused mail is retried later). */
static int send_one(struct worker *w, unsigned long long n)
{
	struct uow uow;
	uow_init(&uow, w, n);
	int rc = 0;
	struct db_res *res = DB_EXEC(&uow, &st_claim, db_arg_int(&uow, MAIL_LEASE_SECS));
	if (res == NULL) {
		log_msg(LOG_WARNING, "mail outbox: %s", uow.error_msg ? uow.error_msg : "PostgreSQL failed");
		rc = -1;
	} else if (db_rows(res) == 1) {
		const char *id = db_val(res, 0, 0);
		char err[512];
		if (send_claimed(&uow, res, err, sizeof(err)) == 0) {
			rc = DB_EXEC(&uow, &st_sent, id) ? 1 : -1;
			log_msg(LOG_INFO, "mail %s sent to %s", id, db_val(res, 0, 3));
		} else {
			DB_EXEC(&uow, &st_retry, id, err, db_arg_int(&uow, MAIL_MAX_ATTEMPTS));
			log_msg(LOG_WARNING, "mail %s to %s, attempt %s: %s", id, db_val(res, 0, 3), db_val(res, 0, 1),
			        err);
			rc = -1;
		}
	}
	uow_finish(&uow);
	return rc;
}

int mail_send_due(struct worker *w, unsigned long long n, int max)
{
	if (*w->cfg->smtp_url == '\0')
		return 0;
	int sent = 0;
	while (sent < max) {
		int rc = send_one(w, n);
		if (rc <= 0)
			return rc < 0 ? -1 : sent;
		sent++;
	}
	return sent;
}
