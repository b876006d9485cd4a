-- Linkifiers (the reference's RealmFilter): an organization's regular expressions (RE2 syntax) whose matches in
-- messages and topics become links built from an RFC 6570 URL template. Applied in "order", then id.
CREATE TABLE linkifiers (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    pattern text NOT NULL CHECK (pattern <> ''),
    url_template text NOT NULL CHECK (url_template <> ''),
    -- Reverse linkification (feature level 471): a sample the pattern matches, the template that writes a match
    -- back from its variables, and more URL templates a link may be recognised by.
    example_input text,
    reverse_template text,
    alternative_url_templates jsonb NOT NULL DEFAULT '[]',
    "order" integer NOT NULL DEFAULT 0,
    UNIQUE (realm_id, pattern)
);
CREATE INDEX linkifiers_realm_idx ON linkifiers (realm_id, "order", id);

-- A counter per organization, raised by every change of its linkifiers (whoever makes it, psql included), so
-- that each worker can tell with one cheap read whether the patterns it compiled are still current.
CREATE TABLE linkifier_versions (
    realm_id bigint PRIMARY KEY REFERENCES realms (id) ON DELETE CASCADE,
    version bigint NOT NULL
);

CREATE FUNCTION confab_linkifiers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO linkifier_versions AS v (realm_id, version)
        VALUES (COALESCE(NEW.realm_id, OLD.realm_id), 1)
        ON CONFLICT (realm_id) DO UPDATE SET version = v.version + 1;
    IF TG_OP = 'UPDATE' AND NEW.realm_id <> OLD.realm_id THEN
        INSERT INTO linkifier_versions AS v (realm_id, version) VALUES (OLD.realm_id, 1)
            ON CONFLICT (realm_id) DO UPDATE SET version = v.version + 1;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER linkifiers_changed AFTER INSERT OR UPDATE OR DELETE ON linkifiers
    FOR EACH ROW EXECUTE FUNCTION confab_linkifiers_changed();
