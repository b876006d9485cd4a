/*
 * Emoji names and codes as the reference checks them for statuses (zerver/lib/emoji.py get_emoji_data and
 * check_emoji_request): the organization's custom emoji (none exist in confab yet), Zulip's extra emoji "zulip",
 * and the Unicode emoji by name.
 *
 * The Unicode table here is a small stopgap of common names (Zulip's naming); the full name table of the reference
 * (its emoji_names data over emoji-datasource) is not part of this tree yet, so other valid names are refused.
 */
#ifndef CONFAB_EMOJI_H
#define CONFAB_EMOJI_H

struct uow;

/*
 * The reference's get_emoji_data: the code and reaction type of the emoji called name (static strings). Returns 0,
 * or -1 with "Emoji 'NAME' does not exist" recorded.
 */
int emoji_data_for_name(struct uow *uow, const char *name, const char **code, const char **reaction_type);
/*
 * The reference's check_emoji_request: is (name, code) a valid emoji of reaction_type? Returns 0, or -1 with
 * "Invalid custom emoji.", "Invalid emoji code.", "Invalid emoji name." or "Invalid emoji type." recorded.
 */
int emoji_check(struct uow *uow, const char *name, const char *code, const char *reaction_type);

#endif
