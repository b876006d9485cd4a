# shellcheck shell=bash
# Shared functions for scripts/up, scripts/down and scripts/test.
# Source it, then call cf_init STATE_DIR. Everything runs as root on Debian 12 without systemd:
# PostgreSQL (own cluster), Redis, two spawn-fcgi worker groups, the reaper and nginx, all with
# their sockets, pid files and logs under the state directory. Each worker group and the reaper run
# under confab-supervise, which replaces a process that dies (with a backoff, never giving up) and takes
# its processes with it when it dies itself (conf/systemd/ has the same layout for production).
#
# Users (docs/OPERATIONS.md "Local users"): the workers, the reaper and pgbouncer run as the user confab
# (CF_SVC_USER), not as the web server's www-data, which every other site on the machine shares. nginx's and
# Apache's workers run as www-data with the group confab-web (CF_WEB_GROUP), which no user has: that group, and
# no other local user, opens the FastCGI sockets and reads the uploads (mode 2750/0640). PostgreSQL has no TCP
# listener and authenticates by peer on its socket (confab and root as the role confab, which owns only its
# database; root and postgres as postgres); Redis runs as user redis with group confab on a socket of mode 0770
# in a directory of mode 0750, so of the local users only confab (and root) can open it. Logs are the writer's,
# mode 0640 (the log directory 0711); mails of the SMTP sink are root's, 0600 in a 0700 directory.
#
# Layout of a state directory:
#   confab.conf        configuration for worker, reaper and confabctl (regenerated at every start)
#   conf/              generated nginx.conf, nginx-site.conf, redis.conf
#   run/               pid files and sockets (run/pg: PostgreSQL's socket directory, run/redis: Redis's)
#   log/               logs (log/asan: sanitizer reports, when the caller sets ASAN_OPTIONS log_path)
#   pg/data            PostgreSQL cluster;  redis/  Redis working dir;  nginx/  nginx prefix and temp dirs
#   uploads/           upload_dir (confab:confab-web, 2750; files 0640)
#   mail/              the SMTP sink's mails (root, 0700)

CF_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

CF_PACKAGES=(
    build-essential autoconf automake libtool pkg-config libfcgi-dev spawn-fcgi libpq-dev
    libjson-c-dev libhiredis-dev libcunit1-dev libsodium-dev libcurl4-openssl-dev nginx
    postgresql redis-server curl wrk libcmark-gfm-dev libcmark-gfm-extensions-dev libpcre2-dev libre2-dev libutf8proc-dev
    clang libclang-rt-14-dev tzdata python3-jsonschema python3-aiosmtpd chromium
    apache2 libapache2-mod-xsendfile
)
# scripts/test rotates the stack's logs with conf/logrotate/confab.
CF_PACKAGES+=(logrotate)
CF_WWW_USER=www-data     # the web server's user (nginx, Apache), shared with the machine's other sites
CF_WEB_GROUP=confab-web  # the web server's workers' group for this stack only: FastCGI sockets, uploads
CF_SVC_USER=confab       # workers, reaper, pgbouncer
CF_REDIS_USER=redis

cf_log() { printf '==> %s\n' "$*" >&2; }
cf_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

cf_require_root() {
    [ "$(id -u)" -eq 0 ] || cf_die "run as root (PostgreSQL runs as postgres, workers as confab)"
}

# The service's user and the web server's group (system accounts, no login), created when missing.
cf_users() {
    getent group "$CF_WEB_GROUP" >/dev/null || groupadd --system "$CF_WEB_GROUP"
    id -u "$CF_SVC_USER" >/dev/null 2>&1 ||
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
            "$CF_SVC_USER"
}

# cf_as_svc COMMAND...: COMMAND as the service's user, with its groups.
cf_as_svc() { (cd / && setpriv --reuid="$CF_SVC_USER" --regid="$CF_SVC_USER" --init-groups -- "$@"); }

# ---------------------------------------------------------------------------------------------
# Packages

# Install the packages that are missing; does nothing (and needs no network) when all are there.
cf_install_packages() {
    local p missing=()
    for p in "${CF_PACKAGES[@]}"; do
        if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != installed ]; then
            missing+=("$p")
        fi
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    cf_log "installing ${missing[*]}"
    (
        # Keep the packages' postinst scripts from starting services (exit 101 = action forbidden).
        local policy=/usr/sbin/policy-rc.d backup=
        if [ -e "$policy" ]; then backup=$(mktemp); cp -p "$policy" "$backup"; fi
        trap 'if [ -n "$backup" ]; then mv -f "$backup" "$policy"; else rm -f "$policy"; fi' EXIT
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        apt-get install -y -q --no-install-recommends "${missing[@]}"
    )
}

# cf_js_deps DIR: `npm ci` in DIR (tests/js: the zulip-js client the integration tests drive), installing
# Debian's nodejs and npm first where no npm is on the PATH.
cf_js_deps() {
    if ! command -v npm >/dev/null 2>&1; then
        local CF_PACKAGES=(nodejs npm)
        cf_install_packages
    fi
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || cf_die "npm ci in $1 failed"
}

# ---------------------------------------------------------------------------------------------
# Build modes of scripts/up

# cf_configure_args release|debug: the ./configure arguments of scripts/up's build (one a line). release is
# -O2 -g with -Werror (what production runs), debug is -O0 -g3 (scripts/up --debug). scripts/test checks both.
cf_configure_args() {
    case "$1" in
    release) ;;
    debug) echo --enable-debug ;;
    *) cf_die "unknown build mode '$1' (release or debug)" ;;
    esac
}

# ---------------------------------------------------------------------------------------------
# Small helpers

# cf_wait SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds; fail after SECONDS.
cf_wait() {
    local n=$(($1 * 10))
    shift
    until "$@"; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.1
    done
}

# True if something listens on TCP port $1 (IPv4 or IPv6; TIME_WAIT leftovers do not count).
cf_port_in_use() {
    local hex f files=()
    hex=$(printf ':%04X' "$1")
    for f in /proc/net/tcp /proc/net/tcp6; do [ -r "$f" ] && files+=("$f"); done
    awk -v h="$hex" 'FNR > 1 && $4 == "0A" && substr($2, length($2) - 4) == h { found = 1 }
        END { exit !found }' "${files[@]}"
}

# cf_free_port [PORT_TO_AVOID...]: print a free TCP port below the ephemeral range (20000-31999).
cf_free_port() {
    local tries=200 port
    while [ "$tries" -gt 0 ]; do
        tries=$((tries - 1))
        port=$((20000 + RANDOM % 12000))
        [[ " $* " == *" $port "* ]] && continue
        cf_port_in_use "$port" || { echo "$port"; return 0; }
    done
    cf_die "no free TCP port found"
}

