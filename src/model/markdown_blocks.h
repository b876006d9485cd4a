/*
 * The block rules of the reference's Markdown dialect (Python-Markdown with Zulip's preprocessors) that cmark does
 * not share, applied to the source text before cmark parses it. Used only by markdown.c.
 *
 * Fences are found as the reference's fenced-code preprocessor finds them: a line starting with ``` or ~~~
 * (no indentation) and nothing after the language but a header without ` or ~; closed by the same fence alone
 * on a line, or by the end of the text; quote and spoiler fences may hold further fences. The text between
 * fences is rewritten so that cmark reads its blocks as the reference does (md_blocks_rewrite).
 */
#ifndef CONFAB_MARKDOWN_BLOCKS_H
#define CONFAB_MARKDOWN_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

enum md_fence_kind { MD_FENCE_CODE, MD_FENCE_QUOTE, MD_FENCE_SPOILER, MD_FENCE_MATH };

/* A fenced block; the pointers point into the text given to md_fence_find. */
struct md_fence {
	enum md_fence_kind kind;
	size_t start;     /* offset of the opening line */
	size_t end;       /* offset just after the closing line (or the length of the text) */
	const char *lang; /* as written; lang_len 0 when none */
	size_t lang_len;
	const char *header; /* the rest of the opening line (spoiler headers) */
	size_t header_len;
	const char *body; /* the lines between the fences, without the newline before the closing fence */
	size_t body_len;
	bool has_lines; /* false for a fence closed on the next line or at the end of the text: nothing is shown */
};

/* Finds the first fenced block of text[0, len); returns false when there is none. Linear in the text. */
bool md_fence_find(struct arena *arena, const char *text, size_t len, struct md_fence *f);

/*
 * The reference's whitespace normalization: "\r\n" and "\r" become "\n", tabs become spaces to the next multiple
 * of four columns, lines of spaces only become empty; bytes that are not UTF-8 become U+FFFD. Returns an arena
 * string, its length in *len.
 */
char *md_normalize(struct arena *arena, const char *text, size_t *len);

/* An ordered list the rewrite starts with "1." (only those interrupt a paragraph in cmark): its real start. */
struct md_list_start {
	int line; /* of the rewritten text, from 1 (cmark's start line of the list) */
	int start;
};

struct md_rewrite {
	char *text; /* arena string */
	size_t len;
	struct md_list_start *starts; /* by line */
	size_t nstarts;
};

/*
 * Rewrites text[0, len), which holds no fence of the reference's, so that cmark parses it as the reference does:
 * list items nest by two spaces, items marked *, - and + form one list, a list may follow a paragraph line
 * directly, lines following a ">" line in the same paragraph belong to the quote, link reference definitions
 * and whatever cmark would read as a fence are text. Everything in *out lives in the arena.
 */
void md_blocks_rewrite(struct arena *arena, const char *text, size_t len, struct md_rewrite *out);

#endif
