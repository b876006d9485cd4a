-- Worker processes keep copies of the rows every request reads (src/model/cache.h): the user and organization of an
-- API key, the organization of a host name. These triggers tell them when such rows change, whoever changes them
-- (a worker, confabctl, psql): NOTIFY confab_cache with the organization's id (0: unknown, everything is dropped),
-- delivered at COMMIT to each worker's LISTEN connection. The notice (SQLSTATE CF001, once per transaction) tells
-- the worker that made the change to wait until its own listener has heard of it before answering.

CREATE FUNCTION confab_cache_changed(rid bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('confab_cache', COALESCE(rid, 0)::text);
    IF current_setting('confab.cache_noticed', true) IS DISTINCT FROM 'on' THEN
        PERFORM set_config('confab.cache_noticed', 'on', true);
        RAISE NOTICE 'cached rows of organization % changed', COALESCE(rid, 0) USING ERRCODE = 'CF001';
    END IF;
END $$;

CREATE FUNCTION confab_cache_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM confab_cache_changed(OLD.realm_id);
    RETURN NULL;
END $$;

CREATE FUNCTION confab_cache_realms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM confab_cache_changed(OLD.id);
    RETURN NULL;
END $$;

CREATE FUNCTION confab_cache_api_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM confab_cache_changed((SELECT realm_id FROM users WHERE id = OLD.user_id));
    RETURN NULL;
END $$;

CREATE TRIGGER users_cache_update AFTER UPDATE ON users
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER users_cache_delete AFTER DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION confab_cache_users();
CREATE TRIGGER realms_cache_update AFTER UPDATE ON realms
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION confab_cache_realms();
CREATE TRIGGER realms_cache_delete AFTER DELETE ON realms
    FOR EACH ROW EXECUTE FUNCTION confab_cache_realms();
CREATE TRIGGER api_keys_cache AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION confab_cache_api_keys();
