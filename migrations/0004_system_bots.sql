-- The Notification Bot of each organization: the sender of the server's own messages (topic moves, resolved
-- topics, moderation requests, new channels). Created on first use.

CREATE FUNCTION confab_notification_bot(p_realm bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    bot bigint;
BEGIN
    SELECT id INTO bot FROM users
     WHERE realm_id = p_realm AND lower(delivery_email) = 'notification-bot@zulip.com';
    IF bot IS NULL THEN
        INSERT INTO users (realm_id, delivery_email, full_name, role, is_bot, bot_type)
        VALUES (p_realm, 'notification-bot@zulip.com', 'Notification Bot', 400, true, 1)
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
