/*
 * The chat syntax of message Markdown (see markdown.h): user, group and wildcard mentions, channel, topic and
 * message links, :emoji: names. Its names are looked up before parsing (md_chat_prefetch), recognized by an inline
 * extension of cmark's parser (md_chat_extension_new) and written as the reference's HTML (md_render_chat).
 */
#include <cmark-gfm-extension_api.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/hash.h"
#include "core/uow.h"
#include "model/emoji.h"
#include "model/markdown_md.h"

#define MD_MAX_NAME      1024 /* longest text between @** and ** we look at (names: 100 characters at most) */
#define MD_MAX_EMOJI     100  /* longest emoji name we look up */
#define EMPTY_TOPIC_NAME "general chat"

/* @**name**, @_**name**, @*group*, @_*group*, #**channel...** as written. */
struct chat_syntax {
	char sigil;
	bool silent;
	bool group;
	const char *name;
	size_t name_len;
	size_t len; /* bytes from the sigil to the end of the closing stars */
};

enum cand_kind { CAND_USER, CAND_GROUP, CAND_CHANNEL, CAND_EMOJI };

/* A name looked up before parsing (the reference prefetches its mention data the same way). */
struct cand {
	struct cand *next;
	enum cand_kind kind;
	const char *key;
	size_t key_len;
	bool found;
	int64_t id;
	const char *name;
};

/* Chat syntax: recognizing it. */

/* Python's str.isspace(), which is what \s means in the reference's patterns. */
static bool is_unicode_space(uint32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
	       (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
	       cp == 0x3000;
}

/* The code point ending just before s[pos] (pos > 0), or 0 for malformed UTF-8. */
static uint32_t prev_code_point(const char *s, size_t pos)
{
	size_t start = pos - 1;
	while (start > 0 && pos - start < 4 && ((unsigned char)s[start] & 0xc0) == 0x80)
		start--;
	const unsigned char *p = (const unsigned char *)s + start;
	size_t n = pos - start;
	if (n == 1)
		return p[0] < 0x80 ? p[0] : 0;
	if (n == 2 && (p[0] & 0xe0) == 0xc0)
		return ((uint32_t)(p[0] & 0x1f) << 6) | (p[1] & 0x3f);
	if (n == 3 && (p[0] & 0xf0) == 0xe0)
		return ((uint32_t)(p[0] & 0x0f) << 12) | ((uint32_t)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
	if (n == 4 && (p[0] & 0xf8) == 0xf0)
		return ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3f) << 12) |
		       ((uint32_t)(p[2] & 0x3f) << 6) | (p[3] & 0x3f);
	return 0;
}

/* Mentions and channel links start a text or follow white space or one of '"({[/< (the reference's rule). */
static bool chat_boundary(const char *s, size_t pos)
{
	if (pos == 0)
		return true;
	unsigned char c = (unsigned char)s[pos - 1];
	if (c < 0x80)
		return is_unicode_space(c) || (c != '\0' && strchr("'\"({[/<", c) != NULL);
	return is_unicode_space(prev_code_point(s, pos));
}

/* Recognizes the syntax at s (s[0] is '@' or '#'); names never hold '*' or a line break. */
static bool chat_scan(const char *s, struct chat_syntax *syn)
{
	const char *p = s + 1;
	syn->sigil = s[0];
	syn->silent = false;
	syn->group = false;
	if (s[0] == '@' && *p == '_') {
		syn->silent = true;
		p++;
	}
	if (p[0] == '*' && p[1] == '*') {
		p += 2;
	} else if (s[0] == '@' && p[0] == '*') {
		syn->group = true;
		p++;
	} else {
		return false;
	}
	const char *name = p;
	while (*p != '\0' && *p != '*' && *p != '\n' && *p != '\r' && p - name < MD_MAX_NAME)
		p++;
	if (p == name || *p != '*' || (!syn->group && p[1] != '*'))
		return false;
	syn->name = name;
	syn->name_len = (size_t)(p - name);
	syn->len = (size_t)(p - s) + (syn->group ? 1 : 2);
	return true;
}

static bool name_is(const struct chat_syntax *syn, const char *word)
{
	return syn->name_len == strlen(word) && memcmp(syn->name, word, syn->name_len) == 0;
}

