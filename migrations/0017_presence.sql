-- Presence (issue 16): when each user's clients last reported them connected and active, as the reference's
-- UserPresence and PresenceSequence keep it (zerver/models/presence.py). IF NOT EXISTS throughout, so that a
-- renumbering of this file applies harmlessly where it ran under its old name.
--
-- Every client pings POST /users/me/presence each minute, the busiest write path. A ping writes here only when one
-- of the two times moves by more than 55 s (the reference's PRESENCE_UPDATE_MIN_FREQ_SECONDS); the other pings
-- (a second tab, a second device, a fast client) read one row by its key and write nothing (src/model/presence.c).

-- The organization's switch (the reference's Realm.presence_disabled, which no API changes: operators set it here).
ALTER TABLE realms ADD COLUMN IF NOT EXISTS presence_disabled boolean NOT NULL DEFAULT false;

-- The organization's presence update counter: each write of a user_presences row takes the next value, under the
-- row lock of this row, so that values become visible in the order they were taken (a client that fetched up to N
-- never misses a later row numbered below N).
CREATE TABLE IF NOT EXISTS presence_sequences (
    realm_id bigint PRIMARY KEY REFERENCES realms (id) ON DELETE CASCADE,
    last_update_id bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS user_presences (
    user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    -- NULL: never active (only idle pings); the API shows date_joined instead, as the reference does.
    last_active_time timestamptz,
    last_connected_time timestamptz NOT NULL,
    last_update_id bigint NOT NULL
);
-- Incremental fetches (last_update_id > N) and the history limit (last_connected_time >= now - N days).
CREATE INDEX IF NOT EXISTS user_presences_update_idx ON user_presences (realm_id, last_update_id);
CREATE INDEX IF NOT EXISTS user_presences_connected_idx ON user_presences (realm_id, last_connected_time);
