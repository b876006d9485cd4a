-- The organization's row, as worker processes keep it (src/model/cache.h), carries what every send reads: its
-- topics_policy and the version of its linkifiers (0015). A change of the version now reaches the processes' copies
-- like a change of the row itself (confab_cache_changed() of 0024), so a send reads neither from PostgreSQL.
CREATE FUNCTION confab_cache_linkifier_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM confab_cache_changed(NEW.realm_id);
    RETURN NULL;
END $$;

CREATE TRIGGER linkifier_versions_cache AFTER INSERT OR UPDATE ON linkifier_versions
    FOR EACH ROW EXECUTE FUNCTION confab_cache_linkifier_versions();
