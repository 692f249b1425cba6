// SPDX-License-Identifier: GPL-2.0
/*
 * fix.c - turn rule rewrites into verified git format-patch files.
 *
 * Rewrites are made from libclang's exact sites (the line and column of
 * each sink) on the source text rather than by Coccinelle: the analysis
 * already knows the one site to change and why, and a line edit keeps the
 * surrounding layout byte for byte. Each edit is then checked three ways
 * before anything is written: the patch applies to a scratch copy of the
 * file (patch --dry-run), the tree re-analysed with the patched file in
 * memory (libclang unsaved files) has no TU with more errors, and the
 * finding is gone with no new finding in its place.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <clang-c/Index.h>

#include "trapcheck/fix.h"
#include "trapcheck/rules.h"
#include "trapcheck/util.h"

#ifndef TRAPCHECK_VERSION
#define TRAPCHECK_VERSION "0.1"
#endif

extern char **environ;

void fix_edit_add_line(struct fix_edit *e, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	e->lines = xrealloc(e->lines, (e->nr_lines + 1) * sizeof(*e->lines));
	e->lines[e->nr_lines++] = s;
}

void fix_edit_free(struct fix_edit *e)
{
	size_t i;

	for (i = 0; i < e->nr_lines; i++)
		free(e->lines[i]);
	free(e->lines);
	free(e->subject);
	free(e->body);
	memset(e, 0, sizeof(*e));
}

char *line_indent(const char *line)
{
	size_t n = strspn(line, " \t");

	return xstrndup(line, n);
}

/* Subject prefixes by path, as the kernel's own history writes them. */
static const struct {
	const char *prefix;	/* path prefix */
	const char *area;	/* NULL: "arm64: " + the file's base name */
} areas[] = {
	{ "arch/arm64/include/asm/", NULL },
	{ "arch/arm64/kernel/", NULL },
	{ "arch/arm64/mm/", "arm64: mm" },
	{ "arch/arm64/kvm/", "KVM: arm64" },
	{ "drivers/char/random.c", "random" },
	{ "mm/", "mm" },
	{ "kernel/sched/", "sched" },
	{ "kernel/", "kernel" },
};

char *fix_area(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i, n;

	base = base ? base + 1 : path;
	for (i = 0; i < ARRAY_SIZE(areas); i++) {
		if (strncmp(path, areas[i].prefix, strlen(areas[i].prefix)))
			continue;
		if (areas[i].area)
			return xstrdup(areas[i].area);
		n = strcspn(base, ".");
		return xasprintf("arm64: %.*s", (int)n, base);
	}
	n = strcspn(base, ".");
	return xstrndup(base, n);
}

char *fix_chain_text(const struct finding *f)
{
	size_t i, len = 0;
	char *s, *p;

	for (i = 0; i < f->chain.len; i++)
		len += strlen(f->chain.steps[i].function) + 8 +
		       (f->chain.steps[i].via ?
			strlen(f->chain.steps[i].via) + 8 : 0);
	s = p = xmalloc(len + 1);
	*p = '\0';
	for (i = 0; i < f->chain.len; i++) {
		const struct chain_step *st = &f->chain.steps[i];

		p += sprintf(p, "%s%s()", i ? " -> " : "", st->function);
		if (st->via)
			p += sprintf(p, st->inferred ? " (via %s)" :
				     " (as %s())", st->via);
	}
	return s;
}

static void src_free(struct src_file *s)
{
	free(s->path);
	free(s->text);
	free(s->lines);
	memset(s, 0, sizeof(*s));
}

/* Take ownership of @text and split it into lines. */
static void src_from_text(struct src_file *s, const char *rel, char *text)
{
	size_t len = strlen(text), i;

	memset(s, 0, sizeof(*s));
	s->text = text;
	s->path = xstrdup(rel);
	s->lines = xmalloc((len + 2) * sizeof(*s->lines));
	s->lines[s->nr_lines++] = s->text;
	for (i = 0; i < len; i++) {
		if (s->text[i] != '\n')
			continue;
		s->text[i] = '\0';
		if (i + 1 < len)
			s->lines[s->nr_lines++] = s->text + i + 1;
	}
}

