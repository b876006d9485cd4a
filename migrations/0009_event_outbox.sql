-- The transactional event outbox (DESIGN.md "Events", "No gap between COMMIT and publish").
--
-- A request's transaction writes the events it causes here, one row per mutation (the event and its audience, not
-- one row per recipient), so that they commit or roll back with the change. After COMMIT the worker pushes them to
-- the recipients' queues in Redis and deletes the rows; a row still here a couple of seconds later belongs to a
-- worker that died in between (or to a Redis or PostgreSQL outage), and confab-reaper publishes it, claiming it
-- with FOR UPDATE SKIP LOCKED. A push carries the row's id and each queue drops an id it has already applied,
-- so a row published twice lands once.
CREATE TABLE event_outbox (
    id bigserial PRIMARY KEY,
    -- The transaction that caused the events: a queue registered with a snapshot in which it is visible already
    -- has the change in its initial state and never serves them (events_txid_visible).
    txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    realm_id bigint,                -- the organization, for events also sent to its all_public_streams queues
    flags integer NOT NULL,         -- EV_* of events.h
    user_ids bigint[] NOT NULL,     -- the users whose queues receive the event
    payload text NOT NULL,          -- the event JSON, with its private routing keys
    -- clock_timestamp(), not now(): the age that counts is since the row was written, just before COMMIT.
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
