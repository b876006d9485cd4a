/*
 * The renderer's state, shared by markdown.c (the document: blocks, links, text and the HTML output) and
 * markdown_chat.c (the chat syntax: mentions, channel and topic links, emoji). Private to those two files.
 */
#ifndef CONFAB_MARKDOWN_MD_H
#define CONFAB_MARKDOWN_MD_H

#include <cmark-gfm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/budget.h"
#include "core/buf.h"
#include "model/markdown.h"
#include "model/markdown_blocks.h"

#define MD_BUCKETS 64

enum chat_kind {
	CHAT_USER,
	CHAT_STREAM_WILDCARD,
	CHAT_TOPIC_WILDCARD,
	CHAT_GROUP,
	CHAT_CHANNEL,
	CHAT_TOPIC,
	CHAT_MESSAGE,
	CHAT_EMOJI,
};

/* A resolved piece of chat syntax, attached to an inline node of the tree (see chat_match). */
struct chat {
	enum chat_kind kind;
	bool silent;
	int64_t id;
	const char *name;  /* canonical name, or the wildcard as written */
	const char *topic; /* CHAT_TOPIC, CHAT_MESSAGE */
	size_t topic_len;
	const char *message_id; /* CHAT_MESSAGE: the digits as written */
	size_t message_id_len;
	const char *emoji_code; /* CHAT_EMOJI: "1f419", or "zulip"; NULL for a custom emoji */
	const char *emoji_url;  /* CHAT_EMOJI of a custom emoji: its image */
};

struct cand;

struct md {
	struct uow *uow;
	const struct markdown_lookup *lookup;
	struct markdown_result *out;
	struct buf html;
	bool overflow;        /* the HTML passed its bound */
	struct budget budget; /* of the whole rendering; once exceeded, nothing more is parsed or written */
	cmark_syntax_extension *chat_ext;
	struct cand *buckets[MD_BUCKETS];
	int depth;       /* nested documents being rendered */
	int quote_depth; /* block quotes around the current node */
	/* table being rendered */
	const uint8_t *aligns;
	int ncols, cell;
	/* subject of the inline parser (for the chat extension) */
	cmark_node *subject;
	size_t subject_len;
	/* end of the last :name: that named no emoji: the reference goes on searching after it */
	cmark_node *emoji_miss_subject;
	size_t emoji_miss_end;
	struct md_rewrite *rewrite; /* of the text being parsed */
	/* line starts of the block last asked about by is_underscore() */
	cmark_node *lines_of;
	const char *lines_text;
	size_t *line_start;
	int nlines;
};

enum esc { ESC_TEXT, ESC_ATTR, ESC_CODE };

/* Output (markdown.c): bytes, a string, escaped text, a number, the reference's hash_util_encode. */
void md_put(struct md *md, const char *s, size_t n);
void md_put_str(struct md *md, const char *s);
void md_put_escaped(struct md *md, const char *s, size_t n, enum esc mode);
void md_put_text(struct md *md, const char *s);
void md_put_int(struct md *md, int64_t v);
void md_put_hash_encoded(struct md *md, const char *s, size_t n, bool space_to_dash);

/* The chat syntax (markdown_chat.c): its names looked up before parsing, its inline extension, its HTML. */
void md_chat_prefetch(struct md *md, const char *content);
cmark_syntax_extension *md_chat_extension_new(struct md *md);
void md_render_chat(struct md *md, const struct chat *chat);

#endif