static int src_load(struct src_file *s, const char *tree, const char *rel)
{
	char *path = xasprintf("%s/%s", tree, rel);
	FILE *fp = fopen(path, "rb");
	size_t len = 0, cap = 0, n;
	char buf[65536], *text;

	free(path);
	memset(s, 0, sizeof(*s));
	if (!fp)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		GROW(s->text, cap, len + n + 1);
		memcpy(s->text + len, buf, n);
		len += n;
	}
	fclose(fp);
	GROW(s->text, cap, len + 1);
	s->text[len] = '\0';
	text = s->text;
	src_from_text(s, rel, text);
	return 0;
}

static void edit_copy(struct fix_edit *d, const struct fix_edit *e)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->first = e->first;
	d->last = e->last;
	for (i = 0; i < e->nr_lines; i++)
		fix_edit_add_line(d, "%s", e->lines[i]);
	d->subject = e->subject ? xstrdup(e->subject) : NULL;
	d->body = e->body ? xstrdup(e->body) : NULL;
}

void fix_sites_free(struct fix_sites *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		fix_edit_free(&s->v[i].e);
		src_free(&s->v[i].src);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The file's text with @e applied, '\n'-terminated lines. */
static char *apply_edit(const struct src_file *s, const struct fix_edit *e)
{
	size_t i, len = 1;
	char *out, *p;

	for (i = 0; i < s->nr_lines; i++)
		len += strlen(s->lines[i]) + 1;
	for (i = 0; i < e->nr_lines; i++)
		len += strlen(e->lines[i]) + 1;
	out = p = xmalloc(len);
	for (i = 0; i < s->nr_lines; i++) {
		size_t j;

		if (i + 1 == e->first)
			for (j = 0; j < e->nr_lines; j++)
				p += sprintf(p, "%s\n", e->lines[j]);
		if (i + 1 >= e->first && i + 1 <= e->last)
			continue;
		p += sprintf(p, "%s\n", s->lines[i]);
	}
	*p = '\0';
	return out;
}

#define CONTEXT 3

/*
 * The replaced region as diff lines: the longest common subsequence of
 * the old and new lines (both a handful) stays as context, the rest is
 * removed and added, as diff(1) would show it.
 */
static void region_ops(const struct src_file *s, const struct fix_edit *e,
		       FILE *out, size_t *added, size_t *removed)
{
	size_t n = e->last - e->first + 1, m = e->nr_lines, i, j;
	const char *const *old = (const char *const *)s->lines + e->first - 1;
	const char *const *new = (const char *const *)e->lines;
	unsigned int *lcs = xcalloc((n + 1) * (m + 1), sizeof(*lcs));

#define L(i, j) lcs[(i) * (m + 1) + (j)]
	for (i = n; i-- > 0;)
		for (j = m; j-- > 0;)
			L(i, j) = !strcmp(old[i], new[j]) ? L(i + 1, j + 1) + 1 :
				  L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) :
							      L(i, j + 1);
	*added = *removed = 0;
	for (i = 0, j = 0; i < n || j < m;) {
		if (i < n && j < m && !strcmp(old[i], new[j])) {
			fprintf(out, " %s\n", old[i++]);
			j++;
		} else if (i < n && (j == m || L(i + 1, j) >= L(i, j + 1))) {
			fprintf(out, "-%s\n", old[i++]);
			(*removed)++;
		} else {
			fprintf(out, "+%s\n", new[j++]);
			(*added)++;
		}
	}
#undef L
	free(lcs);
}

