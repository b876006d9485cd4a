-- A B-tree index entry holds at most about 2,700 bytes (a third of a page): a navigation view's fragment or name, or
-- a linkifier's pattern, longer than that failed its INSERT with SQLSTATE 54000, a 500 (issue 29). Their uniqueness
-- is kept on an MD5 of the text, whose entries are small whatever the text; the texts themselves are bounded by the
-- route tables (docs/LIMITS.md, "Stored texts").
ALTER TABLE navigation_views
    DROP CONSTRAINT navigation_views_user_id_fragment_key,
    DROP CONSTRAINT navigation_views_user_id_name_key;
CREATE UNIQUE INDEX navigation_views_user_fragment ON navigation_views (user_id, md5(fragment));
CREATE UNIQUE INDEX navigation_views_user_name ON navigation_views (user_id, md5(name));

ALTER TABLE linkifiers DROP CONSTRAINT linkifiers_realm_id_pattern_key;
CREATE UNIQUE INDEX linkifiers_realm_pattern ON linkifiers (realm_id, md5(pattern));