# Alive and not a zombie (PID 1 here is not a classic init: exited daemons linger as <defunct>).
cf_pid_alive() {
    local state
    state=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# cf_pid_is PID NAME: PID is alive and its command line mentions NAME (guards against stale pid files).
cf_pid_is() {
    local cmd
    [[ $1 =~ ^[0-9]+$ ]] || return 1
    cf_pid_alive "$1" || return 1
    cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 1
    [[ $cmd == *"$2"* ]]
}

cf_all_gone() {
    local p
    for p in "$@"; do cf_pid_alive "$p" && return 1; done
    return 0
}

# cf_stop_pids NAME SIGNAL SECONDS PID...: signal the PIDs that are NAME, wait SECONDS, then KILL.
cf_stop_pids() {
    local name=$1 sig=$2 secs=$3 p live=()
    shift 3
    for p in "$@"; do cf_pid_is "$p" "$name" && live+=("$p"); done
    [ "${#live[@]}" -eq 0 ] && return 0
    kill -s "$sig" "${live[@]}" 2>/dev/null || true
    cf_wait "$secs" cf_all_gone "${live[@]}" && return 0
    cf_log "$name (${live[*]}) still running after ${secs}s: sending KILL"
    kill -s KILL "${live[@]}" 2>/dev/null || true
    cf_wait 5 cf_all_gone "${live[@]}" || { cf_log "could not stop $name (${live[*]})"; return 1; }
}

# cf_stop_pidfile NAME SIGNAL SECONDS FILE: cf_stop_pids on the PIDs in FILE (one a line), then remove FILE.
cf_stop_pidfile() {
    local pids=()
    [ -f "$4" ] || return 0
    mapfile -t pids <"$4"
    cf_stop_pids "$1" "$2" "$3" "${pids[@]}" || return 1
    rm -f "$4"
}

# Create FILE (if missing) writable by the service's user only (a log: it may name users and addresses).
cf_touch_svc() {
    [ -e "$1" ] || install -m 0640 /dev/null "$1"
    chown "$CF_SVC_USER:$CF_SVC_USER" "$1"
    chmod 0640 "$1"
}

# Print the value of "FIELD" (string or number) in the one-line JSON object read from stdin.
cf_json_field() {
    sed -n 's/.*"'"$1"'"[[:space:]]*:[[:space:]]*"\{0,1\}\([^",}]*\).*/\1/p' | head -n 1
}

# cf_wait_http URL SECONDS [STATUS]: wait until URL answers with STATUS (default: any HTTP status).
cf_wait_http() {
    local url=$1 secs=$2 want=${3:-} n code
    n=$((secs * 10))
    while :; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)
        if [ -n "$want" ]; then [ "$code" = "$want" ] && return 0
        else [ -n "$code" ] && [ "$code" != 000 ] && return 0; fi
        n=$((n - 1))
        [ "$n" -gt 0 ] || { cf_log "$url: no${want:+ $want} answer after ${secs}s (last status: $code)"; return 1; }
        sleep 0.1
    done
}

# ---------------------------------------------------------------------------------------------
# State directory

# cf_init STATE_DIR: set the paths. Callers may set these before cf_stack_start:
#   CF_BIN_DIR (dir of confab-worker, confab-reaper, confabctl; default REPO/src),
#   CF_MIGRATIONS_DIR (default REPO/migrations), CF_HTTP_PORT (required), CF_PG_PORT (default: free port),
#   CF_PG_DURABLE (1; 0 turns fsync off for throwaway test clusters), CF_PG_EXTRA (more postgresql.conf lines),
#   CF_API_PROCS / CF_API_THREADS / CF_EVENTS_PROCS / CF_EVENTS_THREADS (worker groups), CF_REDIS_MAXMEMORY
#   (Redis's maxmemory, default 512mb).
cf_init() {
    mkdir -p "$1"
    CF_STATE=$(cd "$1" && pwd)
    CF_RUN=$CF_STATE/run
    CF_LOG=$CF_STATE/log
    CF_CONF=$CF_STATE/confab.conf
    CF_PGDATA=$CF_STATE/pg/data
    CF_PGSOCK=$CF_RUN/pg
    CF_REDIS_DIR=$CF_RUN/redis
    CF_REDIS_SOCK=$CF_REDIS_DIR/redis.sock
    CF_PGB_DIR=$CF_RUN/pgbouncer
    CF_API_SOCK=$CF_RUN/api.sock
    CF_EVENTS_SOCK=$CF_RUN/events.sock
    CF_UPLOAD_DIR=$CF_STATE/uploads
    CF_MAIL_DIR=$CF_STATE/mail
    CF_BIN_DIR=${CF_BIN_DIR:-$CF_REPO/src}
    CF_MIGRATIONS_DIR=${CF_MIGRATIONS_DIR:-$CF_REPO/migrations}
    CF_PG_DURABLE=${CF_PG_DURABLE:-1}
    CF_API_PROCS=${CF_API_PROCS:-2}
    CF_API_THREADS=${CF_API_THREADS:-${CONFAB_THREADS:-16}}
    CF_EVENTS_PROCS=${CF_EVENTS_PROCS:-2}
    CF_EVENTS_THREADS=${CF_EVENTS_THREADS:-1000}
}

# postgres, confab and the web server must traverse the state dir; confab writes its logs and the uploads, which
# only the web server's group reads (and the log directory lists nothing: each log is its writer's, 0640).
cf_layout() {
    mkdir -p "$CF_STATE/conf" "$CF_STATE/nginx/tmp"
    chmod 755 "$CF_STATE"
    install -d -m 755 "$CF_RUN"
    install -d -m 711 "$CF_LOG"
    install -d -m 1777 "$CF_LOG/asan"
    cf_uploads_layout
    local u
    for u in postgres "$CF_SVC_USER" "$CF_WWW_USER"; do
        setpriv --reuid="$u" --regid="$u" --init-groups -- test -x "$CF_STATE" ||
            cf_die "$u cannot reach $CF_STATE (a parent directory is not traversable): use another state dir"
    done
}

