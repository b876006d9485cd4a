/*
 * Markdown rendering with cmark-gfm, emitting the reference server's HTML: cmark parses (GFM tables,
 * strikethrough, autolinks, plus an inline extension for the chat syntax), and our own walk of the tree writes
 * the HTML, because the reference differs from CommonMark's output in many small ways (nl2br, "<br>",
 * code blocks as codehilite divs, raw HTML escaped, no "_" emphasis, mentions silenced inside quotes).
 */
#include "model/markdown.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/arena.h"
#include "core/budget.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/uow.h"
#include "core/url.h"
#include "core/utf8.h"
#include "model/markdown_blocks.h"
#include "model/markdown_md.h"

#define MD_OPTIONS   (CMARK_OPT_SOURCEPOS | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_STRIKETHROUGH_DOUBLE_TILDE)
#define MD_MAX_DEPTH 8 /* nested documents: ```quote inside ```quote, raw HTML blocks re-read as text */

/*
 * Thread safety. cmark-gfm 0.29's parser keeps its state in the parser, with two exceptions:
 * - the registry of extensions (and the node types they add): written only when extensions are registered,
 *   which init() does once, under pthread_once, before any parse; cmark_find_syntax_extension() only reads it,
 *   and is called only there;
 * - the table of "special" inline characters (those at which the inline parser stops to ask the extensions), one
 *   array for the process, to which every cmark_parser_finish() adds the characters of its parser's extensions
 *   before parsing inlines and from which it removes them afterwards, through the exported
 *   cmark_manage_extensions_special_characters(). Two parses at once would race: one removing "~" or "@" while
 *   the other is in the middle of its inlines, which then loses a strikethrough or a mention.
 * Memory comes from the default allocator (calloc/realloc/free, thread-safe), never from cmark's arena allocator,
 * which is one process-wide arena.
 *
 * Every parse here attaches the same extensions, so the table can be filled once: init() fills it through the
 * library's own function (found with dlsym), and the definition below, to which the dynamic linker binds the
 * library's own calls (they go through its PLT, and the executable's definition comes first, as a malloc of an
 * executable replaces libc's), leaves it alone afterwards. Then a parse only reads process-wide state and needs no
 * lock. init() checks that the library really calls this definition; if it does not (a build of cmark-gfm bound
 * to its own symbols), every parse takes parse_lock, as all did before.
 */
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static cmark_syntax_extension *ext_table, *ext_strikethrough, *ext_autolink;
static atomic_bool library_calls_us;
static bool lock_free;

void cmark_manage_extensions_special_characters(cmark_parser *parser, int add)
{
	(void)parser;
	(void)add;
	atomic_store_explicit(&library_calls_us, true, memory_order_relaxed);
}

/* Fills cmark's table of special characters with those of every extension a parse attaches; true when the
 * library's own changes to it then reach the definition above. */
static bool fill_special_characters(void)
{
	void (*manage)(cmark_parser *, int) =
	    (void (*)(cmark_parser *, int))dlsym(RTLD_NEXT, "cmark_manage_extensions_special_characters");
	if (manage == NULL)
		return false;
	cmark_syntax_extension *chat = md_chat_extension_new(NULL);
	cmark_parser *parser = cmark_parser_new(MD_OPTIONS);
	cmark_parser_attach_syntax_extension(parser, chat);
	cmark_parser_attach_syntax_extension(parser, ext_strikethrough);
	cmark_parser_attach_syntax_extension(parser, ext_autolink);
	manage(parser, 1);
	cmark_parser_free(parser);
	cmark_syntax_extension_free(cmark_get_default_mem_allocator(), chat);

	parser = cmark_parser_new(MD_OPTIONS);
	cmark_parser_feed(parser, "~~x~~", 5);
	cmark_node_free(cmark_parser_finish(parser));
	cmark_parser_free(parser);
	return atomic_load(&library_calls_us);
}

static void init(void)
{
	cmark_gfm_core_extensions_ensure_registered();
	ext_table = cmark_find_syntax_extension("table");
	ext_strikethrough = cmark_find_syntax_extension("strikethrough");
	ext_autolink = cmark_find_syntax_extension("autolink");
	lock_free = fill_special_characters();
	if (!lock_free)
		log_msg(LOG_WARNING, "cmark-gfm does not call our cmark_manage_extensions_special_characters: parses "
		                     "take a lock");
}

/* Output. */

void md_put(struct md *md, const char *s, size_t n)
{
	if (!md->overflow && buf_add(&md->html, s, n) < 0)
		md->overflow = true;
}

void md_put_str(struct md *md, const char *s)
{
	md_put(md, s, strlen(s));
}

