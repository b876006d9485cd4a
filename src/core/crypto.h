/* Random API keys, key hashing, password hashing and base64: the only module that includes libsodium. */
#ifndef CONFAB_CRYPTO_H
#define CONFAB_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>

#define API_KEY_LEN 32

/* Initializes libsodium; returns 0 or -1. Call once from main before any thread starts. */
int crypto_init(void);
/* Writes a new key of API_KEY_LEN random alphanumeric characters and a NUL to out. */
void crypto_new_api_key(char out[API_KEY_LEN + 1]);
/* Writes a random (version 4) UUID, 36 characters and a NUL, to out. */
void crypto_uuid4(char out[37]);
/* A uniformly random number below n. */
unsigned crypto_random_below(unsigned n);
/* Writes the lowercase hex SHA-256 of key (64 characters and a NUL) to out. */
void crypto_key_hash(const char *key, char out[65]);
/* Writes the lowercase hex HMAC-SHA-256 of msg under key secret (64 characters and a NUL) to out. */
void crypto_hmac_hex(const char *secret, const char *msg, char out[65]);
/* Compares two strings in time independent of where they differ (for tokens); true if equal. */
bool crypto_equal_hex(const char *a, const char *b);
/* Hashes password with Argon2id; returns a malloc'ed string (caller frees) or NULL on failure. */
char *crypto_password_hash(const char *password);
/* True if password matches the stored Argon2id string. */
bool crypto_password_verify(const char *stored, const char *password);
/* Decodes standard base64 (padding optional) into out (outcap bytes, NUL added). Returns the length or -1. */
long crypto_base64_decode(const char *in, char *out, size_t outcap);

#endif
