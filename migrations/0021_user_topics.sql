-- Users' topic preferences (the reference's UserTopic): a visibility policy per user, channel and topic, 1 muted,
-- 2 unmuted, 3 followed; "inherit" (0) is the absence of a row. A topic is one per lower(topic_name), as messages'
-- topics are; the row keeps the spelling it was created with. Read by POST /register (user_topics, muted_topics),
-- the unread counts (muted topics and channels), and moved along with whole topics by message moves.
CREATE TABLE user_topics (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    topic_name text NOT NULL,
    last_updated timestamptz NOT NULL DEFAULT now(),
    visibility_policy smallint NOT NULL CHECK (visibility_policy IN (1, 2, 3))
);
CREATE UNIQUE INDEX user_topics_user_topic ON user_topics (user_id, channel_id, lower(topic_name));
-- Moves look up every user's row of one topic.
CREATE INDEX user_topics_channel_topic ON user_topics (channel_id, lower(topic_name));
