/* Password login for API clients, and the throttled password check it runs. */
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "api/ratelimit.h"
#include "core/config.h"
#include "db/db.h"
#include "http/params.h"
#include "http/request.h"
#include "model/realm.h"
#include "model/user.h"

/*
 * The password checks of this process. Argon2id takes ~90 ms of a CPU, so more checks at once than CPUs would
 * only slow every request down; and a login waiting for its turn holds a worker thread, so at most as many
 * logins as there are slots may wait: the others are turned away at once, and the threads stay free for API
 * requests. Process-wide by nature (sized once from the configuration).
 */
static struct {
	pthread_mutex_t lock;
	bool ready;
	sem_t slots;
	int nslots;
	atomic_int admitted; /* logins checking or waiting for a slot */
} hashing = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void hashing_init(const struct config *cfg)
{
	pthread_mutex_lock(&hashing.lock);
	if (!hashing.ready) {
		long n = cfg->password_hash_slots > 0 ? cfg->password_hash_slots : sysconf(_SC_NPROCESSORS_ONLN);
		hashing.nslots = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
		sem_init(&hashing.slots, 0, (unsigned)hashing.nslots);
		hashing.ready = true;
	}
	pthread_mutex_unlock(&hashing.lock);
}

/* Takes a hashing slot, waiting at most wait_ms; false if none freed up in time. */
static bool hash_slot_take(int wait_ms)
{
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += wait_ms / 1000;
	deadline.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	int rc;
	while ((rc = sem_timedwait(&hashing.slots, &deadline)) < 0 && errno == EINTR)
		;
	return rc == 0;
}

/* Admits a login to the password check: true with a slot taken, or false when too many are checking or waiting. */
static bool hashing_enter(const struct config *cfg)
{
	hashing_init(cfg);
	if (atomic_fetch_add(&hashing.admitted, 1) < 2 * hashing.nslots && hash_slot_take(cfg->password_hash_wait_ms))
		return true;
	atomic_fetch_sub(&hashing.admitted, 1);
	return false;
}

static void hashing_leave(void)
{
	sem_post(&hashing.slots);
	atomic_fetch_sub(&hashing.admitted, 1);
}

/*
 * Checks a password login in realm. Failures are throttled per account and per client address (api/ratelimit.h),
 * and the check runs on one of password_hash_slots slots of the process, so that logins can never take every CPU
 * from API requests. Returns the user, or NULL with the error recorded: RATE_LIMIT_HIT (429, Retry-After) when
 * throttled or when no slot frees up within password_hash_wait_ms, else as user_authenticate_password().
 */
static const struct user *check_password(struct request *req, const struct realm *realm, const char *email,
                                         const char *password)
{
	if (ratelimit_login_begin(req, (long long)realm->id, email) < 0)
		return NULL;
	if (!hashing_enter(req->worker->cfg)) {
		/* Busy with other logins: the client should come back in a second rather than queue here. */
		ratelimit_login_end(req, (long long)realm->id, email, false);
		request_add_header(req, "Retry-After", "1");
		api_error(req, ERR_RATE_LIMIT, NULL);
		api_error_field(req, "retry-after", json_object_new_double(1.0));
		return NULL;
	}
	const struct user *u = user_authenticate_password(&req->uow, realm, email, password);
	hashing_leave();
	if (u != NULL)
		ratelimit_login_end(req, (long long)realm->id, email, true);
	return u;
}

/* POST /api/v1/fetch_api_key */
int api_key_fetch(struct request *req)
{
	const char *username = param_str(req, "username");
	const char *password = param_str(req, "password");
	if (req->realm == NULL)
		return api_error(req, ERR_BAD_REQUEST, "Invalid subdomain");
	if (!user_email_is_valid(username))
		return api_error(req, ERR_BAD_REQUEST, "Enter a valid email address.");
	const struct user *u = check_password(req, req->realm, username, password);
	if (u == NULL)
		return -1;
	/* Keys are stored only as hashes, so each login issues a key of its own; earlier keys stay valid. */
	if (db_begin(&req->uow) < 0)
		return -1;
	const char *key = user_issue_api_key(&req->uow, u->id);
	if (key == NULL)
		return -1;
	json_object *out = request_result(req);
	json_object_object_add(out, "api_key", json_object_new_string(key));
	json_object_object_add(out, "email", json_object_new_string(u->delivery_email));
	json_object_object_add(out, "user_id", json_object_new_int64(u->id));
	return 0;
}