static bool is_stream_wildcard(const struct chat_syntax *syn)
{
	return name_is(syn, "all") || name_is(syn, "everyone") || name_is(syn, "stream") || name_is(syn, "channel");
}

/* Chat syntax: the names, looked up once each before parsing. */

static unsigned hash_key(enum cand_kind kind, const char *s, size_t n)
{
	return hash_fnv1a32(HASH_FNV32_INIT ^ (uint32_t)kind, s, n) % MD_BUCKETS;
}

static struct cand *cand_find(struct md *md, enum cand_kind kind, const char *s, size_t n)
{
	for (struct cand *c = md->buckets[hash_key(kind, s, n)]; c != NULL; c = c->next)
		if (c->kind == kind && c->key_len == n && memcmp(c->key, s, n) == 0)
			return c;
	return NULL;
}

/* "Name|123" or "|123": splits at the last '|' when only digits follow; returns the id or 0. */
static int64_t id_syntax(const char *s, size_t n, size_t *name_len)
{
	const char *bar = NULL;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '|')
			bar = s + i;
	if (bar == NULL || bar + 1 == s + n)
		return 0;
	int64_t id = 0;
	for (const char *p = bar + 1; p < s + n; p++) {
		if (*p < '0' || *p > '9' || id > (INT64_MAX - 9) / 10)
			return -1; /* not the syntax, or an id no user can have */
		id = id * 10 + (*p - '0');
	}
	*name_len = (size_t)(bar - s);
	return id;
}

static void cand_resolve(struct md *md, struct cand *c)
{
	const struct markdown_lookup *l = md->lookup;
	char *key = arena_strndup(&md->uow->arena, c->key, c->key_len);
	const char *name = NULL;
	if (c->kind == CAND_USER && l->user != NULL) {
		size_t name_len = 0;
		int64_t id = id_syntax(key, c->key_len, &name_len);
		if (id > 0)
			c->found = l->user(l->ctx, name_len ? arena_strndup(&md->uow->arena, key, name_len) : NULL, id,
			                   &c->id, &name);
		else if (id == 0)
			c->found = l->user(l->ctx, key, 0, &c->id, &name);
	} else if (c->kind == CAND_GROUP && l->group != NULL) {
		c->found = l->group(l->ctx, key, &c->id, &name);
	} else if (c->kind == CAND_CHANNEL && l->channel != NULL) {
		c->found = l->channel(l->ctx, key, &c->id, &name);
	} else if (c->kind == CAND_EMOJI && l->custom_emoji != NULL) {
		c->found = l->custom_emoji(l->ctx, key, &name); /* name: the image's URL */
	}
	if (c->found)
		c->name = arena_strdup(&md->uow->arena, name != NULL ? name : key);
}

static void cand_add(struct md *md, enum cand_kind kind, const char *s, size_t n)
{
	if (n == 0 || cand_find(md, kind, s, n) != NULL)
		return;
	struct cand *c = arena_alloc(&md->uow->arena, sizeof(*c));
	c->kind = kind;
	c->key = s;
	c->key_len = n;
	unsigned h = hash_key(kind, s, n);
	c->next = md->buckets[h];
	md->buckets[h] = c;
	cand_resolve(md, c);
}

/*
 * Finds every name the content could mention or link (code included: it is cheaper to look up a few names
 * too many than to parse twice) and looks each up once. Matches are not skipped, so that this finds a
 * superset of what the parser can meet; a scan ends at the first "*", so scans do not overlap (linear).
 */
static bool is_emoji_name_char(char c);

/* Every ":name:" of the content that could be a custom emoji; a scan ends at the next ':', so it is linear. */
static void prefetch_emoji(struct md *md, const char *content)
{
	if (md->lookup->custom_emoji == NULL)
		return;
	for (const char *p = strchr(content, ':'); p != NULL; p = strchr(p, ':')) {
		size_t n = 0;
		while (n <= MD_MAX_EMOJI && is_emoji_name_char(p[1 + n]))
			n++;
		if (n > 0 && p[1 + n] == ':')
			cand_add(md, CAND_EMOJI, p + 1, n);
		p += 1 + n;
	}
}