/* Text escapes & < > (as the reference's serializer does); attributes add ", code blocks add " and '. */
void md_put_escaped(struct md *md, const char *s, size_t n, enum esc mode)
{
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		const char *rep = NULL;
		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = mode != ESC_TEXT ? "&quot;" : NULL; break;
		case '\'': rep = mode == ESC_CODE ? "&#39;" : NULL; break;
		}
		if (rep == NULL)
			continue;
		md_put(md, s + run, i - run);
		md_put_str(md, rep);
		run = i + 1;
	}
	md_put(md, s + run, n - run);
}

void md_put_text(struct md *md, const char *s)
{
	md_put_escaped(md, s, strlen(s), ESC_TEXT);
}

void md_put_int(struct md *md, int64_t v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%lld", (long long)v);
	md_put(md, num, (size_t)n);
}

/*
 * The reference's hash_util_encode: percent-encoding with nothing safe but letters, digits and _~-, with "."
 * encoded too, and then "%" written as ".".
 */
void md_put_hash_encoded(struct md *md, const char *s, size_t n, bool space_to_dash)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (space_to_dash && c == ' ')
			c = '-';
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		    c == '~' || c == '-') {
			md_put(md, (const char *)&c, 1);
		} else {
			char enc[3] = {'.', hex[c >> 4], hex[c & 15]};
			md_put(md, enc, 3);
		}
	}
}

/* Links. */

/* Links the reference would show an inline preview for: the path ends with an image extension. */
static bool is_image_url(const char *url)
{
	static const char *const exts[] = {".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp", NULL};
	const char *start = strstr(url, "//");
	start = start ? strchr(start + 2, '/') : url;
	if (start == NULL)
		return false;
	size_t n = strcspn(start, "?#");
	for (const char *const *e = exts; *e != NULL; e++) {
		size_t el = strlen(*e);
		if (n >= el && strncasecmp(start + n - el, *e, el) == 0)
			return true;
	}
	return false;
}

static bool has_visible_text(cmark_node *n)
{
	for (cmark_node *c = cmark_node_first_child(n); c != NULL; c = cmark_node_next(c)) {
		if (cmark_node_get_type(c) != CMARK_NODE_TEXT)
			return true;
		for (const char *p = cmark_node_get_literal(c); *p; p++)
			if (*p != ' ' && *p != '\t')
				return true;
	}
	return false;
}

/* User data of links not rendered as links: shown as typed, or (autolinks) as their text. */
static char unsafe_link_mark, autolink_text_mark;

/* An autolink (www.x.com, a@b.c, xmpp:a@b.c) rather than [text](url): its only text ends its URL. */
static bool is_autolink(cmark_node *n)
{
	cmark_node *text = cmark_node_first_child(n);
	if (text == NULL || cmark_node_next(text) != NULL || cmark_node_get_type(text) != CMARK_NODE_TEXT)
		return false;
	const char *url = cmark_node_get_url(n), *lit = cmark_node_get_literal(text);
	size_t ul = strlen(url), tl = strlen(lit);
	return tl > 0 && tl <= ul && strcmp(url + ul - tl, lit) == 0;
}

/*
 * [text](url) as <a href="url">text</a>; images are not rendered by the reference, so ![alt](url) is "!"
 * followed by the link. Returns true when the children were rendered too (the link text was empty: the URL is
 * shown instead).
 */
static bool enter_link(struct md *md, cmark_node *n, bool image)
{
	const char *url = url_sanitize(&md->uow->arena, cmark_node_get_url(n));
	if (image)
		md_put_str(md, "!");
	if (url == NULL && !image && is_autolink(n)) {
		cmark_node_set_user_data(n, &autolink_text_mark);
		return false;
	}
	if (url == NULL) {
		cmark_node_set_user_data(n, &unsafe_link_mark);
		md_put_str(md, "[");
		return false;
	}
	md->out->has_link = true;
	if (md->quote_depth == 0 && (image || is_image_url(url)))
		md->out->has_image = true;
	md_put_str(md, "<a href=\"");
	md_put_escaped(md, url, strlen(url), ESC_ATTR);
	const char *title = cmark_node_get_title(n);
	if (title != NULL && *title != '\0') {
		md_put_str(md, "\" title=\"");
		md_put_escaped(md, title, strlen(title), ESC_ATTR);
	}
	md_put_str(md, "\">");
	if (has_visible_text(n))
		return false;
	md_put_text(md, url);
	md_put_str(md, "</a>");
	return true;
}

static void exit_link(struct md *md, cmark_node *n)
{
	if (cmark_node_get_user_data(n) == &autolink_text_mark)
		return;
	if (cmark_node_get_user_data(n) != &unsafe_link_mark) {
		md_put_str(md, "</a>");
		return;
	}
	md_put_str(md, "](");
	md_put_text(md, cmark_node_get_url(n));
	const char *title = cmark_node_get_title(n);
	if (title != NULL && *title != '\0') {
		md_put_str(md, " \"");
		md_put_text(md, title);
		md_put_str(md, "\"");
	}
	md_put_str(md, ")");
}

