// SPDX-License-Identifier: GPL-2.0
/*
 * analyze-keys.c - what makes a TU's stored facts stale: the hash of its
 * translated flags and of the contents of it and every file it included
 * (analyze-internal.h). The run (analyze.c) plans with them, the parse
 * (analyze-pool.c) stores under them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/input/flags.h"
#include "trapcheck/store/db.h"
#include "trapcheck/base/util.h"

#include "analyze-internal.h"

/*
 * The hash of a TU's translated flags, before any retry drops some. The
 * tree's own path is left out (flags_translate() makes -I and -include
 * paths absolute): a database keeps its facts when its tree is moved or
 * copied (cp -a, a hard-linked copy), and only what changed is parsed.
 */
uint64_t flags_hash(const struct clang_args *args, const char *root)
{
	uint64_t h = hash_str(FACTS_VERSION);
	size_t n = strlen(root);
	int j;

	for (j = 0; j < args->argc; j++) {
		const char *a = args->argv[j], *at;
		uint64_t v = 0xcbf29ce484222325ULL;

		/* Each "ROOT/" or final "ROOT" counts as "$ROOT". */
		while (n && (at = strstr(a, root)) &&
		       (at[n] == '/' || !at[n])) {
			char *head = xstrndup(a, (size_t)(at - a));

			v = hash_mix(v, hash_str(head));
			v = hash_mix(v, hash_str("$ROOT"));
			free(head);
			a = at + n;
		}
		v = hash_mix(v, hash_str(a));
		h = hash_mix(h, v);
	}
	return h;
}

/*
 * One file's part of a contents hash: its name's hash and its contents'
 * hash mixed in, each worked out once per run (the only memo of a run's
 * file hashes: each file is stat()ed and looked up once). Under db_lock.
 */
static uint64_t mix_file(struct pool *p, uint64_t c, const char *file)
{
	int i = strmap_get(&p->key_files, file);

	if (i < 0) {
		char *fh = db_file_hash(p->fdb, p->a->root, file);

		i = strmap_put(&p->key_files, file,
			       (int)(p->nr_key_hashes / 2));
		*PUSH(p->key_hashes, p->nr_key_hashes, p->alloc_key_hashes) =
			hash_str(file);
		*PUSH(p->key_hashes, p->nr_key_hashes, p->alloc_key_hashes) =
			hash_str(fh);
		free(fh);
	}
	c = hash_mix(c, p->key_hashes[2 * i]);
	return hash_mix(c, p->key_hashes[2 * i + 1]);
}

void key_memo_seed(const char *rel, const char *hash, void *arg)
{
	struct pool *p = arg;

	if (strmap_get(&p->key_files, rel) >= 0)
		return;
	strmap_put(&p->key_files, rel, (int)(p->nr_key_hashes / 2));
	*PUSH(p->key_hashes, p->nr_key_hashes, p->alloc_key_hashes) =
		hash_str(rel);
	*PUSH(p->key_hashes, p->nr_key_hashes, p->alloc_key_hashes) =
		hash_str(hash);
}

static char *key_text(uint64_t h, uint64_t c)
{
	return xasprintf("%016llx:%016llx", (unsigned long long)h,
			 (unsigned long long)c);
}

/* "flags-hash:contents-hash" of a TU: what makes its facts stale. */
char *tu_key(struct pool *p, uint64_t h, const char *rel, char **includes,
	     size_t nr)
{
	uint64_t c = 0xcbf29ce484222325ULL;
	size_t i;

	pthread_mutex_lock(&p->db_lock);
	for (i = 0; i <= nr; i++)
		c = mix_file(p, c, i ? includes[i - 1] : rel);
	pthread_mutex_unlock(&p->db_lock);
	return key_text(h, c);
}

struct stored_key {
	struct pool *p;
	uint64_t c;
};

static void mix_stored(const char *file, void *arg)
{
	struct stored_key *k = arg;

	k->c = mix_file(k->p, k->c, file);
}

char *tu_key_stored(struct pool *p, uint64_t h, const char *rel,
		    const char *dbkey)
{
	struct stored_key k = { .p = p, .c = 0xcbf29ce484222325ULL };
	long nr;

	pthread_mutex_lock(&p->db_lock);
	k.c = mix_file(p, k.c, rel);
	nr = db_tu_includes_each(p->fdb, dbkey, mix_stored, &k);
	pthread_mutex_unlock(&p->db_lock);
	return nr < 0 ? NULL : key_text(h, k.c);
}

char *tu_key_unchanged(uint64_t h, const char *stored)
{
	const char *c = strchr(stored, ':');

	return c ? xasprintf("%016llx%s", (unsigned long long)h, c) : NULL;
}
