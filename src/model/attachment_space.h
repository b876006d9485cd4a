/*
 * The disk space uploads take: an organization's quota and its use (upload_space_used), a user's list of their
 * uploads and the deletion of one (GET and DELETE /attachments), the attachment events that tell the owner, and
 * the reaper's deletion of uploads no message has linked for unclaimed_attachment_days. Built on
 * model/attachments.h (rows, files, links).
 */
#ifndef CONFAB_ATTACHMENT_SPACE_H
#define CONFAB_ATTACHMENT_SPACE_H

#include <json-c/json.h>
#include <stdint.h>

struct uow;

/* The most unclaimed uploads attachment_space_reap() deletes in one transaction. */
#define ATTACHMENT_REAP_BATCH 100

/*
 * The reference's check_upload_within_quota for an upload of size bytes to the request's organization: its quota
 * is realms.custom_upload_quota_gb, else the server's upload_quota_gb (0: none), in GiB. Returns 0, or -1 with
 * ERR_REALM_UPLOAD_QUOTA ("Upload would exceed your organization's upload quota.") or a database error recorded.
 * Call it before writing the file (a refusal costs no disk), and attachment_space_hold_quota() once the row is in.
 */
int attachment_space_check_quota(struct uow *uow, int64_t size);

/*
 * The exact check, after the upload's row was inserted in the open transaction: when the organization has a quota,
 * takes a lock held until the transaction ends, so that concurrent uploads of the organization are checked one
 * after the other, then checks that the uploads, this one included, fit. 0, or -1 as attachment_space_check_quota()
 * (the caller's transaction must then roll back).
 */
int attachment_space_hold_quota(struct uow *uow);

/* The sizes of the organization's uploads, in bytes (the reference's currently_used_upload_space_bytes), or -1
 * with the error recorded. */
int64_t attachment_space_used(struct uow *uow, int64_t realm_id);

/* The request user's uploads as the API shows them (ATTACHMENT_JSON), by id; a new array (the caller owns it), or
 * NULL with the error recorded. */
json_object *attachment_space_list(struct uow *uow);

/*
 * The attachment events, {"type": "attachment", "op": ..., "attachment": ..., "upload_space_used": ...}, recorded
 * for one user's queues. The "add" event of a new upload (id) for its owner, the request's user. 0 or -1.
 */
int attachment_space_added(struct uow *uow, int64_t attachment_id);

/*
 * The "update" events for the sender of message_id of the attachments the message links now and did not link
 * before (previous_ids, n of them; none for a new message), as the reference's do_claim_attachments sends them.
 * 0 or -1.
 */
int attachment_space_claimed(struct uow *uow, int64_t message_id, int64_t sender_id, const int64_t *previous_ids,
                             int n);

/*
 * DELETE /attachments/{id} for the request's user: the upload must be theirs ("Invalid attachment" otherwise);
 * removes its row (links to messages go with it) and its file, and records the "remove" event. 0 or -1.
 */
int attachment_space_delete(struct uow *uow, int64_t attachment_id);

/*
 * For the reaper: deletes at most ATTACHMENT_REAP_BATCH uploads created more than days days ago that no message
 * and no pending scheduled message links, rows and files, in one transaction of its own; the rows are claimed with
 * FOR UPDATE SKIP LOCKED, so two reapers never take the same ones. A file is removed before its row's deletion
 * commits: a failed commit leaves a row without a file (served as missing, deleted by the next run), never a file
 * without a row. Returns the number deleted, or -1 with the error recorded.
 */
int attachment_space_reap(struct uow *uow, int days);

#endif