/* Emphasis: the reference has no "_" emphasis, so _x_ and __x__ stay as typed. */

static bool is_inline_node(cmark_node *n)
{
	return (cmark_node_get_type(n) & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_INLINE;
}

static bool load_lines(struct md *md, cmark_node *block)
{
	if (md->lines_of == block)
		return md->lines_text != NULL;
	md->lines_of = block;
	md->lines_text = cmark_node_get_string_content(block);
	if (md->lines_text == NULL)
		return false;
	int n = 1;
	for (const char *p = md->lines_text; *p; p++)
		n += *p == '\n';
	md->line_start = arena_alloc(&md->uow->arena, ((size_t)n + 1) * sizeof(size_t));
	md->nlines = 0;
	md->line_start[md->nlines++] = 0;
	size_t i = 0;
	for (; md->lines_text[i]; i++)
		if (md->lines_text[i] == '\n')
			md->line_start[md->nlines++] = i + 1;
	md->line_start[md->nlines] = i;
	return true;
}

/*
 * The character of the block's text at a source position of one of its inline nodes, or -1. The offset is
 * not bounded by the line: after a backslash line break cmark goes on counting columns from the line before.
 */
static int char_at(struct md *md, int first_line, int first_col, int line, int col)
{
	int l = line - first_line, off = col - first_col;
	if (l < 0 || l >= md->nlines || off < 0)
		return -1;
	size_t i = md->line_start[l] + (size_t)off;
	return i < md->line_start[md->nlines] ? (unsigned char)md->lines_text[i] : -1;
}

/*
 * cmark does not record which character made an emphasis, but inline nodes carry source positions: the
 * opening and closing delimiters are at the node's start and end. Columns count from the block's text, which
 * cmark keeps, starting at the block's column for a paragraph and at its first inline node's otherwise
 * (headings and table cells start their text after the "#" or "|").
 */
static bool node_origin(struct md *md, cmark_node *n, int *line, int *col)
{
	cmark_node *block = cmark_node_parent(n);
	while (block != NULL && is_inline_node(block))
		block = cmark_node_parent(block);
	if (block == NULL || !load_lines(md, block))
		return false;
	cmark_node *origin = block;
	if (cmark_node_get_type(block) != CMARK_NODE_PARAGRAPH) {
		origin = cmark_node_first_child(block);
		if (origin == NULL || cmark_node_get_start_line(origin) == 0) /* a chat node has no position */
			return false;
	}
	*line = cmark_node_get_start_line(origin);
	*col = cmark_node_get_start_column(origin);
	if (cmark_node_get_type(origin) == CMARK_NODE_CODE) /* its position is after its opening backticks */
		*col -= (int)strspn(md->lines_text, "`");
	return true;
}

static bool is_underscore(struct md *md, cmark_node *n)
{
	int line, col;
	if (!node_origin(md, n, &line, &col))
		return false;
	return char_at(md, line, col, cmark_node_get_start_line(n), cmark_node_get_start_column(n)) == '_' &&
	       char_at(md, line, col, cmark_node_get_end_line(n), cmark_node_get_end_column(n)) == '_';
}

/*
 * Code spans: cmark strips one space from both ends of "` x `"; the reference keeps them. The source shows
 * whether it did: the node spans the text between the backticks, and that text starts and ends with a space (or
 * a line end).
 */
static bool is_padded_code(struct md *md, cmark_node *n, const char *code)
{
	int line, col;
	if (strspn(code, " ") == strlen(code) || !node_origin(md, n, &line, &col))
		return false;
	int sl = cmark_node_get_start_line(n), sc = cmark_node_get_start_column(n);
	int el = cmark_node_get_end_line(n), ec = cmark_node_get_end_column(n);
	int open = char_at(md, line, col, sl, sc), close = char_at(md, line, col, el, ec);
	return char_at(md, line, col, sl, sc - 1) == '`' && char_at(md, line, col, el, ec + 1) == '`' &&
	       (open == ' ' || open == '\n') && (close == ' ' || close == '\n');
}

static void put_code_span(struct md *md, cmark_node *n)
{
	const char *code = cmark_node_get_literal(n);
	bool padded = is_padded_code(md, n, code);
	md_put_str(md, padded ? "<code> " : "<code>");
	md_put_text(md, code);
	md_put_str(md, padded ? " </code>" : "</code>");
}

/* cmark makes ***x*** <em><strong>x</strong></em>; the reference writes <strong><em>x</em></strong>. */
static bool is_strong_em(struct md *md, cmark_node *emph)
{
	cmark_node *strong = cmark_node_first_child(emph);
	return cmark_node_get_type(emph) == CMARK_NODE_EMPH && strong != NULL && cmark_node_next(strong) == NULL &&
	       cmark_node_get_type(strong) == CMARK_NODE_STRONG && !is_underscore(md, emph) &&
	       !is_underscore(md, strong);
}

/* The reference's emphasis never spans lines: "**a\nb**" keeps its stars. */
static bool spans_lines(cmark_node *n)
{
	for (cmark_node *c = cmark_node_first_child(n); c != NULL; c = cmark_node_next(c))
		if (cmark_node_get_type(c) == CMARK_NODE_SOFTBREAK || cmark_node_get_type(c) == CMARK_NODE_LINEBREAK)
			return true;
	return false;
}

static void emphasis(struct md *md, cmark_node *n, bool entering)
{
	bool strong = cmark_node_get_type(n) == CMARK_NODE_STRONG;
	if (strong && is_strong_em(md, cmark_node_parent(n)))
		return;
	if (!strong && is_strong_em(md, n))
		md_put_str(md, spans_lines(cmark_node_first_child(n)) ? "***"
		               : entering                             ? "<strong><em>"
		                                                      : "</em></strong>");
	else if (is_underscore(md, n))
		md_put_str(md, strong ? "__" : "_");
	else if (spans_lines(n))
		md_put_str(md, strong ? "**" : "*");
	else if (strong)
		md_put_str(md, entering ? "<strong>" : "</strong>");
	else
		md_put_str(md, entering ? "<em>" : "</em>");
}

/* Code blocks, quotes and spoilers. */

/* Pygments' names for the languages people use most (the reference shows the highlighter's name). */
static const char *language_name(const char *lang, size_t n)
{
	static const char *const names[][2] = {
	    {"bash", "Bash"},
	    {"c", "C"},
	    {"c#", "C#"},
	    {"c++", "C++"},
	    {"clojure", "Clojure"},
	    {"console", "Bash Session"},
	    {"cpp", "C++"},
	    {"cs", "C#"},
	    {"csharp", "C#"},
	    {"css", "CSS"},
	    {"dart", "Dart"},
	    {"diff", "Diff"},
	    {"docker", "Docker"},
	    {"dockerfile", "Docker"},
	    {"elixir", "Elixir"},
	    {"erlang", "Erlang"},
	    {"go", "Go"},
	    {"golang", "Go"},
	    {"graphql", "GraphQL"},
	    {"haskell", "Haskell"},
	    {"hs", "Haskell"},
	    {"html", "HTML"},
	    {"ini", "INI"},
	    {"java", "Java"},
	    {"javascript", "JavaScript"},
	    {"js", "JavaScript"},
	    {"json", "JSON"},
	    {"jsx", "JSX"},
	    {"kotlin", "Kotlin"},
	    {"latex", "TeX"},
	    {"lua", "Lua"},
	    {"make", "Makefile"},
	    {"makefile", "Makefile"},
	    {"markdown", "Markdown"},
	    {"md", "Markdown"},
	    {"objective-c", "Objective-C"},
	    {"ocaml", "OCaml"},
	    {"perl", "Perl"},
	    {"php", "PHP"},
	    {"pl", "Perl"},
	    {"powershell", "PowerShell"},
	    {"py", "Python"},
	    {"py2", "Python 2.x"},
	    {"py3", "Python"},
	    {"python", "Python"},
	    {"python2", "Python 2.x"},
	    {"python3", "Python"},
	    {"rb", "Ruby"},
	    {"rs", "Rust"},
	    {"ruby", "Ruby"},
	    {"rust", "Rust"},
	    {"scala", "Scala"},
	    {"sh", "Bash"},
	    {"shell", "Bash"},
	    {"sql", "SQL"},
	    {"swift", "Swift"},
	    {"tex", "TeX"},
	    {"text", "Text only"},
	    {"toml", "TOML"},
	    {"ts", "TypeScript"},
	    {"tsx", "TSX"},
	    {"typescript", "TypeScript"},
	    {"xml", "XML"},
	    {"yaml", "YAML"},
	    {"yml", "YAML"},
	    {"zsh", "Bash"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i][0]) == n && strncasecmp(lang, names[i][0], n) == 0)
			return names[i][1];
	return NULL;
}

