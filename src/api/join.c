/*
 * The page that accepts an invitation: GET /join/{key}/ shows the organization, the invited address and a form for a
 * name and a password; its POST creates the account (model/invite_accept.h) and ends on a page naming the server URL
 * and the address to log in with from a Zulip client. A reusable link's page asks for an address only: its POST
 * mails that address a one-time link of its own (model/invites.h invite_confirm_address()), which leads to the
 * name and password form, so no one gets an account for an address whose mail they cannot read. No session cookie.
 * The page comes from templates/join.html, compiled into the worker; every value in it is HTML-escaped.
 */
#include <stdbool.h>
#include <string.h>

#include "api/api.h"
#include "core/buf.h"
#include "core/crypto.h"
#include "http/params.h"
#include "http/request.h"
#include "model/invite_accept.h"
#include "model/invites.h"
#include "model/realm.h"
#include "model/realm_domains.h"
#include "model/user.h"

/* templates/join.html, NUL-terminated, in the read-only data of the program (the assembler includes the file). */
extern const char join_template[];
__asm__(".pushsection .rodata\n"
        ".globl join_template\n"
        ".type join_template, @object\n"
        "join_template:\n"
        ".incbin \"" CONFAB_TEMPLATE_DIR "/join.html\"\n"
        ".byte 0\n"
        ".size join_template, . - join_template\n"
        ".popsection\n");

#define HTML_TYPE "text/html; charset=utf-8"
/* The reference's minimum (settings.PASSWORD_MIN_LENGTH); user_password_is_strong() applies it. */
#define PASSWORD_MIN_LENGTH "6"

/* The values of one page: name/value pairs, a NULL value meaning "none" (its sections are left out). */
#define PAGE_MAX_VARS 16
struct page {
	const char *names[PAGE_MAX_VARS];
	const char *values[PAGE_MAX_VARS];
	int n;
};

static void page_set(struct page *p, const char *name, const char *value)
{
	if (p->n < PAGE_MAX_VARS) {
		p->names[p->n] = name;
		p->values[p->n++] = value;
	}
}

static const char *page_get(const struct page *p, const char *name, size_t len)
{
	for (int i = 0; i < p->n; i++)
		if (strlen(p->names[i]) == len && strncmp(p->names[i], name, len) == 0)
			return p->values[i];
	return NULL;
}

static void append_escaped(struct request *req, char **out, size_t *used, size_t *cap, const char *s, size_t n,
                           bool escape)
{
	for (size_t i = 0; i < n; i++) {
		const char *rep = !escape        ? NULL
		                  : s[i] == '&'  ? "&amp;"
		                  : s[i] == '<'  ? "&lt;"
		                  : s[i] == '>'  ? "&gt;"
		                  : s[i] == '"'  ? "&quot;"
		                  : s[i] == '\'' ? "&#39;"
		                                 : NULL;
		size_t add = rep ? strlen(rep) : 1;
		if (*used + add + 1 > *cap) {
			size_t ncap = (*cap + add) * 2;
			char *grown = arena_alloc(&req->arena, ncap);
			memcpy(grown, *out, *used);
			*out = grown;
			*cap = ncap;
		}
		memcpy(*out + *used, rep ? rep : &s[i], add);
		*used += add;
	}
	(*out)[*used] = '\0';
}

/*
 * Renders the template with p's values: {{name}} escaped, {{#name}}...{{/name}} kept only when name has a value
 * (sections of different names nest; skipping jumps to the matching close tag), {{! comment }} left out. One pass
 * over the template.
 */
static const char *page_render(struct request *req, const struct page *p, size_t *len)
{
	size_t cap = 8192, used = 0;
	char *out = arena_alloc(&req->arena, cap);
	out[0] = '\0';
	const char *t = join_template;
	while (*t) {
		const char *open = strstr(t, "{{");
		const char *close = open ? strstr(open, "}}") : NULL;
		if (close == NULL) {
			append_escaped(req, &out, &used, &cap, t, strlen(t), false);
			break;
		}
		append_escaped(req, &out, &used, &cap, t, (size_t)(open - t), false);
		if (open[2] == '!') { /* a comment of the template's own */
			t = close + 2;
			continue;
		}
		const char *name = open + 2 + (open[2] == '#' || open[2] == '/');
		size_t nlen = (size_t)(close - name);
		const char *value = page_get(p, name, nlen);
		t = close + 2;
		if (open[2] == '#' && value == NULL) {
			char *end_tag = arena_printf(&req->arena, "{{/%.*s}}", (int)nlen, name);
			const char *end = strstr(t, end_tag);
			t = end ? end + strlen(end_tag) : t + strlen(t);
		} else if (open[2] != '#' && open[2] != '/' && value != NULL) {
			append_escaped(req, &out, &used, &cap, value, strlen(value), true);
		}
	}
	*len = used;
	return out;
}

