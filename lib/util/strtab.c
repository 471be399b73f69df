/*
 * strtab: see strtab.h.  Open addressing with linear probing over a power-of-
 * two slot array kept at most half full; slots hold ids, entries hold the
 * bytes, their length and the full hash, so a probe compares hashes before
 * bytes and a resize never rehashes strings.
 */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t load64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

/* Eight bytes a step: names of 5,000 characters are common in CUDA traces. */
uint32_t strtab_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;

	while (len >= 8) {
		h = (h ^ load64(s)) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	if (len) {
		uint64_t tail = 0;

		memcpy(&tail, s, len);
		h = (h ^ tail) * 0x94d049bb133111ebull;
	}
	return (uint32_t)mix(h);
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

uint32_t strtab_intern(struct strtab *t, const char *s, size_t len)
{
	struct strtab_entry *en;
	uint32_t h, i, id;

	if (len > UINT32_MAX)
		return STRTAB_OOM;
	if (!len)
		s = "";		/* an empty buf's data may be NULL: not for memcmp */
	if (t->n == 0)
		t->n = 1;	/* id 0 stays "no string" */
	if ((uint64_t)(t->n + 1) * 2 > (uint64_t)t->mask + 1 && grow_slots(t))
		return STRTAB_OOM;
	h = strtab_hash(s, len);
	for (i = h & t->mask; t->slots[i]; i = (i + 1) & t->mask) {
		en = &t->ents[t->slots[i]];
		if (en->hash == h && en->len == len && memcmp(en->s, s, len) == 0)
			return t->slots[i];
	}
	if (t->n == UINT32_MAX - 1)
		return STRTAB_OOM;
	if (t->n >= t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		struct strtab_entry *ents = realloc(t->ents, (size_t)cap * sizeof(*ents));

		if (!ents)
			return STRTAB_OOM;
		t->ents = ents;
		t->cap = cap;
	}
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

uint32_t strtab_map(struct strtab *t, const struct strtab *from, uint32_t id, uint32_t *map)
{
	if (!map[id]) {
		uint32_t v = strtab_intern(t, strtab_str(from, id), strtab_len(from, id));

		if (v == STRTAB_OOM)
			return v;
		map[id] = v;
	}
	return map[id];
}
