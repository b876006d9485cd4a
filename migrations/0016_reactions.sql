-- Emoji reactions to messages (the reference's Reaction): one row per user, message and emoji, the emoji named by
-- its (reaction_type, emoji_code) pair as the reference's unique constraint does; emoji_name is the name the first
-- reacting user chose (later votes with the same code take it). Rows go with their message (deletion and retention)
-- and with their user. The id orders a message's reactions as clients display them.
CREATE TABLE reactions (
    id bigserial PRIMARY KEY,
    message_id bigint NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    emoji_name text NOT NULL,
    emoji_code text NOT NULL,
    reaction_type text NOT NULL CHECK (reaction_type IN ('unicode_emoji', 'realm_emoji', 'zulip_extra_emoji')),
    -- Also the index of a message's reactions (message_id first).
    UNIQUE (message_id, user_id, reaction_type, emoji_code)
);
-- The user's side of the cascade when a user row goes.
CREATE INDEX reactions_user ON reactions (user_id);
