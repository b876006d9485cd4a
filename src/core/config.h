/*
 * Configuration shared by confab-worker, confab-reaper and confabctl: a file of `key = value` lines
 * (# starts a comment), then an environment override CONFAB_<KEY> for every key. See
 * conf/confab.conf.example for the keys and their defaults.
 */
#ifndef CONFAB_CONFIG_H
#define CONFAB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct config {
	char *pg_conninfo;
	/* The cache's LISTEN connection (model/cache.h): a session of its own, so never through a pooler in
	 * transaction mode. "" (the default): pg_conninfo; read it with config_listen_conninfo(). */
	char *pg_listen_conninfo;
	int pg_pool_size;
	/* Named prepared statements, once per connection (on), or every statement unnamed (off: for a transaction
	 * pooler such as pgbouncer in pool_mode = transaction, which does not carry named statements across
	 * transactions). */
	bool pg_prepared_statements;
	char *redis_host;
	int redis_port;
	char *redis_socket;
	int redis_pool_size;
	int threads;
	int thread_stack_kb;
	char *listen;
	size_t max_body_bytes;
	char *log_file;
	char *external_host;
	char *external_scheme;
	char *migrations_dir;
	char *upload_dir;
	int max_file_upload_mb; /* largest uploaded file, in MiB (the reference's MAX_FILE_UPLOAD_SIZE) */
	/* The uploads an organization may keep, in GiB, unless realms.custom_upload_quota_gb says otherwise; 0: no
	 * quota (the reference's self-hosted default). */
	int upload_quota_gb;
	/* Uploads no message links are deleted by the reaper this many days after their upload (the reference's
	 * delete_old_unclaimed_attachments, 5 weeks), checked every attachment_cleanup_interval seconds; 0: never. */
	int unclaimed_attachment_days;
	int attachment_cleanup_interval;
	int rate_limit_per_minute;
	/* Failed authentication (http/ratelimit.c): failures allowed per window; 0 turns a limit off. */
	int login_fail_limit_user;      /* failed password logins per account (the reference's 5) */
	int login_fail_limit_address;   /* failed password logins per client address */
	int login_fail_window;          /* seconds (the reference's 1800) */
	int api_key_fail_limit_address; /* failed API keys per client address */
	int api_key_fail_window;        /* seconds */
	/* Password checks (Argon2id) at once per process (0: one per CPU), and how long a login waits for one. */
	int password_hash_slots;
	int password_hash_wait_ms;
	/* Seconds between two message retention runs of the reaper (the first one at its start); 0: none. */
	int retention_interval;
	/* Seconds between two fills of the channels' daily message counts by the reaper (model/traffic.h); 0: none. */
	int traffic_interval;
	/* Outgoing mail (core/smtp.h, model/mail.h): the relay ("" sends nothing; mails wait in the outbox), its
	 * credentials, STARTTLS policy (none|try|required) and the sender address ("": noreply@ external_host's host).
	 */
	char *smtp_url;
	char *smtp_username;
	char *smtp_password;
	char *smtp_tls;
	char *smtp_from;
	/* Invitations: the default lifetime of an invitation link in minutes (the reference's
	 * INVITATION_LINK_VALIDITY_MINUTES), and the invitation mails an organization may send in 24 hours unless its
	 * realms.max_invites says otherwise (INVITES_DEFAULT_REALM_DAILY_MAX); 0 turns the daily limit off. */
	int invitation_link_validity_minutes;
	int invites_daily_max;
	/* Event queues (events/events.h, docs/LIMITS.md): a user's queues at most (registering one more discards the
	 * least recently used), the events and bytes of events one queue holds unacknowledged at most (one more
	 * discards the queue: its next poll answers BAD_EVENT_QUEUE_ID), and the longest idle_queue_timeout granted
	 * (the reference's MAX_QUEUE_TIMEOUT_SECS). A user's queues hold at most per_user x max_bytes of events. */
	int event_queues_per_user;
	int event_queue_max_events;
	int event_queue_max_bytes;
	int event_queue_max_idle_secs;
	/* Whether this process holds long-polls (the events group); off (the api group): GET /events answers at once,
	 * as with dont_block, so that a blocking poll never holds an api thread. */
	bool long_polls;
	/* Metrics (core/metrics.h): the directory of the groups' shared files ("": off) and this process's group. */
	char *metrics_dir;
	char *metrics_group;
};

/*
 * Fills cfg with defaults, then the file at path (NULL: $CONFAB_CONFIG, or no file), then the environment.
 * Returns 0, or -1 after writing the reason to err (of errlen bytes). Strings are malloc'ed; config_free()
 * releases them.
 */
int config_load(struct config *cfg, const char *path, char *err, size_t errlen);
/* The conninfo of session-level connections (LISTEN): pg_listen_conninfo, or pg_conninfo when that is empty. */
const char *config_listen_conninfo(const struct config *cfg);
/* Frees the strings of cfg. */
void config_free(struct config *cfg);

#endif