void md_chat_prefetch(struct md *md, const char *content)
{
	prefetch_emoji(md, content);
	for (size_t i = 0; content[i] != '\0'; i++) {
		struct chat_syntax syn;
		if ((content[i] != '@' && content[i] != '#') || !chat_boundary(content, i) ||
		    !chat_scan(content + i, &syn))
			continue;
		if (syn.sigil == '#') {
			const char *gt = memchr(syn.name, '>', syn.name_len);
			if (gt != NULL)
				cand_add(md, CAND_CHANNEL, syn.name, (size_t)(gt - syn.name));
			cand_add(md, CAND_CHANNEL, syn.name, syn.name_len);
		} else if (syn.group) {
			cand_add(md, CAND_GROUP, syn.name, syn.name_len);
		} else if (!is_stream_wildcard(&syn) && !name_is(&syn, "topic")) {
			cand_add(md, CAND_USER, syn.name, syn.name_len);
		}
	}
}

/* Chat syntax: resolving what the parser found (under the parse lock: no lookups here). */

static struct chat *chat_new(struct md *md, enum chat_kind kind, bool silent, int64_t id, const char *name)
{
	struct chat *chat = arena_alloc(&md->uow->arena, sizeof(*chat));
	chat->kind = kind;
	chat->silent = silent;
	chat->id = id;
	chat->name = name;
	return chat;
}

static struct chat *resolve_mention(struct md *md, const struct chat_syntax *syn)
{
	if (is_stream_wildcard(syn) || name_is(syn, "topic")) {
		enum chat_kind kind = name_is(syn, "topic") ? CHAT_TOPIC_WILDCARD : CHAT_STREAM_WILDCARD;
		return chat_new(md, kind, syn->silent, 0, arena_strndup(&md->uow->arena, syn->name, syn->name_len));
	}
	struct cand *c = cand_find(md, syn->group ? CAND_GROUP : CAND_USER, syn->name, syn->name_len);
	if (c == NULL || !c->found)
		return NULL;
	return chat_new(md, syn->group ? CHAT_GROUP : CHAT_USER, syn->silent, c->id, c->name);
}

/*
 * #**channel**, #**channel>topic**, #**channel>topic@123**, tried in the reference's order: message link,
 * topic link, then the whole text as a channel name (channel names may contain '>').
 */
static struct chat *resolve_channel_link(struct md *md, const struct chat_syntax *syn)
{
	const char *gt = memchr(syn->name, '>', syn->name_len);
	if (gt != NULL && gt > syn->name) {
		struct cand *c = cand_find(md, CAND_CHANNEL, syn->name, (size_t)(gt - syn->name));
		if (c != NULL && c->found) {
			struct chat *chat = chat_new(md, CHAT_TOPIC, false, c->id, c->name);
			const char *topic = gt + 1, *end = syn->name + syn->name_len, *d = end;
			while (d > topic && d[-1] >= '0' && d[-1] <= '9')
				d--;
			if (d < end && d > topic && d[-1] == '@') { /* "topic@123": a message link */
				chat->kind = CHAT_MESSAGE;
				chat->message_id = arena_strndup(&md->uow->arena, d, (size_t)(end - d));
				chat->message_id_len = (size_t)(end - d);
				end = d - 1;
			}
			chat->topic = arena_strndup(&md->uow->arena, topic, (size_t)(end - topic));
			chat->topic_len = (size_t)(end - topic);
			return chat;
		}
	}
	struct cand *c = cand_find(md, CAND_CHANNEL, syn->name, syn->name_len);
	if (c == NULL || !c->found)
		return NULL;
	return chat_new(md, CHAT_CHANNEL, false, c->id, c->name);
}

/* The parser's view of the text it is parsing inlines of (a paragraph, heading or table cell). */
static const char *subject_text(struct md *md, cmark_node *parent, size_t *len)
{
	const char *s = cmark_node_get_string_content(parent);
	if (s == NULL)
		return NULL;
	if (md->subject != parent) {
		md->subject = parent;
		md->subject_len = strlen(s);
	}
	*len = md->subject_len;
	return s;
}

