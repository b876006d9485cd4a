-- Uploads that cannot fill the disk (issue 29, item 7). An organization's upload quota in GiB, as the reference's
-- Realm.custom_upload_quota_gb: NULL follows the server's upload_quota_gb (confab.conf; 0 there: no quota). The
-- quota check and upload_space_used sum an organization's sizes (an index-only scan), and the reaper finds the
-- unclaimed uploads past their grace period by age.
ALTER TABLE realms ADD COLUMN custom_upload_quota_gb integer CHECK (custom_upload_quota_gb >= 0);
CREATE INDEX attachments_realm_size ON attachments (realm_id) INCLUDE (size);
CREATE INDEX attachments_create_time ON attachments (create_time);
