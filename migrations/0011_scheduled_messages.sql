-- Scheduled messages (POST/GET/PATCH/DELETE /scheduled_messages): a message a user asked to be sent later, as
-- the reference's ScheduledMessage (delivery_type SEND_LATER). confab-reaper sends the due ones as their sender,
-- claiming each row with FOR UPDATE SKIP LOCKED in the transaction that sends it and marks it delivered, so two
-- reapers never send one twice and a reaper killed in the middle leaves it for the next attempt.
CREATE TABLE scheduled_messages (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    sender_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Exactly one of channel_id (with topic) and participants (a direct message: every user id of the
    -- conversation, the sender included, sorted and distinct, as messages.direct_conversations has them).
    channel_id bigint REFERENCES channels (id) ON DELETE CASCADE,
    topic text NOT NULL DEFAULT '' CHECK (length(topic) <= 60),
    participants bigint[],
    content text NOT NULL CHECK (length(content) <= 10000),
    rendered_content text NOT NULL,
    scheduled_at timestamptz NOT NULL,
    read_by_sender boolean NOT NULL DEFAULT false,
    client text NOT NULL DEFAULT 'API',
    delivered boolean NOT NULL DEFAULT false,
    delivered_message_id bigint REFERENCES messages (id) ON DELETE SET NULL,
    -- The reaper tried and could not send it (failure_message says why); an edit clears both.
    failed boolean NOT NULL DEFAULT false,
    failure_message text,
    CHECK ((channel_id IS NULL) <> (participants IS NULL))
);
-- The reaper's claim: the oldest due row neither delivered nor failed.
CREATE INDEX scheduled_messages_due ON scheduled_messages (scheduled_at, id) WHERE NOT delivered AND NOT failed;
-- GET /scheduled_messages and register: a user's undelivered rows by delivery time.
CREATE INDEX scheduled_messages_sender ON scheduled_messages (sender_id, scheduled_at, id) WHERE NOT delivered;

-- The ScheduledMessage object of the API: `to` is the channel id, or the recipients of a direct message without
-- the sender (the sender alone for a message to self); `topic` only for channel messages.
CREATE FUNCTION confab_scheduled_message_json(s scheduled_messages) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_strip_nulls(jsonb_build_object(
        'scheduled_message_id', s.id,
        'type', CASE WHEN s.channel_id IS NULL THEN 'private' ELSE 'stream' END,
        'to', CASE WHEN s.channel_id IS NOT NULL THEN to_jsonb(s.channel_id)
                   WHEN cardinality(s.participants) = 1 THEN to_jsonb(s.participants)
                   ELSE to_jsonb(array_remove(s.participants, s.sender_id)) END,
        'topic', CASE WHEN s.channel_id IS NOT NULL THEN s.topic END,
        'content', s.content,
        'rendered_content', s.rendered_content,
        'scheduled_delivery_timestamp', floor(extract(epoch FROM s.scheduled_at))::bigint,
        'failed', s.failed))
$$;
