-- Seeds the organization of scripts/bench into a migrated database whose root organization (subdomain "")
-- confabctl create-realm has just made. psql variables (psql -v):
--   users     members besides the owner (emails member1@example.com ..., API key bench_key(n))
--   channels  public channels; channel 1 ("general") has every user, the others the subscriptions below
--   subs      further channels each member subscribes to (spread over channels 2..)
--   messages  channel messages (2% in general, the rest spread over the other channels, 12 topics each),
--             plus one direct message for every 20 of them between neighbouring members
-- Every subscriber of a channel gets its user_messages row; all but the newest messages are read.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
BEGIN;

-- API key of member n (n = 0: the owner): 32 characters, as confab issues them.
CREATE FUNCTION pg_temp.bench_key(n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS
    $$ SELECT 'bench' || lpad(n::text, 27, '0') $$;
CREATE FUNCTION pg_temp.key_hash(k text) RETURNS text LANGUAGE sql IMMUTABLE AS
    $$ SELECT encode(sha256(convert_to(k, 'UTF8')), 'hex') $$;

SELECT id AS realm FROM realms WHERE subdomain = '' \gset
SELECT id AS owner FROM users WHERE realm_id = :realm AND role = 100 ORDER BY id LIMIT 1 \gset
INSERT INTO api_keys (key_hash, user_id) VALUES (pg_temp.key_hash(pg_temp.bench_key(0)), :owner);

-- Members (the role trigger puts them in the system groups); a few administrators and moderators.
CREATE TEMP TABLE member (n int PRIMARY KEY, id bigint NOT NULL);
WITH u AS (
    INSERT INTO users (realm_id, delivery_email, full_name, role, timezone, date_joined)
    SELECT :realm, 'member' || g || '@example.com', 'Member ' || g,
           CASE WHEN g % 500 = 0 THEN 200 WHEN g % 250 = 0 THEN 300 ELSE 400 END,
           'Etc/UTC', now() - interval '400 days'
      FROM generate_series(1, :users) g
    RETURNING id, delivery_email)
INSERT INTO member SELECT substring(delivery_email FROM 'member(\d+)@')::int, id FROM u;
INSERT INTO member VALUES (0, :owner);
INSERT INTO api_keys (key_hash, user_id) SELECT pg_temp.key_hash(pg_temp.bench_key(n)), id FROM member WHERE n > 0;

-- Channels with the settings POST /users/me/subscriptions gives a channel the owner creates.
CREATE TEMP TABLE chan (n int PRIMARY KEY, id bigint NOT NULL);
WITH c AS (
    INSERT INTO channels (realm_id, name, description, rendered_description, creator_id, date_created,
        can_add_subscribers_group_id, can_administer_channel_group_id, can_create_topic_group_id,
        can_delete_any_message_group_id, can_delete_own_message_group_id,
        can_move_messages_out_of_channel_group_id, can_move_messages_within_channel_group_id,
        can_remove_subscribers_group_id, can_resolve_topics_group_id, can_send_message_group_id,
        can_subscribe_group_id)
    SELECT :realm, CASE WHEN g = 1 THEN 'general' ELSE 'channel ' || g END,
           'Channel number ' || g, '<p>Channel number ' || g || '</p>', :owner, now() - interval '400 days',
           confab_system_group(:realm, 'role:nobody'),
           confab_unnamed_group(:realm, NULL, ARRAY[:owner::bigint], ARRAY[]::bigint[]),
           confab_system_group(:realm, 'role:everyone'), confab_system_group(:realm, 'role:nobody'),
           confab_system_group(:realm, 'role:nobody'), confab_system_group(:realm, 'role:nobody'),
           confab_system_group(:realm, 'role:nobody'), confab_system_group(:realm, 'role:administrators'),
           confab_system_group(:realm, 'role:nobody'), confab_system_group(:realm, 'role:everyone'),
           confab_system_group(:realm, 'role:nobody')
      FROM generate_series(1, :channels) g
    RETURNING id, name)
INSERT INTO chan SELECT CASE WHEN name = 'general' THEN 1 ELSE substring(name FROM '\d+')::int END, id FROM c;

-- Subscriptions: everyone to general, each member to :subs more channels, the owner to all.
INSERT INTO subscriptions (user_id, channel_id, color)
SELECT DISTINCT m.id, c.id, '#76ce90'
  FROM member m
  JOIN LATERAL (SELECT 1 AS n
                UNION ALL
                SELECT 2 + (m.n * 7919 + k * 104729) % (:channels - 1) FROM generate_series(1, :subs) k) pick
    ON true
  JOIN chan c ON c.n = pick.n
UNION
SELECT :owner, id, '#76ce90' FROM chan;

-- Channel messages, oldest first, one every two minutes, each sent by a subscriber of its channel.
CREATE TEMP TABLE chan_subs AS
SELECT c.n, c.id, array_agg(s.user_id ORDER BY s.user_id) AS users
  FROM chan c JOIN subscriptions s ON s.channel_id = c.id GROUP BY c.n, c.id;
CREATE TEMP TABLE plan AS
SELECT g, CASE WHEN g % 50 = 0 THEN 1 ELSE 2 + (g * 31) % (:channels - 1) END AS chan_n
  FROM generate_series(1, :messages) g;
INSERT INTO messages (realm_id, sender_id, channel_id, topic, content, rendered_content, date_sent)
SELECT :realm, cs.users[1 + (p.g * 13) % cardinality(cs.users)], cs.id, 'topic ' || ((p.g / 7) % 12),
       'Message ' || p.g || ' of the **benchmark** organization',
       '<p>Message ' || p.g || ' of the <strong>benchmark</strong> organization</p>',
       now() - (:messages - p.g) * interval '2 minutes'
  FROM plan p JOIN chan_subs cs ON cs.n = p.chan_n
 ORDER BY p.g;

-- Direct messages between member n and member n + 1.
WITH pairs AS (
    SELECT ARRAY[LEAST(a.id, b.id), GREATEST(a.id, b.id)] AS ids
      FROM member a JOIN member b ON b.n = a.n + 1 WHERE a.n > 0)
INSERT INTO direct_conversations (realm_id, user_ids) SELECT :realm, ids FROM pairs;
INSERT INTO messages (realm_id, sender_id, direct_conversation_id, content, rendered_content, date_sent)
SELECT :realm, d.user_ids[1 + g % 2], d.id, 'Direct message ' || g, '<p>Direct message ' || g || '</p>',
       now() - (:messages / 20 - g) * interval '40 minutes'
  FROM generate_series(1, :messages / 20) g
  JOIN (SELECT id, user_ids, row_number() OVER (ORDER BY id) AS k FROM direct_conversations
         WHERE realm_id = :realm) d
    ON d.k = 1 + g % (:users - 1)
 ORDER BY g;

-- Every recipient's copy: read (1), except a third of the newest 5,000 messages;
-- direct messages carry is_private (256).
SELECT max(id) - :messages - :messages / 20 AS first_id FROM messages \gset
INSERT INTO user_messages (user_id, message_id, flags)
SELECT s.user_id, m.id,
       CASE WHEN m.sender_id <> s.user_id AND m.id > (SELECT max(id) FROM messages) - 5000
                 AND (s.user_id + m.id) % 3 = 0 THEN 0 ELSE 1 END
  FROM messages m JOIN subscriptions s ON s.channel_id = m.channel_id
 WHERE m.realm_id = :realm AND m.id > :first_id;
INSERT INTO user_messages (user_id, message_id, flags)
SELECT u, m.id, 257
  FROM messages m JOIN direct_conversations d ON d.id = m.direct_conversation_id, unnest(d.user_ids) u
 WHERE m.realm_id = :realm AND m.id > :first_id;

COMMIT;
-- As autovacuum would have left a long-lived database: statistics, and visibility maps for index-only scans.
SET client_min_messages = error;
VACUUM ANALYZE;
