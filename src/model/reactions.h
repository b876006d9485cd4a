/*
 * Emoji reactions to messages (the reference's zerver/actions/reactions.py and zerver/views/reactions.py): a user
 * reacts at most once to a message with an emoji, named by its (reaction_type, emoji_code) pair; everyone who may
 * see the message hears of it through `reaction` events. The reactions of a message appear in the Message object
 * (model/messages.c, message_objects()). Everything works within the calling unit of work and as its user.
 */
#ifndef CONFAB_REACTIONS_H
#define CONFAB_REACTIONS_H

#include <stdint.h>

struct uow;

/* An emoji as the client names it; NULL for what it did not send. */
struct reaction_emoji {
	const char *name;
	const char *code;
	const char *type;
};

/*
 * The reference's check_add_reaction: the message must be one the user may modify ("Invalid message(s)"; the row is
 * locked); a missing code or type comes from the name ("Emoji 'x' does not exist"); the same reaction twice is
 * REACTION_ALREADY_EXISTS. When another user reacted with the same code and type, the new reaction is a vote for
 * theirs and takes its name unchecked; otherwise the emoji is checked (emoji_check(): "Invalid emoji code.", ...).
 * A message the user has no copy of gets a historical one (read). Records the reaction event {op: "add"} for the
 * message's audience (message_event_audience()). Returns 0 or -1 with the error recorded.
 */
int reaction_add(struct uow *uow, int64_t message_id, const struct reaction_emoji *e);
/*
 * The reference's remove_reaction: access as above; without a code the name gives it ("At least one of the
 * following arguments must be present: emoji_name, emoji_code" without either); the type defaults to
 * unicode_emoji (the caller's default). The user's reaction with that code and type must exist
 * (REACTION_DOES_NOT_EXIST); it is removed unchecked, and the reaction event {op: "remove"}, with the stored name,
 * is recorded. Returns 0 or -1 with the error recorded.
 */
int reaction_remove(struct uow *uow, int64_t message_id, const struct reaction_emoji *e);

#endif
