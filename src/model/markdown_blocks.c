/*
 * The reference's block rules that cmark does not share, as rewrites of the source (see markdown_blocks.h). Each
 * rule is a line-by-line rewrite into the CommonMark that cmark parses into the reference's structure: lines
 * moved to the indentation cmark needs, blank lines where the reference's list preprocessor adds them, "> "
 * before the lines a quote takes lazily, backslashes before what must stay text.
 */
#include "model/markdown_blocks.h"

#include <string.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/utf8.h"

/* Fences. */

static bool is_lang_char(char c)
{
	/* The reference's [a-zA-Z0-9_+-./#], where "+-." is a range holding "+,-." */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '+' ||
	       c == ',' || c == '-' || c == '.' || c == '/' || c == '#';
}

/* The fence that opens a line of length n: its run of ` or ~ (3 or more), or 0. */
static size_t fence_run(const char *s, size_t n)
{
	size_t run = 0;
	if (n == 0 || (s[0] != '`' && s[0] != '~'))
		return 0;
	while (run < n && s[run] == s[0])
		run++;
	return run >= 3 ? run : 0;
}

/* The reference's FENCE_RE on one line: fence, spaces, then optionally "{", ".", a language and a header. */
static bool is_fence_line(const char *s, size_t n, struct md_fence *f)
{
	size_t i = fence_run(s, n);
	if (i == 0)
		return false;
	while (i < n && s[i] == ' ')
		i++;
	f->lang = s + i;
	f->lang_len = 0;
	f->header = s + n;
	f->header_len = 0;
	if (i == n)
		return true;
	i += s[i] == '{';
	if (i + 1 < n && s[i] == '.' && is_lang_char(s[i + 1]))
		i++;
	size_t lang = i;
	while (i < n && is_lang_char(s[i]))
		i++;
	if (i == lang)
		return false;
	f->lang = s + lang;
	f->lang_len = i - lang;
	while (i < n && s[i] == ' ')
		i++;
	for (size_t j = i; j < n; j++)
		if (s[j] == '`' || s[j] == '~')
			return false;
	f->header = s + i;
	f->header_len = n - i;
	return true;
}

static bool lang_is(const struct md_fence *f, const char *word)
{
	size_t n = strlen(word);
	if (f->lang_len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((f->lang[i] | 0x20) != word[i])
			return false;
	return true;
}

static enum md_fence_kind fence_kind(const struct md_fence *f)
{
	if (lang_is(f, "quote") || lang_is(f, "quoted"))
		return MD_FENCE_QUOTE;
	if (lang_is(f, "spoiler"))
		return MD_FENCE_SPOILER;
	return lang_is(f, "math") ? MD_FENCE_MATH : MD_FENCE_CODE;
}

/* Is the line (trailing spaces aside) exactly the fence of run characters c? */
static bool closes(const char *s, size_t n, char c, size_t run)
{
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n == run && fence_run(s, n) == run && s[0] == c;
}

struct open_fence {
	char c;
	size_t run;
	bool nests; /* quotes and spoilers: fences inside open blocks of their own */
};

/*
 * Where the block opened at text[f->start] ends: the reference gives each line to the innermost open block,
 * which closes on its own fence; quotes and spoilers open nested blocks on fence lines.
 */
static void find_close(struct arena *arena, const char *text, size_t len, size_t body, struct md_fence *f)
{
	size_t cap = 8, depth = 1;
	struct open_fence *stack = arena_alloc(arena, cap * sizeof(*stack));
	stack[0] = (struct open_fence){text[f->start], fence_run(text + f->start, len - f->start),
	                               f->kind == MD_FENCE_QUOTE || f->kind == MD_FENCE_SPOILER};
	for (size_t p = body; p < len;) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t n = (nl ? (size_t)(nl - text) : len) - p, next = nl ? p + n + 1 : len;
		struct open_fence *top = &stack[depth - 1];
		struct md_fence inner;
		if (closes(text + p, n, top->c, top->run)) {
			if (--depth == 0) {
				f->has_lines = p > body;
				f->body_len = p > body ? p - 1 - body : 0;
				f->end = next;
				return;
			}
		} else if (top->nests && is_fence_line(text + p, n, &inner)) {
			if (depth == cap) {
				struct open_fence *bigger = arena_alloc(arena, 2 * cap * sizeof(*stack));
				memcpy(bigger, stack, cap * sizeof(*stack));
				stack = bigger;
				cap *= 2;
			}
			inner.kind = fence_kind(&inner);
			stack[depth++] =
			    (struct open_fence){text[p], fence_run(text + p, n),
			                        inner.kind == MD_FENCE_QUOTE || inner.kind == MD_FENCE_SPOILER};
		}
		p = next;
	}
	f->has_lines = len > body;
	f->body_len = len - body;
	f->end = len;
}