static bool is_emoji_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
	       c == '+';
}

/*
 * The emoji called name (NUL-terminated), as the reference's emoji pattern finds them: the organization's custom
 * emoji first (*url, NULL returned), then "zulip" and the Unicode names (the code); NULL and *url NULL for none.
 */
static const char *emoji_code(struct md *md, const char *name, const char **url)
{
	struct cand *custom = cand_find(md, CAND_EMOJI, name, strlen(name));
	*url = custom != NULL && custom->found ? custom->name : NULL;
	if (*url != NULL)
		return NULL;
	if (strcmp(name, "zulip") == 0)
		return "zulip";
	return emoji_unicode_code(name);
}

/*
 * :name: (the reference's ":[\w\-\+]+:") naming an emoji, at s[pos]. A :name: naming none stays text, and the
 * search goes on after it, as the reference's does.
 */
static cmark_node *emoji_match(struct md *md, cmark_node *parent, const char *s, size_t len, size_t pos,
                               cmark_inline_parser *inline_parser)
{
	if (md->emoji_miss_subject == parent && pos < md->emoji_miss_end)
		return NULL;
	size_t end = pos + 1;
	while (end < len && end - pos <= MD_MAX_EMOJI && is_emoji_name_char(s[end]))
		end++;
	if (end == pos + 1 || end >= len || s[end] != ':')
		return NULL;
	const char *name = arena_strndup(&md->uow->arena, s + pos + 1, end - pos - 1);
	const char *url;
	const char *code = emoji_code(md, name, &url);
	if (code == NULL && url == NULL) {
		md->emoji_miss_subject = parent;
		md->emoji_miss_end = end + 1;
		return NULL;
	}
	struct chat *chat = chat_new(md, CHAT_EMOJI, false, 0, name);
	chat->emoji_code = code;
	chat->emoji_url = url;
	cmark_node *node = cmark_node_new_with_mem(CMARK_NODE_HTML_INLINE, cmark_get_default_mem_allocator());
	cmark_node_set_literal(node, arena_strndup(&md->uow->arena, s + pos, end + 1 - pos));
	cmark_node_set_user_data(node, chat);
	cmark_inline_parser_set_offset(inline_parser, (int)(end + 1));
	return node;
}

/*
 * The inline extension: cmark calls it at each '@', '#' and ':' outside code (and at the start of each run of
 * text). A match becomes an HTML_INLINE node carrying the resolution as user data: table cells accept no
 * custom nodes, and only cmark's own raw HTML nodes have no user data.
 */
static cmark_node *chat_match(cmark_syntax_extension *ext, cmark_parser *parser, cmark_node *parent,
                              unsigned char character, cmark_inline_parser *inline_parser)
{
	struct md *md = cmark_syntax_extension_get_private(ext);
	size_t len;
	const char *s = subject_text(md, parent, &len);
	int pos = cmark_inline_parser_get_offset(inline_parser);
	if (s == NULL || pos < 0 || (size_t)pos >= len || (unsigned char)s[pos] != character)
		return NULL;
	if (character == ':')
		return emoji_match(md, parent, s, len, (size_t)pos, inline_parser);
	if ((character != '@' && character != '#') || !chat_boundary(s, (size_t)pos))
		return NULL;
	struct chat_syntax syn;
	if (!chat_scan(s + pos, &syn) || (size_t)pos + syn.len > len)
		return NULL;
	struct chat *chat = character == '#' ? resolve_channel_link(md, &syn) : resolve_mention(md, &syn);
	if (chat == NULL)
		return NULL;
	cmark_node *node = cmark_node_new_with_mem(CMARK_NODE_HTML_INLINE, cmark_get_default_mem_allocator());
	cmark_node_set_literal(node, arena_strndup(&md->uow->arena, s + pos, syn.len));
	cmark_node_set_user_data(node, chat);
	cmark_inline_parser_set_offset(inline_parser, pos + (int)syn.len);
	return node;
}

