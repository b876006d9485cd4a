/* libsodium behind one file; see crypto.h. */
#include "core/crypto.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

int crypto_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

void crypto_new_api_key(char out[API_KEY_LEN + 1])
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	for (int i = 0; i < API_KEY_LEN; i++)
		out[i] = alphabet[randombytes_uniform(sizeof(alphabet) - 1)];
	out[API_KEY_LEN] = '\0';
}

void crypto_uuid4(char out[37])
{
	unsigned char b[16];
	randombytes_buf(b, sizeof(b));
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	static const char hex[] = "0123456789abcdef";
	int o = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 15];
	}
	out[o] = '\0';
}

unsigned crypto_random_below(unsigned n)
{
	return randombytes_uniform(n);
}

void crypto_key_hash(const char *key, char out[65])
{
	unsigned char digest[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(digest, (const unsigned char *)key, strlen(key));
	sodium_bin2hex(out, 65, digest, sizeof(digest));
}

void crypto_hmac_hex(const char *secret, const char *msg, char out[65])
{
	unsigned char digest[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, (const unsigned char *)secret, strlen(secret));
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, strlen(msg));
	crypto_auth_hmacsha256_final(&st, digest);
	sodium_bin2hex(out, 65, digest, sizeof(digest));
}

bool crypto_equal_hex(const char *a, const char *b)
{
	size_t n = strlen(a);
	return n == strlen(b) && sodium_memcmp(a, b, n) == 0;
}

char *crypto_password_hash(const char *password)
{
	char *out = xmalloc(crypto_pwhash_STRBYTES);
	if (crypto_pwhash_str(out, password, strlen(password), crypto_pwhash_OPSLIMIT_INTERACTIVE,
	                      crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

bool crypto_password_verify(const char *stored, const char *password)
{
	return crypto_pwhash_str_verify(stored, password, strlen(password)) == 0;
}

long crypto_base64_decode(const char *in, char *out, size_t outcap)
{
	size_t len = 0;
	if (outcap == 0 || sodium_base642bin((unsigned char *)out, outcap - 1, in, strlen(in), " \t", &len, NULL,
	                                     sodium_base64_VARIANT_ORIGINAL) != 0) {
		if (outcap == 0 || sodium_base642bin((unsigned char *)out, outcap - 1, in, strlen(in), " \t", &len,
		                                     NULL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING) != 0)
			return -1;
	}
	out[len] = '\0';
	return (long)len;
}
