-- POST /register's realm_user_groups are kept as JSON text per organization like its users lists
-- (src/model/realm_groups.h), and so are its channels' subscriber counts and the unnamed groups' setting values
-- (src/model/channel_counts.h). Changes to subscriptions, group members and subgroups are recorded already (the
-- triggers of 0028_message_fetch.sql); these record changes to the groups themselves (name, description, settings,
-- deactivation, creation, deletion) like 0024's (NOTIFY confab_cache and a realm_changes row, once per transaction and
-- organization): confab_cache_users() records the row's realm_id, which user_groups has too.

CREATE TRIGGER user_groups_cache_insert AFTER INSERT ON user_groups
    FOR EACH ROW EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER user_groups_cache_update AFTER UPDATE ON user_groups
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER user_groups_cache_delete AFTER DELETE ON user_groups
    FOR EACH ROW EXECUTE FUNCTION confab_cache_users();
