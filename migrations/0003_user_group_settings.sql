-- The permission settings of system groups, and the SQL side of user groups: group-setting values as clients see
-- them, unnamed groups, and what stops a group from being deactivated.

-- System groups cannot be joined, left, managed or mentioned through their settings: all six hold role:nobody,
-- as the reference's default_for_system_groups. Like the reference, system groups have no creation date.
UPDATE user_groups g SET
    can_add_members_group_id = n.id,
    can_join_group_id = n.id,
    can_leave_group_id = n.id,
    can_manage_group_id = n.id,
    can_mention_group_id = n.id,
    can_remove_members_group_id = n.id,
    date_created = NULL
  FROM user_groups n
 WHERE g.is_system_group AND n.realm_id = g.realm_id AND n.is_system_group AND n.name = 'role:nobody';

-- Creates an organization with its system groups (and their settings) and the reference's default permission
-- settings. Returns the new realm's id. Usable from psql: SELECT confab_create_realm('sub', 'Name');
CREATE OR REPLACE FUNCTION confab_create_realm(p_subdomain text, p_name text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    rid bigint;
    nobody bigint;
BEGIN
    INSERT INTO realms (subdomain, name) VALUES (p_subdomain, p_name) RETURNING id INTO rid;
    INSERT INTO user_groups (realm_id, name, description, is_system_group, date_created)
    VALUES (rid, 'role:internet', 'Everyone on the Internet', true, NULL),
           (rid, 'role:everyone', 'Everyone including guests', true, NULL),
           (rid, 'role:members', 'Everyone except guests', true, NULL),
           (rid, 'role:fullmembers', 'Members of this organization, not including new accounts and guests', true,
            NULL),
           (rid, 'role:moderators', 'Moderators of this organization, including administrators', true, NULL),
           (rid, 'role:administrators', 'Administrators of this organization, including owners', true, NULL),
           (rid, 'role:owners', 'Owners of this organization', true, NULL),
           (rid, 'role:nobody', 'Nobody', true, NULL);
    nobody := confab_system_group(rid, 'role:nobody');
    UPDATE user_groups SET
        can_add_members_group_id = nobody,
        can_join_group_id = nobody,
        can_leave_group_id = nobody,
        can_manage_group_id = nobody,
        can_mention_group_id = nobody,
        can_remove_members_group_id = nobody
     WHERE realm_id = rid AND is_system_group;
    -- owners < administrators < moderators < fullmembers < members < everyone < internet
    INSERT INTO user_group_subgroups (group_id, subgroup_id)
    SELECT sup.id, sub.id
      FROM (VALUES ('role:internet', 'role:everyone'), ('role:everyone', 'role:members'),
                   ('role:members', 'role:fullmembers'), ('role:fullmembers', 'role:moderators'),
                   ('role:moderators', 'role:administrators'), ('role:administrators', 'role:owners')) AS c (sup, sub)
      JOIN user_groups sup ON sup.realm_id = rid AND sup.name = c.sup
      JOIN user_groups sub ON sub.realm_id = rid AND sub.name = c.sub;
    UPDATE realms r SET
        can_access_all_users_group_id = confab_system_group(rid, 'role:everyone'),
        can_add_custom_emoji_group_id = confab_system_group(rid, 'role:members'),
        can_add_subscribers_group_id = confab_system_group(rid, 'role:members'),
        can_create_bots_group_id = confab_system_group(rid, 'role:members'),
        can_create_groups_id = confab_system_group(rid, 'role:members'),
        can_create_private_channel_group_id = confab_system_group(rid, 'role:members'),
        can_create_public_channel_group_id = confab_system_group(rid, 'role:members'),
        can_create_web_public_channel_group_id = confab_system_group(rid, 'role:owners'),
        can_create_write_only_bots_group_id = confab_system_group(rid, 'role:members'),
        can_delete_any_message_group_id = confab_system_group(rid, 'role:administrators'),
        can_delete_own_message_group_id = confab_system_group(rid, 'role:everyone'),
        can_invite_users_group_id = confab_system_group(rid, 'role:members'),
        can_manage_all_groups_id = confab_system_group(rid, 'role:owners'),
        can_manage_billing_group_id = confab_system_group(rid, 'role:administrators'),
        can_mention_many_users_group_id = confab_system_group(rid, 'role:administrators'),
        can_move_messages_between_channels_group_id = confab_system_group(rid, 'role:members'),
        can_move_messages_between_topics_group_id = confab_system_group(rid, 'role:everyone'),
        can_resolve_topics_group_id = confab_system_group(rid, 'role:everyone'),
        can_set_topics_policy_group_id = confab_system_group(rid, 'role:moderators'),
        create_multiuse_invite_group_id = confab_system_group(rid, 'role:administrators'),
        direct_message_initiator_group_id = confab_system_group(rid, 'role:everyone'),
        direct_message_permission_group_id = confab_system_group(rid, 'role:everyone')
     WHERE r.id = rid;
    RETURN rid;
END
$$;

-- The API form of the group-setting value held in group p_group: the id of a named group, else
-- {"direct_members": [...], "direct_subgroups": [...]} (sorted; deactivated users left out).
CREATE FUNCTION confab_group_setting_api(p_group bigint) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN g.name IS NOT NULL THEN to_jsonb(g.id) ELSE jsonb_build_object(
        'direct_members', COALESCE((SELECT jsonb_agg(m.user_id ORDER BY m.user_id)
                                      FROM user_group_members m JOIN users u ON u.id = m.user_id AND u.is_active
                                     WHERE m.group_id = g.id), '[]'),
        'direct_subgroups', COALESCE((SELECT jsonb_agg(s.subgroup_id ORDER BY s.subgroup_id)
                                        FROM user_group_subgroups s WHERE s.group_id = g.id), '[]'))
    END
      FROM user_groups g WHERE g.id = p_group
$$;

-- Fills an unnamed group of realm p_realm with exactly p_members and p_subgroups (checked by the caller) and
-- returns its id: group p_group when it is an unnamed group of the realm, else a new one. It is the stored form of
-- a group-setting value given as an object, and of the default "the group's creator".
CREATE FUNCTION confab_unnamed_group(p_realm bigint, p_group bigint, p_members bigint[], p_subgroups bigint[])
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    gid bigint;
BEGIN
    SELECT id INTO gid FROM user_groups WHERE id = p_group AND realm_id = p_realm AND name IS NULL;
    IF gid IS NULL THEN
        INSERT INTO user_groups (realm_id, name, date_created) VALUES (p_realm, NULL, NULL) RETURNING id INTO gid;
    ELSE
        DELETE FROM user_group_members WHERE group_id = gid;
        DELETE FROM user_group_subgroups WHERE group_id = gid;
    END IF;
    INSERT INTO user_group_members (group_id, user_id) SELECT DISTINCT gid, unnest(p_members);
    INSERT INTO user_group_subgroups (group_id, subgroup_id) SELECT DISTINCT gid, unnest(p_subgroups);
    RETURN gid;
END
$$;

-- Why named group p_group cannot be deactivated, in the reference's `objections` form ([] when nothing objects):
-- active named groups holding it as a direct subgroup, then every setting of an active channel, an active named
-- group or the organization whose value is the group itself or an unnamed group that has it as a subgroup.
CREATE FUNCTION confab_group_objections(p_group bigint) RETURNS json LANGUAGE sql STABLE AS $$
    WITH target AS (
        SELECT id, realm_id FROM user_groups WHERE id = p_group
    ), used_as (id) AS (
        SELECT p_group
        UNION
        SELECT s.group_id FROM user_group_subgroups s JOIN user_groups a ON a.id = s.group_id
         WHERE s.subgroup_id = p_group AND a.name IS NULL
    ), channel_settings (setting, ord) AS (
        SELECT * FROM unnest(ARRAY['can_add_subscribers_group', 'can_administer_channel_group',
                                   'can_create_topic_group', 'can_delete_any_message_group',
                                   'can_delete_own_message_group', 'can_move_messages_out_of_channel_group',
                                   'can_move_messages_within_channel_group', 'can_remove_subscribers_group',
                                   'can_send_message_group', 'can_subscribe_group',
                                   'can_resolve_topics_group']) WITH ORDINALITY
    ), group_settings (setting, ord) AS (
        SELECT * FROM unnest(ARRAY['can_add_members_group', 'can_join_group', 'can_leave_group',
                                   'can_manage_group', 'can_mention_group',
                                   'can_remove_members_group']) WITH ORDINALITY
    ), realm_settings (setting, ord) AS (
        SELECT * FROM unnest(ARRAY['create_multiuse_invite_group', 'can_access_all_users_group',
                                   'can_add_subscribers_group', 'can_add_custom_emoji_group',
                                   'can_create_bots_group', 'can_create_groups',
                                   'can_create_public_channel_group', 'can_create_private_channel_group',
                                   'can_create_web_public_channel_group', 'can_create_write_only_bots_group',
                                   'can_delete_any_message_group', 'can_delete_own_message_group',
                                   'can_invite_users_group', 'can_manage_all_groups', 'can_manage_billing_group',
                                   'can_mention_many_users_group', 'can_move_messages_between_channels_group',
                                   'can_move_messages_between_topics_group', 'can_resolve_topics_group',
                                   'can_set_delete_message_policy_group', 'can_set_topics_policy_group',
                                   'can_summarize_topics_group', 'direct_message_initiator_group',
                                   'direct_message_permission_group']) WITH ORDINALITY
    ), objections (kind, key, obj) AS (
        SELECT 0, 0::bigint,
               json_build_object('type', 'subgroup', 'supergroup_ids', json_agg(s.group_id ORDER BY s.group_id))
          FROM user_group_subgroups s JOIN user_groups sup ON sup.id = s.group_id
         WHERE s.subgroup_id = p_group AND sup.name IS NOT NULL AND NOT sup.deactivated
        HAVING count(*) > 0
        UNION ALL
        SELECT 1, c.id, json_build_object('type', 'channel', 'channel_id', c.id,
                                          'settings', json_agg(cs.setting ORDER BY cs.ord))
          FROM channels c JOIN target t ON c.realm_id = t.realm_id CROSS JOIN channel_settings cs
         WHERE NOT c.is_archived AND (to_jsonb(c) ->> (cs.setting || '_id'))::bigint IN (SELECT id FROM used_as)
         GROUP BY c.id
        UNION ALL
        SELECT 2, g.id, json_build_object('type', 'user_group', 'group_id', g.id,
                                          'settings', json_agg(gs.setting ORDER BY gs.ord))
          FROM user_groups g JOIN target t ON g.realm_id = t.realm_id CROSS JOIN group_settings gs
         WHERE g.name IS NOT NULL AND NOT g.deactivated
           AND (to_jsonb(g) ->> (gs.setting || '_id'))::bigint IN (SELECT id FROM used_as)
         GROUP BY g.id
        UNION ALL
        SELECT 3, 0, json_build_object('type', 'realm', 'settings', json_agg(rs.setting ORDER BY rs.ord))
          FROM realms r JOIN target t ON r.id = t.realm_id CROSS JOIN realm_settings rs
         WHERE (to_jsonb(r) ->> (rs.setting || '_id'))::bigint IN (SELECT id FROM used_as)
        HAVING count(*) > 0
    )
    SELECT COALESCE(json_agg(obj ORDER BY kind, key), '[]') FROM objections
$$;
