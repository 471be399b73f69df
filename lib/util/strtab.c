/*
 * strtab: see strtab.h.  Open addressing with linear probing over a power-of-
 * two slot array kept at most half full; slots hold ids, entries hold the
 * bytes, their length and the full hash, so a probe compares hashes before
 * bytes and a resize never rehashes strings.
 */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"

static inline uint64_t load64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * Names come from the trace, and a trace can come from anyone: with a hash
 * its author can predict, names chosen to share one hash make each intern
 * probe all the others (60,000 such names took 42 s, test 026).  So the
 * hash is SipHash-1-3 (Aumasson and Bernstein's keyed function, the one
 * Python and Rust hash strings with) under a key drawn once per process:
 * without the key, colliding names cannot be chosen.  Ids are given in
 * order of first interning, never by hash, so no output depends on the key.
 * Read-only after the constructor: threads share it freely.
 */
static uint64_t sip_key[2];

__attribute__((constructor)) static void sip_key_init(void)
{
	int on_stack;

	if (getrandom(sip_key, sizeof(sip_key), GRND_NONBLOCK) == (ssize_t)sizeof(sip_key))
		return;
	/* No entropy yet (early boot): the clock, the pid and where the stack is. */
	sip_key[0] = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	sip_key[1] = (uint64_t)(uintptr_t)&on_stack ^ (uint64_t)clock();
}

static inline uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND(v0, v1, v2, v3)                                                 \
	do {                                                                     \
		v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);       \
		v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;                           \
		v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;                           \
		v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);       \
	} while (0)

/* Eight bytes a step: names of 5,000 characters are common in CUDA traces. */
uint32_t strtab_hash(const char *s, size_t len)
{
	uint64_t v0 = sip_key[0] ^ 0x736f6d6570736575ull, v1 = sip_key[1] ^ 0x646f72616e646f6dull;
	uint64_t v2 = sip_key[0] ^ 0x6c7967656e657261ull, v3 = sip_key[1] ^ 0x7465646279746573ull;
	uint64_t m = (uint64_t)len << 56;
	size_t rest = len & 7;

	for (const char *end = s + (len - rest); s < end; s += 8) {
		uint64_t w = load64(s);

		v3 ^= w;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= w;
	}
	if (rest) {
		uint64_t tail = 0;

		memcpy(&tail, s, rest);
		m |= tail;
	}
	v3 ^= m;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return (uint32_t)(v0 ^ v1 ^ v2 ^ v3);
}

void strtab_init(struct strtab *t, int copy)
{
	memset(t, 0, sizeof(*t));
	t->copy = copy;
	arena_init(&t->arena);
}

void strtab_release(struct strtab *t)
{
	free(t->ents);
	free(t->slots);
	arena_release(&t->arena);
	strtab_init(t, t->copy);
}

void strtab_reset(struct strtab *t)
{
	if (t->slots)
		memset(t->slots, 0, ((size_t)t->mask + 1) * sizeof(*t->slots));
	t->n = 0;
	arena_release(&t->arena);
}

static int grow_slots(struct strtab *t)
{
	uint32_t nslots = t->mask ? (t->mask + 1) * 2 : 64;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -1;
	for (uint32_t id = 1; id < t->n; id++) {
		uint32_t i = t->ents[id].hash & (nslots - 1);

		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = id;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = nslots - 1;
	return 0;
}

uint32_t strtab_find(const struct strtab *t, const char *s, size_t len)
{
	uint32_t h, i;

	if (!t->slots)
		return STRTAB_NONE;
	if (!len)
		s = "";		/* an empty buf's data may be NULL: not for memcmp */
	h = strtab_hash(s, len);
	for (i = h & t->mask; t->slots[i]; i = (i + 1) & t->mask) {
		const struct strtab_entry *en = &t->ents[t->slots[i]];

		if (en->hash == h && en->len == len && memcmp(en->s, s, len) == 0)
			return t->slots[i];
	}
	return STRTAB_NONE;
}

/* strtab_intern() of s[0..len) whose strtab_hash() is h. */
static uint32_t intern_hashed(struct strtab *t, const char *s, size_t len, uint32_t h)
{
	struct strtab_entry *en;
	uint32_t i, id;

	if (len > UINT32_MAX)
		return STRTAB_OOM;
	if (!len)
		s = "";		/* an empty buf's data may be NULL: not for memcmp */
	if (t->n == 0)
		t->n = 1;	/* id 0 stays "no string" */
	if ((uint64_t)(t->n + 1) * 2 > (uint64_t)t->mask + 1 && grow_slots(t))
		return STRTAB_OOM;
	for (i = h & t->mask; t->slots[i]; i = (i + 1) & t->mask) {
		en = &t->ents[t->slots[i]];
		if (en->hash == h && en->len == len && memcmp(en->s, s, len) == 0)
			return t->slots[i];
	}
	if (t->n == UINT32_MAX - 1)
		return STRTAB_OOM;
	if (ALLOC_GROW(t->ents, (size_t)t->n + 1, t->alloc))
		return STRTAB_OOM;
	id = t->n;
	en = &t->ents[id];
	if (t->copy) {
		char *p = arena_strndup(&t->arena, s, len);

		if (!p)
			return STRTAB_OOM;
		en->s = p;
	} else {
		en->s = s;
	}
	en->len = (uint32_t)len;
	en->hash = h;
	t->slots[i] = id;
	t->n++;
	return id;
}

uint32_t strtab_intern(struct strtab *t, const char *s, size_t len)
{
	return intern_hashed(t, s, len, strtab_hash(len ? s : "", len));
}

uint32_t strtab_map(struct strtab *t, const struct strtab *from, uint32_t id, uint32_t *map)
{
	if (!map[id]) {
		/* every table hashes alike: from's entry has the hash already */
		const struct strtab_entry *en = &from->ents[id];
		uint32_t v = intern_hashed(t, en->s, en->len, en->hash);

		if (v == STRTAB_OOM)
			return v;
		map[id] = v;
	}
	return map[id];
}