bool md_fence_find(struct arena *arena, const char *text, size_t len, struct md_fence *f)
{
	for (size_t p = 0; p < len;) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t n = (nl ? (size_t)(nl - text) : len) - p;
		if (is_fence_line(text + p, n, f)) {
			f->kind = fence_kind(f);
			f->start = p;
			f->body = text + (nl ? p + n + 1 : len);
			find_close(arena, text, len, (size_t)(f->body - text), f);
			return true;
		}
		p = nl ? p + n + 1 : len;
	}
	return false;
}

/* Whitespace. */

/* A line of spaces only becomes empty (the line from out[line] to out[o]); returns the new end. */
static size_t end_line(char *out, size_t line, size_t o)
{
	return strspn(out + line, " ") >= o - line ? line : o;
}

char *md_normalize(struct arena *arena, const char *text, size_t *len)
{
	char *out = arena_alloc(arena, 4 * *len + 1); /* a tab is four spaces at most, a bad byte three bytes */
	size_t o = 0, line = 0, col = 0;              /* col counts code points, as Python's expandtabs */
	for (size_t i = 0; i < *len; i++) {
		char c = text[i];
		if (c == '\t') {
			do
				out[o++] = ' ';
			while (++col % 4 != 0);
		} else if (c == '\r' || c == '\n') {
			i += c == '\r' && i + 1 < *len && text[i + 1] == '\n';
			o = end_line(out, line, o);
			out[o++] = '\n';
			line = o;
			col = 0;
		} else if ((unsigned char)c < 0x80) {
			out[o++] = c;
			col++;
		} else {
			uint32_t cp;
			size_t n = utf8_decode((const unsigned char *)text + i, *len - i, &cp);
			memcpy(out + o, n ? text + i : "\xef\xbf\xbd", n ? n : 3);
			o += n ? n : 3;
			i += n ? n - 1 : 0;
			col++;
		}
	}
	out[o] = '\0';
	*len = o;
	return out;
}

/* Lines. */

struct line {
	const char *s;
	size_t n;
	size_t indent; /* leading spaces */
};

/* A list item as the reference's list processors read it: spaces, "*", "-", "+" or "N.", spaces, content. */
struct item {
	bool ordered;
	const char *marker;
	size_t marker_len;
	const char *content;
	size_t content_len;
};

static bool scan_item(const struct line *l, struct item *it)
{
	size_t i = l->indent, m = i;
	if (i < l->n && (l->s[i] == '*' || l->s[i] == '-' || l->s[i] == '+')) {
		i++;
	} else {
		while (i < l->n && l->s[i] >= '0' && l->s[i] <= '9')
			i++;
		if (i == m || i - m > 9 || i >= l->n || l->s[i] != '.')
			return false;
		i++;
	}
	if (i >= l->n || l->s[i] != ' ')
		return false;
	it->ordered = l->s[m] >= '0' && l->s[m] <= '9';
	it->marker = l->s + m;
	it->marker_len = i - m;
	while (i < l->n && l->s[i] == ' ')
		i++;
	it->content = l->s + i;
	it->content_len = l->n - i;
	return true;
}

/* The reference list preprocessor's LI_RE: spaces, "*", "-", "+" or one digit and ".", spaces. */
static bool is_li(const struct line *l, bool *ordered)
{
	struct item it;
	if (!scan_item(l, &it))
		return false;
	*ordered = it.ordered;
	return !it.ordered || it.marker_len == 2;
}

/* A thematic break: up to three spaces, then three or more of one of "*-_" with only spaces between. */
static bool is_hr(const struct line *l)
{
	if (l->indent > 3 || l->indent == l->n)
		return false;
	char c = l->s[l->indent];
	size_t count = 0;
	if (c != '*' && c != '-' && c != '_')
		return false;
	for (size_t i = l->indent; i < l->n; i++) {
		if (l->s[i] == c)
			count++;
		else if (l->s[i] != ' ')
			return false;
	}
	return count >= 3;
}

static bool is_heading(const struct line *l)
{
	size_t i = 0;
	while (i < l->n && i < 7 && l->s[i] == '#')
		i++;
	return i >= 1 && i <= 6 && i < l->n && l->s[i] == ' ';
}

static bool is_quote(const struct line *l)
{
	return l->indent <= 3 && l->indent < l->n && l->s[l->indent] == '>';
}

/* Rewriting. */

