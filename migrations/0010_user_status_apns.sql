-- User statuses and APNs device tokens.
--
-- presence_enabled is the user setting the deprecated `away` flag of POST /users/me/status writes (away = NOT
-- presence_enabled, as in the reference). IF NOT EXISTS: the user settings work may add the same column.
ALTER TABLE users ADD COLUMN IF NOT EXISTS presence_enabled boolean NOT NULL DEFAULT true;

-- One status per user (the reference's UserStatus): empty text and empty emoji name mean "no status". The emoji
-- is stored as the client chose it (name, code within the namespace of reaction_type).
CREATE TABLE user_statuses (
    user_id bigint PRIMARY KEY REFERENCES users (id),
    status_text text NOT NULL DEFAULT '' CHECK (char_length(status_text) <= 60),
    emoji_name text NOT NULL DEFAULT '',
    emoji_code text NOT NULL DEFAULT '',
    reaction_type text NOT NULL DEFAULT 'unicode_emoji'
        CHECK (reaction_type IN ('unicode_emoji', 'realm_emoji', 'zulip_extra_emoji')),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- iOS push registrations of POST /users/me/apns_device_token (the reference's PushDeviceToken of kind APNS): a
-- token registered twice by the same user is one row, and keeps the app id it was first registered with. The
-- uniqueness is on a hash of the token: a 4096-character token does not fit a btree entry (2704 bytes at most).
CREATE TABLE apns_device_tokens (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id),
    token text NOT NULL CHECK (char_length(token) BETWEEN 1 AND 4096),
    ios_app_id text NOT NULL CHECK (ios_app_id ~ '^[.a-zA-Z0-9-]+$'),
    last_updated timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX apns_device_tokens_user_token ON apns_device_tokens (user_id, md5(token));