/* A unified diff of one edit, paths a/ and b/ relative to the tree. */
static char *make_diff(const struct src_file *s, const struct fix_edit *e,
		       size_t *added, size_t *removed)
{
	size_t from = e->first > CONTEXT ? e->first - CONTEXT : 1;
	size_t to = e->last + CONTEXT <= s->nr_lines ? e->last + CONTEXT :
						       s->nr_lines;
	size_t old_n = to - from + 1;
	size_t new_n = old_n - (e->last - e->first + 1) + e->nr_lines;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *out = open_memstream(&buf, &len);

	fprintf(out, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", s->path,
		s->path, s->path, s->path);
	fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", from, old_n, from, new_n);
	for (i = from; i < e->first; i++)
		fprintf(out, " %s\n", s->lines[i - 1]);
	region_ops(s, e, out, added, removed);
	for (i = e->last + 1; i <= to; i++)
		fprintf(out, " %s\n", s->lines[i - 1]);
	fclose(out);
	return buf;
}

/* Wrap @text at 72 columns; paragraphs stay separated by a blank line. */
static void put_wrapped(FILE *out, const char *text)
{
	const char *p = text;
	size_t col = 0;

	while (*p) {
		size_t w = strcspn(p, " \n");

		if (col && col + 1 + w > 72) {
			fputc('\n', out);
			col = 0;
		} else if (col) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, w, out);
		col += w;
		p += w;
		if (*p == '\n') {
			fputc('\n', out);
			col = 0;
			while (*++p == '\n')
				fputc('\n', out);
		} else if (*p == ' ') {
			p++;
		}
	}
	if (col)
		fputc('\n', out);
}

/* "a() -> b() -> c()" on lines of at most 72, continued indented. */
static void put_chain(FILE *out, const char *chain, size_t col)
{
	const char *p = chain;

	while (*p) {
		const char *arrow = strstr(p, " -> ");
		size_t w = arrow ? (size_t)(arrow - p) : strlen(p);

		if (col + 1 + w > 72 && col > 6) {
			fputs("\n    ", out);
			col = 4;
		} else {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, w, out);
		col += w;
		p += w;
		if (*p) {
			fputs(" ->", out);
			col += 3;
			p += 4;
		}
	}
	fputc('\n', out);
}

static char *author(const struct fix_opts *fo)
{
	const char *name = getenv("GIT_AUTHOR_NAME");
	const char *mail = getenv("GIT_AUTHOR_EMAIL");

	if (fo->signoff)
		return xstrdup(fo->signoff);
	if (name && mail)
		return xasprintf("%s <%s>", name, mail);
	return xstrdup("trapcheck <trapcheck@localhost>");
}

/* The whole git format-patch text. */
static char *format_patch(const struct finding *f, const struct fix_edit *e,
			  const char *diff, size_t added, size_t removed,
			  const struct fix_opts *fo)
{
	char *buf = NULL, date[64], *who = author(fo), *chain;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t now = epoch ? (time_t)atoll(epoch) : time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	chain = fix_chain_text(f);
	fprintf(out, "From 0000000000000000000000000000000000000000 Mon Sep "
		"17 00:00:00 2001\nFrom: %s\nDate: %s\nSubject: [PATCH] %s\n\n",
		who, date, e->subject);
	put_wrapped(out, e->body);
	fputc('\n', out);
	put_wrapped(out, f->root ?
		    "The call is reached from a hot path. The chain, as "
		    "trapcheck found it:" :
		    "The site, as trapcheck found it:");
	fprintf(out, "\n  %s:", f->root ? f->root : "site");
	put_chain(out, chain, strlen(f->root ? f->root : "site") + 3);
	fprintf(out, "  %s:%u (rule %s)\n", f->file, f->line, f->rule);
	if (fo->signoff)
		fprintf(out, "\nSigned-off-by: %s\n", fo->signoff);
	fprintf(out, "---\n %s | %zu %.*s%.*s\n 1 file changed, %zu "
		"insertion%s(+), %zu deletion%s(-)\n\n%s-- \ntrapcheck %s\n\n",
		f->file, added + removed, (int)added,
		"++++++++++++++++++++++++++++++++++++++++", (int)removed,
		"----------------------------------------", added,
		added == 1 ? "" : "s", removed, removed == 1 ? "" : "s", diff,
		TRAPCHECK_VERSION);
	fclose(out);
	free(chain);
	free(who);
	return buf;
}

