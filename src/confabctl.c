/*
 * confabctl: the operator's tool. Each command prints one JSON object on success, or a message on stderr and
 * exits 1. Everything it does can also be done in psql (see migrations/ for the functions it calls).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/config.h"
#include "core/crypto.h"
#include "core/jsonx.h"
#include "db/db.h"
#include "core/uow.h"
#include "model/mail.h"
#include "model/realm.h"
#include "model/retention.h"
#include "model/user.h"
#include "probe.h"
#include "redis/redis.h"

static const char usage[] =
    "usage: confabctl [-c CONFIG] COMMAND [OPTIONS]\n"
    "  migrate\n"
    "  create-realm --subdomain S --name N --owner-email E --owner-name N [--password P] [--can-create-users]\n"
    "  create-user --realm S --email E --name N [--role owner|admin|moderator|member|guest] [--bot]\n"
    "              [--password P] [--can-create-users]\n"
    "  reset-api-key --realm S --email E\n"
    "  deactivate-user --realm S --email E\n"
    "  show-realm --subdomain S\n"
    "  set-upload-quota --realm S --gb N|default  (an organization's upload quota in GiB, 0 refusing every\n"
    "                   upload; default: the server's upload_quota_gb)\n"
    "  retention-run\n"
    "  send-test-mail --email E\n"
    "  probe --realm S [--url URL] [--warning MS] [--critical MS] [--timeout S] [--prometheus]\n"
    "        (Nagios plugin output and exit status; defaults: --warning 1000 --critical 5000 --timeout 10)\n"
    "  version\n";

struct opts {
	const char *subdomain, *name, *owner_name, *email, *password, *role, *gb;
	bool bot, can_create_users;
	struct probe_opts probe;
};

static int fail(struct uow *uow, const char *fallback)
{
	fprintf(stderr, "confabctl: %s\n", uow->error != ERR_NONE ? uow->error_msg : fallback);
	return 1;
}

static void print(json_object *o)
{
	puts(jsonx_string(o));
	json_object_put(o);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s != NULL && fread(s, 1, (size_t)n, f) == (size_t)n) {
		s[n] = '\0';
	} else {
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

static struct db_stmt st_lock = DB_STMT("SELECT pg_advisory_xact_lock(7261001)");
static struct db_stmt st_applied = DB_STMT("SELECT 1 FROM schema_migrations WHERE version = $1");
static struct db_stmt st_record = DB_STMT("INSERT INTO schema_migrations (version) VALUES ($1)");

/* Applies one migration file unless it is recorded already. Returns 1 if applied, 0 if not needed, -1. */
static int apply_migration(struct uow *uow, const char *dir, const char *file)
{
	if (db_begin(uow) < 0 || DB_EXEC(uow, &st_lock) == NULL)
		return -1;
	struct db_res *res = DB_EXEC(uow, &st_applied, file);
	if (res == NULL)
		return -1;
	if (db_rows(res) > 0)
		return db_commit(uow) < 0 ? -1 : 0;
	char *path = arena_printf(&uow->arena, "%s/%s", dir, file);
	char *sql = read_file(path);
	if (sql == NULL) {
		fprintf(stderr, "confabctl: could not read \"%s\": %s\n", path, strerror(errno));
		return -1;
	}
	int rc = db_exec_script(uow, sql);
	free(sql);
	if (rc < 0 || DB_EXEC(uow, &st_record, file) == NULL || db_commit(uow) < 0)
		return -1;
	return 1;
}

static int cmd_migrate(struct uow *uow)
{
	const char *dir = uow->worker->cfg->migrations_dir;
	if (db_exec_script(uow, "CREATE TABLE IF NOT EXISTS schema_migrations ("
	                        "version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())") < 0)
		return fail(uow, "could not create schema_migrations");
	DIR *d = opendir(dir);
	if (d == NULL) {
		fprintf(stderr, "confabctl: could not open migrations directory \"%s\": %s\n", dir, strerror(errno));
		return 1;
	}
	char *names[1024];
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL && n < 1024;) {
		size_t len = strlen(e->d_name);
		if (len > 4 && strcmp(e->d_name + len - 4, ".sql") == 0)
			names[n++] = arena_strdup(&uow->arena, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	json_object *applied = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		int rc = apply_migration(uow, dir, names[i]);
		if (rc < 0) {
			json_object_put(applied);
			return fail(uow, "migration failed");
		}
		if (rc == 1)
			json_object_array_add(applied, json_object_new_string(names[i]));
	}
	json_object *out = json_object_new_object();
	json_object_object_add(out, "applied", applied);
	print(out);
	return 0;
}

