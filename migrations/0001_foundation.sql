-- Organizations, users, API keys, system groups and custom profile fields.
-- Applied by `confabctl migrate` in one transaction. Meant to be read and administered with psql.

CREATE TABLE realms (
    id bigserial PRIMARY KEY,
    -- '' is the organization at the root domain; others are served at <subdomain>.<external host>.
    subdomain text NOT NULL UNIQUE CHECK (subdomain ~ '^([a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?)?$'),
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
    description text NOT NULL DEFAULT '',
    deactivated boolean NOT NULL DEFAULT false,
    date_created timestamptz NOT NULL DEFAULT now(),
    -- Message editing and moving; NULL time limits mean unlimited.
    allow_message_editing boolean NOT NULL DEFAULT true,
    message_content_edit_limit_seconds integer DEFAULT 600 CHECK (message_content_edit_limit_seconds > 0),
    message_content_delete_limit_seconds integer DEFAULT 600 CHECK (message_content_delete_limit_seconds > 0),
    move_messages_within_stream_limit_seconds integer DEFAULT 604800
        CHECK (move_messages_within_stream_limit_seconds > 0),
    move_messages_between_streams_limit_seconds integer DEFAULT 604800
        CHECK (move_messages_between_streams_limit_seconds > 0),
    topics_policy text NOT NULL DEFAULT 'allow_empty_topic'
        CHECK (topics_policy IN ('allow_empty_topic', 'disable_empty_topic', 'empty_topic_only')),
    -- Days before a new member joins role:fullmembers.
    waiting_period_threshold integer NOT NULL DEFAULT 0 CHECK (waiting_period_threshold >= 0),
    enable_spectator_access boolean NOT NULL DEFAULT false,
    emails_restricted_to_domains boolean NOT NULL DEFAULT false,
    invite_required boolean NOT NULL DEFAULT true,
    message_retention_days integer CHECK (message_retention_days = -1 OR message_retention_days > 0),
    -- Set once channels exist (a later migration adds the foreign key).
    moderation_request_channel_id bigint
);

-- Named groups, system groups (role:...) and the unnamed groups that hold a group-setting value given as
-- {direct_members, direct_subgroups}.
CREATE TABLE user_groups (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    name text CHECK (name IS NULL OR length(name) BETWEEN 1 AND 100),
    description text NOT NULL DEFAULT '',
    is_system_group boolean NOT NULL DEFAULT false,
    deactivated boolean NOT NULL DEFAULT false,
    creator_id bigint,
    date_created timestamptz DEFAULT now(),
    UNIQUE (realm_id, name),
    CHECK (NOT is_system_group OR name LIKE 'role:%')
);
CREATE INDEX user_groups_realm ON user_groups (realm_id);

CREATE TABLE users (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id),
    delivery_email text NOT NULL CHECK (delivery_email LIKE '%_@_%'),
    full_name text NOT NULL CHECK (length(full_name) BETWEEN 1 AND 100),
    -- 100 owner, 200 administrator, 300 moderator, 400 member, 600 guest.
    role smallint NOT NULL DEFAULT 400 CHECK (role IN (100, 200, 300, 400, 600)),
    is_active boolean NOT NULL DEFAULT true,
    is_bot boolean NOT NULL DEFAULT false,
    -- 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded.
    bot_type smallint CHECK (bot_type BETWEEN 1 AND 4),
    bot_owner_id bigint REFERENCES users (id),
    -- Argon2id string from libsodium's crypto_pwhash_str; NULL: the user cannot log in with a password.
    password_hash text,
    timezone text NOT NULL DEFAULT '',
    -- G: Gravatar, U: uploaded.
    avatar_source char(1) NOT NULL DEFAULT 'G' CHECK (avatar_source IN ('G', 'U')),
    avatar_version integer NOT NULL DEFAULT 1,
    -- Who may see delivery_email: 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators.
    email_address_visibility smallint NOT NULL DEFAULT 1 CHECK (email_address_visibility BETWEEN 1 AND 5),
    date_joined timestamptz NOT NULL DEFAULT now(),
    is_imported_stub boolean NOT NULL DEFAULT false,
    is_deleted boolean NOT NULL DEFAULT false,
    -- Special permissions an operator grants by hand (the reference's can_create_users, can_change_user_emails).
    can_create_users boolean NOT NULL DEFAULT false,
    can_change_user_emails boolean NOT NULL DEFAULT false,
    CHECK (is_bot = (bot_type IS NOT NULL)),
    CHECK (NOT is_deleted OR NOT is_active)
);
CREATE UNIQUE INDEX users_realm_email ON users (realm_id, lower(delivery_email));

-- API keys are shown once and stored only as the hex SHA-256 of the key. A user may hold several keys
-- (one per logged-in client); reset-api-key replaces them all.
CREATE TABLE api_keys (
    key_hash text PRIMARY KEY CHECK (key_hash ~ '^[0-9a-f]{64}$'),
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE user_group_members (
    group_id bigint NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, user_id)
);
CREATE INDEX user_group_members_user ON user_group_members (user_id);

