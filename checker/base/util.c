// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - allocation, arrays, hash map and path helpers.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapcheck/base/diag.h"
#include "trapcheck/base/util.h"

static void __attribute__((noreturn)) oom(void)
{
	diag_error("out of memory");
	exit(TC_EXIT_INTERNAL);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	char buf[256];		/* most strings: formatted once (perf) */
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	s = xmalloc(n + 1);
	if ((size_t)n < sizeof(buf)) {
		memcpy(s, buf, n + 1);
		return s;
	}
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void grow(void **arr, size_t *alloc, size_t want, size_t elem)
{
	size_t n = *alloc;

	if (want <= n)
		return;
	n = n ? n : 8;
	while (n < want)
		n *= 2;
	*arr = xrealloc(*arr, n * elem);
	*alloc = n;
}

void sort_n(void *base, size_t n, size_t size,
	    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

void sort_r(void *base, size_t n, size_t size,
	    int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, arg);
}

void strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

bool str_in(const char *s, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return true;
	return false;
}

void strv_add_once(char ***v, size_t *nr, size_t *alloc, const char *s,
		   size_t n)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (strlen((*v)[i]) == n && !strncmp((*v)[i], s, n))
			return;
	*PUSH(*v, *nr, *alloc) = xstrndup(s, n);
}

bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

int site_cmp(const char *fa, unsigned int la, unsigned int ca,
	     const char *fb, unsigned int lb, unsigned int cb)
{
	/* A site without a file (a damaged database's) sorts first. */
	int c = strcmp(fa ? fa : "", fb ? fb : "");

	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return 0;
}

uint64_t hash_mix(uint64_t a, uint64_t b)
{
	a ^= b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2);
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return a;
}

uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void strmap_init(struct strmap *m)
{
	m->mask = 63;
	m->used = 0;
	m->slots = xcalloc(m->mask + 1, sizeof(*m->slots));
}

void strmap_free(struct strmap *m)
{
	size_t i;

	if (!m->slots)
		return;
	for (i = 0; i <= m->mask; i++)
		free((char *)m->slots[i].key);
	free(m->slots);
	m->slots = NULL;
}

static struct strmap_slot *strmap_find(const struct strmap *m,
				       const char *key, uint64_t h)
{
	size_t i = h & m->mask;

	for (;;) {
		struct strmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && !strcmp(s->key, key)))
			return s;
		i = (i + 1) & m->mask;
	}
}

int strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_slot *s = strmap_find(m, key, hash_str(key));

	return s->key ? s->value : -1;
}

static void strmap_rehash(struct strmap *m)
{
	struct strmap_slot *old = m->slots;
	size_t i, n = m->mask + 1;

	m->mask = n * 2 - 1;
	m->slots = xcalloc(n * 2, sizeof(*m->slots));
	for (i = 0; i < n; i++)
		if (old[i].key)
			*strmap_find(m, old[i].key, old[i].hash) = old[i];
	free(old);
}

int strmap_put(struct strmap *m, const char *key, int value)
{
	uint64_t h = hash_str(key);
	struct strmap_slot *s = strmap_find(m, key, h);

	if (s->key)
		return s->value;
	s->key = xstrdup(key);
	s->hash = h;
	s->value = value;
	if (++m->used * 2 > m->mask)
		strmap_rehash(m);
	return value;
}

void strpool_init(struct strpool *p)
{
	memset(p, 0, sizeof(*p));
	strmap_init(&p->map);
}

void strpool_free(struct strpool *p)
{
	size_t i;

	/* The keys are the blocks' bytes: strmap_free() would free them. */
	free(p->map.slots);
	for (i = 0; i < p->nr_blocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->strs);
	memset(p, 0, sizeof(*p));
}

/*
 * The block of a string longer than a quarter block: kept before the
 * last block, whose room small strings go on using.
 */
static void pool_keep(struct strpool *p, char *block)
{
	char **b = PUSH(p->blocks, p->nr_blocks, p->alloc_blocks);

	*b = block;
	if (p->nr_blocks > 1) {
		*b = b[-1];
		b[-1] = block;
	}
}

/* Room for @len bytes in the pool's last block, or a new block. */
static char *pool_bytes(struct strpool *p, size_t len)
{
	enum { BLOCK = 1 << 20 };
	char *at;

	if (len > BLOCK / 4) {
		at = xmalloc(len);
		pool_keep(p, at);
		return at;
	}
	if (p->room < len) {
		*PUSH(p->blocks, p->nr_blocks, p->alloc_blocks) =
			xmalloc(BLOCK);
		p->room = BLOCK;
	}
	at = p->blocks[p->nr_blocks - 1] + (BLOCK - p->room);
	p->room -= len;
	return at;
}

