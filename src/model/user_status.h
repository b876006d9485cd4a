/*
 * User statuses (the reference's UserStatus, zerver/lib/user_status.py and zerver/actions/user_status.py): a text
 * of up to 60 code points and an emoji per user, plus the deprecated `away` flag, which is the user's
 * presence_enabled setting inverted. Everything works within the calling unit of work.
 */
#ifndef CONFAB_USER_STATUS_H
#define CONFAB_USER_STATUS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;
struct user;

#define USER_STATUS_TEXT_MAX 60 /* code points, after stripping */

/* A requested change; NULL (or away < 0) for what the client did not send. */
struct user_status_change {
	int away; /* -1: not sent; 0 or 1 */
	const char *status_text;
	const char *emoji_name;
	const char *emoji_code;
	const char *reaction_type;
};

/*
 * The reference's check_update_user_status: strips status_text, refuses a change with nothing in it ("Client did
 * not pass any new values."), an emoji code or type without a name, and emoji the organization does not have;
 * fills in the code and type of an emoji given by name only, and clears both with an empty name. Returns 0, or -1
 * with the error recorded. The text's length is the caller's check (user_status_text_too_long()), which the
 * reference makes before anything else.
 */
int user_status_check(struct uow *uow, struct user_status_change *c);
/* True (with "status_text is too long (limit: 60 characters)" recorded) when the stripped text is too long. */
bool user_status_text_too_long(struct uow *uow, const char *status_text);
/*
 * Stores a checked change for target (away sets presence_enabled, with a user_settings event to target) and
 * records the user_status event, with the fields sent, for everyone who can see target. 0 or -1.
 */
int user_status_apply(struct uow *uow, const struct user *target, const struct user_status_change *c);
/* The status of one user as GET /users/{id}/status shows it ({} without one); owned by the uow; NULL on error. */
json_object *user_status_of(struct uow *uow, int64_t user_id);
/*
 * The register response's user_status: the non-empty statuses of the realm's active users that the unit of work's
 * user may see, keyed by user id ({} for spectators); owned by the uow; NULL on error.
 */
json_object *user_status_all(struct uow *uow);

#endif
