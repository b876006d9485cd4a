/* HTTP Basic authentication; see auth.h. */
#include "http/auth.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/crypto.h"
#include "http/form.h"
#include "http/ratelimit.h"
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

/* True if s (len bytes) is valid UTF-8. */
static bool is_utf8(const char *s, size_t len)
{
	size_t outlen;
	form_repair_utf8(NULL, s, len, &outlen);
	return outlen == len;
}

int auth_parse_basic(struct request *req, const char *header, char **user, char **password)
{
	/* The reference splits the header on white space and needs exactly "<scheme> <credentials>". */
	char *copy = arena_strdup(&req->arena, header);
	char *tokens[3] = {NULL, NULL, NULL}, *save = NULL;
	int n = 0;
	for (char *t = strtok_r(copy, " \t\r\n", &save); t != NULL && n < 3; t = strtok_r(NULL, " \t\r\n", &save))
		tokens[n++] = t;
	if (n != 2)
		return -2;
	if (strcasecmp(tokens[0], "basic") != 0)
		return -1;
	size_t cap = strlen(tokens[1]) + 1;
	char *decoded = arena_alloc(&req->arena, cap);
	long len = crypto_base64_decode(tokens[1], decoded, cap);
	if (len < 0 || memchr(decoded, '\0', (size_t)len) != NULL || !is_utf8(decoded, (size_t)len))
		return -2;
	char *colon = strchr(decoded, ':');
	if (colon == NULL || strchr(colon + 1, ':') != NULL)
		return -2;
	*colon = '\0';
	*user = decoded;
	*password = colon + 1;
	return 0;
}

int auth_request(struct request *req)
{
	if (req->authorization == NULL)
		return api_error(req, ERR_UNAUTHORIZED, NULL);
	char *email, *key;
	switch (auth_parse_basic(req, req->authorization, &email, &key)) {
	case -1: return api_error(req, ERR_BAD_REQUEST, "This endpoint requires HTTP basic authentication.");
	case -2: return api_error(req, ERR_UNAUTHORIZED, "Invalid authorization header for basic auth");
	}
	if (user_authenticate_key(&req->uow, realm_subdomain_for_host(&req->uow, req->host), email, key) == 0)
		return 0;
	/* Only a key that was checked counts: a database outage is no guess. */
	return req->error == ERR_UNAUTHORIZED ? ratelimit_key_failed(req) : -1;
}

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

const struct user *auth_password(struct request *req, const struct realm *realm, const char *email,
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