static void pool_add(struct strpool *p, struct strmap_slot *slot,
		     const char *copy, uint64_t h)
{
	slot->key = copy;
	slot->hash = h;
	slot->value = (int)p->nr;
	*PUSH(p->strs, p->nr, p->alloc) = (char *)copy;
	if (++p->map.used * 2 > p->map.mask)
		strmap_rehash(&p->map);
}

const char *strpool_intern(struct strpool *p, const char *s)
{
	uint64_t h = hash_str(s);
	struct strmap_slot *slot = strmap_find(&p->map, s, h);
	size_t len;
	char *copy;

	if (slot->key)
		return p->strs[slot->value];
	len = strlen(s) + 1;
	copy = memcpy(pool_bytes(p, len), s, len);
	pool_add(p, slot, copy, h);
	return copy;
}

bool strpool_adopt(struct strpool *p, char *bytes, size_t len, size_t nr)
{
	size_t i, at = 0;

	pool_keep(p, bytes);
	if (len && bytes[len - 1])
		return false;
	strmap_reserve(&p->map, nr);
	GROW(p->strs, p->alloc, p->nr + nr + 1);
	for (i = 0; i < nr; i++) {
		const char *s = bytes + at;
		uint64_t h;
		struct strmap_slot *slot;

		if (at >= len)
			return false;
		h = hash_str(s);
		slot = strmap_find(&p->map, s, h);
		if (slot->key)
			return false;
		pool_add(p, slot, s, h);
		at += strlen(s) + 1;
	}
	return at == len;
}

const char *strpool_find(const struct strpool *p, const char *s)
{
	int i = s ? strmap_get(&p->map, s) : -1;

	return i >= 0 ? p->strs[i] : NULL;
}

void strmap_reserve(struct strmap *m, size_t n)
{
	while ((m->used + n) * 2 > m->mask)
		strmap_rehash(m);
}

char *path_normalize(const char *path)
{
	size_t len = strlen(path);
	char *out = xmalloc(len + 2);
	size_t *seg_at = xmalloc((len / 2 + 2) * sizeof(*seg_at));
	size_t nseg = 0, o = 0;
	const char *p = path;
	bool abs = *path == '/';

	if (abs)
		out[o++] = '/';
	while (*p) {
		const char *seg;
		size_t n;

		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		n = p - seg;
		if (!n || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			if (nseg) {
				/* Drop the last real directory. */
				o = seg_at[--nseg];
				continue;
			}
			if (abs)
				continue;	/* "/.." is "/" */
			/* A leading ".." stays and cannot be folded. */
		}
		if (o > (abs ? 1u : 0u))
			out[o++] = '/';
		if (!(n == 2 && seg[0] == '.' && seg[1] == '.'))
			seg_at[nseg++] = o ? o - (o > (abs ? 1u : 0u) &&
						 out[o - 1] == '/') : 0;
		memcpy(out + o, seg, n);
		o += n;
	}
	free(seg_at);
	if (!o)
		out[o++] = '.';
	out[o] = '\0';
	return out;
}

char *path_relative(const char *path, const char *base)
{
	size_t n = strlen(base);

	while (n > 0 && base[n - 1] == '/')
		n--;
	/* n == 0: the base is "/", which holds every absolute path. */
	if (!strncmp(path, base, n) && path[n] == '/' && path[n + 1])
		return xstrdup(path + n + 1);
	return xstrdup(path);
}

char *path_join(const char *dir, const char *path)
{
	char *tmp, *out;

	if (path[0] == '/' || !dir || !*dir)
		return path_normalize(path);
	tmp = xasprintf("%s/%s", dir, path);
	out = path_normalize(tmp);
	free(tmp);
	return out;
}

void bytes_put(struct bytes *b, const void *data, size_t len)
{
	GROW(b->data, b->alloc, b->len + len);
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
}

void bytes_free(struct bytes *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->alloc = 0;
}