# upload_dir: confab's, readable by the web server's group (nginx's X-Accel-Redirect, Apache's X-Sendfile send the
# files), by no other user. setgid: the directories and files the workers create get that group (and the workers
# create them 0750/0640). Files of an older stack (www-data's, 0644 in 0755) are taken over.
cf_uploads_layout() {
    install -d -o "$CF_SVC_USER" -g "$CF_WEB_GROUP" -m 2750 "$CF_UPLOAD_DIR"
    chown -R "$CF_SVC_USER:$CF_WEB_GROUP" "$CF_UPLOAD_DIR"
    find "$CF_UPLOAD_DIR" -mindepth 1 -type d ! -perm 2750 -exec chmod 2750 {} +
    find "$CF_UPLOAD_DIR" -type f ! -perm 0640 -exec chmod 0640 {} +
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL

cf_pg_bin() {
    local v d
    if [ -f "$CF_PGDATA/PG_VERSION" ]; then
        v=$(cat "$CF_PGDATA/PG_VERSION")
        [ -x "/usr/lib/postgresql/$v/bin/pg_ctl" ] && { echo "/usr/lib/postgresql/$v/bin"; return 0; }
    fi
    d=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    [ -x "$d/pg_ctl" ] || cf_die "no PostgreSQL server binaries under /usr/lib/postgresql"
    echo "$d"
}

cf_as_postgres() { (cd / && runuser -u postgres -- "$@"); }

cf_pg_running() {
    [ -f "$CF_PGDATA/PG_VERSION" ] && cf_as_postgres "$(cf_pg_bin)/pg_ctl" -D "$CF_PGDATA" status >/dev/null 2>&1
}

# As the superuser postgres (root may connect as postgres: see cf_pg_auth).
cf_psql() {
    "$(cf_pg_bin)/psql" -h "$CF_PGSOCK" -p "$CF_PG_PORT" -U postgres -d postgres -qAtX -v ON_ERROR_STOP=1 "$@"
}

# Peer authentication on the socket only (there is no TCP listener): the service's user (workers, reaper,
# pgbouncer) and root connect as confab, root and postgres as postgres, nobody else at all (www-data neither).
# Rewritten at every start, so that a cluster initialized by an older version (trust) is locked too.
cf_pg_auth() {
    cat >"$CF_PGDATA/pg_hba.conf" <<EOF
# written by scripts/lib.sh at every start
# TYPE  DATABASE  USER      METHOD
local   all       postgres  peer map=admin
local   all       confab    peer map=confab
EOF
    cat >"$CF_PGDATA/pg_ident.conf" <<EOF
# written by scripts/lib.sh at every start
# MAP   SYSTEM-USER  PG-USER
admin   postgres     postgres
admin   root         postgres
confab  $CF_SVC_USER       confab
confab  root         confab
EOF
    chown postgres:postgres "$CF_PGDATA/pg_hba.conf" "$CF_PGDATA/pg_ident.conf"
    chmod 600 "$CF_PGDATA/pg_hba.conf" "$CF_PGDATA/pg_ident.conf"
}

# Start the cluster (initdb on first use) on CF_PG_PORT; settings live in confab-stack.conf.
cf_pg_start() {
    local bin
    bin=$(cf_pg_bin)
    install -d -o postgres -g postgres -m 700 "$CF_STATE/pg"
    install -d -o postgres -g postgres -m 755 "$CF_PGSOCK"
    [ -e "$CF_LOG/pg.log" ] || install -o postgres -g postgres -m 640 /dev/null "$CF_LOG/pg.log"
    if [ ! -f "$CF_PGDATA/PG_VERSION" ]; then
        cf_log "initdb $CF_PGDATA ($bin)"
        cf_as_postgres "$bin/initdb" -D "$CF_PGDATA" -U postgres --auth-local=peer --auth-host=reject -E UTF8 \
            --locale=C.UTF-8 \
            >"$CF_LOG/initdb.log" 2>&1 || { cat "$CF_LOG/initdb.log" >&2; return 1; }
        echo "include_if_exists = 'confab-stack.conf'" >>"$CF_PGDATA/postgresql.conf"
    fi
    {
        echo "# written by scripts/lib.sh at every start"
        echo "listen_addresses = ''"
        echo "port = $CF_PG_PORT"
        echo "unix_socket_directories = '$CF_PGSOCK'"
        echo "max_connections = 200"
        if [ "$CF_PG_DURABLE" = 0 ]; then
            echo "fsync = off"
            echo "synchronous_commit = off"
            echo "full_page_writes = off"
        fi
        [ -z "${CF_PG_EXTRA:-}" ] || printf '%s\n' "$CF_PG_EXTRA"
    } >"$CF_PGDATA/confab-stack.conf"
    chown postgres:postgres "$CF_PGDATA/confab-stack.conf"
    cf_pg_auth
    cf_log "PostgreSQL on $CF_PGSOCK (port $CF_PG_PORT, no TCP)"
    cf_as_postgres "$bin/pg_ctl" -D "$CF_PGDATA" -l "$CF_LOG/pg.log" -w -t 60 start >/dev/null ||
        { tail -n 20 "$CF_LOG/pg.log" >&2; return 1; }
}

# Role and database "confab" (idempotent). The role owns its database and has no other privilege.
cf_pg_bootstrap() {
    [ "$(cf_psql -c "SELECT 1 FROM pg_roles WHERE rolname = 'confab'")" = 1 ] ||
        cf_psql -c "CREATE ROLE confab LOGIN"
    cf_psql -c "ALTER ROLE confab NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
    [ "$(cf_psql -c "SELECT 1 FROM pg_database WHERE datname = 'confab'")" = 1 ] ||
        cf_psql -c "CREATE DATABASE confab OWNER confab"
}

cf_pg_stop() {
    cf_pg_running || return 0
    cf_as_postgres "$(cf_pg_bin)/pg_ctl" -D "$CF_PGDATA" -m fast -w -t 60 stop >/dev/null
}

# Same port and settings (they are in the data dir); used by the integration tests.
cf_pg_restart() {
    cf_as_postgres "$(cf_pg_bin)/pg_ctl" -D "$CF_PGDATA" -l "$CF_LOG/pg.log" -m fast -w -t 60 restart >/dev/null
}

# ---------------------------------------------------------------------------------------------
# pgbouncer (CF_PGBOUNCER=1): Debian's pgbouncer in pool_mode = transaction between every confab program (workers,
# reaper, confabctl) and PostgreSQL; they then run with pg_prepared_statements = off. It runs as the service's user
# (PostgreSQL's peer authentication maps it to the role confab) without a TCP listener; its socket is in
# run/pgbouncer/ (mode 0750, the service user's), so of the local users only confab and root open it, and it
# trusts whoever gets there (auth_type = trust for the users of conf/pgbouncer.users). Its admin console (database
# and user pgbouncer) answers SHOW STATS, SHOW POOLS... (cf_pgbouncer_admin). CF_PG_PREPARED=on keeps named
# statements through it, which breaks (the manual check of docs/OPERATIONS.md, "pgbouncer").

CF_PGB_PORT=6432

# The conninfo of the confab programs: pgbouncer's socket with CF_PGBOUNCER=1, else PostgreSQL's.
cf_pg_conninfo() {
    if [ "${CF_PGBOUNCER:-0}" = 1 ]; then
        echo "host=$CF_PGB_DIR port=$CF_PGB_PORT dbname=confab user=confab"
    else
        echo "host=$CF_PGSOCK port=$CF_PG_PORT dbname=confab user=confab"
    fi
}

# The confab.conf lines of the pooler (none without it).
cf_pgbouncer_config_lines() {
    [ "${CF_PGBOUNCER:-0}" = 1 ] || return 0
    echo "pg_prepared_statements = ${CF_PG_PREPARED:-off}"
    echo "pg_listen_conninfo = host=$CF_PGSOCK port=$CF_PG_PORT dbname=confab user=confab"
}

cf_pgbouncer_start() {
    [ "${CF_PGBOUNCER:-0}" = 1 ] || return 0
    command -v pgbouncer >/dev/null || { local CF_PACKAGES=(pgbouncer); cf_install_packages; }
    install -d -o "$CF_SVC_USER" -g "$CF_SVC_USER" -m 750 "$CF_PGB_DIR"
    cf_touch_svc "$CF_LOG/pgbouncer.log"
    printf '"confab" ""\n"pgbouncer" ""\n' >"$CF_STATE/conf/pgbouncer.users"
    # default_pool_size: more than the stack's clients (2 x 4 + 2 x 4 workers, 2 for the reaper, confabctl), so that
    # no request waits for a server connection; server_login_retry: back within a second of a PostgreSQL restart
    # (the default waits 15 s after a failed connection).
    cat >"$CF_STATE/conf/pgbouncer.ini" <<PGB
; written by scripts/lib.sh at every start
[databases]
confab = host=$CF_PGSOCK port=$CF_PG_PORT dbname=confab user=confab
[pgbouncer]
listen_addr =
listen_port = $CF_PGB_PORT
unix_socket_dir = $CF_PGB_DIR
unix_socket_mode = 0777
pidfile = $CF_PGB_DIR/pgbouncer.pid
logfile = $CF_LOG/pgbouncer.log
auth_type = trust
auth_file = $CF_STATE/conf/pgbouncer.users
admin_users = pgbouncer
pool_mode = transaction
default_pool_size = ${CF_PGB_POOL_SIZE:-24}
max_client_conn = 1000
server_login_retry = 1
query_wait_timeout = 60
stats_period = 1
PGB
    chmod 644 "$CF_STATE/conf/pgbouncer.ini" "$CF_STATE/conf/pgbouncer.users"
    cf_log "pgbouncer (pool_mode = transaction) on $CF_PGB_DIR (port $CF_PGB_PORT, no TCP)"
    cf_as_svc pgbouncer -d -q "$CF_STATE/conf/pgbouncer.ini" ||
        { tail -n 20 "$CF_LOG/pgbouncer.log" >&2; cf_die "pgbouncer did not start"; }
    cf_wait 10 cf_pgbouncer_ping || { tail -n 20 "$CF_LOG/pgbouncer.log" >&2; cf_die "pgbouncer does not answer"; }
}

# cf_pgbouncer_admin SQL: runs SQL (SHOW STATS, SHOW POOLS...) on pgbouncer's admin console.
cf_pgbouncer_admin() {
    "$(cf_pg_bin)/psql" -h "$CF_PGB_DIR" -p "$CF_PGB_PORT" -U pgbouncer -d pgbouncer -qAtX -c "$1"
}

cf_pgbouncer_ping() { cf_pgbouncer_admin "SHOW VERSION" >/dev/null 2>&1; }

cf_pgbouncer_stop() { cf_stop_pidfile pgbouncer TERM 10 "$CF_PGB_DIR/pgbouncer.pid"; }

# ---------------------------------------------------------------------------------------------
# Redis (volatile; unix socket only). It runs as user redis with group confab: the socket (mode 0770, in a
# directory of mode 0750) is open to the service's user and root only.

cf_redis_ping() { [ "$(redis-cli -s "$CF_REDIS_SOCK" ping 2>/dev/null)" = PONG ]; }

cf_redis_start() {
    install -d -o "$CF_REDIS_USER" -g "$CF_REDIS_USER" -m 700 "$CF_STATE/redis"
    install -d -o "$CF_REDIS_USER" -g "$CF_SVC_USER" -m 750 "$CF_REDIS_DIR"
    [ -e "$CF_LOG/redis.log" ] || install -m 640 /dev/null "$CF_LOG/redis.log"
    chown "$CF_REDIS_USER:$CF_REDIS_USER" "$CF_LOG/redis.log"
    cat >"$CF_STATE/conf/redis.conf" <<EOF
# written by scripts/lib.sh
port 0
unixsocket $CF_REDIS_SOCK
unixsocketperm 770
daemonize yes
pidfile $CF_REDIS_DIR/redis.pid
logfile $CF_LOG/redis.log
dir $CF_STATE/redis
save ""
appendonly no
maxclients 19000
# A bound on the queues' memory (docs/OPERATIONS.md, "Redis"): past it Redis refuses writes (the request answers
# 503) and never evicts a key, which would cut a queue or forget what the outbox has published.
maxmemory ${CF_REDIS_MAXMEMORY:-512mb}
maxmemory-policy noeviction
EOF
    cf_log "Redis on $CF_REDIS_SOCK"
    (cd / && setpriv --reuid="$CF_REDIS_USER" --regid="$CF_SVC_USER" --clear-groups -- \
        redis-server "$CF_STATE/conf/redis.conf")
    cf_wait 10 cf_redis_ping || { tail -n 20 "$CF_LOG/redis.log" >&2; cf_die "Redis did not start"; }
}

# run/redis.pid: where versions before run/redis/ kept it.
cf_redis_stop() {
    cf_stop_pidfile redis-server TERM 10 "$CF_RUN/redis.pid" &&
        cf_stop_pidfile redis-server TERM 10 "$CF_REDIS_DIR/redis.pid"
}

cf_redis_restart() { cf_redis_stop && cf_redis_start; }

# ---------------------------------------------------------------------------------------------
# confab programs

# ---------------------------------------------------------------------------------------------
# SMTP sink (scripts/smtp-sink): every mail the stack sends lands in $CF_MAIL_DIR as one .eml file.

cf_smtp_running() { [ -n "${CF_SMTP_PORT:-}" ] && cf_port_in_use "$CF_SMTP_PORT"; }
# The mails hold invitation links and confirmation keys: root's only (0600 in 0700, older ones too).
cf_smtp_start() {
    CF_SMTP_PORT=${CF_SMTP_PORT:-$(cf_free_port "${CF_HTTP_PORT:-}" "${CF_PG_PORT:-}")}
    install -d -m 700 "$CF_MAIL_DIR"
    chmod 700 "$CF_MAIL_DIR"
    find "$CF_MAIL_DIR" -type f ! -perm 0600 -exec chmod 0600 {} +
    cf_log "SMTP sink on 127.0.0.1:$CF_SMTP_PORT, mails in $CF_MAIL_DIR"
    (umask 077 && exec setsid "$CF_REPO/scripts/smtp-sink" "$CF_SMTP_PORT" "$CF_MAIL_DIR" >>"$CF_LOG/smtp-sink.log" \
        2>&1 </dev/null) &
    echo $! >"$CF_RUN/smtp-sink.pid"
    cf_wait 10 cf_smtp_running || { tail -n 20 "$CF_LOG/smtp-sink.log" >&2; cf_die "the SMTP sink did not start"; }
}
cf_smtp_stop() { cf_stop_pidfile smtp-sink TERM 10 "$CF_RUN/smtp-sink.pid"; }

cf_write_config() {
    cf_touch_svc "$CF_LOG/confab.log"
    [ -n "${CF_METRICS_DIR:-}" ] || cf_metrics_layout
    cat >"$CF_CONF" <<EOF
# written by scripts/lib.sh at every start; see conf/confab.conf.example
pg_conninfo = $(cf_pg_conninfo)
$(cf_pgbouncer_config_lines)
redis_socket = $CF_REDIS_SOCK
threads = $CF_API_THREADS
log_file = $CF_LOG/confab.log
external_host = 127.0.0.1:$CF_HTTP_PORT
external_scheme = http
migrations_dir = $CF_MIGRATIONS_DIR
upload_dir = $CF_UPLOAD_DIR
max_body_bytes = 26214400
rate_limit_per_minute = ${CONFAB_RATE_LIMIT_PER_MINUTE:-200}
smtp_url = ${CF_SMTP_PORT:+smtp://127.0.0.1:$CF_SMTP_PORT}
metrics_dir = $CF_METRICS_DIR
EOF
    chmod 644 "$CF_CONF"
}

cf_ctl() { CONFAB_CONFIG=$CF_CONF "$CF_BIN_DIR/confabctl" "$@"; }

cf_migrate() {
    cf_log "migrate ($CF_MIGRATIONS_DIR)"
    cf_ctl migrate >>"$CF_LOG/migrate.log"
}

# The binaries are there and the service's user (created here when missing) can run them.
cf_check_binaries() {
    local b
    cf_users
    for b in confab-worker confab-reaper confab-supervise confabctl; do
        [ -x "$CF_BIN_DIR/$b" ] || cf_die "$CF_BIN_DIR/$b not found: build first"
    done
    cf_as_svc test -x "$CF_BIN_DIR/confab-worker" ||
        cf_die "$CF_SVC_USER cannot execute $CF_BIN_DIR/confab-worker (check the permissions of its parent dirs)"
}

# cf_children PID [NAME]: the pids of PID's child processes (whose command line mentions NAME), one a line.
cf_children() {
    local p
    for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        [ -z "${2:-}" ] || cf_pid_is "$p" "$2" && echo "$p"
    done
}

# cf_supervise NAME COMMAND...: run COMMAND, which execs confab-supervise, in the background in a session (and
# process group) of its own; its pid, the group's id, goes to run/NAME.pid, its output to log/NAME.out.
cf_supervise() {
    local name=$1
    shift
    [ -e "$CF_LOG/$name.out" ] || install -m 0640 /dev/null "$CF_LOG/$name.out"
    chmod 0640 "$CF_LOG/$name.out"
    setsid "$@" </dev/null >>"$CF_LOG/$name.out" 2>&1 &
    echo "$!" >"$CF_RUN/$name.pid"
    # Tests kill supervisors: no "Killed" notice from this shell's job table.
    disown "$!" 2>/dev/null || true
}

# cf_group_members PGID: the live confab processes of process group PGID, one a line.
cf_group_members() {
    local pid pg
    while read -r pid pg; do
        [ "$pg" = "$1" ] && cf_pid_is "$pid" confab- && echo "$pid"
    done < <(ps -e -o pid= -o pgid= 2>/dev/null)
    return 0
}

cf_group_gone() { [ -z "$(cf_group_members "$1")" ]; }

# cf_stop_supervised NAME SECONDS: stops the process group of run/NAME.pid (cf_supervise made it): TERM to its
# confab-supervise, which passes it on and exits when its processes have; or, when the supervisor is gone, TERM to
# what is left of the group. After SECONDS, KILL to the whole group. Nothing of the group survives, orphans
# included.
cf_stop_supervised() {
    local file=$CF_RUN/$1.pid secs=$2 pg
    [ -f "$file" ] || return 0
    pg=$(head -n 1 "$file")
    if [[ $pg =~ ^[0-9]+$ ]] && ! cf_group_gone "$pg"; then
        if cf_pid_is "$pg" confab-supervise; then kill -TERM "$pg" 2>/dev/null || true
        else kill -TERM -- "-$pg" 2>/dev/null || true; fi
        if ! cf_wait "$secs" cf_group_gone "$pg"; then
            cf_log "$1 (process group $pg) still running after ${secs}s: sending KILL"
            kill -KILL -- "-$pg" 2>/dev/null || true
            cf_wait 5 cf_group_gone "$pg" || { cf_log "could not stop $1 (process group $pg)"; return 1; }
        fi
    fi
    rm -f "$file"
}

# cf_supervisor_runs NAME PROG N: run/NAME.pid names a confab-supervise with N children PROG.
cf_supervisor_runs() {
    local pid
    pid=$(cat "$CF_RUN/$1.pid" 2>/dev/null) && cf_pid_is "$pid" confab-supervise &&
        [ "$(cf_children "$pid" "$2" | wc -l)" -eq "$3" ]
}

# The reaper as confab under confab-supervise (replaced when it dies); the supervisor's pid goes to run/reaper.pid.
cf_reaper_start() {
    cf_touch_svc "$CF_LOG/reaper.log"
    cf_touch_svc "$CF_LOG/reaper.out"
    rm -f "$CF_RUN/reaper.pid"
    cf_supervise reaper setpriv --reuid="$CF_SVC_USER" --regid="$CF_SVC_USER" --init-groups -- \
        env CONFAB_CONFIG="$CF_CONF" CONFAB_LOG_FILE="$CF_LOG/reaper.log" \
        "$CF_BIN_DIR/confab-supervise" -n 1 -- "$CF_BIN_DIR/confab-reaper"
    cf_wait 5 cf_reaper_alive ||
        { tail -n 20 "$CF_LOG/reaper.out" "$CF_LOG/reaper.log" >&2; cf_die "confab-reaper did not start"; }
}

cf_reaper_alive() { cf_supervisor_runs reaper confab-reaper 1; }

cf_reaper_stop() { cf_stop_supervised reaper 15; }

# cf_supervise_workers NAME KIND METRICS_GROUP BIND...: CF_<KIND>_PROCS confab-workers (KIND api or events) of
# CF_<KIND>_THREADS threads each, supervised as NAME (run/NAME.pid, log worker-NAME.log): spawn-fcgi binds BIND
# (-s SOCKET ... or -a ADDRESS -p PORT) and execs, as confab, confab-supervise, which replaces any worker that dies.
cf_supervise_workers() {
    local name=$1 kind=$2 metrics=$3 log=$CF_LOG/worker-$1.log procs=$CF_API_PROCS threads=$CF_API_THREADS stack=512
    local backlog=1024 long_polls=off
    shift 3
    # Long-poll threads only wait: small stacks let one process hold thousands (ASan needs more). Clients reconnect
    # their polls in bursts (after a restart, or thousands at once): a backlog as deep as nginx's own listen socket
    # keeps them waiting there while busy workers get to accept() (1,024 overflowed behind POST /register's load).
    if [ "$kind" = events ]; then
        procs=$CF_EVENTS_PROCS threads=$CF_EVENTS_THREADS stack=${CF_EVENTS_STACK_KB:-256} backlog=4096 long_polls=on
    fi
    cf_touch_svc "$log"
    cf_log "workers '$name': $procs x $threads threads on $*"
    cf_supervise "$name" env CONFAB_CONFIG="$CF_CONF" CONFAB_THREADS="$threads" CONFAB_THREAD_STACK_KB="$stack" \
        CONFAB_LONG_POLLS="$long_polls" CONFAB_LOG_FILE="$log" CONFAB_METRICS_GROUP="$metrics" spawn-fcgi -n "$@" \
        -u "$CF_SVC_USER" -g "$CF_SVC_USER" -b "$backlog" -- "$CF_BIN_DIR/confab-supervise" -n "$procs" -- \
        "$CF_BIN_DIR/confab-worker"
}

# cf_worker_group KIND SOCKET: the local group of KIND (api or events) on the unix socket SOCKET, which only the
# web server's group opens.
cf_worker_group() {
    rm -f "$2" "$CF_RUN/$1.pid"
    cf_supervise_workers "$1" "$1" "$1" -s "$2" -M 0660 -U "$CF_SVC_USER" -G "$CF_WEB_GROUP"
}

# cf_group_start NAME: (re)starts the group NAME (api, events or reaper) after its supervisor is gone (the
# supervision tests kill it; CONFAB_GROUP_CTL of scripts/test and scripts/itest). What is left of it is stopped
# first.
cf_group_start() {
    case "$1" in
    api) cf_stop_supervised api 20 && cf_worker_group api "$CF_API_SOCK" ;;
    events) cf_stop_supervised events 20 && cf_worker_group events "$CF_EVENTS_SOCK" ;;
    reaper) cf_stop_supervised reaper 15 && cf_reaper_start ;;
    *) cf_die "unknown group '$1' (api, events or reaper)" ;;
    esac
    [ "$1" = reaper ] || cf_wait 10 cf_workers_alive || cf_die "the worker group $1 did not start"
}