/* Answers with the page (no caching, no framing, and the key in the address never sent on as a referrer). */
static int page_send(struct request *req, int status, const struct page *p)
{
	size_t len;
	const char *body = page_render(req, p, &len);
	request_add_header(req, "Cache-Control", "no-store");
	request_add_header(req, "Referrer-Policy", "no-referrer");
	request_add_header(req, "X-Frame-Options", "DENY");
	request_add_header(req, "Content-Security-Policy",
	                   "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
	request_set_raw(req, status, HTML_TYPE, body, len);
	return 0;
}

/* The start of a page of the organization: its title and heading, and the template's section to show. */
static void page_start(struct request *req, struct page *p, const char *heading, const char *section)
{
	page_set(p, "title", heading);
	page_set(p, "heading", heading);
	page_set(p, section, "");
	page_set(p, "realm_name", req->realm->name);
}

/* A page that only says something (a link that cannot be used, a refused form). */
static int notice_page(struct request *req, int status, const char *heading, const char *text)
{
	struct page p = {0};
	page_set(&p, "title", heading);
	page_set(&p, "heading", heading);
	page_set(&p, "notice", text);
	return page_send(req, status, &p);
}

/*
 * The invitation of the path's key, or NULL once the page for a link that cannot be used is sent (404 as the
 * reference's confirmation errors) or an error recorded. A malformed key is refused before any query.
 */
static const struct join_invite *invite_or_page(struct request *req, bool for_update)
{
	const char *key = param_str(req, "key");
	const struct join_invite *inv =
	    join_key_is_wellformed(key) ? join_invite_by_key(&req->uow, key, for_update) : NULL;
	if (req->error)
		return NULL;
	if (inv == NULL)
		notice_page(req, 404, "Invitation link not found",
		            "This invitation link is not valid. Check that you copied the whole link from the "
		            "invitation email, or ask for a new invitation.");
	else if (inv->state == JOIN_EXPIRED)
		notice_page(
		    req, 404, "Invitation link expired",
		    "This invitation link has expired. Ask the person who invited you to send a new invitation.");
	else if (inv->state == JOIN_REVOKED)
		notice_page(req, 404, "Invitation link revoked",
		            "This invitation has been revoked by the organization. Ask an administrator for a new "
		            "invitation.");
	else if (inv->state == JOIN_USED)
		notice_page(req, 404, "Invitation already used",
		            "This invitation has already been used to create an account. Log in with that account in "
		            "a Zulip client.");
	return inv != NULL && inv->state == JOIN_PENDING ? inv : NULL;
}

/* The sign-up form for inv, with error (NULL: none) and the values the visitor sent back: the address alone for a
 * reusable link, else the name and the password. */
static int form_page(struct request *req, const struct join_invite *inv, const char *error)
{
	struct page p = {0};
	page_start(req, &p, arena_printf(&req->arena, "Join %s", req->realm->name), "form");
	page_set(&p, "invited_email", inv->email);
	page_set(&p, "ask_email", inv->email == NULL ? "" : NULL);
	page_set(&p, "ask_account", inv->email != NULL ? "" : NULL);
	page_set(&p, "submit_label", inv->email == NULL ? "Continue" : "Sign up");
	page_set(&p, "email", param_str(req, "email"));
	page_set(&p, "full_name", param_str(req, "full_name"));
	page_set(&p, "error", error);
	page_set(&p, "csrf_token", inv->csrf_token);
	page_set(&p, "password_min_length", PASSWORD_MIN_LENGTH);
	page_set(&p, "password_rules",
	         "Password should be at least " PASSWORD_MIN_LENGTH " characters long. A password that is easy to "
	         "guess is refused: \"The password is too weak.\"");
	return page_send(req, 200, &p);
}

/* GET /join/{key}/ (and /join/{key}) */
int join_get(struct request *req)
{
	const struct join_invite *inv = invite_or_page(req, false);
	if (inv == NULL)
		return req->error ? -1 : 0;
	return form_page(req, inv, NULL);
}

/* The address a reusable link's visitor typed: NULL if acceptable, else the message for the form. */
static const char *email_problem(struct request *req, const char *email)
{
	if (!user_email_is_valid(email))
		return "Enter a valid email address.";
	int verdict = realm_email_check(&req->uow, req->realm, email);
	if (verdict == REALM_EMAIL_DOMAIN_NOT_ALLOWED)
		return arena_printf(&req->arena,
		                    "Your email address, %s, is not in one of the domains that are allowed to register "
		                    "for accounts in this organization.",
		                    email);
	if (verdict == REALM_EMAIL_CONTAINS_PLUS)
		return "Email addresses containing + are not allowed.";
	return NULL;
}

/* An address to join as: NULL if it may have an account here, else the message for the form. */
static const char *address_problem(struct request *req, const char *email)
{
	const char *problem = email_problem(req, email);
	if (problem != NULL || req->error)
		return problem;
	if (user_by_email(&req->uow, req->realm->id, email) != NULL)
		return arena_printf(&req->arena, "Email '%s' already in use", email);
	return NULL;
}

/* The form's checks in the reference's order (address, name, password): NULL, or the message to show. */
static const char *form_problem(struct request *req, const char *email, const char *full_name, const char *password)
{
	const char *problem = address_problem(req, email);
	if (problem != NULL || req->error || (problem = user_full_name_problem(full_name)) != NULL)
		return problem;
	return user_password_is_strong(password) ? NULL : "The password is too weak.";
}

/* After a reusable link's form: where the link to go on with was sent. */
static int sent_page(struct request *req, const char *email)
{
	struct page p = {0};
	page_start(req, &p, "Check your email", "sent");
	page_set(&p, "sent_email", email);
	return page_send(req, 200, &p);
}

/* A reusable link's form: the address is checked, then proved by the mail of its own link before any account. */
static int confirm_address(struct request *req, const struct join_invite *inv)
{
	const char *email = arena_strip(&req->arena, param_str(req, "email"));
	const char *problem = address_problem(req, email);
	if (req->error)
		return -1;
	if (problem != NULL)
		return form_page(req, inv, problem);
	int rc = invite_confirm_address(&req->uow, inv->id, email);
	if (rc < 0)
		return -1;
	if (rc == INVITE_CONFIRM_LIMIT)
		return form_page(req, inv,
		                 "No more confirmation emails can be sent to this address today. Use the link in one "
		                 "you received, or try again tomorrow.");
	if (rc == INVITE_CONFIRM_LINK_LIMIT)
		return form_page(req, inv,
		                 "This invitation link has sent as many confirmation emails as it may today. Try again "
		                 "tomorrow, or ask the organization for another link.");
	return sent_page(req, email);
}

/* The last page: where and as whom to log in. */
static int done_page(struct request *req, const char *email)
{
	struct page p = {0};
	page_start(req, &p, "Your account is ready", "done");
	page_set(&p, "server_url", realm_url(&req->uow, req->realm));
	page_set(&p, "login_email", email);
	return page_send(req, 200, &p);
}

/* POST /join/{key}/ (and /join/{key}) */
int join_post(struct request *req)
{
	const struct join_invite *inv = invite_or_page(req, true);
	if (inv == NULL)
		return req->error ? -1 : 0;
	/* The token binds the form to this link: a page of another site cannot post it. */
	if (!crypto_equal_hex(param_str(req, "csrf_token"), inv->csrf_token))
		return notice_page(req, 403, "Forbidden",
		                   "CSRF verification failed. Request aborted. Open the invitation link again and "
		                   "resubmit the form.");
	if (inv->email == NULL)
		return confirm_address(req, inv);
	struct user_new spec = {
	    .email = inv->email,
	    .full_name = arena_strip(&req->arena, param_str(req, "full_name")),
	    .password = param_str(req, "password"),
	};
	const char *problem = form_problem(req, spec.email, spec.full_name, spec.password);
	if (req->error)
		return -1;
	if (problem != NULL)
		return form_page(req, inv, problem);
	if (join_accept(&req->uow, inv, &spec) == 0)
		return -1;
	return done_page(req, spec.email);
}
