/*
 * Presence: when each user's clients last reported them connected (idle) and active, the organization's presence
 * update counter, the answers in the modern (by user id) and legacy (by e-mail, "website" and "aggregated") forms,
 * and the presence events. Everything works within the calling unit of work.
 * Reference: Zulip zerver/actions/presence.py, zerver/lib/presence.py, zerver/views/presence.py.
 *
 * Why PostgreSQL and no Redis copy: a ping writes only when one of the two times moves by more than
 * PRESENCE_UPDATE_MIN_FREQ_SECS, as the reference does; every other ping is one read by primary key and no write
 * (no WAL, no commit flush). So the writes are at most one short statement per user and minute whatever the number
 * of tabs and devices, the data stays transactional (no flush to lose, nothing to rebuild after a Redis restart),
 * and the ids of incremental answers come from one counter row per organization, taken under its row lock so
 * that they become visible in order. A Redis copy would save that one read per ping, at the price of a second
 * store to keep consistent; the bench row of scripts/bench measures what a ping costs (docs/PERFORMANCE.md).
 */
#ifndef CONFAB_PRESENCE_H
#define CONFAB_PRESENCE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;
struct user;

/* The reference's settings (zproject/default_settings.py). register sends the first two to clients. */
#define PRESENCE_OFFLINE_THRESHOLD_SECS 200 /* OFFLINE_THRESHOLD_SECS */
#define PRESENCE_PING_INTERVAL_SECS     60  /* PRESENCE_PING_INTERVAL_SECS */
#define PRESENCE_UPDATE_MIN_FREQ_SECS   55  /* a time moves only by more than this */
#define PRESENCE_LEGACY_ACTIVE_SECS     70  /* PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS */
#define PRESENCE_EVENT_USER_LIMIT       100 /* USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS */
#define PRESENCE_DEFAULT_HISTORY_DAYS   14

/*
 * After u's presence_enabled setting changed (in the caller's transaction): on, u is active now; off, u's
 * presence is replaced by one offline for a while (the reference's invisible mode). Either way every user who may
 * see u gets a presence event. 0 or -1.
 */
int presence_setting_changed(struct uow *uow, const struct user *u, bool enabled);

/* What a realm-wide presence answer asks for. */
struct presence_query {
	bool slim;               /* modern form keyed by user id; else the legacy form keyed by API e-mail */
	bool has_last_update_id; /* only rows updated after last_update_id */
	int64_t last_update_id;
	bool has_history_days; /* rows connected in the last history_days days (default 14) */
	int64_t history_days;
};

/*
 * The presences the acting user may see (guests limited to themselves where the organization limits them; active
 * humans only), as the reference's get_presences_for_realm; *last_update_id gets the answer's
 * presence_last_update_id. An empty object and -1 when the organization disabled presence. The object is owned by
 * the unit of work; NULL with the error recorded on failure.
 */
json_object *presence_realm(struct uow *uow, const struct presence_query *q, int64_t *last_update_id);
/*
 * A ping of user u (the acting user) at now (UNIX seconds), active or idle: the reference's update_user_presence.
 * Nothing happens while u's presence_enabled setting is off. Writes only when a time moves (see above); sends a
 * presence event when the user appears for the first time or comes back online, unless the organization disabled
 * presence. With q, *answer and *last_update_id get presence_realm()'s answer after the ping (read in the same
 * statement as the ping's own row when the ping writes nothing). Returns 0, or -1 with the error recorded.
 */
int presence_ping(struct uow *uow, const struct user *u, bool active, int64_t now, const struct presence_query *q,
                  json_object **answer, int64_t *last_update_id);
/*
 * GET /users/{id}/presence for target: the modern object when slim, else the legacy one without client and
 * pushable and with "offline" as aggregated status past the threshold. NULL with nothing recorded when target
 * has no presence data; NULL with the error recorded on failure (check uow->error).
 */
json_object *presence_of_user(struct uow *uow, const struct user *target, bool slim, int64_t now);

#endif