CREATE TABLE user_group_subgroups (
    group_id bigint NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
    subgroup_id bigint NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, subgroup_id),
    CHECK (group_id <> subgroup_id)
);
CREATE INDEX user_group_subgroups_subgroup ON user_group_subgroups (subgroup_id);

-- Organization permission settings: each holds a user group (a system group by default).
ALTER TABLE realms
    ADD COLUMN can_access_all_users_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_add_custom_emoji_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_add_subscribers_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_create_bots_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_create_groups_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_create_private_channel_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_create_public_channel_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_create_web_public_channel_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_create_write_only_bots_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_delete_any_message_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_delete_own_message_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_invite_users_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_manage_all_groups_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_manage_billing_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_mention_many_users_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_move_messages_between_channels_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_move_messages_between_topics_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_resolve_topics_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN can_set_topics_policy_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN create_multiuse_invite_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN direct_message_initiator_group_id bigint REFERENCES user_groups (id),
    ADD COLUMN direct_message_permission_group_id bigint REFERENCES user_groups (id);

CREATE TABLE custom_profile_fields (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
    hint text NOT NULL DEFAULT '',
    -- 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 users, 7 external account, 8 pronouns.
    field_type smallint NOT NULL CHECK (field_type BETWEEN 1 AND 8),
    field_data text NOT NULL DEFAULT '',
    "order" integer NOT NULL DEFAULT 0,
    display_in_profile_summary boolean NOT NULL DEFAULT false,
    required boolean NOT NULL DEFAULT false,
    editable_by_user boolean NOT NULL DEFAULT true,
    UNIQUE (realm_id, name)
);

CREATE TABLE custom_profile_field_values (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    field_id bigint NOT NULL REFERENCES custom_profile_fields (id) ON DELETE CASCADE,
    value text NOT NULL,
    -- HTML for the field types that support Markdown (short and long text); NULL otherwise.
    rendered_value text,
    PRIMARY KEY (user_id, field_id)
);
CREATE INDEX custom_profile_field_values_field ON custom_profile_field_values (field_id);

-- A user is a direct member of the system group of their role; members old enough (waiting_period_threshold)
-- are also direct members of role:fullmembers; guests are direct members of role:everyone.
CREATE FUNCTION confab_role_group_name(role smallint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE role WHEN 100 THEN 'role:owners' WHEN 200 THEN 'role:administrators'
        WHEN 300 THEN 'role:moderators' WHEN 400 THEN 'role:members' ELSE 'role:everyone' END
$$;

CREATE FUNCTION confab_sync_role_groups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.role = OLD.role THEN
        RETURN NEW;
    END IF;
    DELETE FROM user_group_members m USING user_groups g
     WHERE m.group_id = g.id AND g.realm_id = NEW.realm_id AND g.is_system_group AND m.user_id = NEW.id;
    INSERT INTO user_group_members (group_id, user_id)
    SELECT g.id, NEW.id
      FROM user_groups g JOIN realms r ON r.id = g.realm_id
     WHERE g.realm_id = NEW.realm_id AND g.is_system_group
       AND (g.name = confab_role_group_name(NEW.role)
            OR (NEW.role = 400 AND g.name = 'role:fullmembers'
                AND NEW.date_joined <= now() - make_interval(days => r.waiting_period_threshold)));
    RETURN NEW;
END
$$;

CREATE TRIGGER users_role_groups AFTER INSERT OR UPDATE OF role ON users
    FOR EACH ROW EXECUTE FUNCTION confab_sync_role_groups();

-- The id of a realm's system group by name, e.g. confab_system_group(1, 'role:members').
CREATE FUNCTION confab_system_group(p_realm bigint, p_name text) RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT id FROM user_groups WHERE realm_id = p_realm AND name = p_name AND is_system_group
$$;

-- Creates an organization with its system groups and the reference's default permission settings.
-- Returns the new realm's id. Usable from psql: SELECT confab_create_realm('sub', 'Name');
CREATE FUNCTION confab_create_realm(p_subdomain text, p_name text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    rid bigint;
BEGIN
    INSERT INTO realms (subdomain, name) VALUES (p_subdomain, p_name) RETURNING id INTO rid;
    INSERT INTO user_groups (realm_id, name, description, is_system_group)
    VALUES (rid, 'role:internet', 'Everyone on the Internet', true),
           (rid, 'role:everyone', 'Everyone including guests', true),
           (rid, 'role:members', 'Everyone except guests', true),
           (rid, 'role:fullmembers', 'Members of this organization, not including new accounts and guests', true),
           (rid, 'role:moderators', 'Moderators of this organization, including administrators', true),
           (rid, 'role:administrators', 'Administrators of this organization, including owners', true),
           (rid, 'role:owners', 'Owners of this organization', true),
           (rid, 'role:nobody', 'Nobody', true);
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
