/*
 * The one error type of the product. Each enum value indexes a table of HTTP status, API `code` and default `msg`
 * (the reference's); a unit of work records one of them (core/uow.h) and the HTTP layer turns it into the response.
 * It lives in core, below every layer that can fail, so that no lower layer needs the HTTP request to report.
 */
#ifndef CONFAB_ERROR_H
#define CONFAB_ERROR_H

enum err {
	ERR_NONE = 0,
	ERR_BAD_REQUEST,            /* 400 BAD_REQUEST */
	ERR_MISSING,                /* 400 REQUEST_VARIABLE_MISSING, with var_name */
	ERR_VAR_INVALID,            /* 400 REQUEST_VARIABLE_INVALID */
	ERR_UNAUTHORIZED_PRINCIPAL, /* 400 UNAUTHORIZED_PRINCIPAL: "Must be an organization administrator" ... */
	ERR_UNAUTHORIZED,           /* 401 UNAUTHORIZED, with WWW-Authenticate */
	ERR_AUTH_FAILED,            /* 401 AUTHENTICATION_FAILED */
	ERR_USER_DEACTIVATED,       /* 401 USER_DEACTIVATED */
	ERR_REALM_DEACTIVATED,      /* 401 REALM_DEACTIVATED */
	ERR_ACCESS_DENIED,          /* 403 ACCESS_DENIED */
	ERR_NOT_FOUND,              /* 404 BAD_REQUEST */
	ERR_NOT_FOUND_CODE,         /* 404 NOT_FOUND */
	ERR_METHOD,                 /* 405, no code, with allowed_methods */
	ERR_TOO_LARGE,              /* 413 BAD_REQUEST */
	ERR_RATE_LIMIT,             /* 429 RATE_LIMIT_HIT, with retry-after */
	ERR_INTERNAL,               /* 500, no code */
	ERR_UNAVAILABLE,            /* 503 SERVICE_UNAVAILABLE: PostgreSQL or Redis unreachable */
	ERR_EXPECTATION_MISMATCH,   /* 400 EXPECTATION_MISMATCH: a group setting's `old` is not the current value */
	ERR_SYSTEM_GROUP_REQUIRED,  /* 400 SYSTEM_GROUP_REQUIRED: "'<setting>' must be a system user group." */
	ERR_GROUP_IN_USE,           /* 400 CANNOT_DEACTIVATE_GROUP_IN_USE, with objections */
	ERR_BAD_NARROW,             /* 400 BAD_NARROW: "Invalid narrow operator: ...", with desc */
	ERR_STREAM_DOES_NOT_EXIST,  /* 400 STREAM_DOES_NOT_EXIST, with stream or stream_id */
	ERR_STREAM_WILDCARD_MENTION_NOT_ALLOWED, /* 400 STREAM_WILDCARD_MENTION_NOT_ALLOWED */
	ERR_TOPIC_WILDCARD_MENTION_NOT_ALLOWED,  /* 400 TOPIC_WILDCARD_MENTION_NOT_ALLOWED */
	ERR_BAD_EVENT_QUEUE_ID,                  /* 400 BAD_EVENT_QUEUE_ID, with queue_id */
	/* 400 MOVE_MESSAGES_TIME_LIMIT_EXCEEDED, with first_message_id_allowed_to_move, total_messages_in_topic and
	 * total_messages_allowed_to_move */
	ERR_MOVE_MESSAGES_TIME_LIMIT_EXCEEDED,
	ERR_REQUEST_CONFUSING_VAR,       /* 400 REQUEST_CONFUSING_VAR, with var_name1 and var_name2 */
	ERR_CANNOT_DEACTIVATE_LAST_USER, /* 400 CANNOT_DEACTIVATE_LAST_USER, with entity and is_last_owner */
	ERR_REACTION_ALREADY_EXISTS,     /* 400 REACTION_ALREADY_EXISTS "Reaction already exists." */
	ERR_REACTION_DOES_NOT_EXIST,     /* 400 REACTION_DOES_NOT_EXIST "Reaction doesn't exist." */
	/* 400 INVITATION_FAILED, with errors, sent_invitations, license_limit_reached and daily_limit_reached */
	ERR_INVITATION_FAILED,
	ERR_REALM_UPLOAD_QUOTA, /* 400 REALM_UPLOAD_QUOTA "Upload would exceed your organization's upload quota." */
	ERR_COUNT
};

struct err_info {
	int status;
	const char *code; /* NULL: the response has no code */
	const char *msg;
};

/* Returns the table row of e. */
const struct err_info *err_info(enum err e);

#endif