cf_workers_start() {
    cf_worker_group api "$CF_API_SOCK"
    cf_worker_group events "$CF_EVENTS_SOCK"
    cf_wait 10 cf_workers_alive ||
        { tail -n 5 "$CF_LOG/api.out" "$CF_LOG/events.out" >&2; cf_die "the worker groups did not start"; }
}

# True if each group's supervisor runs its full number of workers (a crash at start shows up here).
cf_workers_alive() {
    cf_supervisor_runs api confab-worker "$CF_API_PROCS" && cf_supervisor_runs events confab-worker "$CF_EVENTS_PROCS"
}

# Workers finish their requests in progress for up to 3 s, then exit (sanitizer builds write reports).
cf_workers_stop() {
    local rc=0
    cf_stop_supervised api 20 || rc=1
    cf_stop_supervised events 20 || rc=1
    rm -f "$CF_API_SOCK" "$CF_EVENTS_SOCK"
    return "$rc"
}

# ---------------------------------------------------------------------------------------------
# nginx (run by hand: absolute -p/-c/-e, everything it writes is under the state dir)

cf_nginx_args() {
    echo "-p $CF_STATE/nginx/ -c $CF_STATE/conf/nginx.conf -e $CF_LOG/nginx-error.log"
}

cf_nginx_config() {
    [ -n "${CF_METRICS_PORT:-}" ] || cf_metrics_layout
    sed -e "s|@PORT@|$CF_HTTP_PORT|g" -e "s|@API_SOCKET@|$CF_API_SOCK|g" \
        -e "s|@EVENTS_SOCKET@|$CF_EVENTS_SOCK|g" -e "s|@UPLOAD_DIR@|$CF_UPLOAD_DIR|g" \
        -e "s|@METRICS_PORT@|$CF_METRICS_PORT|g" \
        "$CF_REPO/conf/nginx/confab.conf" >"$CF_STATE/conf/nginx-site.conf"
    [ "${CF_SCALEOUT:-0}" != 1 ] || cf_scaleout_nginx_config
    sed -e "s|@STATE@|$CF_STATE|g" -e "s|@SITE_CONF@|$CF_STATE/conf/nginx-site.conf|g" \
        "$CF_REPO/conf/nginx/nginx-standalone.conf.in" >"$CF_STATE/conf/nginx.conf"
}

