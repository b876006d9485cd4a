-- Accepting an invitation (issue 17, /join/<key>/): the Welcome Bot, which greets every member who joins, and
-- the server's secret, from which the accept page's CSRF token is derived (an HMAC of the link's key). The secret
-- is 256 bits from PostgreSQL's strong random source, made once, never shown.
CREATE TABLE server_secret (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    secret text NOT NULL
);
INSERT INTO server_secret (secret)
VALUES (replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));

CREATE FUNCTION confab_welcome_bot(p_realm bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    bot bigint;
BEGIN
    SELECT id INTO bot FROM users
     WHERE realm_id = p_realm AND lower(delivery_email) = 'welcome-bot@zulip.com';
    IF bot IS NULL THEN
        INSERT INTO users (realm_id, delivery_email, full_name, role, is_bot, bot_type, is_system_bot)
        VALUES (p_realm, 'welcome-bot@zulip.com', 'Welcome Bot', 400, true, 1, true)
        ON CONFLICT DO NOTHING
        RETURNING id INTO bot;
        IF bot IS NULL THEN -- created concurrently
            SELECT id INTO bot FROM users
             WHERE realm_id = p_realm AND lower(delivery_email) = 'welcome-bot@zulip.com';
        END IF;
    END IF;
    RETURN bot;
END
$$;