static int parse_role(const char *s)
{
	static const struct {
		const char *name;
		int role;
	} roles[] = {{"owner", ROLE_OWNER},         {"admin", ROLE_ADMIN},   {"administrator", ROLE_ADMIN},
	             {"moderator", ROLE_MODERATOR}, {"member", ROLE_MEMBER}, {"guest", ROLE_GUEST}};
	if (s == NULL)
		return ROLE_MEMBER;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (strcasecmp(s, roles[i].name) == 0)
			return roles[i].role;
	int n = atoi(s);
	return n == ROLE_OWNER || n == ROLE_ADMIN || n == ROLE_MODERATOR || n == ROLE_MEMBER || n == ROLE_GUEST ? n : 0;
}

static struct db_stmt st_grant = DB_STMT("UPDATE users SET can_create_users = true WHERE id = $1");

/* Creates a user named name and prints it with a fresh API key; extra (taken), when given, is merged into the
 * output. */
static int create_user(struct uow *uow, const struct realm *realm, const struct opts *o, const char *name, int role,
                       json_object *extra)
{
	json_object *out = uow_own_json(uow, extra ? extra : json_object_new_object()); /* freed on every path */
	if (o->email == NULL || name == NULL)
		return fail(uow, "an e-mail address and a name are required");
	if (!user_email_is_valid(o->email))
		return fail(uow, "invalid e-mail address");
	name = arena_strip(&uow->arena, name); /* as the API strips a full name */
	if (user_check_full_name(uow, name) < 0 || (o->bot && user_check_bot_name_available(uow, realm->id, name) < 0))
		return fail(uow, "invalid name");
	struct user_new spec = {.email = o->email,
	                        .full_name = name,
	                        .role = role,
	                        .password = o->password,
	                        .bot_type = o->bot ? BOT_GENERIC : 0};
	int64_t id = user_create(uow, realm->id, &spec);
	if (id == 0)
		return fail(uow, "could not create the user");
	if (o->can_create_users && DB_EXEC(uow, &st_grant, db_arg_int(uow, id)) == NULL)
		return fail(uow, "could not grant can_create_users");
	const char *key = user_issue_api_key(uow, id);
	if (key == NULL || db_commit(uow) < 0)
		return fail(uow, "could not create the user");
	json_object_object_add(out, "user_id", json_object_new_int64(id));
	json_object_object_add(out, "email", json_object_new_string(o->email));
	json_object_object_add(out, "api_key", json_object_new_string(key));
	print(json_object_get(out));
	return 0;
}

static struct db_stmt st_create_realm = DB_STMT("SELECT confab_create_realm($1, $2)");