/* "0001-arm64-archrandom-avoid-trapping-ID-register-read-in-__cpu_has_rng" */
static char *patch_name(unsigned int n, const char *subject)
{
	char *s = xasprintf("%04u-%s", n, subject), *p, *q;
	bool dash = false;

	for (p = q = s + 5; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_') {
			*q++ = *p;
			dash = false;
		} else if (!dash && q > s + 5) {
			*q++ = '-';
			dash = true;
		}
	}
	while (q > s + 5 && q[-1] == '-')
		q--;
	strcpy(q, ".patch");
	return s;
}

static int write_file(const char *path, const char *text)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	FILE *fp = fopen(tmp, "w");
	int ret = 0;

	if (!fp) {
		ret = -errno;
		goto out_free;
	}
	if (fputs(text, fp) == EOF)
		ret = -EIO;
	if (fclose(fp) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
out_free:
	free(tmp);
	return ret;
}

static int run(char *const argv[])
{
	pid_t pid;
	int status;
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Step 1: the patch applies to a scratch copy of the file. */
static bool verify_applies(const struct src_file *s, const char *patch,
			   char **why)
{
	char dir[] = "/tmp/trapcheck-fix.XXXXXX";
	char *file, *pfile, *slash;
	char *argv[] = { "patch", "-p1", "--dry-run", "--silent", "-d", dir,
			 "-i", NULL, NULL };
	bool ok = false;
	char *orig;
	size_t i;

	if (!mkdtemp(dir)) {
		*why = xasprintf("patch --dry-run: no scratch directory: %s",
				 strerror(errno));
		return false;
	}
	file = xasprintf("%s/%s", dir, s->path);
	for (slash = strchr(file + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(file, 0755);
		*slash = '/';
	}
	orig = xstrdup("");
	for (i = 0; i < s->nr_lines; i++) {
		char *t = xasprintf("%s%s\n", orig, s->lines[i]);

		free(orig);
		orig = t;
	}
	pfile = xasprintf("%s/fix.patch", dir);
	argv[7] = pfile;
	if (write_file(file, orig) || write_file(pfile, patch))
		*why = xstrdup("patch --dry-run: cannot write the scratch copy");
	else if (run(argv) != 0)
		*why = xstrdup("patch --dry-run: the patch does not apply");
	else
		ok = true;
	free(orig);
	unlink(pfile);
	unlink(file);
	for (slash = strrchr(file, '/'); slash && slash > file + strlen(dir);
	     slash = strrchr(file, '/')) {
		*slash = '\0';
		rmdir(file);
	}
	rmdir(dir);
	free(file);
	free(pfile);
	return ok;
}

static unsigned int errors_of(const struct run_summary *s, const char *tu)
{
	size_t i;

	for (i = 0; i < s->nr_problems; i++)
		if (!strcmp(s->problems[i].file, tu))
			return s->problems[i].parse_error ? ~0u :
			       s->problems[i].nr_errors;
	return 0;
}

static bool same_site(const struct finding *a, const struct finding *b)
{
	return !strcmp(a->rule, b->rule) && !strcmp(a->function, b->function) &&
	       !strcmp(a->sink, b->sink) && !strcmp(a->file, b->file);
}

/*
 * Steps 2 and 3: re-analyse with the patched files in memory: no TU with
 * more errors, none of @fixed's sites left, no finding that was not
 * there before.
 */
static bool verify_analysis(const struct analysis *a,
			    const struct analysis_opts *ao,
			    const struct root_sets *roots,
			    struct CXUnsavedFile *u, unsigned int nr_u,
			    struct finding *const *fixed, size_t nr_fixed,
			    char **why)
{
	struct analysis_opts o = *ao;
	struct analysis b;
	char err[512];
	size_t i, j;
	bool ok = true;

	o.unsaved = u;
	o.nr_unsaved = nr_u;
	o.progress = false;
	if (analysis_run(&b, &o, roots, err, sizeof(err))) {
		*why = xasprintf("re-analysis failed: %s", err);
		return false;
	}
	for (i = 0; ok && i < b.summary.nr_problems; i++) {
		const struct tu_problem *p = &b.summary.problems[i];
		unsigned int before = errors_of(&a->summary, p->file);
		unsigned int after = p->parse_error ? ~0u : p->nr_errors;

		if (after > before) {
			*why = xasprintf("re-parse: %s has new errors: %s",
					 p->file, p->first_error);
			ok = false;
		}
	}
	for (i = 0; ok && i < b.findings.nr; i++) {
		const struct finding *g = &b.findings.v[i];
		bool known = false;

		for (j = 0; ok && j < nr_fixed; j++) {
			if (same_site(g, fixed[j])) {
				*why = xasprintf("re-analysis: the finding is "
						 "still there (%s:%u)", g->file,
						 g->line);
				ok = false;
			}
		}
		for (j = 0; ok && j < a->findings.nr && !known; j++)
			known = same_site(&a->findings.v[j], g);
		if (ok && !known) {
			*why = xasprintf("re-analysis: new finding %s:%u: %s "
					 "[%s]", g->file, g->line, g->message,
					 g->rule);
			ok = false;
		}
	}
	analysis_free(&b);
	return ok;
}

static const struct rule *rule_of(const char *id)
{
	size_t i;

	for (i = 0; i < rule_table_size; i++)
		if (!strcmp(rule_table[i].id, id))
			return &rule_table[i];
	return NULL;
}

/* A rewrite on its way: computed, then checked, then written. */
struct candidate {
	struct finding *f;
	struct fix_edit e;
	char *diff, *patch;
	char *path;		/* absolute */
	char *why;		/* why it failed a check, or NULL */
};

static int cand_order(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	int c = strcmp(x->f->file, y->f->file);

	/* Per file, bottom up: an edit never moves the lines above it. */
	return c ? c : (x->e.first < y->e.first) - (x->e.first > y->e.first);
}

/*
 * The text of @file with the edits of @c[0..n) (same file, bottom up)
 * applied, or NULL when the file cannot be read.
 */
static char *edited_text(const char *tree, struct candidate *c, size_t n)
{
	struct src_file src;
	char *text = NULL;
	size_t i;

	if (src_load(&src, tree, c[0].f->file))
		return NULL;
	for (i = 0; i < n; i++) {
		text = apply_edit(&src, &c[i].e);
		src_free(&src);
		src_from_text(&src, c[0].f->file, xstrdup(text));
		if (i + 1 < n)
			free(text);
	}
	src_free(&src);
	return text;
}

/* Group candidates [from, to) by file: unsaved files for libclang. */
static unsigned int unsaved_of(const char *tree, struct candidate *c,
			       size_t from, size_t to,
			       struct CXUnsavedFile *u, char **texts)
{
	unsigned int nr = 0;
	size_t i = from, j;

	while (i < to) {
		for (j = i; j < to && !strcmp(c[j].f->file, c[i].f->file); j++)
			;
		texts[nr] = edited_text(tree, c + i, j - i);
		if (texts[nr]) {
			u[nr].Filename = c[i].path;
			u[nr].Contents = texts[nr];
			u[nr].Length = (unsigned long)strlen(texts[nr]);
			nr++;
		}
		i = j;
	}
	return nr;
}

static bool verify_range(const struct analysis *a,
			 const struct analysis_opts *ao,
			 const struct root_sets *roots, struct candidate *c,
			 size_t from, size_t to, char **why)
{
	struct CXUnsavedFile *u = xcalloc(to - from + 1, sizeof(*u));
	char **texts = xcalloc(to - from + 1, sizeof(*texts));
	struct finding **fixed = xcalloc(to - from + 1, sizeof(*fixed));
	unsigned int nr, i;
	size_t k;
	bool ok;

	for (k = from; k < to; k++)
		fixed[k - from] = c[k].f;
	nr = unsaved_of(a->root, c, from, to, u, texts);
	ok = verify_analysis(a, ao, roots, u, nr, fixed, to - from, why);
	for (i = 0; i < nr; i++)
		free(texts[i]);
	free(texts);
	free(u);
	free(fixed);
	return ok;
}

static void candidate_free(struct candidate *c)
{
	fix_edit_free(&c->e);
	free(c->diff);
	free(c->patch);
	free(c->path);
	free(c->why);
}

/*
 * Code the rewrites must not touch, whatever the rule: nVHE hyp code runs
 * at EL2 linked on its own, where read_sanitised_ftr_reg() and the
 * kernel's data do not exist.
 */
static const struct {
	const char *prefix, *why;
} no_fix_paths[] = {
	{ "arch/arm64/kvm/hyp/", "hyp code (EL2, linked on its own) cannot "
	  "call read_sanitised_ftr_reg()" },
};

/* Step 1 for one finding: the rule's rewrite, its patch, patch --dry-run. */
static bool make_candidate(struct analysis *a, struct finding *f,
			   const struct fix_opts *fo, struct candidate *c)
{
	const struct rule *rule = rule_of(f->rule);
	struct fix_ctx ctx = { &a->graph, f, a->root, NULL };
	struct src_file src;
	size_t added, removed, i;
	char *why = NULL;

	memset(c, 0, sizeof(*c));
	c->f = f;
	if (!rule)
		return false;
	if (!rule->fix) {
		f->fix_note = xstrdup("no fix: this rule has no automatic "
				      "rewrite");
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(no_fix_paths); i++) {
		if (!strncmp(f->file, no_fix_paths[i].prefix,
			     strlen(no_fix_paths[i].prefix))) {
			f->fix_note = xasprintf("no fix: %s",
						no_fix_paths[i].why);
			return false;
		}
	}
	if (src_load(&src, a->root, f->file)) {
		f->fix_note = xasprintf("no fix: %s: cannot read", f->file);
		return false;
	}
	ctx.src = &src;
	if (!rule->fix(&ctx, &c->e, &why)) {
		f->fix_note = xasprintf("no fix: %s", why);
		free(why);
		fix_edit_free(&c->e);
		src_free(&src);
		return false;
	}
	c->diff = make_diff(&src, &c->e, &added, &removed);
	c->patch = format_patch(f, &c->e, c->diff, added, removed, fo);
	c->path = xasprintf("%s/%s", a->root, f->file);
	if (!verify_applies(&src, c->diff, &c->why))
		f->fix_note = xasprintf("fix not written: verification failed: "
					"%s", c->why);
	src_free(&src);
	return !c->why;
}

/*
 * --apply: the verified edits, file by file, each file written once.
 * Returns how many edits could not be applied (said in their notes).
 */
static size_t apply_verified(const char *tree, struct candidate *c, size_t nr)
{
	size_t i = 0, j, k, failed = 0;

	while (i < nr) {
		char *text;

		for (j = i; j < nr && !strcmp(c[j].f->file, c[i].f->file); j++)
			;
		text = edited_text(tree, c + i, j - i);
		if (!text || write_file(c[i].path, text)) {
			for (k = i; k < j; k++) {
				free(c[k].f->fix_note);
				c[k].f->fix_note = xasprintf("fix not applied: "
							     "%s: %s",
							     c[k].f->file,
							     strerror(errno));
				fprintf(stderr, "%s:%u:%u: note: %s\n",
					c[k].f->file, c[k].f->line,
					c[k].f->col, c[k].f->fix_note);
				failed++;
			}
		}
		free(text);
		i = j;
	}
	return failed;
}

int fixes_run(struct analysis *a, const struct analysis_opts *ao,
	      const struct root_sets *roots, const struct fix_opts *fo,
	      char *err, size_t errlen)
{
	struct candidate *c = NULL;
	size_t nr = 0, alloc = 0, i, j, k;
	unsigned int written = 0;
	int ret = 0;

	if (fo->dir && mkdir(fo->dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot create the fix directory: "
			 "%s", fo->dir, strerror(errno));
		return -errno;
	}
	for (i = 0; i < a->findings.nr; i++) {
		struct finding *f = &a->findings.v[i];
		bool done = false;

		/* One fix per site: the first finding of the site owns it. */
		for (j = 0; j < i && !done; j++)
			done = a->findings.v[j].line == f->line &&
			       a->findings.v[j].col == f->col &&
			       !strcmp(a->findings.v[j].rule, f->rule) &&
			       !strcmp(a->findings.v[j].file, f->file);
		if (done)
			continue;
		GROW(c, alloc, nr + 1);
		if (make_candidate(a, f, fo, &c[nr]))
			nr++;
		else
			candidate_free(&c[nr]);
	}
	sort_n(c, nr, sizeof(*c), cand_order);

	/* All together first (one re-analysis); one by one if that fails. */
	if (fo->verify && nr) {
		char *why = NULL;

		if (!verify_range(a, ao, roots, c, 0, nr, &why)) {
			for (k = 0; k < nr; k++)
				if (!verify_range(a, ao, roots, c, k, k + 1,
						  &c[k].why))
					c[k].f->fix_note = xasprintf(
						"fix not written: verification "
						"failed: %s", c[k].why);
		}
		free(why);
	}

	/* Keep the verified ones, in finding order for stable names. */
	for (i = 0, k = 0; i < nr; i++) {
		if (c[i].why)
			candidate_free(&c[i]);
		else
			c[k++] = c[i];
	}
	nr = k;
	for (i = 0; i < a->findings.nr; i++) {
		for (k = 0; k < nr; k++) {
			if (c[k].f != &a->findings.v[i])
				continue;
			written++;
			c[k].f->fix_note = xasprintf("fix: %s", c[k].e.subject);
			if (fo->print)
				fputs(c[k].diff, stdout);
			if (fo->dir) {
				char *name = patch_name(written,
							c[k].e.subject);
				char *out = xasprintf("%s/%s", fo->dir, name);

				free(name);
				if (write_file(out, c[k].patch)) {
					snprintf(err, errlen, "%s: cannot "
						 "write: %s", out,
						 strerror(errno));
					free(out);
					ret = -EIO;
					goto out_free;
				}
				free(c[k].f->fix_note);
				c[k].f->fix_note = xasprintf("fix: %s", out);
				free(out);
			}
		}
	}
	/* The sites, read before --apply changes the files. */
	for (i = 0; fo->sites && i < a->findings.nr; i++) {
		for (k = 0; k < nr; k++) {
			struct fix_site *site;

			if (c[k].f != &a->findings.v[i])
				continue;
			site = PUSH(fo->sites->v, fo->sites->nr,
				    fo->sites->alloc);
			site->f = c[k].f;
			edit_copy(&site->e, &c[k].e);
			ret = src_load(&site->src, a->root, c[k].f->file);
			if (ret) {
				snprintf(err, errlen, "%s: cannot read: %s",
					 c[k].f->file, strerror(-ret));
				fix_edit_free(&site->e);
				fo->sites->nr--;
				goto out_free;
			}
		}
	}
	if (fo->apply) {
		size_t failed = apply_verified(a->root, c, nr);

		written -= failed;
		if (failed && !written) {
			snprintf(err, errlen, "%s: no fix could be applied",
				 a->root);
			ret = -EIO;
			goto out_free;
		}
	}
	ret = (int)written;
out_free:
	for (i = 0; i < nr; i++)
		candidate_free(&c[i]);
	free(c);
	return ret;
}
