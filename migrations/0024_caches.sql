-- Worker processes keep copies of rows many requests read (src/model/cache.h): the user and organization of an API
-- key, the organization of a host name, and the realm_users lists of POST /register (src/model/realm_users.c).
-- These triggers record every change to such rows, whoever makes it (a worker, confabctl, psql), once per
-- transaction and organization:
--  * NOTIFY confab_cache with the organization's id (0: unknown, everything is dropped), delivered at COMMIT to each
--    worker's LISTEN connection, which drops its copies of that organization;
--  * a row in realm_changes, for copies that are checked inside a transaction instead (a copy read under snapshot S
--    is current for a transaction that sees no realm_changes row of the organization that S does not see);
--  * a notice (SQLSTATE CF001, once per transaction) that tells the worker that made the change to wait until its
--    own listener has heard of it before answering.

CREATE TABLE realm_changes (
    realm_id bigint NOT NULL, -- no foreign key: the row of a deleted organization is harmless and goes with the rest
    xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX realm_changes_realm_xid ON realm_changes (realm_id, xid);

CREATE FUNCTION confab_cache_changed(rid bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    seen text := COALESCE(current_setting('confab.cache_realms', true), '');
    tag text := ',' || COALESCE(rid, 0) || ',';
BEGIN
    IF position(tag IN seen) > 0 THEN
        RETURN;
    END IF;
    PERFORM set_config('confab.cache_realms', seen || tag, true);
    INSERT INTO realm_changes (realm_id) VALUES (COALESCE(rid, 0));
    PERFORM pg_notify('confab_cache', COALESCE(rid, 0)::text);
    IF seen = '' THEN
        RAISE NOTICE 'cached rows of organization % changed', COALESCE(rid, 0) USING ERRCODE = 'CF001';
    END IF;
END $$;

CREATE FUNCTION confab_cache_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM confab_cache_changed(NEW.realm_id);
    ELSE
        PERFORM confab_cache_changed(OLD.realm_id);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION confab_cache_realms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM confab_cache_changed(OLD.id);
    RETURN NULL;
END $$;

-- Rows of a user (api_keys, custom_profile_field_values): the organization of the user.
CREATE FUNCTION confab_cache_user_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM confab_cache_changed((SELECT realm_id FROM users WHERE id = NEW.user_id));
    ELSE
        PERFORM confab_cache_changed((SELECT realm_id FROM users WHERE id = OLD.user_id));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER users_cache_insert AFTER INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER users_cache_update AFTER UPDATE ON users
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER users_cache_delete AFTER DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER realms_cache_update AFTER UPDATE ON realms
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION confab_cache_realms();
CREATE TRIGGER realms_cache_delete AFTER DELETE ON realms
    FOR EACH ROW EXECUTE FUNCTION confab_cache_realms();
CREATE TRIGGER api_keys_cache AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION confab_cache_user_rows();
CREATE TRIGGER custom_profile_field_values_cache AFTER INSERT OR UPDATE OR DELETE ON custom_profile_field_values
    FOR EACH ROW EXECUTE FUNCTION confab_cache_user_rows();
