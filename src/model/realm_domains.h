/*
 * Allowed e-mail domains of an organization (the reference's RealmDomain; zerver/lib/domains.py,
 * zerver/actions/realm_domains.py, zerver/lib/email_validation.py): the list, its changes with their
 * `realm_domains` events, and the rule new addresses obey while emails_restricted_to_domains is on.
 */
#ifndef CONFAB_REALM_DOMAINS_H
#define CONFAB_REALM_DOMAINS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;
struct realm;

/* The longest domain validate_domain() accepts, in characters. */
#define REALM_DOMAIN_MAX_LENGTH 255

/* The domain as the reference compares and stores it: domain.strip().lower() (Python's white space and lowercase).
 * An arena string. */
const char *realm_domain_normalize(struct uow *uow, const char *raw);

/*
 * The reference's validate_domain() on a domain already stripped and lowercased: NULL when it is valid, else the
 * reason (a static string) that follows "Invalid domain: ", from the first check it fails, in the reference's order.
 */
const char *realm_domain_invalid_reason(const char *domain);

/* The organization's domains as register's realm_domains shows them: [{domain, allow_subdomains}], oldest first.
 * A new array owned by the uow, or NULL (error recorded). */
json_object *realm_domains_json(struct uow *uow, int64_t realm_id);

/*
 * Adds domain (valid, as realm_domain_invalid_reason() says) to the uow's organization and records the
 * `realm_domains` add event for its active users. Returns the new id, or 0 with the error recorded (the reference's
 * "The domain {d} is already a part of your organization." when it is there already).
 */
int64_t realm_domain_add(struct uow *uow, const char *domain, bool allow_subdomains);
/* Sets allow_subdomains of domain (compared exactly, as sent) and records the `realm_domains` change event, also
 * when nothing changed, as the reference. 0, or -1 with "No entry found for domain {d}." or a database error. */
int realm_domain_change(struct uow *uow, const char *domain, bool allow_subdomains);
/*
 * Removes domain (compared exactly) and records the `realm_domains` remove event. Removing the organization's last
 * domain while emails_restricted_to_domains is on turns it off first, with its `realm` update event. 0, or -1 with
 * "No entry found for domain {d}." or a database error.
 */
int realm_domain_remove(struct uow *uow, const char *domain);

/* What the organization's rules say of a new user's address (the reference's exceptions of email_allowed_for_realm). */
enum realm_email_verdict {
	REALM_EMAIL_ALLOWED,
	REALM_EMAIL_DOMAIN_NOT_ALLOWED, /* DomainNotAllowedForRealmError */
	REALM_EMAIL_CONTAINS_PLUS,      /* EmailContainsPlusError */
};

/* The rules of one organization, loaded once for checking many addresses (get_realm_email_validator). */
struct realm_email_rules;

/* The rules of a restricted organization with these n domains (copied into the uow's arena). Never NULL. */
struct realm_email_rules *realm_email_rules_new(struct uow *uow, const char *const *domains,
                                                const bool *allow_subdomains, int n);
/* Loads realm's rules (its domains, when emails_restricted_to_domains is on) into the uow's arena; NULL (error
 * recorded) on a database failure. */
struct realm_email_rules *realm_email_rules_load(struct uow *uow, const struct realm *realm);
/*
 * The verdict on email, an address that passed user_email_is_valid(): while the organization is restricted, a '+'
 * in the local part is refused, then the domain (lowercased) must be one of the list or, for the entries with
 * allow_subdomains, end in "." and one of them. Time linear in the length of email times the number of domains.
 */
enum realm_email_verdict realm_email_rules_check(const struct realm_email_rules *rules, const char *email);
/* realm_email_rules_check() on realm's rules loaded for one address; -1 (error recorded) on a database failure. */
int realm_email_check(struct uow *uow, const struct realm *realm, const char *email);

#endif
