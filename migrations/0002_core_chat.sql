-- Channels, folders, subscriptions, messages, per-user message flags, edit history, attachments, and the
-- permission settings of user groups.

-- Who may manage a group, as user groups (system groups by default); set by confab_create_group_settings().
ALTER TABLE user_groups
    ADD COLUMN can_add_members_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_join_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_leave_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_manage_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_mention_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_remove_members_group_id bigint REFERENCES user_groups (id);

-- Every member of a group, direct or through subgroups (any depth), and every group a group contains.
CREATE FUNCTION confab_group_members(p_group bigint) RETURNS TABLE (user_id bigint) LANGUAGE sql STABLE AS $$
    WITH RECURSIVE g (id) AS (
        SELECT p_group
        UNION
        SELECT s.subgroup_id FROM user_group_subgroups s JOIN g ON s.group_id = g.id
    )
    SELECT DISTINCT m.user_id FROM user_group_members m JOIN g ON m.group_id = g.id
$$;

CREATE FUNCTION confab_group_contains(p_group bigint, p_user bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM confab_group_members(p_group) m WHERE m.user_id = p_user)
$$;

CREATE TABLE channel_folders (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    description text NOT NULL DEFAULT '',
    rendered_description text NOT NULL DEFAULT '',
    "order" integer NOT NULL DEFAULT 0,
    date_created timestamptz DEFAULT now(),
    creator_id bigint REFERENCES users (id),
    is_archived boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX channel_folders_realm_name ON channel_folders (realm_id, lower(name)) WHERE NOT is_archived;

CREATE TABLE channels (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    description text NOT NULL DEFAULT '' CHECK (length(description) <= 1024),
    rendered_description text NOT NULL DEFAULT '',
    invite_only boolean NOT NULL DEFAULT false,
    is_web_public boolean NOT NULL DEFAULT false,
    history_public_to_subscribers boolean NOT NULL DEFAULT true,
    -- NULL: the organization's setting; -1: forever.
    message_retention_days integer CHECK (message_retention_days = -1 OR message_retention_days > 0),
    folder_id bigint REFERENCES channel_folders (id),
    topics_policy text NOT NULL DEFAULT 'inherit'
        CHECK (topics_policy IN ('inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only')),
    creator_id bigint REFERENCES users (id),
    date_created timestamptz NOT NULL DEFAULT now(),
    is_archived boolean NOT NULL DEFAULT false,
    is_default boolean NOT NULL DEFAULT false,
    can_add_subscribers_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_administer_channel_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_create_topic_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_delete_any_message_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_delete_own_message_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_move_messages_out_of_channel_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_move_messages_within_channel_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_remove_subscribers_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_resolve_topics_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_send_message_group_id bigint NOT NULL REFERENCES user_groups (id),
    can_subscribe_group_id bigint NOT NULL REFERENCES user_groups (id),
    CHECK (NOT (invite_only AND is_web_public)),
    CHECK (invite_only OR history_public_to_subscribers)
);
-- Names are unique per organization, ignoring case.
CREATE UNIQUE INDEX channels_realm_name ON channels (realm_id, lower(name));
ALTER TABLE realms ADD FOREIGN KEY (moderation_request_channel_id) REFERENCES channels (id);

CREATE TABLE subscriptions (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    -- Unsubscribing keeps the row (with its settings) inactive, as the reference does.
    active boolean NOT NULL DEFAULT true,
    color text NOT NULL DEFAULT '#c2c2c2',
    pin_to_top boolean NOT NULL DEFAULT false,
    is_muted boolean NOT NULL DEFAULT false,
    -- NULL: inherit the user's default.
    desktop_notifications boolean,
    email_notifications boolean,
    push_notifications boolean,
    audible_notifications boolean,
    wildcard_mentions_notify boolean,
    PRIMARY KEY (user_id, channel_id)
);
CREATE INDEX subscriptions_channel ON subscriptions (channel_id) WHERE active;

-- The participants of a direct-message conversation, sorted; a 1:1 conversation has two, a note to self one.
CREATE TABLE direct_conversations (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    user_ids bigint[] NOT NULL CHECK (cardinality(user_ids) >= 1),
    UNIQUE (realm_id, user_ids)
);

CREATE TABLE messages (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    sender_id bigint NOT NULL REFERENCES users (id),
    -- Exactly one of channel_id (with topic) and direct_conversation_id.
    channel_id bigint REFERENCES channels (id),
    topic text NOT NULL DEFAULT '' CHECK (length(topic) <= 60),
    direct_conversation_id bigint REFERENCES direct_conversations (id),
    content text NOT NULL CHECK (length(content) <= 10000),
    rendered_content text NOT NULL,
    date_sent timestamptz NOT NULL DEFAULT now(),
    last_edit_time timestamptz,
    last_moved_time timestamptz,
    client text NOT NULL DEFAULT 'API',
    has_attachment boolean NOT NULL DEFAULT false,
    has_image boolean NOT NULL DEFAULT false,
    has_link boolean NOT NULL DEFAULT false,
    CHECK ((channel_id IS NULL) <> (direct_conversation_id IS NULL))
);
-- Channel history and topics (topic names compare ignoring case).
CREATE INDEX messages_channel_topic ON messages (channel_id, lower(topic), id) WHERE channel_id IS NOT NULL;
CREATE INDEX messages_channel ON messages (channel_id, id) WHERE channel_id IS NOT NULL;
CREATE INDEX messages_direct ON messages (direct_conversation_id, id) WHERE direct_conversation_id IS NOT NULL;
CREATE INDEX messages_sender ON messages (sender_id, id);

-- A user's copy of a message: who received it and its flags (bit values as the reference's UserMessage):
-- 1 read, 2 starred, 4 collapsed, 8 mentioned, 16 stream_wildcard_mentioned, 32 topic_wildcard_mentioned,
-- 64 has_alert_word, 128 historical, 256 is_private, 512 active_mobile_push_notification.
CREATE TABLE user_messages (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    message_id bigint NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    flags integer NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, message_id)
);
CREATE INDEX user_messages_message ON user_messages (message_id);
CREATE INDEX user_messages_unread ON user_messages (user_id, message_id) WHERE flags & 1 = 0;
CREATE INDEX user_messages_starred ON user_messages (user_id, message_id) WHERE flags & 2 <> 0;
CREATE INDEX user_messages_mentioned ON user_messages (user_id, message_id) WHERE flags & (8 | 16 | 32) <> 0;

-- One row per edit of a message, newest last.
CREATE TABLE message_edits (
    id bigserial PRIMARY KEY,
    message_id bigint NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    user_id bigint REFERENCES users (id),
    edit_time timestamptz NOT NULL DEFAULT now(),
    prev_content text,
    prev_rendered_content text,
    prev_topic text,
    topic text,
    prev_channel_id bigint,
    channel_id bigint
);
CREATE INDEX message_edits_message ON message_edits (message_id, id);

CREATE TABLE attachments (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    owner_id bigint NOT NULL REFERENCES users (id),
    -- <realm id>/<random>/<file name>: the file's path under upload_dir and its URL under /user_uploads/.
    path_id text NOT NULL UNIQUE,
    file_name text NOT NULL,
    size bigint NOT NULL CHECK (size >= 0),
    content_type text,
    create_time timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_owner ON attachments (owner_id);

CREATE TABLE attachment_messages (
    attachment_id bigint NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    message_id bigint NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    PRIMARY KEY (attachment_id, message_id)
);
CREATE INDEX attachment_messages_message ON attachment_messages (message_id);