struct level {
	bool ordered;
	size_t content_col; /* where cmark must find the item's content */
};

struct rewriter {
	struct arena *arena;
	struct buf out;
	struct level *levels; /* open lists, outermost first */
	size_t nlevels, cap;
	bool prev_blank;     /* the line before was blank (or there was none) */
	bool prev_text;      /* the line before was not blank */
	bool prev_li;        /* ... and was an item (LI_RE) */
	bool prev_ordered;   /* ... of an ordered list */
	bool in_quote;       /* a ">" line came earlier in this paragraph */
	size_t quote_indent; /* ... after these spaces */
	bool overflow;
	int line; /* lines written */
	struct md_list_start *starts;
	size_t nstarts, starts_cap;
};

static void put(struct rewriter *w, const char *s, size_t n)
{
	if (buf_add(&w->out, s, n) < 0)
		w->overflow = true; /* md_blocks_rewrite then returns the text unchanged */
}

static void put_spaces(struct rewriter *w, size_t n)
{
	static const char spaces[] = "                ";
	for (; n > 16; n -= 16)
		put(w, spaces, 16);
	put(w, spaces, n);
}

/* Where a line's content starts for cmark: after up to three spaces, quote markers and list markers. */
static size_t content_start(const char *s, size_t n, bool *indented_code)
{
	size_t i = 0;
	for (;;) {
		size_t sp = strspn(s + i, " ");
		if (sp > n - i)
			sp = n - i;
		*indented_code = sp >= 4;
		i += sp;
		if (*indented_code || i == n)
			return i;
		if (s[i] == '>') {
			i++;
			continue;
		}
		struct line l = {s + i, n - i, 0};
		struct item it;
		if (!scan_item(&l, &it))
			return i;
		i = (size_t)(it.content - s);
	}
}

/* How many characters at s[0, n) cmark reads as syntax the reference does not have there: a fence, the ")" of
 * "1)", the "[" of a link reference definition, the "=" of a setext heading's line. Each gets a backslash. */
static void foreign_syntax(const char *s, size_t n, size_t *at, size_t *count)
{
	size_t run = fence_run(s, n), digits = strspn(s, "0123456789");
	if (digits > n)
		digits = n;
	*at = 0;
	*count = 0;
	if (run > 0 && (s[0] == '~' || memchr(s + run, '`', n - run) == NULL)) {
		*count = run;
	} else if (digits > 0 && digits <= 9 && digits < n && s[digits] == ')' &&
	           (digits + 1 == n || s[digits + 1] == ' ')) {
		*at = digits;
		*count = 1;
	} else if (n > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		*count = close != NULL && close + 1 < s + n && close[1] == ':';
	} else if (n > 0 && s[0] == '=') {
		size_t eq = strspn(s, "=");
		*count = eq >= n || strspn(s + eq, " ") >= n - eq;
	}
}

/* Writes a line with backslashes before what cmark would read as syntax the reference has not there. */
static void put_content(struct rewriter *w, const char *s, size_t n)
{
	bool indented_code;
	size_t i = content_start(s, n, &indented_code), at, count;
	if (indented_code) {
		put(w, s, n);
		return;
	}
	foreign_syntax(s + i, n - i, &at, &count);
	put(w, s, i + at);
	for (size_t k = i + at; k < i + at + count; k++) {
		put(w, "\\", 1);
		put(w, s + k, 1);
	}
	put(w, s + i + at + count, n - i - at - count);
}

static void newline(struct rewriter *w)
{
	put(w, "\n", 1);
	w->line++;
}

static void add_start(struct rewriter *w, const struct item *it)
{
	if (w->nstarts == w->starts_cap) {
		size_t cap = w->starts_cap ? 2 * w->starts_cap : 8;
		struct md_list_start *bigger = arena_alloc(w->arena, cap * sizeof(*bigger));
		if (w->nstarts > 0)
			memcpy(bigger, w->starts, w->nstarts * sizeof(*bigger));
		w->starts = bigger;
		w->starts_cap = cap;
	}
	int start = 0;
	for (size_t i = 0; i + 1 < it->marker_len; i++)
		start = start * 10 + (it->marker[i] - '0');
	w->starts[w->nstarts++] = (struct md_list_start){w->line + 1, start};
}

static struct level *push_level(struct rewriter *w, size_t depth)
{
	if (depth >= w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct level *bigger = arena_alloc(w->arena, cap * sizeof(*bigger));
		if (w->nlevels > 0)
			memcpy(bigger, w->levels, w->nlevels * sizeof(*bigger));
		w->levels = bigger;
		w->cap = cap;
	}
	w->nlevels = depth + 1;
	return &w->levels[depth];
}