# cf_private_log FILE: FILE (created if missing) readable by root and the group adm only.
cf_private_log() {
    [ -e "$1" ] || install -m 0640 -g adm /dev/null "$1"
    chmod 0640 "$1"
}

cf_nginx_start() {
    local args
    read -ra args <<<"$(cf_nginx_args)"
    cf_nginx_config
    # Its errors may quote a request line (an invitation key in /join/...): root's and the adm group's only.
    cf_private_log "$CF_LOG/nginx-error.log"
    nginx -t -q "${args[@]}" || cf_die "nginx configuration test failed"
    cf_log "nginx on http://127.0.0.1:$CF_HTTP_PORT"
    nginx "${args[@]}"
    cf_wait 10 test -s "$CF_RUN/nginx.pid" || cf_die "nginx did not start (see $CF_LOG/nginx-error.log)"
}

# QUIT is graceful (waits for held long-polls), so fall back to TERM, then KILL.
cf_nginx_stop() {
    local pids=()
    [ -f "$CF_RUN/nginx.pid" ] || return 0
    mapfile -t pids <"$CF_RUN/nginx.pid"
    cf_stop_pids nginx QUIT 10 "${pids[@]}" || return 1
    rm -f "$CF_RUN/nginx.pid"
}

# ---------------------------------------------------------------------------------------------
# Metrics (docs/OPERATIONS.md "Metrics"): the groups' shared counter files in run/metrics (confab writes them, the
# api workers read them all), and the port of nginx's metrics server: CF_METRICS_PORT, or CONFAB_METRICS_PORT, or a
# free port.

