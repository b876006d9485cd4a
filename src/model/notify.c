/* Notification Bot direct messages; see notify.h. */
#include "model/notify.h"

#include <string.h>

#include "core/uow.h"
#include "db/db.h"
#include "model/messages.h"
#include "model/realm.h"
#include "model/user.h"

const char *notify_mention(struct uow *uow, const struct user *u)
{
	return arena_printf(&uow->arena, "@_**%s|%lld**", u->full_name, (long long)u->id);
}

static struct db_stmt st_notification_bot = DB_STMT("SELECT confab_notification_bot($1)");
static struct db_stmt st_welcome_bot = DB_STMT("SELECT confab_welcome_bot($1)");

int64_t notify_direct(struct uow *uow, int64_t recipient_id, const char *content)
{
	return notify_direct_as(uow, NOTIFY_NOTIFICATION_BOT, recipient_id, content);
}

int64_t notify_direct_as(struct uow *uow, enum notify_bot which, int64_t recipient_id, const char *content)
{
	struct db_stmt *st = which == NOTIFY_WELCOME_BOT ? &st_welcome_bot : &st_notification_bot;
	struct db_res *res = DB_EXEC(uow, st, db_arg_int(uow, uow->realm->id));
	const struct user *bot = res && db_rows(res) ? user_by_id(uow, uow->realm->id, db_int(res, 0, 0)) : NULL;
	if (bot == NULL) {
		uow_error(uow, ERR_INTERNAL, NULL); /* keeps a database error recorded first */
		return 0;
	}
	int64_t *ids = arena_alloc(&uow->arena, 2 * sizeof(*ids));
	ids[0] = bot->id < recipient_id ? bot->id : recipient_id;
	ids[1] = bot->id < recipient_id ? recipient_id : bot->id;
	struct message_draft d = {.sender = bot,
	                          .participants = ids,
	                          .n_participants = 2,
	                          .topic = "",
	                          .client = "Internal",
	                          .skip_mention_checks = true};
	struct message_sent sent;
	if ((d.content = message_normalize_content(uow, content, strlen(content))) == NULL ||
	    message_send(uow, &d, &sent) < 0 || message_events_send(uow, &d, &sent, NULL, NULL) < 0)
		return 0;
	return sent.id;
}
