/*
 * Accepting an invitation (the reference's accounts_register for a PreregistrationUser or MultiuseInvite, and
 * process_new_human_user): the invitation behind an accept link's key, the link's CSRF token, and the creation of
 * the new member with everything that follows (channels, groups, the Notification Bot's and Welcome Bot's
 * messages, the events, the invitation marked used). Works in the uow's organization and transaction.
 */
#ifndef CONFAB_INVITE_ACCEPT_H
#define CONFAB_INVITE_ACCEPT_H

#include <stdbool.h>
#include <stdint.h>

struct uow;
struct user_new;

enum join_state { JOIN_PENDING, JOIN_EXPIRED, JOIN_REVOKED, JOIN_USED };

/* The invitation an accept link names, as the page needs it. */
struct join_invite {
	int64_t id;
	int64_t referrer_id;
	const char *email; /* NULL for a reusable link (the page asks for the address) */
	int invited_as;
	bool include_realm_default_subscriptions;
	bool notify_referrer_on_join;
	const char *welcome_message_custom_text; /* NULL: the organization's default (none) */
	enum join_state state;                   /* a pending one past its expires_at is JOIN_EXPIRED */
	const char *csrf_token; /* 64 hex characters: HMAC-SHA-256 of the key under the server secret */
};

/* True for a key of the shape the server issues (INVITE_KEY_LEN characters of [a-z0-9]). */
bool join_key_is_wellformed(const char *key);
/*
 * The invitation of the uow's organization whose link has key (well-formed: check first), locked until the
 * transaction ends when for_update. NULL if there is none (uow->error set only on a failure). Arena.
 */
struct join_invite *join_invite_by_key(struct uow *uow, const char *key, bool for_update);

/*
 * Creates the member invited by inv (pending, locked) with spec's address, name and password (checked by the
 * caller) and role inv->invited_as, then, as the reference's process_new_human_user: subscriptions to the
 * invitation's channels that still exist (and the default channels when asked), membership of its groups that
 * are still active, the referrer's Notification Bot message "@_**Name|id** accepted your invitation to join
 * Zulip!" (unless notify_referrer_on_join is false or the referrer is deactivated), the Welcome Bot's message
 * (and a second one with the custom text, when there is one), and the events of all of it (realm_user add,
 * user_group add_members, subscription add, peer_add, message, invites_changed). An email invitation becomes
 * used (with every other pending invitation of the address: revoked); a reusable link stays. Sets uow->user to
 * the new member. Returns its id, or 0 with the error recorded ("Email 'x' already in use" included).
 */
int64_t join_accept(struct uow *uow, const struct join_invite *inv, const struct user_new *spec);

#endif
