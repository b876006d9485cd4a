/*
 * Invitations (migrations/0020_invitations.sql): email invitations (one address, one use) and reusable links,
 * their mail (through the mail outbox, in the caller's transaction), the organization's daily limit, the
 * `invites_changed` event, and expiry by the reaper. Reference: zerver/actions/invites.py, zerver/lib/invites.py,
 * zerver/lib/email_validation.py, confirmation/models.py. Everything acts in the uow's organization, as its user.
 */
#ifndef CONFAB_INVITES_H
#define CONFAB_INVITES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;

/* Length of an accept link's key (the reference's generate_key(): 24 characters of [a-z0-9]). */
#define INVITE_KEY_LEN 24

/* The checked parameters of a new invitation (email or reusable). */
struct invite_spec {
	int invited_as;
	const int64_t *stream_ids;
	int nstreams;
	const int64_t *group_ids;
	int ngroups;
	bool include_realm_default_subscriptions;
	bool notify_referrer_on_join;
	const char *welcome_message_custom_text; /* NULL: the organization's default */
	bool never_expires;
	int64_t expires_in_minutes; /* when !never_expires */
};

/* One invitation of the uow's organization. */
struct invitation {
	int64_t id;
	int64_t referrer_id;
	bool is_multiuse;
	int invited_as;
	const char *status; /* "pending", "used", "revoked", "expired" */
};

/*
 * The reference's check_invite_limit for n more invitation mails: 0 if the organization may send them today, else
 * -1 with INVITATION_FAILED "To protect users, ..." (daily_limit_reached true) recorded. Locks the organization's
 * row until the transaction ends, so that concurrent invitations count each other.
 */
int invites_check_daily_limit(struct uow *uow, int n);

/* In an organization that needs no invitation, a member who joined less than 3 days ago may not invite
 * (administrators may): 0, or -1 with INVITATION_FAILED "Your account is too new ..." recorded. */
int invites_check_account_age(struct uow *uow);

/* Records INVITATION_FAILED with msg and its fields; errors is a new array (taken) of [email, reason, deactivated]
 * triples. Returns -1. */
int invites_failed(struct uow *uow, const char *msg, json_object *errors, bool sent_invitations,
                   bool daily_limit_reached);

/*
 * The reference's per-address checks of do_invite_users for the n addresses (already split, stripped and
 * deduplicated; "" entries count but are not checked): INVITATION_FAILED for invalid ones ("Invalid address.",
 * "Outside your domain.", "Email addresses containing + are not allowed.") and, when every address is taken,
 * "We weren't able to invite anyone.". Otherwise 0, with *skipped (a new array, or NULL when none) listing the taken
 * addresses ("Already has an account.", "Account has been deactivated.", "Reserved for system bots.") and
 * ok[i] telling which addresses to invite. -1 on error (recorded).
 */
int invites_check_emails(struct uow *uow, const char *const *emails, int n, bool *ok, json_object **skipped);

/* Creates an invitation by the uow's user: an email invitation to email, or a reusable link (email NULL); its
 * stream_ids and group_ids are stored sorted, each once. Returns its id (and its key in *key, an arena string), or
 * 0 with the error recorded. */
int64_t invite_create(struct uow *uow, const struct invite_spec *spec, const char *email, const char **key);

/*
 * Sends the mail of email invitation id (new or resent): counts it in the daily limit and writes it to the mail
 * outbox (text and HTML parts: the inviter, the organization, the accept link, the expiry). 0 or -1.
 */
int invite_send_mail(struct uow *uow, int64_t id);

/*
 * A reusable link's confirmation of an address: the hours it lasts (the reference's
 * CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS, 1), how many may be mailed to one address of an organization a day, and
 * how many one link may mail a day (its visitors are anonymous: the bound of what one of them can make the server
 * mail to strangers; administrators' invitations have their own daily limit, which confirmations do not touch).
 */
#define INVITE_CONFIRM_HOURS            24
#define INVITE_CONFIRM_MAX_PER_DAY      5
#define INVITE_CONFIRM_MAX_PER_LINK_DAY 200
#define INVITE_CONFIRM_LIMIT            1 /* the address had its confirmations of the day */
#define INVITE_CONFIRM_LINK_LIMIT       2 /* the link had its confirmations of the day */

/*
 * A visitor of reusable link link_id asked to join as email (checked by the caller: valid, allowed, not taken).
 * Makes the address's confirmation, an invitation of its own copied from the link (role, channels, groups, texts;
 * used once; expiring after INVITE_CONFIRM_HOURS or with the link, whichever comes first; not listed by GET
 * /invites), and mails its accept link to email. Nothing is revoked and no account exists until the link is
 * followed. The caller holds the link locked, so that confirmations through one link are counted one at a time.
 * Returns 0 when the mail is queued, INVITE_CONFIRM_LIMIT (nothing done) when email had INVITE_CONFIRM_MAX_PER_DAY
 * confirmations in the last day, INVITE_CONFIRM_LINK_LIMIT when the link sent INVITE_CONFIRM_MAX_PER_LINK_DAY, -1 with
 * the error recorded.
 */
int invite_confirm_address(struct uow *uow, int64_t link_id, const char *email);

/* The accept link of key in the uow's organization: <scheme>://<host>/join/<key>/ (an arena string). */
const char *invite_link(struct uow *uow, const char *key);

/* Records `invites_changed` for the organization's administrators (bots included) and referrer_id (0: none). */
int invites_notify(struct uow *uow, int64_t referrer_id);

/* The invitation id of the uow's organization, or NULL if there is none (uow->error set only on a failure). */
struct invitation *invite_by_id(struct uow *uow, int64_t id);

/* Marks invitation id revoked and records invites_changed (administrators and referrer_id). 0 or -1. */
int invite_revoke(struct uow *uow, int64_t id, int64_t referrer_id);

/*
 * GET /invites: the pending, unexpired invitations the uow's user may manage (administrators: all of the
 * organization's; others: their own), email invitations first, each kind by id. A new array, or NULL on error.
 */
json_object *invites_list_json(struct uow *uow);

/*
 * For the reaper: marks at most max pending invitations past their expires_at as expired (claimed with
 * FOR UPDATE SKIP LOCKED) and deletes the daily-limit counts older than a day. No event: the reference's
 * invitations expire silently (GET /invites just stops listing them). Returns how many it expired, or -1.
 */
int invites_expire_due(struct uow *uow, int max);

#endif