void one_line(char *msg)
{
	for (; msg && *msg; msg++)
		if (*msg == '\n' || *msg == '\r' || *msg == '\t')
			*msg = ' ';
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

int input_open(const char *path, const char *what, unsigned long long max,
	       FILE **out, char *err, size_t errlen)
{
	const char *sp = what && *what ? " " : "";
	struct stat sb;
	int fd, er;

	*out = NULL;
	if (!*path) {
		snprintf(err, errlen, "'': cannot read%s%s: an empty path",
			 sp, what ? what : "");
		return -ENOENT;
	}
	/* O_NONBLOCK: opening a FIFO with no writer does not wait. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		er = errno;
		snprintf(err, errlen, "%s: cannot read%s%s: %s", path, sp,
			 what ? what : "", strerror(er));
		return -er;
	}
	if (fstat(fd, &sb)) {
		er = errno;
		close(fd);
		snprintf(err, errlen, "%s: cannot read%s%s: %s", path, sp,
			 what ? what : "", strerror(er));
		return -er;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: cannot read%s%s: %s, not a regular "
			 "file", path, sp, what ? what : "",
			 file_kind(sb.st_mode));
		return S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
	}
	if (max && (unsigned long long)sb.st_size > max) {
		close(fd);
		snprintf(err, errlen, "%s: cannot read%s%s: %llu bytes, more "
			 "than the limit of %llu", path, sp, what ? what : "",
			 (unsigned long long)sb.st_size, max);
		return -EFBIG;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ||
	    !(*out = fdopen(fd, "r"))) {
		er = errno;
		close(fd);
		snprintf(err, errlen, "%s: cannot read%s%s: %s", path, sp,
			 what ? what : "", strerror(er));
		return -er;
	}
	return 0;
}

/* The length of the valid UTF-8 sequence at @p, or 0. */
static size_t utf8_seq(const unsigned char *p)
{
	size_t n, i;
	unsigned int c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, c = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = utf8_seq(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* Does @s hold a '%' that reads as an escape ("%E9")? */
static bool has_pct_hex(const char *s)
{
	for (s = strchr(s, '%'); s; s = strchr(s + 1, '%'))
		if (isxdigit((unsigned char)s[1]) &&
		    isxdigit((unsigned char)s[2]))
			return true;
	return false;
}

char *utf8_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct bytes b = { 0 };
	char hex[4];
	size_t n;

	if (utf8_valid(s) && !has_pct_hex(s))
		return xstrdup(s);
	while (*p) {
		n = utf8_seq(p);
		if (n && *p != '%') {
			bytes_put(&b, p, n);
			p += n;
			continue;
		}
		snprintf(hex, sizeof(hex), "%%%02X", *p++);
		bytes_put(&b, hex, 3);
	}
	bytes_put(&b, "", 1);
	return (char *)b.data;
}

char *uri_escape(const char *path)
{
	const unsigned char *p = (const unsigned char *)path;
	struct bytes b = { 0 };
	char hex[4];

	for (; *p; p++) {
		if (isalnum(*p) || strchr("-._~/", *p)) {
			bytes_put(&b, p, 1);
			continue;
		}
		snprintf(hex, sizeof(hex), "%%%02X", *p);
		bytes_put(&b, hex, 3);
	}
	bytes_put(&b, "", 1);
	return (char *)b.data;
}

int out_open(struct out_file *o, const char *path)
{
	struct stat sb;

	o->path = xstrdup(path);
	o->tmp = NULL;
	if (stat(path, &sb) || S_ISREG(sb.st_mode))
		o->tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	o->f = fopen(o->tmp ? o->tmp : path, "w");
	if (!o->f) {
		int er = errno;

		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		return -er;
	}
	return 0;
}

void out_abort(struct out_file *o)
{
	fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
}

int mkdir_parents(const char *dir, unsigned int mode)
{
	char *p, *slash;
	struct stat st;
	int ret = 0;

	if (!*dir)
		return -ENOENT;
	p = xstrdup(dir);
	slash = p;
	for (;;) {
		slash = strchr(slash + 1, '/');
		if (slash)
			*slash = '\0';
		if (*p && mkdir(p, mode) && errno != EEXIST) {
			ret = -errno;
			break;
		}
		if (!slash)
			break;
		*slash = '/';
	}
	if (!ret && (stat(dir, &st) || !S_ISDIR(st.st_mode)))
		ret = -ENOTDIR;
	free(p);
	return ret;
}

int write_atomic(const char *path, const char *text)
{
	struct out_file o;
	int ret = out_open(&o, path);

	if (ret)
		return ret;
	fputs(text, o.f);	/* a failure stays in ferror() */
	return out_close(&o);
}

int out_close(struct out_file *o)
{
	int ret = 0;

	if (ferror(o->f))
		ret = -EIO;
	if (fclose(o->f) && !ret)
		ret = -errno;
	if (!ret && o->tmp && rename(o->tmp, o->path))
		ret = -errno;
	if (ret && o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	return ret;
}

char *file_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	do {
		GROW(buf, cap, *len + 65536 + 1);
		n = fread(buf + *len, 1, 65536, f);
		*len += n;
	} while (n > 0);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
		*len = 0;
	} else {
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}
