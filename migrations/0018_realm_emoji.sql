-- Custom emoji (issue 15), as the reference's RealmEmoji: an organization's uploaded images, named. Deleting one
-- only deactivates it (old messages, reactions and statuses keep showing it), so a name is unique among the active
-- emoji only and can be taken again. The image is the file emoji/<realm id>/<file_name> under upload_dir, served
-- at /user_avatars/<realm id>/emoji/images/<file_name>.
CREATE TABLE realm_emoji (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    author_id bigint REFERENCES users (id) ON DELETE SET NULL,
    -- The reference's name rule: lowercase letters, digits, '-' and '_', ending with a letter or digit.
    name text NOT NULL CHECK (name ~ '^[0-9a-z_-]*[0-9a-z]$'),
    file_name text NOT NULL CHECK (file_name ~ '^[0-9a-f]{8}\.[a-z]+$'),
    content_type text NOT NULL,
    is_animated boolean NOT NULL DEFAULT false,
    deactivated boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX realm_emoji_active_name_idx ON realm_emoji (realm_id, name) WHERE NOT deactivated;
CREATE INDEX realm_emoji_realm_idx ON realm_emoji (realm_id, id);
CREATE UNIQUE INDEX realm_emoji_file_idx ON realm_emoji (realm_id, file_name);
