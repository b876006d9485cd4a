/*
 * Narrows of GET /messages: the JSON terms a client sends, validated and resolved to ids, and then the named SQL
 * parameters of the fetch statements (model/message_fetch.c). Every database lookup a term needs goes through a
 * struct narrow_lookup, so the whole step runs, and is unit-tested, without a database.
 */
#ifndef CONFAB_NARROW_H
#define CONFAB_NARROW_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/ids.h"

struct uow;
struct channel;
struct narrow_lookup;

/* A growable array of strings in the unit of work's arena (ids: core/ids.h). */
struct narrow_strs {
	const char **v;
	int n, cap;
};

/* A parsed narrow: the terms resolved to ids, positive and negated sides, and how to drive the query. */
struct narrow {
	struct ids ch_pos, ch_neg, sender_pos, sender_neg, id_pos, id_neg, dm_pos, dm_neg, dmi_pos, dmi_neg, gpm;
	struct narrow_strs topic_pos, topic_neg, search;
	int set, unset, any; /* flag masks (MF_*): all set, all unset, any set */
	/* -1: no condition; 0/1: must be false/true. */
	int resolved, has_attachment, has_image, has_link, has_reaction, in_home, public_only, web_public_only;
	bool impossible;     /* contradictory terms: nothing matches */
	bool channel_narrow; /* for "No message can be both a channel message and direct message" */
	bool dm_narrow;
	bool include_history; /* read the channel's messages, not only the user's copies */
	const struct channel *history_channel;
	bool public_history;
	bool is_search;
	bool topic_renamed;                 /* the first topic term's "general chat" has been read as the empty topic */
	const struct narrow_lookup *lookup; /* how the operands were resolved */
};

/* The conversation of a message, for the `with` operator: a channel and topic, or the users of a DM. */
struct narrow_conversation {
	int64_t channel_id; /* 0: a direct message */
	const char *topic;
	json_object *dm_user_ids; /* a JSON array of the participants' ids (owned by the request) */
};

/*
 * What a narrow needs to know of the organization. Each lookup tells "not found" (nothing recorded) from
 * "failed" (the error recorded) as its comment says; every result lives in the unit of work's arena.
 */
struct narrow_lookup {
	/* The channel an operand names (an id or a name) as the user sees it; NULL: none, or failed (recorded). Of it
	 * only id, invite_only, history_public_to_subscribers and content_access are read (channel_cache.h). */
	const struct channel *(*channel)(struct uow *uow, json_object *operand);
	/* The id of the realm's user an operand names (API e-mail address or id); 0: none, or failed (recorded). */
	int64_t (*user)(struct uow *uow, json_object *operand);
	/* The users a dm operand names (an id list or e-mail addresses, as a message's `to`): 0 and *ids / *n
	 * (arena), 1 when it names an unknown user (nothing recorded), -1 failed. */
	int (*dm_users)(struct uow *uow, json_object *operand, int64_t **ids, int *n);
	/* The direct conversation of exactly the ascending user ids: its id, 0 if there is none, -1 failed. */
	int64_t (*conversation)(struct uow *uow, const int64_t *ids, int n);
	/* The conversation of message id if the user may read the message: 1 and *out, 0 if not (nothing
	 * recorded), -1 failed. */
	int (*with_target)(struct uow *uow, int64_t id, struct narrow_conversation *out);
};

/*
 * Parses narrow (a JSON array of {operator, operand, negated} objects or [operator, operand] pairs; NULL: no
 * narrow) for uow->user of uow->realm, resolving operands through lookup. See narrow_parse() in messages.h for
 * the operators. Validation errors are BAD_REQUEST in the reference's typed_endpoint words ("Invalid narrow[0]: Value
 * error, element is not a string pair", "narrow[0][\"operator\"] is not a string", "operand is not a string",
 * ...); unknown operators and operands BAD_NARROW "Invalid narrow operator: ..." with a desc field, as the
 * reference words them. Returns the narrow (arena), or NULL with the error recorded.
 */
struct narrow *narrow_parse_with(struct uow *uow, json_object *narrow, const struct narrow_lookup *lookup);

/* Records BAD_NARROW "Invalid narrow operator: <desc>" with the desc field; returns -1. */
int narrow_bad(struct uow *uow, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The SQL parameters of the fetch statements, one field per $n, as db_exec takes them (text; NULL is SQL NULL).
 * Arrays are PostgreSQL array literals; an empty array or -1 means "no condition".
 */
struct narrow_sql {
	const char *user_id;          /* $1 */
	const char *realm_id;         /* $2 */
	const char *channels;         /* $3 bigint[]: channel/stream terms */
	const char *not_channels;     /* $4 bigint[] */
	const char *topics;           /* $5 text[]: topic terms (case-insensitive) */
	const char *not_topics;       /* $6 text[] */
	const char *senders;          /* $7 bigint[] */
	const char *not_senders;      /* $8 bigint[] */
	const char *ids;              /* $9 bigint[]: id terms */
	const char *not_ids;          /* $10 bigint[] */
	const char *dms;              /* $11 bigint[]: direct conversation ids */
	const char *not_dms;          /* $12 bigint[] */
	const char *dm_including;     /* $13 bigint[]: user ids */
	const char *not_dm_including; /* $14 bigint[] */
	const char *group_dm_with;    /* $15 bigint[]: user ids, in a conversation of three or more */
	const char *flags_set;        /* $16 int: flags that must all be set */
	const char *flags_unset;      /* $17 int: flags that must all be unset */
	const char *flags_any;        /* $18 int: flags one of which must be set (0: none) */
	const char *resolved;         /* $19 int: -1, 0 or 1 */
	const char *has_attachment;   /* $20 int */
	const char *has_image;        /* $21 int */
	const char *has_link;         /* $22 int */
	const char *in_home;          /* $23 int */
	const char *public_only;      /* $24 int */
	const char *web_public_only;  /* $25 int */
	const char *search;           /* $26 text[]: ILIKE patterns, every one must match */
	const char *impossible;       /* $27 boolean */
	const char *only_ids;         /* $28 bigint[] or NULL: the message_ids parameter of GET /messages */
	const char *has_reaction;     /* $29 int: -1, 0 or 1 */
	const char *before_anchor;    /* $30 bigint: the highest id before the anchor */
	const char *before_limit;     /* $31 int */
	const char *after_anchor;     /* $32 bigint: the lowest id from the anchor on */
	const char *after_max;        /* $33 bigint */
	const char *after_limit;      /* $34 int */
	const char *history_channel;  /* $35 bigint: the channel whose history is read, or NULL */
	const char *history_topic;    /* $36 text: the first topic term, or NULL */
};
#define NARROW_SQL_FILTER_PARAMS 29 /* $1..$29: the filter alone */
#define NARROW_SQL_PARAMS        36

/* Fills $1..$29 and $35..$36 of out from nw for uow's user: only_ids (n_only) or NULL for every message. */
void narrow_sql_filter(struct uow *uow, const struct narrow *nw, const int64_t *only_ids, int n_only,
                       struct narrow_sql *out);
/* Fills $30..$34: the ids and counts of the two halves around anchor (the reference's limit_query_to_range). */
void narrow_sql_range(struct uow *uow, int64_t anchor, bool include_anchor, int before, int after,
                      struct narrow_sql *out);
/* The parameters in $n order, as db_exec takes them: p[n - 1] is $n. */
void narrow_sql_positional(const struct narrow_sql *s, const char *p[NARROW_SQL_PARAMS]);

#endif
