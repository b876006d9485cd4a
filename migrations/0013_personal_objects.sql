-- The per-user objects of issue 14: drafts, saved snippets and navigation views. Each belongs to one user and is
-- seen and changed by that user only (the API answers 404 for another user's).
-- The drafts routes refuse while the user keeps enable_drafts_synchronization (0012_user_settings.sql) off.

-- A draft as the reference's Draft keeps it: '' (unaddressed), 'stream' with the channel id in recipients, or
-- 'private' with the other participants' ids, sorted (the user's own id for a note to self).
CREATE TABLE drafts (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type text NOT NULL CHECK (type IN ('', 'stream', 'private')),
    recipients bigint[] NOT NULL DEFAULT '{}',
    topic text NOT NULL DEFAULT '',
    content text NOT NULL,
    -- UNIX seconds, with microseconds as the client sent them.
    last_edit_time double precision NOT NULL CHECK (last_edit_time >= 0)
);
CREATE INDEX drafts_user_idx ON drafts (user_id, last_edit_time DESC);

CREATE TABLE saved_snippets (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title text NOT NULL CHECK (length(title) BETWEEN 1 AND 60),
    content text NOT NULL CHECK (length(content) BETWEEN 1 AND 10000),
    date_created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_snippets_user_idx ON saved_snippets (user_id, id);

-- A view of the left sidebar: a built-in one (no name) or a custom one, by its URL fragment.
CREATE TABLE navigation_views (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    fragment text NOT NULL CHECK (fragment <> ''),
    is_pinned boolean NOT NULL,
    name text,
    UNIQUE (user_id, fragment),
    UNIQUE (user_id, name)
);
