/*
 * RFC 6570 URI templates. An expression's operator picks the row of the RFC's Appendix A table (first
 * character, separator, named, if-empty string, allowed characters); expansion follows that appendix.
 */
#include "core/uritemplate.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define UT_MAX_VARS 64 /* varspecs in one expression */

struct op {
	char op;
	const char *first, *sep;
	bool named;
	const char *ifemp;
	bool reserved; /* U+R: reserved characters and pct-encoded triplets pass */
};

static const struct op ops[] = {
    {'\0', "", ",", false, "", false}, {'+', "", ",", false, "", true},  {'.', ".", ".", false, "", false},
    {'/', "/", "/", false, "", false}, {';', ";", ";", true, "", false}, {'?', "?", "&", true, "=", false},
    {'&', "&", "&", true, "=", false}, {'#', "#", ",", false, "", true},
};

struct varspec {
	const char *name;
	size_t len;
	int prefix; /* 0: none */
	bool explode;
};

struct expr {
	const struct op *op;
	struct varspec vars[UT_MAX_VARS];
	int n;
};

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_pct(const char *s)
{
	return s[0] == '%' && is_hex((unsigned char)s[1]) && is_hex((unsigned char)s[2]);
}

static bool is_unreserved(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

static bool is_reserved(unsigned char c)
{
	return c != '\0' && strchr(":/?#[]@!$&'()*+,;=", c) != NULL;
}

/* A literal character (RFC 6570 section 2.1), pct-encoded triplets apart. */
static bool is_literal(unsigned char c)
{
	if (c >= 0x80)
		return true; /* ucschar / iprivate (UTF-8 bytes) */
	if (c <= 0x20 || c == 0x7f)
		return false;
	return strchr("\"%'<>\\^`{|}", c) == NULL;
}

/* Parses the expression between "{" and "}" (s, len bytes). */
static bool parse_expr(const char *s, size_t len, struct expr *e)
{
	size_t i = 0;
	e->op = &ops[0];
	e->n = 0;
	if (len > 0 && strchr("=,!@|", s[0]) != NULL)
		return false; /* reserved for future extensions */
	for (size_t k = 1; len > 0 && k < sizeof(ops) / sizeof(ops[0]); k++)
		if (s[0] == ops[k].op) {
			e->op = &ops[k];
			i = 1;
		}
	for (;;) {
		if (e->n == UT_MAX_VARS)
			return false;
		struct varspec *v = &e->vars[e->n++];
		memset(v, 0, sizeof(*v));
		v->name = s + i;
		bool need_char = true;
		while (i < len) {
			unsigned char c = (unsigned char)s[i];
			if (is_alpha(c) || is_digit(c) || c == '_')
				i++;
			else if (c == '%' && i + 2 < len && is_pct(s + i))
				i += 3;
			else if (c == '.' && !need_char)
				need_char = true, i++;
			else
				break;
			if (c != '.')
				need_char = false;
		}
		v->len = (size_t)(s + i - v->name);
		if (v->len == 0 || need_char)
			return false;
		if (i < len && s[i] == '*') {
			v->explode = true;
			i++;
		} else if (i < len && s[i] == ':') {
			i++;
			if (i >= len || s[i] < '1' || s[i] > '9')
				return false;
			int digits = 0;
			while (i < len && is_digit((unsigned char)s[i]) && digits < 4)
				v->prefix = v->prefix * 10 + (s[i++] - '0'), digits++;
		}
		if (i == len)
			return true;
		if (s[i] != ',')
			return false;
		i++;
	}
}

/* Finds the next expression at or after *pos; returns its bounds, or false at the end or on a bad literal. */
typedef bool (*expr_fn)(void *ctx, const struct expr *e);
typedef bool (*literal_fn)(void *ctx, const char *s, size_t len);

/* Walks tmpl: literal runs to lit, parsed expressions to ex. Returns false for an invalid template. */
static bool walk(const char *tmpl, literal_fn lit, expr_fn ex, void *ctx)
{
	const char *p = tmpl;
	while (*p) {
		if (*p == '{') {
			const char *end = p + 1;
			while (*end && *end != '}' && *end != '{')
				end++;
			if (*end != '}')
				return false;
			struct expr e;
			if (!parse_expr(p + 1, (size_t)(end - p - 1), &e) || (ex != NULL && !ex(ctx, &e)))
				return false;
			p = end + 1;
			continue;
		}
		size_t n = is_pct(p) ? 3 : 1;
		if (n == 1 && !is_literal((unsigned char)*p))
			return false;
		if (lit != NULL && !lit(ctx, p, n))
			return false;
		p += n;
	}
	return true;
}

bool uritemplate_is_valid(const char *tmpl)
{
	return walk(tmpl, NULL, NULL, NULL);
}

struct names_ctx {
	void (*fn)(void *ctx, const char *name, size_t len);
	void *ctx;
};

static bool names_expr(void *ctx, const struct expr *e)
{
	struct names_ctx *c = ctx;
	for (int i = 0; i < e->n; i++)
		c->fn(c->ctx, e->vars[i].name, e->vars[i].len);
	return true;
}

int uritemplate_variables(const char *tmpl, void (*fn)(void *ctx, const char *name, size_t len), void *ctx)
{
	if (!uritemplate_is_valid(tmpl))
		return -1;
	struct names_ctx c = {fn, ctx};
	walk(tmpl, NULL, names_expr, &c);
	return 0;
}

/* ---- expansion ------------------------------------------------------------------------------------------- */

struct exp_ctx {
	ut_lookup_fn lookup;
	void *ctx;
	struct buf *out;
	bool full;
};

static void put(struct exp_ctx *x, const char *s, size_t n)
{
	if (!x->full && buf_add(x->out, s, n) < 0)
		x->full = true;
}

static void put_str(struct exp_ctx *x, const char *s)
{
	put(x, s, strlen(s));
}

/* Appends s (n bytes) with every byte outside the allowed set pct-encoded. */
static void put_encoded(struct exp_ctx *x, const char *s, size_t n, bool reserved)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_unreserved(c) || (reserved && is_reserved(c))) {
			put(x, s + i, 1);
		} else if (reserved && i + 2 < n && is_pct(s + i)) {
			put(x, s + i, 3);
			i += 2;
		} else {
			char pct[4];
			snprintf(pct, sizeof(pct), "%%%02X", c);
			put(x, pct, 3);
		}
	}
}