/*
 * cmark-gfm 0.29.0.gfm.6's email autolinker reads the byte before a ":" that starts its buffer
 * (GHSA-c944-cv5f-hpvr, fixed upstream in gfm.7), and such buffers are fresh allocations (merged texts, or
 * the rest of a text after a link it made). Our postprocessing runs first (the extension is attached first) and
 * moves every ":" of a text holding an "@" to a node of its own, of a kind the autolinker neither reads nor
 * merges back (an HTML_INLINE without user data, written as text). So "mailto:a@b.c" links "a@b.c" only, as
 * the reference does.
 */
static void split_colons(struct md *md, cmark_node *n, const char *text)
{
	cmark_mem *mem = cmark_get_default_mem_allocator();
	char *copy = arena_strdup(&md->uow->arena, text);
	char *p = copy;
	for (;;) {
		size_t len = strcspn(p, ":");
		if (p[len] == '\0') {
			cmark_node_set_literal(n, p);
			return;
		}
		size_t colons = strspn(p + len, ":");
		if (len > 0) {
			cmark_node *t = cmark_node_new_with_mem(CMARK_NODE_TEXT, mem);
			cmark_node_set_literal(t, arena_strndup(&md->uow->arena, p, len));
			cmark_node_insert_before(n, t);
		}
		cmark_node *c = cmark_node_new_with_mem(CMARK_NODE_HTML_INLINE, mem);
		cmark_node_set_literal(c, arena_strndup(&md->uow->arena, p + len, colons));
		cmark_node_insert_before(n, c);
		p += len + colons;
	}
}

static cmark_node *isolate_colons(cmark_syntax_extension *ext, cmark_parser *parser, cmark_node *root)
{
	struct md *md = cmark_syntax_extension_get_private(ext);
	cmark_iter *iter = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(iter);
		const char *text = cmark_node_get_literal(n);
		if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(n) == CMARK_NODE_TEXT && text != NULL &&
		    strchr(text, ':') != NULL && strchr(text, '@') != NULL)
			split_colons(md, n, text);
	}
	cmark_iter_free(iter);
	return NULL;
}

cmark_syntax_extension *md_chat_extension_new(struct md *md)
{
	cmark_mem *mem = cmark_get_default_mem_allocator();
	cmark_syntax_extension *ext = cmark_syntax_extension_new("confab-chat");
	cmark_llist *chars = cmark_llist_append(mem, NULL, (void *)(uintptr_t)'@');
	chars = cmark_llist_append(mem, chars, (void *)(uintptr_t)'#');
	chars = cmark_llist_append(mem, chars, (void *)(uintptr_t)':');
	cmark_syntax_extension_set_special_inline_chars(ext, chars);
	cmark_syntax_extension_set_match_inline_func(ext, chat_match);
	cmark_syntax_extension_set_postprocess_func(ext, isolate_colons);
	cmark_syntax_extension_set_private(ext, md, NULL);
	return ext;
}

/* Chat syntax: HTML. */

static void put_channel_href(struct md *md, const struct chat *chat)
{
	md_put_str(md, "/#narrow/channel/");
	md_put_int(md, chat->id);
	md_put_str(md, "-");
	md_put_hash_encoded(md, chat->name, strlen(chat->name), true);
	if (chat->kind == CHAT_CHANNEL)
		return;
	md_put_str(md, "/topic/");
	md_put_hash_encoded(md, chat->topic, chat->topic_len, false);
	if (chat->kind == CHAT_MESSAGE) {
		md_put_str(md, "/near/");
		md_put(md, chat->message_id, chat->message_id_len);
	}
}

static void render_channel_link(struct md *md, const struct chat *chat)
{
	static const char *const classes[] = {
	    [CHAT_CHANNEL] = "stream", [CHAT_TOPIC] = "stream-topic", [CHAT_MESSAGE] = "message-link"};
	md_put_str(md, "<a class=\"");
	md_put_str(md, classes[chat->kind]);
	md_put_str(md, "\"");
	if (chat->kind != CHAT_MESSAGE) {
		md_put_str(md, " data-stream-id=\"");
		md_put_int(md, chat->id);
		md_put_str(md, "\"");
	}
	md_put_str(md, " href=\"");
	put_channel_href(md, chat);
	md_put_str(md, "\">#");
	md_put_text(md, chat->name);
	if (chat->kind != CHAT_CHANNEL) {
		md_put_str(md, " &gt; ");
		if (chat->topic_len == 0)
			md_put_str(md, "<em>" EMPTY_TOPIC_NAME "</em>");
		else
			md_put_escaped(md, chat->topic, chat->topic_len, ESC_TEXT);
	}
	if (chat->kind == CHAT_MESSAGE)
		md_put_str(md, " @ \xf0\x9f\x92\xac");
	md_put_str(md, "</a>");
	md->out->has_link = true;
}

