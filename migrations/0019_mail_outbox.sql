-- Outgoing e-mail (invitations and other notices): a row is written in the transaction of the change that sends
-- the mail and sent afterwards by the reaper's mailer thread (model/mail.c), retried with backoff, marked sent or,
-- after its last attempt, failed. The body is kept composed in both forms; the MIME message is built at sending.
CREATE TABLE mail_outbox (
    id bigserial PRIMARY KEY,
    realm_id bigint REFERENCES realms (id) ON DELETE CASCADE,
    from_name text NOT NULL DEFAULT '',
    to_address text NOT NULL,
    subject text NOT NULL,
    text_body text NOT NULL,
    html_body text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    sent_at timestamptz,
    failed_at timestamptz,
    last_error text
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