/* The bytes of the first max code points of s. */
static size_t prefix_bytes(const char *s, int max)
{
	size_t i = 0;
	for (int cps = 0; s[i] && cps < max; cps++) {
		i++;
		while (((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
	}
	return i;
}

static bool lit_expand(void *ctx, const char *s, size_t n)
{
	struct exp_ctx *x = ctx;
	if (n == 3 || is_unreserved((unsigned char)*s) || is_reserved((unsigned char)*s))
		put(x, s, n);
	else
		put_encoded(x, s, n, false);
	return true;
}

static void put_string_value(struct exp_ctx *x, const struct op *op, const struct varspec *v, const char *s)
{
	if (op->named) {
		put(x, v->name, v->len);
		put_str(x, *s ? "=" : op->ifemp);
	}
	size_t n = v->prefix > 0 ? prefix_bytes(s, v->prefix) : strlen(s);
	put_encoded(x, s, n, op->reserved);
}

static void put_composite(struct exp_ctx *x, const struct op *op, const struct varspec *v, const struct ut_value *val)
{
	bool map = val->type == UT_MAP;
	size_t step = map ? 2 : 1;
	if (!v->explode) {
		if (op->named) {
			put(x, v->name, v->len);
			put_str(x, "=");
		}
		for (size_t i = 0; i < val->n; i++) {
			if (i > 0)
				put_str(x, ",");
			put_encoded(x, val->items[i], strlen(val->items[i]), op->reserved);
		}
		return;
	}
	for (size_t i = 0; i + step <= val->n; i += step) {
		if (i > 0)
			put_str(x, op->sep);
		const char *member = val->items[i + step - 1];
		if (map) {
			put_encoded(x, val->items[i], strlen(val->items[i]), op->reserved);
			put_str(x, *member == '\0' && op->named ? op->ifemp : "=");
		} else if (op->named) {
			put(x, v->name, v->len);
			put_str(x, *member == '\0' ? op->ifemp : "=");
		}
		put_encoded(x, member, strlen(member), op->reserved);
	}
}

static bool expr_expand(void *ctx, const struct expr *e)
{
	struct exp_ctx *x = ctx;
	bool first = true;
	for (int i = 0; i < e->n; i++) {
		const struct varspec *v = &e->vars[i];
		struct ut_value val = {UT_UNDEF, NULL, NULL, 0};
		x->lookup(x->ctx, v->name, v->len, &val);
		if (val.type == UT_UNDEF || (val.type == UT_STRING && val.str == NULL) ||
		    (val.type != UT_STRING && val.n < (val.type == UT_MAP ? 2u : 1u)))
			continue;
		put_str(x, first ? e->op->first : e->op->sep);
		first = false;
		if (val.type == UT_STRING)
			put_string_value(x, e->op, v, val.str);
		else
			put_composite(x, e->op, v, &val);
	}
	return true;
}

int uritemplate_expand(const char *tmpl, ut_lookup_fn lookup, void *ctx, struct buf *out)
{
	if (!uritemplate_is_valid(tmpl))
		return -1;
	struct exp_ctx x = {lookup, ctx, out, false};
	walk(tmpl, lit_expand, expr_expand, &x);
	return x.full ? -1 : 0;
}
