-- /metrics counts the failed scheduled messages at every scrape: a partial index keeps that count small (the due
-- ones are counted by scheduled_messages_due).
CREATE INDEX scheduled_messages_failed ON scheduled_messages (id) WHERE failed;