cf_metrics_layout() {
    CF_METRICS_DIR=$CF_RUN/metrics
    install -d -o "$CF_SVC_USER" -g "$CF_SVC_USER" -m 700 "$CF_METRICS_DIR"
    chown -R "$CF_SVC_USER:$CF_SVC_USER" "$CF_METRICS_DIR"
    CF_METRICS_PORT=${CF_METRICS_PORT:-${CONFAB_METRICS_PORT:-$(cf_free_port "$CF_HTTP_PORT" "${CF_PG_PORT:-}" \
        "${CF_SMTP_PORT:-}" "${CF_APACHE_PORT:-}")}}
    cf_log "metrics on http://127.0.0.1:$CF_METRICS_PORT/metrics"
}

# The metrics server's port of a running stack (from its nginx site), for scripts/itest.
cf_metrics_port() {
    sed -n 's/^ *listen 127\.0\.0\.1:\([0-9]*\); # metrics$/\1/p' "$CF_STATE/conf/nginx-site.conf" 2>/dev/null
}

# ---------------------------------------------------------------------------------------------
# Apache (optional second front end over the same worker sockets, started when CF_APACHE_PORT is set; run by
# hand like nginx: its ServerRoot, pid file, logs and error bodies are under the state dir)

cf_apache_args() {
    echo "-d $CF_STATE/apache -f $CF_STATE/conf/apache.conf"
}

