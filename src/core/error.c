/* The error table: HTTP status, API code and default message of every error; see error.h. */
#include "core/error.h"

#include <stddef.h>

static const struct err_info table[ERR_COUNT] = {
    [ERR_NONE] = {200, NULL, ""},
    [ERR_BAD_REQUEST] = {400, "BAD_REQUEST", "Bad request"},
    [ERR_MISSING] = {400, "REQUEST_VARIABLE_MISSING", "Missing argument"},
    [ERR_VAR_INVALID] = {400, "REQUEST_VARIABLE_INVALID", "Invalid argument"},
    [ERR_UNAUTHORIZED_PRINCIPAL] = {400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator"},
    [ERR_UNAUTHORIZED] = {401, "UNAUTHORIZED", "Not logged in: API authentication or user session required"},
    [ERR_AUTH_FAILED] = {401, "AUTHENTICATION_FAILED", "Your username or password is incorrect"},
    [ERR_USER_DEACTIVATED] = {401, "USER_DEACTIVATED", "Account is deactivated"},
    [ERR_REALM_DEACTIVATED] = {401, "REALM_DEACTIVATED", "This organization has been deactivated"},
    [ERR_ACCESS_DENIED] = {403, "ACCESS_DENIED", "Access denied"},
    [ERR_NOT_FOUND] = {404, "BAD_REQUEST", "Not Found"},
    [ERR_NOT_FOUND_CODE] = {404, "NOT_FOUND", "Not Found"},
    [ERR_METHOD] = {405, NULL, "Method Not Allowed"},
    [ERR_TOO_LARGE] = {413, "BAD_REQUEST", "Request body too large"},
    [ERR_RATE_LIMIT] = {429, "RATE_LIMIT_HIT", "API usage exceeded rate limit"},
    [ERR_INTERNAL] = {500, NULL, "Internal server error"},
    [ERR_UNAVAILABLE] = {503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable"},
    [ERR_EXPECTATION_MISMATCH] = {400, "EXPECTATION_MISMATCH", "'old' value does not match the expected value."},
    [ERR_SYSTEM_GROUP_REQUIRED] = {400, "SYSTEM_GROUP_REQUIRED", "System group required"},
    [ERR_GROUP_IN_USE] = {400, "CANNOT_DEACTIVATE_GROUP_IN_USE", "Cannot deactivate user group in use."},
    [ERR_BAD_NARROW] = {400, "BAD_NARROW", "Invalid narrow operator"},
    [ERR_STREAM_DOES_NOT_EXIST] = {400, "STREAM_DOES_NOT_EXIST", "Channel does not exist"},
    [ERR_STREAM_WILDCARD_MENTION_NOT_ALLOWED] =
        {400, "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
         "You do not have permission to use channel wildcard mentions in this channel."},
    [ERR_TOPIC_WILDCARD_MENTION_NOT_ALLOWED] =
        {400, "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
         "You do not have permission to use topic wildcard mentions in this topic."},
    [ERR_BAD_EVENT_QUEUE_ID] = {400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID"},
    [ERR_MOVE_MESSAGES_TIME_LIMIT_EXCEEDED] = {400, "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
                                               "You only have permission to move some messages in this topic."},
    [ERR_REQUEST_CONFUSING_VAR] = {400, "REQUEST_CONFUSING_VAR", "Can't decide between arguments"},
    [ERR_CANNOT_DEACTIVATE_LAST_USER] = {400, "CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only user."},
    [ERR_REACTION_ALREADY_EXISTS] = {400, "REACTION_ALREADY_EXISTS", "Reaction already exists."},
    [ERR_REACTION_DOES_NOT_EXIST] = {400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist."},
    [ERR_INVITATION_FAILED] = {400, "INVITATION_FAILED", "Invitation failed"},
    [ERR_REALM_UPLOAD_QUOTA] = {400, "REALM_UPLOAD_QUOTA", "Upload would exceed your organization's upload quota."},
};

const struct err_info *err_info(enum err e)
{
	return &table[e < ERR_COUNT ? e : ERR_INTERNAL];
}
