-- Invitations (issue 17): an email invitation (one address, used once) or a reusable link (is_multiuse, no
-- address, used by any number of people until it expires or is revoked). The reference keeps these in
-- PreregistrationUser, MultiuseInvite and Confirmation; here one row holds the invitation and its link's key.
-- The mail of an email invitation goes through mail_outbox (0019) in the same transaction.
CREATE TABLE invitations (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    referrer_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email text,
    is_multiuse boolean NOT NULL DEFAULT false,
    invited_as integer NOT NULL,
    stream_ids bigint[] NOT NULL DEFAULT '{}',
    group_ids bigint[] NOT NULL DEFAULT '{}',
    include_realm_default_subscriptions boolean NOT NULL DEFAULT false,
    notify_referrer_on_join boolean NOT NULL DEFAULT true,
    welcome_message_custom_text text,
    -- The secret of the accept link (/join/<key>/): random, unique, never derived from the id.
    confirmation_key text NOT NULL UNIQUE,
    -- When it was created or last resent (the reference's "invited"), and when its link stops working (NULL:
    -- never).
    invited_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz,
    -- 'pending', 'used' (an email invitation that was accepted), 'revoked', 'expired' (set by the reaper).
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'used', 'revoked', 'expired')),
    used_at timestamptz,
    used_by_user_id bigint REFERENCES users (id) ON DELETE SET NULL,
    CHECK ((email IS NULL) = is_multiuse)
);
CREATE INDEX invitations_realm_pending ON invitations (realm_id) WHERE status = 'pending';
CREATE INDEX invitations_expiry ON invitations (expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;
CREATE INDEX invitations_email ON invitations (realm_id, lower(email)) WHERE email IS NOT NULL;
