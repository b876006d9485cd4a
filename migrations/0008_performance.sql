-- Found by scripts/bench (docs/PERFORMANCE.md).

-- stream_weekly_traffic counts a channel's messages of the last 28 days; without this index that count reads
-- every message of the channel's history (see CHANNEL_STATS in src/model/channels.h).
CREATE INDEX messages_channel_date ON messages (channel_id, date_sent) WHERE channel_id IS NOT NULL;

-- subscriber_count leaves deactivated users out: with this index that is an anti-join with the few deactivated
-- users instead of a join with every user, for each channel of a list.
CREATE INDEX users_inactive ON users (id) WHERE NOT is_active;

-- A channel's active subscribers in user order (typing audiences, recipients): the old index had no user_id, so
-- generic plans read the channel's rows through subscriptions_pkey (user_id, channel_id) from end to end.
DROP INDEX subscriptions_channel;
CREATE INDEX subscriptions_channel ON subscriptions (channel_id, user_id) WHERE active;

-- A user's direct messages (is_private, 256), newest first, for recent_private_conversations: without it,
-- POST /register walks all the user's messages, channel ones included.
CREATE INDEX user_messages_private ON user_messages (user_id, message_id) WHERE flags & 256 <> 0;

-- The functions below again, in PL/pgSQL: a SQL function whose body reads a table cannot be inlined into the
-- calling statement, so PostgreSQL plans its body again at every call (0.1 ms each; a channel row calls
-- confab_group_setting_api eleven times, authentication calls confab_system_group once). PL/pgSQL keeps its plans
-- for the session. Same results; deactivated members are left out by an anti-join with users_inactive (a join
-- with users made the generic plan hash all users at every call).
CREATE OR REPLACE FUNCTION confab_system_group(p_realm bigint, p_name text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT id FROM user_groups WHERE realm_id = p_realm AND name = p_name AND is_system_group);
END
$$;

CREATE OR REPLACE FUNCTION confab_group_contains(p_group bigint, p_user bigint) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM confab_group_members(p_group) m WHERE m.user_id = p_user);
END
$$;

CREATE OR REPLACE FUNCTION confab_group_setting_api(p_group bigint) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (
        SELECT CASE WHEN g.name IS NOT NULL THEN to_jsonb(g.id) ELSE jsonb_build_object(
            'direct_members', COALESCE((SELECT jsonb_agg(m.user_id ORDER BY m.user_id)
                                          FROM user_group_members m WHERE m.group_id = g.id AND NOT EXISTS
                                              (SELECT 1 FROM users u WHERE u.id = m.user_id AND NOT u.is_active)),
                                         '[]'),
            'direct_subgroups', COALESCE((SELECT jsonb_agg(s.subgroup_id ORDER BY s.subgroup_id)
                                            FROM user_group_subgroups s WHERE s.group_id = g.id), '[]'))
        END
          FROM user_groups g WHERE g.id = p_group);
END
$$;