/*
 * An item: two spaces of indentation per level (at most one level deeper than the last item), written at the
 * content column of its parent item; every bullet becomes "-", so that *, - and + items form one list.
 */
static bool rewrite_item(struct rewriter *w, const struct line *l)
{
	struct item it;
	if (is_hr(l) || !scan_item(l, &it) || (w->nlevels == 0 && l->indent > 1))
		return false;
	size_t depth = l->indent / 2;
	if (depth > w->nlevels)
		depth = w->nlevels;
	size_t col = depth == 0 ? 0 : w->levels[depth - 1].content_col;
	/* A nested ordered list right under its item's text: cmark lets it interrupt the text only from "1." */
	bool renumber = it.ordered && depth > 0 && !w->prev_blank &&
	                (depth == w->nlevels || !w->levels[depth].ordered) &&
	                (it.marker_len != 2 || it.marker[0] != '1');
	if (renumber)
		add_start(w, &it);
	struct level *lv = push_level(w, depth);
	lv->ordered = it.ordered;
	lv->content_col = col + (renumber ? 2 : it.marker_len) + 1;
	put_spaces(w, col);
	if (renumber)
		put(w, "1.", 2);
	else
		put(w, it.ordered ? it.marker : "-", it.marker_len);
	put(w, " ", 1);
	put_content(w, it.content, it.content_len);
	return true;
}

/*
 * A line after a blank line, in a list: indented by two spaces or more it continues the item of its level
 * (the reference's ListIndentProcessor), with the indentation beyond that level's (four spaces more make code);
 * otherwise the lists end.
 */
static bool rewrite_list_continuation(struct rewriter *w, const struct line *l)
{
	if (w->nlevels == 0 || !w->prev_blank)
		return false;
	if (l->indent < 2) {
		w->nlevels = 0;
		return false;
	}
	size_t level = l->indent / 2 < w->nlevels ? l->indent / 2 : w->nlevels;
	w->nlevels = level;
	put_spaces(w, w->levels[level - 1].content_col);
	put_content(w, l->s + 2 * level, l->n - 2 * level);
	return true;
}

static void rewrite_line(struct rewriter *w, const struct line *l)
{
	bool ordered = false, li = is_li(l, &ordered);
	/* The reference's list preprocessor: a list item right after text (or after an item of the other kind)
	 * starts a new block. So does a rule: the reference has no "---" headings. */
	if (w->prev_text && ((li && (!w->prev_li || w->prev_ordered != ordered)) || is_hr(l))) {
		newline(w);
		w->prev_blank = true;
		w->in_quote = false;
	}
	w->prev_li = li;
	w->prev_ordered = ordered;
	w->prev_text = true;
	if (is_quote(l)) {
		w->in_quote = true;
		w->quote_indent = l->indent;
		if (w->prev_blank && l->indent < 2)
			w->nlevels = 0;
		put_content(w, l->s, l->n);
	} else if (w->in_quote && !is_heading(l) && !is_hr(l)) {
		put_spaces(w, w->quote_indent);
		put(w, "> ", 2); /* the reference's quote takes the rest of the paragraph */
		put_content(w, l->s, l->n);
	} else if (!rewrite_item(w, l) && !rewrite_list_continuation(w, l)) {
		w->in_quote = false;
		put_content(w, l->s, l->n);
	}
	w->prev_blank = false;
}

void md_blocks_rewrite(struct arena *arena, const char *text, size_t len, struct md_rewrite *out)
{
	struct rewriter w = {.arena = arena, .prev_blank = true};
	buf_init(&w.out, 8 * len + 4096);
	for (size_t p = 0; p < len;) {
		const char *nl = memchr(text + p, '\n', len - p);
		struct line l = {text + p, (nl ? (size_t)(nl - text) : len) - p, 0};
		l.indent = strspn(l.s, " ");
		if (l.indent > l.n)
			l.indent = l.n;
		if (l.n == 0) {
			w.prev_blank = true;
			w.prev_text = w.prev_li = w.in_quote = false;
		} else {
			rewrite_line(&w, &l);
		}
		if (nl != NULL)
			newline(&w);
		p = nl ? p + l.n + 1 : len;
	}
	if (w.overflow) { /* no real message gets here: rendered as CommonMark */
		out->text = arena_strndup(arena, text, len);
		out->len = len;
		out->nstarts = 0;
	} else {
		out->text = arena_strndup(arena, buf_str(&w.out), w.out.len);
		out->len = w.out.len;
		out->starts = w.starts;
		out->nstarts = w.nstarts;
	}
	buf_release(&w.out);
}
