/* The route table: every endpoint of /api/v1 with its flags and parameters. Read this first. */
#include "api/api.h"
#include "http/router.h"

#define END                                                                                                            \
	{                                                                                                              \
		NULL, 0, 0, 0, NULL                                                                                    \
	}

static const struct param_spec no_params[] = {END};

static const struct param_spec fetch_api_key_params[] = {
    {"username", PT_STR, P_REQUIRED, 0, NULL},
    {"password", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

static const struct param_spec users_list_params[] = {
    {"client_gravatar", PT_BOOL, 0, 0, "true"},
    {"include_custom_profile_fields", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_by_id_params[] = {
    {"user_id", PT_INT, P_PATH, 0, NULL},
    {"client_gravatar", PT_BOOL, 0, 0, "true"},
    {"include_custom_profile_fields", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec user_by_email_params[] = {
    {"email", PT_STR, P_PATH, 0, NULL},
    {"client_gravatar", PT_BOOL, 0, 0, "true"},
    {"include_custom_profile_fields", PT_BOOL, 0, 0, "false"},
    END,
};

static const struct param_spec users_create_params[] = {
    {"email", PT_STR, P_REQUIRED, 0, NULL},
    {"password", PT_STR, P_REQUIRED, 0, NULL},
    {"full_name", PT_STR, P_REQUIRED, 0, NULL},
    END,
};

const struct route routes[] = {
    {"GET", "/server_settings", server_settings_get, R_PUBLIC, no_params},
    {"POST", "/fetch_api_key", api_key_fetch, R_PUBLIC, fetch_api_key_params},
    {"GET", "/users/me", users_me_get, 0, no_params},
    {"GET", "/users", users_list, 0, users_list_params},
    {"POST", "/users", users_create, R_ADMIN | R_TXN, users_create_params},
    {"GET", "/users/{user_id}", users_get_by_id, 0, user_by_id_params},
    {"GET", "/users/{email}", users_get_by_email, 0, user_by_email_params},
};

const size_t nroutes = sizeof(routes) / sizeof(routes[0]);
