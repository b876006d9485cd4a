-- The allowed e-mail domains of an organization (issue 15): with realms.emails_restricted_to_domains on, new users'
-- addresses must be in one of them, or (allow_subdomains) under one. The reference's RealmDomain.
-- A domain is stored as validated: stripped, lowercased, at most 255 characters (src/model/realm_domains.c).
CREATE TABLE realm_domains (
    id bigserial PRIMARY KEY,
    realm_id bigint NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    domain text NOT NULL CHECK (length(domain) BETWEEN 1 AND 255),
    allow_subdomains boolean NOT NULL DEFAULT false,
    UNIQUE (realm_id, domain)
);
