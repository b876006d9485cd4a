-- POST /register's realm_user_groups are kept as JSON text per organization like its users lists
-- (src/model/realm_groups.h), and the unnamed groups' setting values of its channel lists (src/model/channel_counts.h):
-- changes to groups, their members and subgroups are recorded like those of users
-- (migrations/0024_caches.sql: NOTIFY confab_cache and a realm_changes row, once per transaction and organization).

-- Rows of a group (user_group_members, user_group_subgroups): the organization of the group (0, everything, when the
-- group is gone already: a cascaded delete, whose group's own delete recorded its organization too).
CREATE FUNCTION confab_cache_group_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM confab_cache_changed((SELECT realm_id FROM user_groups WHERE id = OLD.group_id));
    ELSE
        PERFORM confab_cache_changed((SELECT realm_id FROM user_groups WHERE id = NEW.group_id));
    END IF;
    RETURN NULL;
END $$;

-- confab_cache_users() records the row's realm_id, which user_groups has too.
CREATE TRIGGER user_groups_cache_insert AFTER INSERT ON user_groups
    FOR EACH ROW EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER user_groups_cache_update AFTER UPDATE ON user_groups
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER user_groups_cache_delete AFTER DELETE ON user_groups
    FOR EACH ROW EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER user_group_members_cache AFTER INSERT OR UPDATE OR DELETE ON user_group_members
    FOR EACH ROW EXECUTE FUNCTION confab_cache_group_rows();
CREATE TRIGGER user_group_subgroups_cache AFTER INSERT OR UPDATE OR DELETE ON user_group_subgroups
    FOR EACH ROW EXECUTE FUNCTION confab_cache_group_rows();

-- The subscriber counts of register's channel lists (src/model/channel_counts.h): subscriptions that start, end or
-- go away record the organization of their channel (0, everything, when the channel is gone already).
CREATE FUNCTION confab_cache_subscriptions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM confab_cache_changed((SELECT realm_id FROM channels WHERE id = OLD.channel_id));
    ELSE
        PERFORM confab_cache_changed((SELECT realm_id FROM channels WHERE id = NEW.channel_id));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER subscriptions_cache_insert AFTER INSERT ON subscriptions
    FOR EACH ROW WHEN (NEW.active) EXECUTE FUNCTION confab_cache_subscriptions();
CREATE TRIGGER subscriptions_cache_update AFTER UPDATE ON subscriptions
    FOR EACH ROW WHEN (OLD.active IS DISTINCT FROM NEW.active OR OLD.channel_id <> NEW.channel_id
                       OR OLD.user_id <> NEW.user_id) EXECUTE FUNCTION confab_cache_subscriptions();
CREATE TRIGGER subscriptions_cache_delete AFTER DELETE ON subscriptions
    FOR EACH ROW WHEN (OLD.active) EXECUTE FUNCTION confab_cache_subscriptions();