/* Pygments-like: trailing white space of lines and blank lines around the code dropped, one final newline. */
static void put_code_lines(struct md *md, const char *code, size_t len)
{
	const char *end = code + len;
	while (code < end) { /* leading blank lines */
		const char *nl = memchr(code, '\n', (size_t)(end - code));
		const char *p = code;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (nl == NULL || p != nl)
			break;
		code = nl + 1;
	}
	while (end > code && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
		end--;
	if (code == end)
		md_put_str(md, "\n");
	while (code < end) {
		const char *nl = memchr(code, '\n', (size_t)(end - code));
		const char *line_end = nl ? nl : end;
		const char *t = line_end;
		while (t > code && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
			t--;
		md_put_escaped(md, code, (size_t)(t - code), ESC_CODE);
		md_put_str(md, "\n");
		code = nl ? nl + 1 : end;
	}
}

static void put_code_block(struct md *md, const char *lang, size_t lang_len, const char *code, size_t len)
{
	md_put_str(md, "<div class=\"codehilite\"");
	if (lang_len > 0) {
		const char *name = language_name(lang, lang_len);
		md_put_str(md, " data-code-language=\"");
		if (name != NULL)
			md_put_str(md, name);
		else
			md_put_escaped(md, lang, lang_len, ESC_ATTR);
		md_put_str(md, "\"");
	}
	md_put_str(md, "><pre><span></span><code>");
	put_code_lines(md, code, len);
	md_put_str(md, "</code></pre></div>\n");
}

static void render_document(struct md *md, const char *text, size_t len);

/* A fenced block, as the reference's fenced-code preprocessor renders it; an empty one shows nothing. */
static void render_fence(struct md *md, const struct md_fence *f)
{
	bool nested_ok = md->depth < MD_MAX_DEPTH;
	if (!f->has_lines)
		return;
	if (nested_ok && f->kind == MD_FENCE_QUOTE) {
		md_put_str(md, "<blockquote>\n");
		md->quote_depth++;
		render_document(md, f->body, f->body_len);
		md->quote_depth--;
		md_put_str(md, "</blockquote>\n");
	} else if (nested_ok && f->kind == MD_FENCE_SPOILER) {
		md_put_str(md, "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n");
		render_document(md, f->header, f->header_len);
		md_put_str(md, "</div><div class=\"spoiler-content\" aria-hidden=\"true\">\n");
		render_document(md, f->body, f->body_len);
		md_put_str(md, "</div></div>\n");
	} else if (f->kind == MD_FENCE_MATH) {
		put_code_block(md, NULL, 0, f->body, f->body_len); /* no TeX renderer: shown as code */
	} else {                                                   /* the reference lowercases the language */
		char *lang = arena_strndup(&md->uow->arena, f->lang, f->lang_len);
		for (char *p = lang; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		put_code_block(md, lang, f->lang_len, f->body, f->body_len);
	}
}

/*
 * Raw HTML is never passed through: the reference reads it as text (with Markdown inside). cmark has already
 * made it an HTML block, so its text is parsed again with a backslash before each "<" that starts a line,
 * which keeps any line from starting a new HTML block.
 */
static void render_html_block(struct md *md, const char *html)
{
	if (md->depth >= MD_MAX_DEPTH) {
		size_t n = strlen(html);
		while (n > 0 && html[n - 1] == '\n')
			n--;
		md_put_str(md, "<p>");
		for (const char *p = html, *end = html + n; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			md_put_escaped(md, p, (size_t)((nl ? nl : end) - p), ESC_TEXT);
			if (nl != NULL)
				md_put_str(md, "<br>\n");
			p = nl ? nl + 1 : end;
		}
		md_put_str(md, "</p>\n");
		return;
	}
	struct buf text;
	buf_init(&text, 0);
	for (const char *p = html; *p;) {
		size_t indent = strspn(p, " \t");
		buf_add(&text, p, indent);
		bool code = memchr(p, '\t', indent) != NULL || indent >= 4; /* an indented code line */
		p += indent;
		if (*p == '<' && !code)
			buf_adds(&text, "\\");
		size_t line = strcspn(p, "\n");
		buf_add(&text, p, line + (p[line] == '\n'));
		p += line + (p[line] == '\n');
	}
	char *copy = arena_strndup(&md->uow->arena, buf_str(&text), text.len);
	buf_release(&text);
	render_document(md, copy, strlen(copy));
}

/* Blocks. */

static bool is_tight_paragraph(cmark_node *n)
{
	cmark_node *item = cmark_node_parent(n);
	cmark_node *list = item ? cmark_node_parent(item) : NULL;
	return cmark_node_get_type(n) == CMARK_NODE_PARAGRAPH && list != NULL &&
	       cmark_node_get_type(list) == CMARK_NODE_LIST && cmark_node_get_list_tight(list);
}

/* The start of an ordered list; the rewrite may have numbered it from 1 for cmark. */
static int list_start(struct md *md, cmark_node *n)
{
	int line = cmark_node_get_start_line(n);
	size_t lo = 0, hi = md->rewrite != NULL ? md->rewrite->nstarts : 0; /* sorted by line */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (md->rewrite->starts[mid].line == line)
			return md->rewrite->starts[mid].start;
		if (md->rewrite->starts[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return cmark_node_get_list_start(n);
}

static void render_list(struct md *md, cmark_node *n, bool entering)
{
	bool ordered = cmark_node_get_list_type(n) == CMARK_ORDERED_LIST;
	if (!entering) {
		md_put_str(md, ordered ? "</ol>\n" : "</ul>\n");
	} else if (!ordered) {
		md_put_str(md, "<ul>\n");
	} else if (list_start(md, n) != 1) {
		md_put_str(md, "<ol start=\"");
		md_put_int(md, list_start(md, n));
		md_put_str(md, "\">\n");
	} else {
		md_put_str(md, "<ol>\n");
	}
}

static void render_item(struct md *md, cmark_node *n, bool entering)
{
	if (!entering) {
		md_put_str(md, "</li>\n");
		return;
	}
	cmark_node *first = cmark_node_first_child(n);
	md_put_str(md, first != NULL && !is_tight_paragraph(first) ? "<li>\n" : "<li>");
}

/* Tables (GFM), as the reference's table extension writes them. */
static void render_table_part(struct md *md, cmark_node *n, const char *type, bool entering)
{
	if (strcmp(type, "table") == 0) {
		if (entering) {
			md->aligns = cmark_gfm_extensions_get_table_alignments(n);
			md->ncols = cmark_gfm_extensions_get_table_columns(n);
			md_put_str(md, "<table>\n");
			return;
		}
		cmark_node *last = cmark_node_last_child(n);
		if (last != NULL && !cmark_gfm_extensions_get_table_row_is_header(last))
			md_put_str(md, "</tbody>\n");
		md_put_str(md, "</table>\n");
	} else if (strcmp(type, "table_cell") != 0) { /* a row: "table_header" or "table_row" */
		bool header = cmark_gfm_extensions_get_table_row_is_header(n);
		cmark_node *prev = cmark_node_previous(n);
		md->cell = 0;
		if (entering && header)
			md_put_str(md, "<thead>\n<tr>\n");
		else if (entering)
			md_put_str(md, prev == NULL || cmark_gfm_extensions_get_table_row_is_header(prev)
			                   ? "<tbody>\n<tr>\n"
			                   : "<tr>\n");
		else
			md_put_str(md, header ? "</tr>\n</thead>\n" : "</tr>\n");
	} else {
		bool header = cmark_gfm_extensions_get_table_row_is_header(cmark_node_parent(n));
		if (!entering) {
			md_put_str(md, header ? "</th>\n" : "</td>\n");
			md->cell++;
			return;
		}
		md_put_str(md, header ? "<th" : "<td");
		uint8_t align = md->aligns != NULL && md->cell < md->ncols ? md->aligns[md->cell] : 0;
		if (align == 'l' || align == 'c' || align == 'r') {
			md_put_str(md, " style=\"text-align: ");
			md_put_str(md, align == 'l' ? "left" : align == 'c' ? "center" : "right");
			md_put_str(md, ";\"");
		}
		md_put_str(md, ">");
	}
}

static void render_extension_node(struct md *md, cmark_node *n, bool entering)
{
	const char *type = cmark_node_get_type_string(n);
	if (strcmp(type, "strikethrough") == 0)
		md_put_str(md, entering ? "<del>" : "</del>");
	else if (strncmp(type, "table", 5) == 0)
		render_table_part(md, n, type, entering);
}

/* Linkifiers. */

static bool is_break(cmark_node *n)
{
	return n != NULL &&
	       (cmark_node_get_type(n) == CMARK_NODE_SOFTBREAK || cmark_node_get_type(n) == CMARK_NODE_LINEBREAK);
}

/* The character the reference's inline processor sees beside a run of text: '\0' at its block's edge, "\n" at a
 * line break, a placeholder or delimiter ("\x03") beside any other inline (code, links, mentions, emphasis). */
static char run_context(cmark_node *sibling, cmark_node *parent)
{
	if (sibling == NULL)
		return is_inline_node(parent) ? '\x03' : '\0';
	return is_break(sibling) ? '\n' : '\x03';
}

static bool in_link(cmark_node *n)
{
	for (; n != NULL; n = cmark_node_parent(n))
		if (cmark_node_get_type(n) == CMARK_NODE_LINK || cmark_node_get_type(n) == CMARK_NODE_IMAGE)
			return true;
	return false;
}

/* A text node: with the linkifiers, the run of adjacent text nodes it starts (the later ones write nothing). */
static void render_text(struct md *md, cmark_node *n)
{
	if (md->lookup->linkify == NULL || in_link(n) || md->budget.exceeded) {
		md_put_text(md, cmark_node_get_literal(n));
		return;
	}
	if (cmark_node_previous(n) != NULL && cmark_node_get_type(cmark_node_previous(n)) == CMARK_NODE_TEXT)
		return;
	struct buf run;
	buf_init(&run, 0);
	cmark_node *last = n;
	for (cmark_node *t = n; t != NULL && cmark_node_get_type(t) == CMARK_NODE_TEXT; t = cmark_node_next(t)) {
		buf_adds(&run, cmark_node_get_literal(t));
		last = t;
	}
	struct markdown_link *links;
	const char *text = buf_str(&run);
	int nlinks = md->lookup->linkify(md->lookup->linkify_ctx, text, run.len,
	                                 run_context(cmark_node_previous(n), cmark_node_parent(n)),
	                                 run_context(cmark_node_next(last), cmark_node_parent(n)), &md->budget, &links);
	if (nlinks < 0) { /* out of time: nothing more is written */
		buf_release(&run);
		return;
	}
	size_t at = 0;
	for (int i = 0; i < nlinks; i++) {
		md_put_escaped(md, text + at, links[i].start - at, ESC_TEXT);
		md_put_str(md, "<a href=\"");
		md_put_escaped(md, links[i].url, strlen(links[i].url), ESC_ATTR);
		md_put_str(md, "\">");
		md_put_escaped(md, text + links[i].start, links[i].end - links[i].start, ESC_TEXT);
		md_put_str(md, "</a>");
		at = links[i].end;
		md->out->has_link = true;
	}
	md_put_escaped(md, text + at, run.len - at, ESC_TEXT);
	buf_release(&run);
}

/*
 * One event of the walk. Blocks end with a newline (the reference's layout: "<p>a</p>\n<ul>\n<li>b</li>\n...");
 * paragraphs of tight lists have no tags. Returns true when the node's children must be skipped (the node was
 * written completely).
 */
static bool render_node(struct md *md, cmark_node *n, bool entering)
{
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_DOCUMENT: break;
	case CMARK_NODE_BLOCK_QUOTE:
		if (entering && cmark_node_first_child(n) == NULL) {
			md_put_str(md, "<p>&gt;</p>\n"); /* the reference keeps a lone ">" as text */
			return true;
		}
		md->quote_depth += entering ? 1 : -1;
		md_put_str(md, entering ? "<blockquote>\n" : "</blockquote>\n");
		break;
	case CMARK_NODE_LIST: render_list(md, n, entering); break;
	case CMARK_NODE_ITEM: render_item(md, n, entering); break;
	case CMARK_NODE_CODE_BLOCK: /* indented code: the reference's fences never reach cmark */
		put_code_block(md, NULL, 0, cmark_node_get_literal(n), strlen(cmark_node_get_literal(n)));
		break;
	case CMARK_NODE_HTML_BLOCK: render_html_block(md, cmark_node_get_literal(n)); break;
	case CMARK_NODE_PARAGRAPH:
		if (!is_tight_paragraph(n))
			md_put_str(md, entering ? "<p>" : "</p>\n");
		break;
	case CMARK_NODE_HEADING: {
		char tag[8];
		snprintf(tag, sizeof(tag), entering ? "<h%d>" : "</h%d>", cmark_node_get_heading_level(n));
		md_put_str(md, tag);
		if (!entering)
			md_put_str(md, "\n");
		break;
	}
	case CMARK_NODE_THEMATIC_BREAK: md_put_str(md, "<hr>\n"); break;
	case CMARK_NODE_TEXT: render_text(md, n); break;
	case CMARK_NODE_HTML_INLINE:
		if (cmark_node_get_user_data(n) != NULL)
			md_render_chat(md, cmark_node_get_user_data(n));
		else
			md_put_text(md, cmark_node_get_literal(n)); /* raw HTML is shown, never passed through */
		break;
	case CMARK_NODE_SOFTBREAK:
	case CMARK_NODE_LINEBREAK: md_put_str(md, "<br>\n"); break;
	case CMARK_NODE_CODE: put_code_span(md, n); break;
	case CMARK_NODE_EMPH:
	case CMARK_NODE_STRONG: emphasis(md, n, entering); break;
	case CMARK_NODE_LINK:
	case CMARK_NODE_IMAGE:
		if (entering)
			return enter_link(md, n, cmark_node_get_type(n) == CMARK_NODE_IMAGE);
		exit_link(md, n);
		break;
	default: render_extension_node(md, n, entering); break;
	}
	return false;
}

/* Whether a line of text has more than MARKDOWN_MAX_TABLE_PIPES "|": cmark's table extension would spend time
 * quadratic in them (it appends each cell of a row to a linked list by walking the list). */
static bool has_wide_line(const char *text, size_t len)
{
	int pipes = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			pipes = 0;
		else if (text[i] == '|' && ++pipes > MARKDOWN_MAX_TABLE_PIPES)
			return true;
	}
	return false;
}

static cmark_node *parse(struct md *md, const char *text, size_t len)
{
	bool tables = !has_wide_line(text, len);
	if (!lock_free)
		pthread_mutex_lock(&parse_lock);
	cmark_parser *parser = cmark_parser_new(MD_OPTIONS);
	cmark_parser_attach_syntax_extension(parser, md->chat_ext);
	if (tables)
		cmark_parser_attach_syntax_extension(parser, ext_table);
	cmark_parser_attach_syntax_extension(parser, ext_strikethrough);
	cmark_parser_attach_syntax_extension(parser, ext_autolink);
	cmark_parser_feed(parser, text, len);
	cmark_node *doc = cmark_parser_finish(parser);
	cmark_parser_free(parser);
	md->subject = NULL;
	md->emoji_miss_subject = NULL;
	if (!lock_free)
		pthread_mutex_unlock(&parse_lock);
	return doc;
}

/* Parses and writes a part of a document between fenced blocks, its blocks rewritten for cmark. */
static void render_blocks(struct md *md, const char *text, size_t len)
{
	if (strspn(text, "\n") >= len || budget_check(&md->budget))
		return;
	struct md_rewrite rw, *outer = md->rewrite;
	md_blocks_rewrite(&md->uow->arena, text, len, &rw);
	md->rewrite = &rw;
	cmark_node *doc = parse(md, rw.text, rw.len);
	cmark_iter *iter = cmark_iter_new(doc);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE && !budget_tick(&md->budget)) {
		cmark_node *n = cmark_iter_get_node(iter);
		if (render_node(md, n, ev == CMARK_EVENT_ENTER))
			cmark_iter_reset(iter, n, CMARK_EVENT_EXIT);
	}
	cmark_iter_free(iter);
	cmark_node_free(doc);
	md->lines_of = NULL; /* its nodes are gone; their addresses may be reused */
	md->rewrite = outer;
}

/*
 * Writes one document: the message, or the text of a quote, spoiler or raw HTML block inside it. Fenced blocks
 * are found first, as the reference's preprocessor does, and the text between them is parsed by cmark.
 */
static void render_document(struct md *md, const char *text, size_t len)
{
	md->depth++;
	while (len > 0 && !md->budget.exceeded) {
		struct md_fence f;
		bool found = md_fence_find(&md->uow->arena, text, len, &f);
		render_blocks(md, text, found ? f.start : len);
		if (!found)
			break;
		render_fence(md, &f);
		text += f.end;
		len -= f.end;
	}
	md->depth--;
}

/* The HTML without its final newlines, or NULL when the reference would refuse it: rendering took too long, or
 * its HTML has more than MARKDOWN_MAX_HTML_CHARS characters (md.html holds at most 4 bytes for each). */
static char *finished_html(struct md *md)
{
	size_t n = md->html.len;
	while (n > 0 && md->html.data[n - 1] == '\n')
		n--;
	if (md->overflow || budget_check(&md->budget))
		return NULL;
	char *html = arena_strndup(&md->uow->arena, buf_str(&md->html), n);
	return utf8_length(html) <= MARKDOWN_MAX_HTML_CHARS ? html : NULL;
}

bool markdown_is_lock_free(void)
{
	pthread_once(&init_once, init);
	return lock_free;
}

int markdown_render(struct uow *uow, const char *content, const struct markdown_lookup *lookup,
                    struct markdown_result *out)
{
	static const struct markdown_lookup no_lookup;
	pthread_once(&init_once, init);
	memset(out, 0, sizeof(*out));
	if (content == NULL)
		content = "";
	struct md md = {.uow = uow, .lookup = lookup != NULL ? lookup : &no_lookup, .out = out};
	budget_start(&md.budget, MARKDOWN_BUDGET_MS);
	size_t len = strlen(content);
	const char *text = md_normalize(&uow->arena, content, &len);
	buf_init(&md.html, 4 * (size_t)MARKDOWN_MAX_HTML_CHARS);
	md_chat_prefetch(&md, content);
	md.chat_ext = md_chat_extension_new(&md);
	render_document(&md, text, len);
	/* Repeats are dropped once, at the end: a message may mention hundreds of users. */
	ids_sort_unique(&out->mentioned_users);
	ids_sort_unique(&out->mentioned_groups);
	cmark_syntax_extension_free(cmark_get_default_mem_allocator(), md.chat_ext);
	char *html = finished_html(&md);
	buf_release(&md.html);
	out->is_me_message = strncmp(content, "/me ", 4) == 0;
	if (html == NULL) {
		memset(out, 0, sizeof(*out));
		out->html = arena_strdup(&uow->arena, "");
		return -1;
	}
	out->html = html;
	return 0;
}
