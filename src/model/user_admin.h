/*
 * Administration of accounts (the reference's zerver/actions/users.py): role, name and e-mail changes,
 * deactivation and reactivation, each with its events. Everything works in the calling unit of work's transaction
 * and records its events for after COMMIT.
 */
#ifndef CONFAB_USER_ADMIN_H
#define CONFAB_USER_ADMIN_H

#include <stdbool.h>
#include <stdint.h>

struct uow;
struct user;

/* The reference's can_admin_user: acting owns the bot target, or is an administrator. */
bool user_can_admin(const struct user *acting, const struct user *target);
/* The reference's check_last_owner: target is the organization's only active human owner. 1, 0, or -1 on error. */
int user_is_last_owner(struct uow *uow, const struct user *target);
/* How many active users (bots included) the organization has, or -1 on error. */
int64_t user_active_count(struct uow *uow, int64_t realm_id);
/*
 * The reference's get_user_ids_who_can_access_user: the organization's active users, less the guests other than
 * target when guests may not see everyone. Ascending, in the arena; NULL on error.
 */
int64_t *user_access_audience(struct uow *uow, const struct user *target, int *n);

/*
 * Changes the role (the system groups follow, by the users trigger): realm_user update {user_id, role}, user_group
 * remove_members/add_members for the system groups left and joined, then stream create (with peer_add) and stream
 * delete for the channels the user now sees or no longer sees. 0 or -1.
 */
int user_change_role(struct uow *uow, const struct user *target, int role);
/* Sets the full name (checked by the caller): realm_user update {user_id, full_name}. 0 or -1. */
int user_change_full_name(struct uow *uow, const struct user *target, const char *name);
/* Sets the real address (checked by the caller): realm_user update {user_id, delivery_email} to those who may see
 * it, and {user_id, new_email} to everyone when the address is the API address. 0 or -1. */
int user_change_email(struct uow *uow, const struct user *target, const char *email);

/*
 * The reference's do_deactivate_user: the account's active bots first, then the account (its API keys stop
 * working, as authentication refuses inactive accounts): peer_remove for its channels, realm_user update
 * {user_id, is_active: false}, user_group remove_members to guests who may not see it, and the deletion of its event
 * queues after COMMIT. Nothing for an inactive account. 0 or -1.
 */
int user_deactivate(struct uow *uow, const struct user *target);
/* The reference's do_reactivate_user: realm_user update {is_active: true}, peer_add for its channels and
 * user_group add_members for its groups. 0 or -1. */
int user_reactivate(struct uow *uow, const struct user *target);

#endif
