/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by every module: allocation that dies on OOM,
 * growable arrays, a string-keyed hash map and a string pool.
 */
#ifndef TRAPCHECK_UTIL_H
#define TRAPCHECK_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes, documented in docs/trapcheck.rst. */
/* Exit statuses (checker/base/exits.def). */
enum {
#define EXIT(id, code, meaning) TC_EXIT_##id = code,
#include "base/exits.def"
#undef EXIT
	TC_EXIT_INTERNAL = TC_EXIT_OUTPUT,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Make @size slots available in *@arr of element size @elem. */
void grow(void **arr, size_t *alloc, size_t want, size_t elem);
#define GROW(arr, alloc, want) \
	grow((void **)&(arr), &(alloc), (want), sizeof(*(arr)))
#define PUSH(arr, nr, alloc) \
	(GROW(arr, alloc, (nr) + 1), &(arr)[(nr)++])

/* qsort() and qsort_r() that accept an empty (NULL) array. */
void sort_n(void *base, size_t n, size_t size,
	    int (*cmp)(const void *, const void *));
void sort_r(void *base, size_t n, size_t size,
	    int (*cmp)(const void *, const void *, void *), void *arg);

/* Free the @n strings of @v, and @v. */
void strv_free(char **v, size_t n);

/* Is @s one of the @n strings of @v? */
bool str_in(const char *s, const char *const *v, size_t n);
/* Append a copy of the @n bytes at @s to *@v unless it holds them. */
void strv_add_once(char ***v, size_t *nr, size_t *alloc, const char *s,
		   size_t n);

/* Can @c be part of a C identifier, or start one? */
bool ident_char(char c);
bool ident_start(char c);

/* Source places in order: by file, then line, then column. */
int site_cmp(const char *fa, unsigned int la, unsigned int ca,
	     const char *fb, unsigned int lb, unsigned int cb);

uint64_t hash_str(const char *s);
uint64_t hash_mix(uint64_t a, uint64_t b);

/*
 * Open-addressing map from NUL-terminated strings to non-negative ints.
 * Keys are copied into the map's own pool.
 */
struct strmap_slot {
	const char *key;
	uint64_t hash;
	int value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t mask;
	size_t used;
};

void strmap_init(struct strmap *m);
void strmap_free(struct strmap *m);
/* Returns the value for @key, or -1. */
int strmap_get(const struct strmap *m, const char *key);
/*
 * Insert @key with @value unless present; returns the value stored
 * (the old one when the key already existed).
 */
int strmap_put(struct strmap *m, const char *key, int value);

/*
 * A string pool: interning returns a stable pointer; equal strings give
 * equal pointers, so interned strings compare with ==.
 */
struct strpool {
	struct strmap map;	/* keys point into the blocks */
	char **strs;
	size_t nr, alloc;
	char **blocks;		/* the strings' bytes, many to a block */
	size_t nr_blocks, alloc_blocks;
	size_t room;		/* bytes left in the last block */
};

/* Room for @n more keys without growing on the way. */
void strmap_reserve(struct strmap *m, size_t n);

void strpool_init(struct strpool *p);
void strpool_free(struct strpool *p);
const char *strpool_intern(struct strpool *p, const char *s);
/*
 * Intern the @nr strings that @bytes (@len bytes from malloc(), each
 * string with its NUL) holds one after the other, none in the pool yet:
 * the pool takes @bytes over, no string is copied. False when a string
 * is there already or @bytes do not hold @nr strings exactly: the pool
 * then holds some of them, and is only fit for strpool_free().
 */
bool strpool_adopt(struct strpool *p, char *bytes, size_t len, size_t nr);
/*
 * The pool's copy of @s, or NULL when it holds none: strings of one pool
 * compare by address (a whole kernel's graph avoids strcmp() loops so).
 */
const char *strpool_find(const struct strpool *p, const char *s);

/*
 * Output files that are never left half written: a regular (or new) file
 * is written under a temporary name and renamed into place by out_close();
 * a device or a pipe (/dev/stdout, /dev/full) is written in place, never
 * replaced. out_close() returns 0, or -errno (and removes the temporary).
 */
struct out_file {
	FILE *f;
	char *path, *tmp;
};

int out_open(struct out_file *o, const char *path);
int out_close(struct out_file *o);
/* Close without renaming into place: the temporary is removed. */
void out_abort(struct out_file *o);
/* All of @text to @path, through out_open(); 0 or -errno. */
int write_atomic(const char *path, const char *text);
/* @dir and its missing parents (mkdir -p); 0 or -errno. */
int mkdir_parents(const char *dir, unsigned int mode);

/* A growable byte buffer. */
struct bytes {
	unsigned char *data;
	size_t len, alloc;
};

void bytes_put(struct bytes *b, const void *data, size_t len);
void bytes_free(struct bytes *b);

/*
 * Open the input file @path ("the patch", "the baseline": @what names it
 * in messages) for reading: a FIFO, a device, a socket or a directory is
 * refused at once (never waited on), as is a file larger than @max bytes
 * (0: no limit). 0 and *@out, or -errno with "PATH: cannot read WHAT:
 * REASON" in @err.
 */
int input_open(const char *path, const char *what, unsigned long long max,
	       FILE **out, char *err, size_t errlen);
/* The whole of @path (NUL-terminated, *@len bytes before it), or NULL. */
char *file_bytes(const char *path, size_t *len);
/*
 * The limits on input files (docs/reliability.md): a compile database,
 * a baseline, a patch; a roots or waivers file.
 */
#define INPUT_MAX_TEXT	(1ULL << 30)
#define INPUT_MAX_LIST	(64ULL << 20)

/* Is @s (NUL-terminated) valid UTF-8? */
bool utf8_valid(const char *s);
/*
 * @s as valid UTF-8, for JSON and SARIF: unchanged when it is and holds
 * no '%' followed by two hex digits; else each byte that is not part of
 * a valid UTF-8 sequence, and each '%', written as "%XX", so that a name
 * spelled "caf%E9.h" ("caf%25E9.h") never meets a Latin-1 "caf\351.h"
 * ("caf%E9.h") (docs/diagnostics.md, "Paths that are not UTF-8"). A new
 * string.
 */
char *utf8_escape(const char *s);
/*
 * @path as a URI path (RFC 3986): every byte but the unreserved ones and
 * '/' percent-encoded. A new string.
 */
char *uri_escape(const char *path);

/* Make @msg one line: newlines and tabs become spaces. */
void one_line(char *msg);

/* Lexically normalise @path: drop "." parts, fold "dir/.." pairs. */
char *path_normalize(const char *path);
/* @path relative to directory @base when inside it, else a copy. */
char *path_relative(const char *path, const char *base);
/* Join @dir and @path unless @path is absolute; normalised. */
char *path_join(const char *dir, const char *path);

#endif /* TRAPCHECK_UTIL_H */