static int cmd_create_realm(struct uow *uow, struct opts *o)
{
	if (o->subdomain == NULL || o->name == NULL || o->owner_name == NULL || o->email == NULL)
		return fail(uow, "--subdomain, --name, --owner-email and --owner-name are required");
	for (const char *p = o->subdomain; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return fail(uow, "the subdomain may only contain lowercase letters, digits and hyphens");
	if (db_begin(uow) < 0)
		return fail(uow, "could not start a transaction");
	if (realm_by_subdomain(uow, o->subdomain) != NULL)
		return fail(uow, "an organization with that subdomain exists already");
	struct db_res *res = DB_EXEC(uow, &st_create_realm, o->subdomain, o->name);
	if (res == NULL)
		return fail(uow, "could not create the organization");
	struct realm *realm = realm_by_subdomain(uow, o->subdomain);
	if (realm == NULL)
		return fail(uow, "could not create the organization");
	json_object *out = json_object_new_object();
	json_object_object_add(out, "realm_id", json_object_new_int64(realm->id));
	json_object_object_add(out, "subdomain", json_object_new_string(realm->subdomain));
	json_object_object_add(out, "url", json_object_new_string(realm_url(uow, realm)));
	return create_user(uow, realm, o, o->owner_name, ROLE_OWNER, out);
}

static struct realm *find_realm(struct uow *uow, const char *subdomain)
{
	if (subdomain == NULL) {
		uow_error(uow, ERR_BAD_REQUEST, "--realm is required");
		return NULL;
	}
	struct realm *r = realm_by_subdomain(uow, subdomain);
	if (r == NULL && uow->error == ERR_NONE)
		uow_error(uow, ERR_BAD_REQUEST, "no organization has the subdomain \"%s\"", subdomain);
	return r;
}

static struct user *find_user(struct uow *uow, const struct realm *realm, const char *email)
{
	if (email == NULL) {
		uow_error(uow, ERR_BAD_REQUEST, "--email is required");
		return NULL;
	}
	struct user *u = user_by_email(uow, realm->id, email);
	if (u == NULL && uow->error == ERR_NONE)
		uow_error(uow, ERR_BAD_REQUEST, "no user has the e-mail address \"%s\"", email);
	return u;
}

static int cmd_create_user(struct uow *uow, struct opts *o)
{
	int role = parse_role(o->role);
	if (role == 0)
		return fail(uow, "--role must be owner, admin, moderator, member, guest or 100..600");
	if (db_begin(uow) < 0)
		return fail(uow, "could not start a transaction");
	struct realm *realm = find_realm(uow, o->subdomain);
	return realm ? create_user(uow, realm, o, o->name, role, NULL) : fail(uow, "");
}

static int cmd_reset_api_key(struct uow *uow, struct opts *o)
{
	struct realm *realm;
	struct user *u;
	const char *key;
	if (db_begin(uow) < 0 || (realm = find_realm(uow, o->subdomain)) == NULL ||
	    (u = find_user(uow, realm, o->email)) == NULL || (key = user_reset_api_key(uow, u->id)) == NULL ||
	    db_commit(uow) < 0)
		return fail(uow, "could not reset the API key");
	json_object *out = json_object_new_object();
	json_object_object_add(out, "user_id", json_object_new_int64(u->id));
	json_object_object_add(out, "email", json_object_new_string(u->delivery_email));
	json_object_object_add(out, "api_key", json_object_new_string(key));
	print(out);
	return 0;
}

static struct db_stmt st_deactivate = DB_STMT("UPDATE users SET is_active = false WHERE id = $1");

static int cmd_deactivate_user(struct uow *uow, struct opts *o)
{
	struct realm *realm;
	struct user *u;
	if (db_begin(uow) < 0 || (realm = find_realm(uow, o->subdomain)) == NULL ||
	    (u = find_user(uow, realm, o->email)) == NULL ||
	    DB_EXEC(uow, &st_deactivate, db_arg_int(uow, u->id)) == NULL || db_commit(uow) < 0)
		return fail(uow, "could not deactivate the user");
	json_object *out = json_object_new_object();
	json_object_object_add(out, "user_id", json_object_new_int64(u->id));
	json_object_object_add(out, "email", json_object_new_string(u->delivery_email));
	json_object_object_add(out, "is_active", json_object_new_boolean(0));
	print(out);
	return 0;
}

static int cmd_show_realm(struct uow *uow, struct opts *o)
{
	struct realm *realm = find_realm(uow, o->subdomain);
	if (realm == NULL)
		return fail(uow, "");
	json_object *out = json_object_new_object();
	json_object_object_add(out, "realm_id", json_object_new_int64(realm->id));
	json_object_object_add(out, "subdomain", json_object_new_string(realm->subdomain));
	json_object_object_add(out, "name", json_object_new_string(realm->name));
	json_object_object_add(out, "url", json_object_new_string(realm_url(uow, realm)));
	json_object_object_add(out, "deactivated", json_object_new_boolean(realm->deactivated));
	print(out);
	return 0;
}

static struct db_stmt st_set_quota =
    DB_STMT("UPDATE realms SET custom_upload_quota_gb = $2 WHERE id = $1 RETURNING custom_upload_quota_gb");

/* realms.custom_upload_quota_gb (NULL for "default"): {"realm_id": id, "upload_quota_gb": n|null}. */
static int cmd_set_upload_quota(struct uow *uow, struct opts *o)
{
	char *end = NULL;
	long gb = o->gb ? strtol(o->gb, &end, 10) : -1;
	bool is_default = o->gb && strcmp(o->gb, "default") == 0;
	if (!is_default && (o->gb == NULL || *end != '\0' || gb < 0 || gb > 1000000000)) {
		fputs(usage, stderr);
		return 2;
	}
	struct realm *realm = find_realm(uow, o->subdomain);
	struct db_res *res = NULL;
	if (realm == NULL || (res = DB_EXEC(uow, &st_set_quota, db_arg_int(uow, realm->id),
	                                    is_default ? NULL : db_arg_int(uow, gb))) == NULL)
		return fail(uow, "could not set the upload quota");
	json_object *out = json_object_new_object();
	json_object_object_add(out, "realm_id", json_object_new_int64(realm->id));
	json_object_object_add(out, "upload_quota_gb",
	                       db_null(res, 0, 0) ? NULL : json_object_new_int64(db_int(res, 0, 0)));
	print(out);
	return 0;
}

/* Message retention once, as the reaper runs it: {"deleted": n}. */
static int cmd_retention_run(struct worker *w)
{
	long n = retention_run(w, 1);
	if (n < 0) {
		fputs("confabctl: message retention failed (see the log)\n", stderr);
		return 1;
	}
	json_object *out = json_object_new_object();
	json_object_object_add(out, "deleted", json_object_new_int64(n));
	print(out);
	return 0;
}

static struct db_stmt st_mail_state = DB_STMT(
    "SELECT sent_at IS NOT NULL, failed_at IS NOT NULL, COALESCE(last_error, '') FROM mail_outbox WHERE id = $1");

/*
 * A test mail to o->email through the outbox, as invitations go: waits up to 30 s for the reaper's mailer and prints
 * {"mail_id": id, "sent": true} or {"mail_id": id, "sent": false, "last_error": "..."} (exit status 1).
 */
static int cmd_send_test_mail(struct uow *uow, struct opts *o)
{
	if (o->email == NULL) {
		fputs(usage, stderr);
		return 2;
	}
	struct mail_draft m = {.to = o->email,
	                       .subject = "Test mail from confab",
	                       .text = "This is a test mail sent by confabctl send-test-mail.\n",
	                       .html = "<p>This is a test mail sent by <code>confabctl send-test-mail</code>.</p>\n"};
	int64_t id = mail_enqueue(uow, &m);
	if (id == 0)
		return fail(uow, "");
	struct db_res *res = NULL;
	for (int i = 0; i < 150; i++) {
		nanosleep(&(struct timespec){0, 200000000L}, NULL);
		res = DB_EXEC(uow, &st_mail_state, db_arg_int(uow, id));
		if (res == NULL || db_bool(res, 0, 0) || db_bool(res, 0, 1) || *db_val(res, 0, 2) != '\0')
			break;
	}
	if (res == NULL)
		return fail(uow, "");
	json_object *out = json_object_new_object();
	json_object_object_add(out, "mail_id", json_object_new_int64(id));
	json_object_object_add(out, "sent", json_object_new_boolean(db_bool(res, 0, 0)));
	if (!db_bool(res, 0, 0))
		json_object_object_add(out, "last_error", json_object_new_string(db_val(res, 0, 2)));
	print(out);
	return db_bool(res, 0, 0) ? 0 : 1;
}

/* The build, from the compiler's own view (__OPTIMIZE__) and configure's flags; needs no configuration. */
static int cmd_version(void)
{
	json_object *out = json_object_new_object();
	json_object_object_add(out, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(out, "build", json_object_new_string(CONFAB_BUILD_MODE));
	json_object_object_add(out, "cflags", json_object_new_string(CONFAB_BUILD_CFLAGS));
#ifdef __OPTIMIZE__
	json_object_object_add(out, "optimized", json_object_new_boolean(1));
#else
	json_object_object_add(out, "optimized", json_object_new_boolean(0));
#endif
	print(out);
	return 0;
}

/* The options after the command into *o; -1 on an unknown option or a bad number. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"subdomain", required_argument, NULL, 's'},
	    {"realm", required_argument, NULL, 's'},
	    {"name", required_argument, NULL, 'N'},
	    {"owner-name", required_argument, NULL, 'n'},
	    {"email", required_argument, NULL, 'e'},
	    {"owner-email", required_argument, NULL, 'e'},
	    {"password", required_argument, NULL, 'p'},
	    {"role", required_argument, NULL, 'r'},
	    {"bot", no_argument, NULL, 'b'},
	    {"can-create-users", no_argument, NULL, 'C'},
	    {"url", required_argument, NULL, 'u'},
	    {"warning", required_argument, NULL, 'w'},
	    {"critical", required_argument, NULL, 'c'},
	    {"timeout", required_argument, NULL, 't'},
	    {"prometheus", no_argument, NULL, 'P'},
	    {"gb", required_argument, NULL, 'g'},
	    {NULL, 0, NULL, 0},
	};
	optind = 2;
	for (int c; (c = getopt_long(argc, argv, "", longopts, NULL)) != -1;) {
		char *end = NULL;
		switch (c) {
		case 's': o->subdomain = o->probe.subdomain = optarg; break;
		case 'N': o->name = optarg; break;
		case 'n': o->owner_name = optarg; break;
		case 'e': o->email = optarg; break;
		case 'p': o->password = optarg; break;
		case 'r': o->role = optarg; break;
		case 'b': o->bot = true; break;
		case 'C': o->can_create_users = true; break;
		case 'u': o->probe.url = optarg; break;
		case 'w': o->probe.warning_ms = strtod(optarg, &end); break;
		case 'c': o->probe.critical_ms = strtod(optarg, &end); break;
		case 't': o->probe.timeout_s = strtod(optarg, &end); break;
		case 'P': o->probe.prometheus = true; break;
		case 'g': o->gb = optarg; break;
		default: return -1;
		}
		if (end != NULL && (end == optarg || *end != '\0'))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *config_path = NULL;
	if (argc > 2 && strcmp(argv[1], "-c") == 0) {
		config_path = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "version") == 0)
		return cmd_version();
	struct opts o = {.probe = {.warning_ms = 1000, .critical_ms = 5000, .timeout_s = 10}};
	if (parse_opts(argc, argv, &o) < 0) {
		fputs(usage, stderr);
		return strcmp(cmd, "probe") == 0 ? 3 : 2;
	}
	struct config cfg;
	char err[512];
	if (config_load(&cfg, config_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "confabctl: %s\n", err);
		config_free(&cfg);
		return strcmp(cmd, "probe") == 0 ? 3 : 1; /* UNKNOWN to a Nagios plugin */
	}
	if (crypto_init() < 0) {
		fprintf(stderr, "confabctl: could not initialize libsodium\n");
		config_free(&cfg);
		return 1;
	}
	struct worker w = {.cfg = &cfg,
	                   .db = db_pool_new(cfg.pg_conninfo, 1, cfg.pg_prepared_statements),
	                   .redis = redis_pool_new(&cfg)};
	struct uow uow;
	uow_init(&uow, &w, 1);
	int rc;
	if (strcmp(cmd, "migrate") == 0) {
		rc = cmd_migrate(&uow);
	} else if (strcmp(cmd, "create-realm") == 0) {
		rc = cmd_create_realm(&uow, &o);
	} else if (strcmp(cmd, "create-user") == 0) {
		rc = cmd_create_user(&uow, &o);
	} else if (strcmp(cmd, "reset-api-key") == 0) {
		rc = cmd_reset_api_key(&uow, &o);
	} else if (strcmp(cmd, "deactivate-user") == 0) {
		rc = cmd_deactivate_user(&uow, &o);
	} else if (strcmp(cmd, "show-realm") == 0) {
		rc = cmd_show_realm(&uow, &o);
	} else if (strcmp(cmd, "set-upload-quota") == 0) {
		rc = cmd_set_upload_quota(&uow, &o);
	} else if (strcmp(cmd, "retention-run") == 0) {
		rc = cmd_retention_run(&w);
	} else if (strcmp(cmd, "send-test-mail") == 0) {
		rc = cmd_send_test_mail(&uow, &o);
	} else if (strcmp(cmd, "probe") == 0) {
		rc = probe_run(&uow, &o.probe);
	} else {
		fputs(usage, stderr);
		rc = 2;
	}
	uow_finish(&uow);
	db_pool_free(w.db);
	redis_pool_free(w.redis);
	config_free(&cfg);
	return rc;
}