cf_apache_config() {
    install -d -m 755 "$CF_STATE/apache" "$CF_STATE/apache/run" "$CF_STATE/apache/errors"
    cp "$CF_REPO"/conf/apache/errors/*.json "$CF_STATE/apache/errors/"
    chmod 644 "$CF_STATE"/apache/errors/*.json
    sed -e "s|@PORT@|$CF_APACHE_PORT|g" -e "s|@API_SOCKET@|$CF_API_SOCK|g" \
        -e "s|@EVENTS_SOCKET@|$CF_EVENTS_SOCK|g" -e "s|@UPLOAD_DIR@|$CF_UPLOAD_DIR|g" \
        -e "s|@ERROR_DIR@|$CF_STATE/apache/errors|g" \
        "$CF_REPO/conf/apache/confab.conf" >"$CF_STATE/conf/apache-site.conf"
    sed -e "s|@STATE@|$CF_STATE|g" -e "s|@PORT@|$CF_APACHE_PORT|g" \
        -e "s|@SITE_CONF@|$CF_STATE/conf/apache-site.conf|g" \
        "$CF_REPO/conf/apache/apache-standalone.conf.in" >"$CF_STATE/conf/apache.conf"
}

cf_apache_start() {
    local args
    read -ra args <<<"$(cf_apache_args)"
    ! cf_port_in_use "$CF_APACHE_PORT" || cf_die "port $CF_APACHE_PORT (Apache) is already in use"
    cf_apache_config
    cf_private_log "$CF_LOG/apache-error.log"
    apache2 -t "${args[@]}" 2>"$CF_LOG/apache-configtest.log" ||
        { cat "$CF_LOG/apache-configtest.log" >&2; cf_die "Apache configuration test failed"; }
    cf_log "Apache on http://127.0.0.1:$CF_APACHE_PORT"
    apache2 "${args[@]}" -k start
    cf_wait 10 test -s "$CF_RUN/apache2.pid" || cf_die "Apache did not start (see $CF_LOG/apache-error.log)"
    cf_wait_http "http://127.0.0.1:$CF_APACHE_PORT/health" 10
}

# TERM ends held long-polls at once (graceful-stop would wait for them); then KILL.
cf_apache_stop() {
    local pids=()
    [ -f "$CF_RUN/apache2.pid" ] || return 0
    mapfile -t pids <"$CF_RUN/apache2.pid"
    cf_stop_pids apache2 TERM 10 "${pids[@]}" || return 1
    rm -f "$CF_RUN/apache2.pid"
}

# ---------------------------------------------------------------------------------------------
# Whole stack

# Start order: PostgreSQL, Redis, migrations, reaper, workers, nginx (and Apache when CF_APACHE_PORT is set).
# Needs CF_HTTP_PORT.
cf_stack_start() {
    [ -n "${CF_HTTP_PORT:-}" ] || cf_die "CF_HTTP_PORT is not set"
    ! cf_port_in_use "$CF_HTTP_PORT" || cf_die "port $CF_HTTP_PORT is already in use"
    CF_PG_PORT=${CF_PG_PORT:-$(cf_free_port "$CF_HTTP_PORT")}
    cf_check_binaries
    cf_layout
    cf_pg_start
    cf_pg_bootstrap
    cf_redis_start
    cf_smtp_start
    cf_pgbouncer_start
    cf_metrics_layout
    cf_write_config
    cf_migrate
    cf_reaper_start
    cf_workers_start
    [ "${CF_SCALEOUT:-0}" != 1 ] || cf_scaleout_start
    cf_nginx_start
    [ -z "${CF_APACHE_PORT:-}" ] || cf_apache_start
    cf_wait_http "http://127.0.0.1:$CF_HTTP_PORT/health" 10
    cf_workers_alive || { cf_log "a worker exited at start"; cf_tail_logs; return 1; }
}

# Stop in reverse order, by pid files; keeps going when one part fails.
cf_stack_stop() {
    local rc=0
    [ -d "${CF_STATE:-}" ] || return 0
    cf_apache_stop || rc=1
    cf_nginx_stop || rc=1
    cf_workers_stop || rc=1
    cf_scaleout_stop || rc=1
    cf_reaper_stop || rc=1
    cf_redis_stop || rc=1
    cf_smtp_stop || rc=1
    cf_pgbouncer_stop || rc=1
    cf_pg_stop || rc=1
    return "$rc"
}

cf_tail_logs() {
    local f
    for f in "$CF_LOG"/*.log "$CF_LOG"/*.out; do
        [ "$f" != "$CF_LOG/initdb.log" ] || continue
        [ -s "$f" ] || continue
        printf -- '----- %s (last 40 lines)\n' "$f" >&2
        tail -n 40 "$f" >&2
    done
}

# ---------------------------------------------------------------------------------------------
# Scale-out across hosts (scripts/test sets CF_SCALEOUT=1; the scaleout integration suite uses it). Two worker
# "hosts", A on 127.0.0.2 and B on 127.0.0.3 (Linux routes all of 127/8 to lo), each an api and an events group
# listening on TCP (spawn-fcgi -a ADDR -p PORT: the socket on fd 0, as systemd's ListenStream=ADDR:PORT gives it),
# sharing the stack's one PostgreSQL and one Redis. nginx gets three more servers: CF_SCALEOUT_PORT with upstreams
# over both hosts (round robin), CF_SCALEOUT_A_PORT and CF_SCALEOUT_B_PORT with one host each, to address a host
# directly. Network namespaces would separate the hosts further, but creating them needs CAP_SYS_ADMIN, which a
# plain CI container does not have; separate addresses need nothing.

CF_SCALEOUT_HOSTS=(a b)

cf_scaleout_addr() { [ "$1" = a ] && echo 127.0.0.2 || echo 127.0.0.3; }

# cf_scaleout_ports: pick the five ports (nginx shared, A, B; workers api, events, the same on both addresses).
cf_scaleout_ports() {
    local used="${CF_HTTP_PORT:-} ${CF_PG_PORT:-} ${CF_SMTP_PORT:-} ${CF_APACHE_PORT:-} ${CF_METRICS_PORT:-}"
    # shellcheck disable=SC2086
    CF_SCALEOUT_PORT=${CF_SCALEOUT_PORT:-$(cf_free_port $used)}
    # shellcheck disable=SC2086
    CF_SCALEOUT_A_PORT=${CF_SCALEOUT_A_PORT:-$(cf_free_port $used "$CF_SCALEOUT_PORT")}
    # shellcheck disable=SC2086
    CF_SCALEOUT_B_PORT=${CF_SCALEOUT_B_PORT:-$(cf_free_port $used "$CF_SCALEOUT_PORT" "$CF_SCALEOUT_A_PORT")}
    # shellcheck disable=SC2086
    CF_SCALEOUT_API_PORT=${CF_SCALEOUT_API_PORT:-$(cf_free_port $used "$CF_SCALEOUT_PORT" "$CF_SCALEOUT_A_PORT" \
        "$CF_SCALEOUT_B_PORT")}
    # shellcheck disable=SC2086
    CF_SCALEOUT_EVENTS_PORT=${CF_SCALEOUT_EVENTS_PORT:-$(cf_free_port $used "$CF_SCALEOUT_PORT" \
        "$CF_SCALEOUT_A_PORT" "$CF_SCALEOUT_B_PORT" "$CF_SCALEOUT_API_PORT")}
}

# cf_scaleout_group HOST GROUP: GROUP (api|events) of HOST (a|b) under confab-supervise, on TCP; pid file
# run/HOST-GROUP.pid.
cf_scaleout_group() {
    local host=$1 name=$2 port=$CF_SCALEOUT_API_PORT
    [ "$name" = api ] || port=$CF_SCALEOUT_EVENTS_PORT
    cf_supervise_workers "$host-$name" "$name" "host-$host-$name" -a "$(cf_scaleout_addr "$host")" -p "$port"
}

# True if both groups of HOST run their full number of workers.
cf_scaleout_host_alive() {
    cf_supervisor_runs "$1-api" confab-worker "$CF_API_PROCS" &&
        cf_supervisor_runs "$1-events" confab-worker "$CF_EVENTS_PROCS"
}

# cf_scaleout_host_start HOST: both groups of HOST (a or b).
cf_scaleout_host_start() {
    cf_scaleout_group "$1" api
    cf_scaleout_group "$1" events
    cf_wait 15 cf_scaleout_host_alive "$1" ||
        { tail -n 5 "$CF_LOG/$1-api.out" "$CF_LOG/$1-events.out" >&2; cf_die "host $1's workers did not start"; }
}

# cf_scaleout_host_kill HOST: SIGKILL to each group of HOST as a whole (confab-supervise and its workers: the
# process group cf_supervise made), as if the host were lost.
cf_scaleout_host_kill() {
    local name pid
    for name in api events; do
        pid=$(cat "$CF_RUN/$1-$name.pid" 2>/dev/null) || continue
        cf_pid_is "$pid" confab-supervise || continue
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    for name in api events; do
        pid=$(cat "$CF_RUN/$1-$name.pid" 2>/dev/null) || continue
        cf_wait 10 cf_group_gone "$pid" || cf_die "host $1: $name group $pid still alive after SIGKILL"
        rm -f "$CF_RUN/$1-$name.pid"
    done
}

cf_scaleout_start() {
    local h
    cf_scaleout_ports
    for h in "${CF_SCALEOUT_HOSTS[@]}"; do cf_scaleout_host_start "$h"; done
}

cf_scaleout_stop() {
    local h name rc=0
    for h in "${CF_SCALEOUT_HOSTS[@]}"; do
        for name in api events; do cf_stop_supervised "$h-$name" 20 || rc=1; done
    done
    return "$rc"
}

# cf_scaleout_nginx_site NAME PORT HOSTS...: conf/nginx/confab.conf for a server on PORT whose upstreams list the
# TCP groups of HOSTS, its upstream names suffixed with NAME. nginx passes a request to the next server of the
# upstream only when it could not be passed to the first (connection refused or timed out), and a non-idempotent
# one (POST, PATCH) never after it was sent (nginx >= 1.9.13 without "non_idempotent"): a POST runs at most once.
cf_scaleout_nginx_site() {
    local name=$1 port=$2 h api="" events=""
    shift 2
    for h in "$@"; do
        api+="server $(cf_scaleout_addr "$h"):$CF_SCALEOUT_API_PORT; "
        events+="server $(cf_scaleout_addr "$h"):$CF_SCALEOUT_EVENTS_PORT; "
    done
    sed -e "s|server unix:@API_SOCKET@;|$api|" -e "s|server unix:@EVENTS_SOCKET@;|$events|" \
        -e "s|confab_api|confab_api_$name|g" -e "s|confab_events|confab_events_$name|g" \
        -e "s|@PORT@|$port|g" -e "s|@UPLOAD_DIR@|$CF_UPLOAD_DIR|g" \
        -e "s|^\( *\)server_name _;|&\n\1fastcgi_next_upstream error timeout;|" \
        "$CF_REPO/conf/nginx/confab.conf" |
        # without the metrics server (the main site has it; each host's workers count in their own files)
        awk '/^server \{/ { hold = $0; getline; if ($0 ~ /@METRICS_PORT@/) { skip = 1; next } print hold }
             skip && /^}/ { skip = 0; next }
             !skip'
}

# Appends the three scale-out servers to the generated nginx site (called by cf_nginx_config when CF_SCALEOUT=1).
cf_scaleout_nginx_config() {
    {
        cf_scaleout_nginx_site shared "$CF_SCALEOUT_PORT" a b
        cf_scaleout_nginx_site a "$CF_SCALEOUT_A_PORT" a
        cf_scaleout_nginx_site b "$CF_SCALEOUT_B_PORT" b
    } >>"$CF_STATE/conf/nginx-site.conf"
}

# ---------------------------------------------------------------------------------------------
# Rolling restart of a worker group (run/NAME.pid names its confab-supervise): TERM to one worker at a time, each
# replaced by the supervisor before the next (at once: a worker that ran 10 s is replaced without a delay). A
# stopping worker stops accepting without closing the group's socket and answers the long-polls it holds, so clients
# see neither a refused connection nor a cut poll.

cf_group_size_is() { [ "$(cf_children "$1" confab-worker | wc -l)" -eq "$2" ]; }

cf_rolling_restart() {
    local name=$1 sup p old=()
    sup=$(cat "$CF_RUN/$name.pid" 2>/dev/null) || cf_die "$name: no pid file"
    cf_pid_is "$sup" confab-supervise || cf_die "$name: $sup is not a confab-supervise"
    mapfile -t old < <(cf_children "$sup" confab-worker)
    [ "${#old[@]}" -gt 0 ] || cf_die "$name: no workers"
    for p in "${old[@]}"; do
        cf_log "$name: TERM to worker $p"
        kill -TERM "$p"
        cf_wait 20 cf_all_gone "$p" || cf_die "$name: worker $p still running 20 s after TERM"
        cf_wait 20 cf_group_size_is "$sup" "${#old[@]}" || cf_die "$name: worker $p not replaced"
    done
}

# ---------------------------------------------------------------------------------------------
# Log rotation (scripts/test): conf/logrotate/confab against the stack's worker and reaper logs

# cf_logrotate_has FILE TEXT...: FILE exists and holds every TEXT.
cf_logrotate_has() {
    local f=$1 t
    shift
    [ -f "$f" ] || return 1
    for t in "$@"; do grep -qF -- "$t" "$f" || return 1; done
}

# Runs logrotate -f twice with conf/logrotate/confab (paths pointed at the state dir): after each rotation every
# worker and the reaper write to the new files (their confab-supervise passed USR2 on), a request is logged in the new
# worker-api.log, the supervisors kept running; the second rotation compresses the first's files (delaycompress).
cf_logrotate_check() {
    local dir conf round marker f
    dir=$(mktemp -d /tmp/confab-logrotate.XXXXXX)
    conf=$dir/confab
    sed -e "s|^/var/log/confab/\*\.log|$CF_LOG/worker-api.log $CF_LOG/worker-events.log $CF_LOG/reaper.log|" \
        -e "s|/run/confab/|$CF_RUN/|g" "$CF_REPO/conf/logrotate/confab" >"$conf"
    for round in 1 2; do
        logrotate -f -s "$dir/state" "$conf" || { rm -rf "$dir"; cf_die "logrotate -f failed (round $round)"; }
        for f in worker-api worker-events reaper; do
            [ -f "$CF_LOG/$f.log.1" ] || cf_die "logrotate: no $CF_LOG/$f.log.1 after round $round"
            cf_wait 10 cf_logrotate_has "$CF_LOG/$f.log" 'msg="log file reopened"' ||
                cf_die "logrotate: $f did not reopen $CF_LOG/$f.log (round $round)"
        done
        marker=logrotate-check-$round-$RANDOM
        curl -s -o /dev/null "http://127.0.0.1:$CF_HTTP_PORT/api/v1/$marker"
        cf_wait 5 cf_logrotate_has "$CF_LOG/worker-api.log" "$marker " ||
            cf_die "logrotate: the request $marker is not in the new $CF_LOG/worker-api.log"
        ! grep -qF -- "$marker " "$CF_LOG/worker-api.log.1" || cf_die "logrotate: $marker went to the old file"
        cf_workers_alive && cf_reaper_alive || cf_die "logrotate: a supervisor or worker stopped on the signal"
    done
    [ -f "$CF_LOG/worker-api.log.2.gz" ] || cf_die "logrotate: no worker-api.log.2.gz after the second rotation"
    rm -rf "$dir"
    cf_log "logrotate: rotated twice, every process reopened its log"
}