/* The reference's emoji span: the name with spaces for "_" as title and label, the name as typed as text. */
static void render_emoji(struct md *md, const struct chat *chat)
{
	char *title = arena_strdup(&md->uow->arena, chat->name);
	for (char *p = title; *p; p++)
		if (*p == '_')
			*p = ' ';
	if (chat->emoji_url != NULL) { /* a custom emoji: the reference's <img> */
		md_put_str(md, "<img alt=\":");
		md_put_escaped(md, chat->name, strlen(chat->name), ESC_ATTR);
		md_put_str(md, ":\" class=\"emoji\" src=\"");
		md_put_escaped(md, chat->emoji_url, strlen(chat->emoji_url), ESC_ATTR);
		md_put_str(md, "\" title=\"");
		md_put_escaped(md, title, strlen(title), ESC_ATTR);
		md_put_str(md, "\">");
		return;
	}
	if (strcmp(chat->emoji_code, "zulip") == 0) {
		md_put_str(md,
		           "<img alt=\":zulip:\" class=\"emoji\" src=\"/static/generated/emoji/images/emoji/unicode/"
		           "zulip.png\" title=\"zulip\">");
		return;
	}
	md_put_str(md, "<span aria-label=\"");
	md_put_escaped(md, title, strlen(title), ESC_ATTR);
	md_put_str(md, "\" class=\"emoji emoji-");
	md_put_escaped(md, chat->emoji_code, strlen(chat->emoji_code), ESC_ATTR);
	md_put_str(md, "\" role=\"img\" title=\"");
	md_put_escaped(md, title, strlen(title), ESC_ATTR);
	md_put_str(md, "\">:");
	md_put_text(md, chat->name);
	md_put_str(md, ":</span>");
}

/* Mentions inside block quotes are silent, as in the reference (quoting does not notify again). */
void md_render_chat(struct md *md, const struct chat *chat)
{
	if (chat->kind == CHAT_EMOJI) {
		render_emoji(md, chat);
		return;
	}
	if (chat->kind >= CHAT_CHANNEL) {
		render_channel_link(md, chat);
		return;
	}
	bool silent = chat->silent || md->quote_depth > 0;
	struct markdown_result *out = md->out;
	switch (chat->kind) {
	case CHAT_USER:
		md_put_str(md, silent ? "<span class=\"user-mention silent\" data-user-id=\""
		                      : "<span class=\"user-mention\" data-user-id=\"");
		md_put_int(md, chat->id);
		md_put_str(md, "\">");
		if (!silent)
			ids_push(&md->uow->arena, &out->mentioned_users, chat->id);
		break;
	case CHAT_STREAM_WILDCARD:
		md_put_str(md, silent
		                   ? "<span class=\"user-mention channel-wildcard-mention silent\" data-user-id=\"*\">"
		                   : "<span class=\"user-mention channel-wildcard-mention\" data-user-id=\"*\">");
		out->stream_wildcard |= !silent;
		break;
	case CHAT_TOPIC_WILDCARD:
		md_put_str(md, silent ? "<span class=\"topic-mention silent\">" : "<span class=\"topic-mention\">");
		out->topic_wildcard |= !silent;
		break;
	default: /* CHAT_GROUP */
		md_put_str(md, silent ? "<span class=\"user-group-mention silent\" data-user-group-id=\""
		                      : "<span class=\"user-group-mention\" data-user-group-id=\"");
		md_put_int(md, chat->id);
		md_put_str(md, "\">");
		if (!silent)
			ids_push(&md->uow->arena, &out->mentioned_groups, chat->id);
		break;
	}
	if (!silent)
		md_put_str(md, "@");
	md_put_text(md, chat->name);
	md_put_str(md, "</span>");
}
