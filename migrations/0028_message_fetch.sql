-- The narrow's channel lookups are kept by the workers (src/model/channel_cache.h): what decides whether a user may
-- read a channel's messages changes with the channel, the user's subscription (joining, leaving), the user's groups
-- and the user (role: users' triggers of 0024 already). These triggers record such changes as 0024's do
-- (confab_cache_changed(): NOTIFY confab_cache, realm_changes, the CF001 notice), whoever makes them. Subscription
-- settings (color, muting, notifications) change nothing that is kept and are left out.

CREATE TRIGGER channels_cache AFTER INSERT OR DELETE ON channels
    FOR EACH ROW EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER channels_cache_update AFTER UPDATE ON channels
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION confab_cache_users();

CREATE TRIGGER subscriptions_cache AFTER INSERT OR DELETE ON subscriptions
    FOR EACH ROW EXECUTE FUNCTION confab_cache_user_rows();
CREATE TRIGGER subscriptions_cache_update AFTER UPDATE ON subscriptions
    FOR EACH ROW WHEN (OLD.active IS DISTINCT FROM NEW.active OR OLD.user_id <> NEW.user_id
                       OR OLD.channel_id <> NEW.channel_id)
    EXECUTE FUNCTION confab_cache_user_rows();

CREATE TRIGGER user_group_members_cache AFTER INSERT OR UPDATE OR DELETE ON user_group_members
    FOR EACH ROW EXECUTE FUNCTION confab_cache_user_rows();

-- Rows of a group (subgroups): the organization of the group.
CREATE FUNCTION confab_cache_group_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM confab_cache_changed((SELECT realm_id FROM user_groups WHERE id = NEW.group_id));
    ELSE
        PERFORM confab_cache_changed((SELECT realm_id FROM user_groups WHERE id = OLD.group_id));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER user_group_subgroups_cache AFTER INSERT OR UPDATE OR DELETE ON user_group_subgroups
    FOR EACH ROW EXECUTE FUNCTION confab_cache_group_rows();

-- The Gravatar hash of every sender of a GET /messages answer (src/model/message_json.h): computed once per change
-- of the address instead of 50 times per answer.
ALTER TABLE users ADD COLUMN email_md5 text GENERATED ALWAYS AS (md5(lower(delivery_email))) STORED;
