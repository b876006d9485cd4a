/*
 * Markdown rendering of message content, channel descriptions and profile fields: CommonMark/GFM through
 * cmark-gfm (raw HTML escaped), plus the chat syntax Zulip clients depend on, rendered with the reference's HTML:
 * user mentions (@**Name**, @**Name|id**, silent @_**Name**), wildcard mentions (@**all**, @**everyone**,
 * @**channel**, @**stream**, @**topic**), user group mentions (@*group*, silent @_*group*), channel and topic
 * links (#**channel**, #**channel>topic**, #**channel>topic@message_id**).
 *
 * The HTML follows the reference's rendered_content: line breaks inside paragraphs become "<br>", code blocks
 * are <div class="codehilite">, links are plain <a href>, "_" makes no emphasis, ```quote and ```spoiler
 * fences, mentions inside quotes are silent, unresolved mentions stay text ("@<strong>Name</strong>"), unsafe
 * links stay as typed, :name: emoji are the reference's emoji spans, linkifier matches become links (through the
 * linkify callback). The blocks are the reference's (Python-Markdown's) rather than CommonMark's: fences as its
 * preprocessor finds them, list items nesting by two spaces, one list for *, - and + items, a quote taking the rest
 * of its paragraph, no link reference definitions; code spans keep their spaces. Not rendered (left as text): TeX,
 * timestamps, inline image previews, Unicode emoji characters (not wrapped in spans).
 * Only this module may use cmark (see markdown.c on its process-wide state); rendering is thread-safe, and
 * renderings run in parallel (markdown_is_lock_free()).
 */
#ifndef CONFAB_MARKDOWN_H
#define CONFAB_MARKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ids.h"

struct budget;
struct markdown_link;
struct uow;

/*
 * What the renderer may look up; every callback may be NULL (then nothing of that kind resolves). They are
 * called before parsing, once per distinct name written in the content (code included, so a few lookups may
 * be for names that end up unused), on the rendering thread. *out_name is copied.
 */
struct markdown_lookup {
	void *ctx;
	/* A user of the realm by full name (case-insensitive) or, when id > 0, by id (then name must also match
	 * unless name is NULL). Returns true and fills *out_id and *out_name (the canonical full name). Return
	 * false for users the author cannot mention (the mention then stays text). */
	bool (*user)(void *ctx, const char *name, int64_t id, int64_t *out_id, const char **out_name);
	/* A named (not deactivated) user group by name; fills *out_id and *out_name. */
	bool (*group)(void *ctx, const char *name, int64_t *out_id, const char **out_name);
	/* A channel by name (case-insensitive) that the author may link to; fills *out_id and *out_name. */
	bool (*channel)(void *ctx, const char *name, int64_t *out_id, const char **out_name);
	/* An active custom emoji of the organization by name (exact): fills *out_url, its image's URL relative to the
	 * organization (/user_avatars/...). The reference looks `:name:` up here before the Unicode names and renders
	 * <img alt=":name:" class="emoji" src="URL" title="name with spaces for '_'">. May be NULL. */
	bool (*custom_emoji)(void *ctx, const char *name, const char **out_url);
	/*
	 * The organization's linkifiers over one run of text outside code and links (model/linkifiers.h), called while
	 * rendering (it must not query the database): before and after are the characters around the run as the
	 * reference's inline processor sees them ('\0' at the start or end of a block). Returns the number of links in
	 * *out, or -1 when budget ran out (it checks budget as it goes). Called with linkify_ctx.
	 */
	int (*linkify)(void *ctx, const char *text, size_t len, char before, char after, struct budget *budget,
	               struct markdown_link **out);
	void *linkify_ctx;
};

/* A link a linkifier made in a run of text: bytes [start, end) of the run, to url (already sanitized). */
struct markdown_link {
	size_t start, end;
	const char *url;
};

struct markdown_result {
	char *html;                  /* arena string */
	struct ids mentioned_users;  /* non-silent user mentions, distinct, ascending (in the arena) */
	struct ids mentioned_groups; /* non-silent group mentions, distinct, ascending */
	bool stream_wildcard;        /* @**all**, @**everyone**, @**channel**, @**stream** (not silent) */
	bool topic_wildcard;         /* @**topic** (not silent) */
	bool has_link;               /* an <a> in the HTML: links, autolinks, channel/topic/message links */
	bool has_image;     /* outside quotes: ![image](url), or a link whose path ends in an image extension */
	bool is_me_message; /* content starts with "/me " */
};

/*
 * Bounds of rendering (docs/LIMITS.md, "Markdown"). A part of a message that cmark parses (the text between
 * fenced blocks, or inside a quote or spoiler) with a line of more than MARKDOWN_MAX_TABLE_PIPES "|" has no tables:
 * cmark-gfm 0.29 spends time quadratic in the cells of a row. Rendering has MARKDOWN_BUDGET_MS of its thread's CPU
 * time, and its HTML at most MARKDOWN_MAX_HTML_CHARS characters (the reference's MAX_MESSAGE_LENGTH * 100).
 */
#define MARKDOWN_MAX_TABLE_PIPES 128
#define MARKDOWN_BUDGET_MS       1000
#define MARKDOWN_MAX_HTML_CHARS  1000000

/*
 * Renders content (NULL is ""); lookup may be NULL. Malformed Markdown is still rendered: out->html is "" only
 * for blank content. Returns 0, or -1 when rendering ran out of its time budget or its HTML is too long (the
 * reference's MarkdownRenderingError: out->html is then "", and the caller answers "Unable to render message").
 * Everything in *out lives in uow's arena.
 */
int markdown_render(struct uow *uow, const char *content, const struct markdown_lookup *lookup,
                    struct markdown_result *out);

/* Whether renderings run in parallel (markdown.c, "Thread safety"); false when every parse takes one lock. */
bool markdown_is_lock_free(void);

#endif
