/* Loads struct config from a file and the environment; see config.h. */
#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/xalloc.h"

enum kind { K_STR, K_INT, K_SIZE, K_BOOL };

struct key {
	const char *name;
	enum kind kind;
	size_t offset;
	const char *def;
};

#define KEY(name, kind, def)                                                                                           \
	{                                                                                                              \
#name, kind, offsetof(struct config, name), def                                                        \
	}

static const struct key keys[] = {
    KEY(pg_conninfo, K_STR, "dbname=confab"),
    KEY(pg_listen_conninfo, K_STR, ""),
    KEY(pg_pool_size, K_INT, "4"),
    KEY(pg_prepared_statements, K_BOOL, "on"),
    KEY(redis_host, K_STR, "127.0.0.1"),
    KEY(redis_port, K_INT, "6379"),
    KEY(redis_socket, K_STR, ""),
    KEY(redis_pool_size, K_INT, "4"),
    KEY(threads, K_INT, "16"),
    KEY(thread_stack_kb, K_INT, "512"),
    KEY(listen, K_STR, ""),
    KEY(max_body_bytes, K_SIZE, "26214400"),
    KEY(log_file, K_STR, ""),
    KEY(external_host, K_STR, "127.0.0.1:9991"),
    KEY(external_scheme, K_STR, "http"),
    KEY(migrations_dir, K_STR, "migrations"),
    KEY(upload_dir, K_STR, "var/uploads"),
    KEY(max_file_upload_mb, K_INT, "24"),
    KEY(upload_quota_gb, K_INT, "0"),
    KEY(unclaimed_attachment_days, K_INT, "35"),
    KEY(attachment_cleanup_interval, K_INT, "3600"),
    KEY(rate_limit_per_minute, K_INT, "200"),
    KEY(login_fail_limit_user, K_INT, "5"),
    KEY(login_fail_limit_address, K_INT, "30"),
    KEY(login_fail_window, K_INT, "1800"),
    KEY(api_key_fail_limit_address, K_INT, "60"),
    KEY(api_key_fail_window, K_INT, "60"),
    KEY(password_hash_slots, K_INT, "0"),
    KEY(password_hash_wait_ms, K_INT, "1000"),
    KEY(retention_interval, K_INT, "86400"),
    KEY(traffic_interval, K_INT, "3600"),
    KEY(smtp_url, K_STR, ""),
    KEY(smtp_username, K_STR, ""),
    KEY(smtp_password, K_STR, ""),
    KEY(smtp_tls, K_STR, "try"),
    KEY(smtp_from, K_STR, ""),
    KEY(invitation_link_validity_minutes, K_INT, "14400"),
    KEY(invites_daily_max, K_INT, "3000"),
    KEY(event_queues_per_user, K_INT, "50"),
    KEY(event_queue_max_events, K_INT, "10000"),
    KEY(event_queue_max_bytes, K_INT, "4194304"),
    KEY(event_queue_max_idle_secs, K_INT, "604800"),
    KEY(long_polls, K_BOOL, "on"),
    KEY(metrics_dir, K_STR, ""),
    KEY(metrics_group, K_STR, "api"),
};

/* on|off (also true|false, yes|no, 1|0). */
static int set_bool(bool *field, const struct key *k, const char *value, char *err, size_t errlen)
{
	static const char *const yes[] = {"on", "true", "yes", "1"}, *const no[] = {"off", "false", "no", "0"};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(value, yes[i]) == 0 || strcasecmp(value, no[i]) == 0) {
			*field = strcasecmp(value, yes[i]) == 0;
			return 0;
		}
	}
	snprintf(err, errlen, "invalid value for \"%s\": \"%s\" (on or off)", k->name, value);
	return -1;
}

static int set_value(struct config *cfg, const struct key *k, const char *value, char *err, size_t errlen)
{
	void *field = (char *)cfg + k->offset;
	if (k->kind == K_STR) {
		char **s = field;
		free(*s);
		*s = xstrdup(value);
		return 0;
	}
	if (k->kind == K_BOOL)
		return set_bool(field, k, value, err, errlen);
	char *end;
	errno = 0;
	long long v = strtoll(value, &end, 10);
	if (errno != 0 || end == value || *end != '\0' || v < 0 || (k->kind == K_INT && v > 1000000000)) {
		snprintf(err, errlen, "invalid value for \"%s\": \"%s\"", k->name, value);
		return -1;
	}
	if (k->kind == K_INT)
		*(int *)field = (int)v;
	else
		*(size_t *)field = (size_t)v;
	return 0;
}

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int load_file(struct config *cfg, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "could not open configuration file \"%s\": %s", path, strerror(errno));
		return -1;
	}
	char line[4096];
	int lineno = 0, rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash != NULL)
			*hash = '\0';
		char *s = trim(line);
		if (*s == '\0')
			continue;
		char *eq = strchr(s, '=');
		if (eq == NULL) {
			snprintf(err, errlen, "%s:%d: expected key = value", path, lineno);
			rc = -1;
			break;
		}
		*eq = '\0';
		const struct key *k = find_key(trim(s));
		if (k == NULL) {
			snprintf(err, errlen, "%s:%d: unknown key \"%s\"", path, lineno, trim(s));
			rc = -1;
			break;
		}
		rc = set_value(cfg, k, trim(eq + 1), err, errlen);
	}
	fclose(f);
	return rc;
}

void config_free(struct config *cfg)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].kind == K_STR) {
			char **s = (char **)((char *)cfg + keys[i].offset);
			free(*s);
			*s = NULL;
		}
}

int config_load(struct config *cfg, const char *path, char *err, size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (set_value(cfg, &keys[i], keys[i].def, err, errlen) < 0)
			return -1;
	if (path == NULL)
		path = getenv("CONFAB_CONFIG");
	if (path != NULL && *path != '\0' && load_file(cfg, path, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char env[64] = "CONFAB_";
		for (size_t j = 0; keys[i].name[j] != '\0' && j + 8 < sizeof(env); j++)
			env[7 + j] = (char)toupper((unsigned char)keys[i].name[j]);
		const char *v = getenv(env);
		if (v != NULL && set_value(cfg, &keys[i], v, err, errlen) < 0)
			return -1;
	}
	if (cfg->threads < 1 || cfg->pg_pool_size < 1 || cfg->redis_pool_size < 1) {
		snprintf(err, errlen, "threads, pg_pool_size and redis_pool_size must be at least 1");
		return -1;
	}
	if (cfg->login_fail_window < 1 || cfg->api_key_fail_window < 1) {
		snprintf(err, errlen, "login_fail_window and api_key_fail_window must be at least 1");
		return -1;
	}
	return 0;
}

const char *config_listen_conninfo(const struct config *cfg)
{
	return *cfg->pg_listen_conninfo != '\0' ? cfg->pg_listen_conninfo : cfg->pg_conninfo;
}
