-- A reusable link's visitor proves the address first (issue 29): the address typed on the link's page gets an
-- invitation of its own, copied from the link (role, channels, groups, texts), whose one-time key is mailed to that
-- address and expires after a day (or with the link); via_multiuse_id names the link. No one manages such a row:
-- GET /invites does not list it and DELETE /invites/{id} does not find it. The reference keeps it as a
-- PreregistrationUser with multiuse_invite set and a USER_REGISTRATION confirmation.
ALTER TABLE invitations ADD COLUMN via_multiuse_id bigint REFERENCES invitations (id) ON DELETE CASCADE;
CREATE INDEX invitations_via_multiuse ON invitations (via_multiuse_id) WHERE via_multiuse_id IS NOT NULL;
