/* The API version this server reports (GET /server_settings, POST /register). */
#ifndef CONFAB_VERSION_H
#define CONFAB_VERSION_H

#define ZULIP_FEATURE_LEVEL 496
#define ZULIP_VERSION       "12.0-confab-" PACKAGE_VERSION
#define ZULIP_MERGE_BASE    "12.0"

#endif
