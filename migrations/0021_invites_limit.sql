-- Invitations (issue 17): the daily limit of invitation mails per organization (the reference's
-- Realm.max_invites over its invites_sent::day count). max_invites NULL takes the server's invites_daily_max; each
-- invitation mail sent (resends included) is one row of invites_sent, deleted by the reaper after a day.
ALTER TABLE realms ADD COLUMN max_invites integer CHECK (max_invites >= 0);
CREATE TABLE invites_sent (
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    sent_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invites_sent_realm ON invites_sent (realm_id, sent_at);
