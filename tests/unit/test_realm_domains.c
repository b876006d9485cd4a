/* Allowed domains: the reference's domain.strip().lower(), validate_domain() and get_realm_email_validator(). */
#include <stdbool.h>
#include <string.h>

#include "core/uow.h"
#include "model/realm_domains.h"
#include "unit.h"

static struct uow req;

static const char *norm(const char *raw)
{
	return realm_domain_normalize(&req, raw);
}

static void test_realm_domains_normalize(void)
{
	CU_ASSERT_STRING_EQUAL(norm("  Zulip.ORG\t\n"), "zulip.org");
	CU_ASSERT_STRING_EQUAL(norm(""), "");
	CU_ASSERT_STRING_EQUAL(norm(" \x1c\x1f "), ""); /* Python's isspace() takes the separators too */
	/* Unicode white space (U+3000, U+00A0) at the ends, kept inside. */
	CU_ASSERT_STRING_EQUAL(norm("\xe3\x80\x80" "a\xc2\xa0" "b.org\xc2\xa0"), "a\xc2\xa0" "b.org");
	/* KELVIN SIGN lowercases to "k"; U+0130 to "i" and U+0307; other letters stay. */
	CU_ASSERT_STRING_EQUAL(norm("\xe2\x84\xaa.ORG"), "k.org");
	CU_ASSERT_STRING_EQUAL(norm("\xc4\xb0.org"), "i\xcc\x87.org");
	CU_ASSERT_STRING_EQUAL(norm("\xc3\xa9.org"), "\xc3\xa9.org");
}

static const char *reason(const char *domain)
{
	const char *r = realm_domain_invalid_reason(domain);
	return r ? r : "";
}

static void test_realm_domains_validate(void)
{
	CU_ASSERT_STRING_EQUAL(reason("zulip.org"), "");
	CU_ASSERT_STRING_EQUAL(reason("a-b.c1.org"), "");
	CU_ASSERT_STRING_EQUAL(reason(""), "Domain can't be empty.");
	CU_ASSERT_STRING_EQUAL(reason("zulip"), "Domain must have at least one dot (.)");
	CU_ASSERT_STRING_EQUAL(reason("zulip.org."), "Domain cannot start or end with a dot (.)");
	CU_ASSERT_STRING_EQUAL(reason(".zulip.org"), "Domain cannot start or end with a dot (.)");
	CU_ASSERT_STRING_EQUAL(reason("zulip..org"), "Consecutive '.' are not allowed.");
	CU_ASSERT_STRING_EQUAL(reason("zulip.-org"), "Subdomains cannot start or end with a '-'.");
	CU_ASSERT_STRING_EQUAL(reason("zulip-.org"), "Subdomains cannot start or end with a '-'.");
	CU_ASSERT_STRING_EQUAL(reason("zu_lip.org"), "Domain can only have letters, numbers, '.' and '-'s.");
	CU_ASSERT_STRING_EQUAL(reason("ZULIP.org"), "Domain can only have letters, numbers, '.' and '-'s.");
	/* The labels are checked one after the other: the first bad label decides. */
	CU_ASSERT_STRING_EQUAL(reason("a_b.-c.org"), "Domain can only have letters, numbers, '.' and '-'s.");
	CU_ASSERT_STRING_EQUAL(reason("-a.b_c.org"), "Subdomains cannot start or end with a '-'.");
	/* Python's $ matches before one final newline of a label, not two, and not before other characters. */
	CU_ASSERT_STRING_EQUAL(reason("a\n.org"), "");
	CU_ASSERT_STRING_EQUAL(reason("a.\n.org"), "");
	CU_ASSERT_STRING_EQUAL(reason("a\n\n.org"), "Domain can only have letters, numbers, '.' and '-'s.");
	CU_ASSERT_STRING_EQUAL(reason("a\r.org"), "Domain can only have letters, numbers, '.' and '-'s.");
	/* 255 characters, not bytes. */
	char name[1100];
	memset(name, 'a', 251);
	strcpy(name + 251, ".org");
	CU_ASSERT_STRING_EQUAL(reason(name), "");
	memset(name, 'a', 252);
	strcpy(name + 252, ".org");
	CU_ASSERT_STRING_EQUAL(reason(name), "Domain is too long");
	for (int i = 0; i < 251; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	strcpy(name + 502, ".org");
	CU_ASSERT_STRING_EQUAL(reason(name), "Domain can only have letters, numbers, '.' and '-'s.");
}

static void test_realm_domains_email_rules(void)
{
	const char *domains[] = {"zulip.org", "acme.test", "b.example.com"};
	const bool allow[] = {false, true, true};
	struct realm_email_rules *r = realm_email_rules_new(&req, domains, allow, 3);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@zulip.org"), REALM_EMAIL_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@ZULIP.Org"), REALM_EMAIL_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@sub.zulip.org"), REALM_EMAIL_DOMAIN_NOT_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@acme.test"), REALM_EMAIL_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@a.b.acme.test"), REALM_EMAIL_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@xacme.test"), REALM_EMAIL_DOMAIN_NOT_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@acme.test.org"), REALM_EMAIL_DOMAIN_NOT_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@c.b.example.com"), REALM_EMAIL_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@example.com"), REALM_EMAIL_DOMAIN_NOT_ALLOWED);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "x@test"), REALM_EMAIL_DOMAIN_NOT_ALLOWED);
	/* '+' in the local part is refused first, whatever the domain. */
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "a+b@zulip.org"), REALM_EMAIL_CONTAINS_PLUS);
	CU_ASSERT_EQUAL(realm_email_rules_check(r, "a+b@other.org"), REALM_EMAIL_CONTAINS_PLUS);
	/* No domains: nothing is allowed. */
	struct realm_email_rules *none = realm_email_rules_new(&req, NULL, NULL, 0);
	CU_ASSERT_EQUAL(realm_email_rules_check(none, "x@zulip.org"), REALM_EMAIL_DOMAIN_NOT_ALLOWED);
}

int main(void)
{
	uow_init(&req, NULL, 1);
	static const struct unit_test tests[] = {
	    {"test_realm_domains_normalize", test_realm_domains_normalize},
	    {"test_realm_domains_validate", test_realm_domains_validate},
	    {"test_realm_domains_email_rules", test_realm_domains_email_rules},
	    {NULL, NULL},
	};
	int rc = unit_run("realm_domains", tests);
	uow_finish(&req);
	return rc;
}
