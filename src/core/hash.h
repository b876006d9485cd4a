/* FNV-1a, the one hash of the tables keyed by text (caches, buckets of names, the route table's layout). */
#ifndef CONFAB_HASH_H
#define CONFAB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV32_INIT 2166136261u             /* the 32-bit offset basis */
#define HASH_FNV64_INIT 14695981039346656037ULL /* the 64-bit offset basis */

/* h (HASH_FNV32_INIT for a new hash, or a hash so far) continued over the len bytes of data. */
uint32_t hash_fnv1a32(uint32_t h, const void *data, size_t len);
/* The same in 64 bits (HASH_FNV64_INIT). */
uint64_t hash_fnv1a64(uint64_t h, const void *data, size_t len);

#endif
