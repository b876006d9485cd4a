-- The Notification Bot of each organization: the sender of the server's own messages (topic moves, resolved
-- topics, moderation requests, new channels). Created on first use. System bots are not members of the
-- organization as far as clients see: GET /users leaves them out and POST /register lists them as
-- cross_realm_bots, as the reference does with its cross-realm bots.

ALTER TABLE users ADD COLUMN is_system_bot boolean NOT NULL DEFAULT false;

CREATE FUNCTION confab_notification_bot(p_realm bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    bot bigint;
BEGIN
    SELECT id INTO bot FROM users
     WHERE realm_id = p_realm AND lower(delivery_email) = 'notification-bot@zulip.com';
    IF bot IS NULL THEN
        INSERT INTO users (realm_id, delivery_email, full_name, role, is_bot, bot_type, is_system_bot)
        VALUES (p_realm, 'notification-bot@zulip.com', 'Notification Bot', 400, true, 1, true)
        ON CONFLICT DO NOTHING
        RETURNING id INTO bot;
        IF bot IS NULL THEN -- created concurrently
            SELECT id INTO bot FROM users
             WHERE realm_id = p_realm AND lower(delivery_email) = 'notification-bot@zulip.com';
        END IF;
    END IF;
    RETURN bot;
END
$$;
