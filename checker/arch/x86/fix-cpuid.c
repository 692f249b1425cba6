// SPDX-License-Identifier: GPL-2.0
/*
 * fix-cpuid.c - x86: the rewrite of CPUID in inline assembly (a library's
 * own probe, as lib/zstd/common/cpu.h has) into reads of what the kernel
 * keeps of the same leaf (copies.def): each output register of a
 * constant leaf becomes the feature word of boot_cpu_data, or a field
 * of it. An output the copy lacks is allowed only when nothing reads it
 * after the instruction (its declaration, just before, goes with it).
 * Outside the architecture's own directories the instruction stays for
 * code built for another context (#else of copies.def's guard). The
 * sites of one file are one patch: it adds the #include once
 * (x86_fix_group()).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x86.h"
#include "trapcheck/base/util.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/finding/finding.h"
#include "trapcheck/graph/graph.h"

struct cpuid_copy {
	unsigned long leaf;
	const char *reg, *copy, *source;
};

#define CPUID_NONE_OF_THE_REST(...)

static const struct cpuid_copy copies[] = {
#define CPUID_WORDS CPUID_NONE_OF_THE_REST
#define CPUID_COPY(l, r, c, s) { l, r, c, s },
#define CPUID_KERNEL CPUID_NONE_OF_THE_REST
#define CPUID_OWN_DIR CPUID_NONE_OF_THE_REST
#define CPUID_OTHER_DIR CPUID_NONE_OF_THE_REST
#include "copies.def"
#undef CPUID_WORDS
#undef CPUID_COPY
#undef CPUID_KERNEL
#undef CPUID_OWN_DIR
#undef CPUID_OTHER_DIR
};

struct cpuid_words {
	const char *header, *include, *format;
};

static const struct cpuid_words words[] = {
#define CPUID_WORDS(h, i, f) { h, i, f },
#define CPUID_COPY CPUID_NONE_OF_THE_REST
#define CPUID_KERNEL CPUID_NONE_OF_THE_REST
#define CPUID_OWN_DIR CPUID_NONE_OF_THE_REST
#define CPUID_OTHER_DIR CPUID_NONE_OF_THE_REST
#include "copies.def"
#undef CPUID_WORDS
#undef CPUID_COPY
#undef CPUID_KERNEL
#undef CPUID_OWN_DIR
#undef CPUID_OTHER_DIR
};

static const char *const guard[] = {
#define CPUID_WORDS CPUID_NONE_OF_THE_REST
#define CPUID_COPY CPUID_NONE_OF_THE_REST
#define CPUID_KERNEL(g) g,
#define CPUID_OWN_DIR CPUID_NONE_OF_THE_REST
#define CPUID_OTHER_DIR CPUID_NONE_OF_THE_REST
#include "copies.def"
#undef CPUID_WORDS
#undef CPUID_COPY
#undef CPUID_KERNEL
#undef CPUID_OWN_DIR
#undef CPUID_OTHER_DIR
};

static const char *const own_dirs[] = {
#define CPUID_WORDS CPUID_NONE_OF_THE_REST
#define CPUID_COPY CPUID_NONE_OF_THE_REST
#define CPUID_KERNEL CPUID_NONE_OF_THE_REST
#define CPUID_OWN_DIR(p) p,
#define CPUID_OTHER_DIR CPUID_NONE_OF_THE_REST
#include "copies.def"
#undef CPUID_WORDS
#undef CPUID_COPY
#undef CPUID_KERNEL
#undef CPUID_OWN_DIR
#undef CPUID_OTHER_DIR
};

static const char *const other_dirs[] = {
#define CPUID_WORDS CPUID_NONE_OF_THE_REST
#define CPUID_COPY CPUID_NONE_OF_THE_REST
#define CPUID_KERNEL CPUID_NONE_OF_THE_REST
#define CPUID_OWN_DIR CPUID_NONE_OF_THE_REST
#define CPUID_OTHER_DIR(p) p,
#include "copies.def"
#undef CPUID_WORDS
#undef CPUID_COPY
#undef CPUID_KERNEL
#undef CPUID_OWN_DIR
#undef CPUID_OTHER_DIR
};

#define CPUID_GROUP	"cpuid-copy"
#define CPUID_ONCE_GROUP "cpuid-once"
#define MAX_OUT		4
/* How far a statement may run on. */
#define MAX_STMT_LINES	12

struct cpuid_out {
	char reg[4];		/* "EAX" */
	char *expr;		/* as written */
	char *copy;		/* what replaces it, or NULL: dropped */
};

struct cpuid_stmt {
	unsigned int first, last;	/* its lines */
	unsigned int decl;		/* a declaration moved with it, or 0 */
	struct cpuid_out out[MAX_OUT];
	size_t nr_out;
	unsigned long leaf, sub;
	bool has_leaf, has_sub;
};

static void stmt_free(struct cpuid_stmt *s)
{
	size_t i;

	for (i = 0; i < s->nr_out; i++) {
		free(s->out[i].expr);
		free(s->out[i].copy);
	}
}

static const char *skip_ws(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

static const char *skip_word(const char *p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(p, w, n) || isalnum((unsigned char)p[n]) || p[n] == '_')
		return NULL;
	return p + n;
}

/* A string literal at @p into @buf (escapes kept); past it, or NULL. */
static const char *string_lit(const char *p, char *buf, size_t len)
{
	size_t n = 0;

	if (*p != '"')
		return NULL;
	for (p++; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1])
			p++;
		if (n + 1 < len)
			buf[n++] = *p == 'n' && p[-1] == '\\' ? ' ' :
				   *p == 't' && p[-1] == '\\' ? ' ' : *p;
	}
	buf[n] = '\0';
	return *p == '"' ? p + 1 : NULL;
}

/* "(expr)" at @p: its text in *@expr (new); past it, or NULL. */
static const char *paren_expr(const char *p, char **expr)
{
	const char *start;
	int depth = 0;

	if (*p != '(')
		return NULL;
	start = p + 1;
	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && !--depth) {
			const char *a = skip_ws(start), *b = p;

			while (b > a && isspace((unsigned char)b[-1]))
				b--;
			*expr = xstrndup(a, (size_t)(b - a));
			return p + 1;
		}
	}
	return NULL;
}

static bool parse_number(const char *s, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	*v = strtoul(s, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	return !*end;
}

/*
 * One operand list up to ':' or ')': outputs ("=a"(v)) when @out, else
 * inputs ("a"(7), "c"(0)) into the leaf and sub-leaf. NULL and *@why
 * when it is not one the rewrite reads.
 */
static const char *operands(const char *p, bool out, struct cpuid_stmt *s,
			    char **why)
{
	char cons[16], *expr;

	for (p = skip_ws(p); *p && *p != ':' && *p != ')'; p = skip_ws(p)) {
		const char *c;

		p = string_lit(p, cons, sizeof(cons));
		if (!p)
			goto err_shape;
		p = paren_expr(skip_ws(p), &expr);
		if (!p)
			goto err_shape;
		c = cons;
		if (out && *c == '=') {
			c += c[1] == '&' ? 2 : 1;
			if (strlen(c) != 1 || !strchr("abcd", *c) ||
			    s->nr_out == MAX_OUT) {
				*why = xasprintf("CPUID's output \"%s\" is not "
						 "one register", cons);
				free(expr);
				return NULL;
			}
			snprintf(s->out[s->nr_out].reg, 4, "E%cX",
				 toupper((unsigned char)*c));
			s->out[s->nr_out++].expr = expr;
		} else if (!out && (!strcmp(c, "a") || !strcmp(c, "c"))) {
			unsigned long v;

			if (!parse_number(expr, &v)) {
				*why = xasprintf("CPUID's %s is %s, not a "
						 "constant", *c == 'a' ?
						 "leaf" : "sub-leaf", expr);
				free(expr);
				return NULL;
			}
			if (*c == 'a') {
				s->leaf = v;
				s->has_leaf = true;
			} else {
				s->sub = v;
				s->has_sub = true;
			}
			free(expr);
		} else {
			*why = xasprintf("CPUID's operand \"%s\"(%s) is %s",
					 cons, expr, out ?
					 "read as well as written: the leaf "
					 "is not a constant input" :
					 "not the leaf or the sub-leaf");
			free(expr);
			return NULL;
		}
		p = skip_ws(p);
		if (*p == ',')
			p++;
	}
	return p;

err_shape:
	*why = xstrdup("CPUID's operands are not written as \"reg\"(expr)");
	return NULL;
}

/*
 * The statement __asm__("cpuid" : outputs : inputs : clobbers); that
 * starts at the site's line and column, alone on its lines.
 */
static bool parse_stmt(const struct fix_ctx *ctx, struct cpuid_stmt *s,
		       char **why)
{
	const struct finding *f = ctx->finding;
	const struct src_file *src = ctx->src;
	unsigned int first = f->site->line, col = f->site->col, i, last;
	char *text = NULL, tmpl[64], *t;
	const char *p, *end, *q;
	size_t len = 0, n;
	FILE *out;
	bool ok = false;

	memset(s, 0, sizeof(*s));
	if (!first || first > src->nr_lines || !col ||
	    strlen(src->lines[first - 1]) < col)
		goto err_shape;
	for (q = src->lines[first - 1]; q < src->lines[first - 1] + col - 1;
	     q++)
		if (!isspace((unsigned char)*q))
			goto err_shape;
	out = open_memstream(&text, &len);
	last = first + MAX_STMT_LINES - 1;
	if (last > src->nr_lines)
		last = (unsigned int)src->nr_lines;
	fputs(src->lines[first - 1] + col - 1, out);
	for (i = first + 1; i <= last; i++)
		fprintf(out, "\n%s", src->lines[i - 1]);
	fclose(out);

	p = skip_word(text, "__asm__");
	if (!p)
		p = skip_word(text, "__asm");
	if (!p)
		p = skip_word(text, "asm");
	if (!p)
		goto err_shape;
	p = skip_ws(p);
	q = skip_word(p, "__volatile__");
	if (!q)
		q = skip_word(p, "volatile");
	if (q)
		p = skip_ws(q);
	if (*p != '(')
		goto err_shape;
	p = skip_ws(p + 1);
	n = 0;
	while (*p == '"') {
		char part[64];

		p = string_lit(p, part, sizeof(part));
		if (!p || n + strlen(part) + 1 > sizeof(tmpl))
			goto err_shape;
		memcpy(tmpl + n, part, strlen(part) + 1);
		n += strlen(part);
		p = skip_ws(p);
	}
	if (!n)
		goto err_shape;
	tmpl[n] = '\0';
	for (t = tmpl; isspace((unsigned char)*t); t++)
		;
	while (n && isspace((unsigned char)tmpl[n - 1]))
		tmpl[--n] = '\0';
	if (strcmp(t, "cpuid")) {
		*why = xasprintf("the inline assembly is \"%s\", not CPUID "
				 "alone", t);
		goto free_text;
	}
	if (*p != ':')
		goto err_shape;
	p = operands(p + 1, true, s, why);
	if (!p)
		goto free_text;
	if (*p == ':') {
		p = operands(p + 1, false, s, why);
		if (!p)
			goto free_text;
	}
	if (*p == ':') {		/* the clobbers */
		for (p = skip_ws(p + 1); *p == '"'; ) {
			char c[16];

			p = string_lit(p, c, sizeof(c));
			if (!p)
				goto err_shape;
			p = skip_ws(p);
			if (*p == ',')
				p = skip_ws(p + 1);
		}
	}
	if (*p != ')')
		goto err_shape;
	p = skip_ws(p + 1);
	if (*p != ';')
		goto err_shape;
	/* Nothing else on its last line. */
	for (end = p + 1; *end && *end != '\n'; end++)
		if (!isspace((unsigned char)*end))
			goto err_shape;
	s->first = first;
	s->last = first;
	for (q = text; q < p; q++)
		if (*q == '\n')
			s->last++;
	if (!s->has_leaf) {
		*why = xstrdup("CPUID's leaf is not a constant input (\"a\")");
		goto free_text;
	}
	ok = true;
	goto free_text;

err_shape:
	*why = xstrdup("the inline assembly is not one statement "
		       "__asm__(\"cpuid\" : outputs : inputs) alone on its "
		       "lines");
free_text:
	free(text);
	if (!ok)
		stmt_free(s);
	return ok;
}

/* Does @name occur as a word in @text? */
static bool has_word(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(text, name); p; p = strstr(p + 1, name)) {
		bool before = p > text &&
			      (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '_';

		if (!before && !after)
			return true;
	}
	return false;
}

/*
 * Is @name read after the statement, in the block that holds it? The
 * lines from @from to the '}' that closes the block.
 */
static bool used_after(const struct src_file *src, unsigned int from,
		       const char *name)
{
	bool in_comment = false;
	unsigned int i;
	int depth = 0;

	for (i = from; i <= src->nr_lines; i++) {
		char *code = line_code(src->lines[i - 1], &in_comment);
		const char *c;
		bool used = has_word(code, name);

		for (c = code; *c && depth >= 0; c++)
			depth += *c == '{' ? 1 : *c == '}' ? -1 : 0;
		free(code);
		if (used)
			return true;
		if (depth < 0)
			return false;
	}
	return true;
}

/* "TYPE name;" alone on @line: a declaration of @name only. */
static bool lone_decl(const char *line, const char *name)
{
	const char *p = skip_ws(line), *semi = strchr(p, ';');
	size_t n = strlen(name);

	if (!semi || *skip_ws(semi + 1) || strchr(p, '=') || strchr(p, ',') ||
	    (size_t)(semi - p) <= n + 1)
		return false;
	return !strncmp(semi - n, name, n) &&
	       isspace((unsigned char)semi[-n - 1]);
}

/*
 * The line of @name's declaration when it is the statement's: alone, just
 * before it (blank and // comment lines between), else 0.
 */
static unsigned int decl_before(const struct src_file *src,
				unsigned int first, const char *name)
{
	unsigned int i;

	for (i = first - 1; i >= 1; i--) {
		const char *l = skip_ws(src->lines[i - 1]);

		if (!*l || !strncmp(l, "//", 2))
			continue;
		return lone_decl(l, name) ? i : 0;
	}
	return 0;
}

/* enum cpuid_leafs spells leaf 7 "7" and 0x80000001 "8000_0001". */
static void leaf_text(unsigned long leaf, char *buf, size_t len)
{
	if (leaf > 0xffff)
		snprintf(buf, len, "%04lX_%04lX", leaf >> 16, leaf & 0xffff);
	else
		snprintf(buf, len, "%lX", leaf);
}

/* Does a line of @h name @name as a word? */
static bool src_has_word(const struct src_file *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->nr_lines; i++)
		if (has_word(h->lines[i], name))
			return true;
	return false;
}

/* Does the header name a word of sub-leaf N of @leaf ("CPUID_7_0_")? */
static bool has_subleaves(const struct src_file *h, const char *leaf)
{
	char *pre = xasprintf("CPUID_%s_", leaf);
	const char *p;
	bool yes = false;
	size_t i;

	for (i = 0; i < h->nr_lines && !yes; i++)
		for (p = strstr(h->lines[i], pre); p && !yes;
		     p = strstr(p + 1, pre)) {
			const char *d = p + strlen(pre);

			if (!isdigit((unsigned char)*d))
				continue;
			while (isdigit((unsigned char)*d))
				d++;
			yes = *d == '_';
		}
	free(pre);
	return yes;
}

/*
 * What replaces output @o of the statement: a copy of copies.def, the
 * feature word the header names, or (NULL) nothing. *@why when the
 * statement cannot be rewritten at all.
 */
static char *copy_of(const struct cpuid_stmt *s, const struct cpuid_out *o,
		     const struct src_file *header, char **why)
{
	char leaf[24], name[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(copies); i++)
		if (copies[i].leaf == s->leaf && !strcmp(copies[i].reg, o->reg))
			return xstrdup(copies[i].copy);
	leaf_text(s->leaf, leaf, sizeof(leaf));
	if (s->has_sub) {
		snprintf(name, sizeof(name), "CPUID_%s_%lu_%s", leaf, s->sub,
			 o->reg);
		if (src_has_word(header, name))
			goto word;
	} else if (has_subleaves(header, leaf)) {
		*why = xasprintf("CPUID leaf 0x%lx has sub-leaves and the "
				 "statement does not set ECX", s->leaf);
		return NULL;
	}
	if (!s->has_sub || !s->sub) {
		snprintf(name, sizeof(name), "CPUID_%s_%s", leaf, o->reg);
		if (src_has_word(header, name))
			goto word;
	}
	return NULL;
word:
	return xasprintf(words[0].format, name);
}

/* Is @path in one of @dirs? */
static bool in_dirs(const char *path, const char *const *dirs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

/* Does the file of the fix need copies.def's guard? */
static bool needs_guard(const char *path)
{
	return !in_dirs(path, own_dirs, ARRAY_SIZE(own_dirs));
}

/* The statement's outputs, each with its copy or dropped. */
static bool plan(const struct fix_ctx *ctx, struct cpuid_stmt *s, char **why)
{
	const struct src_file *src = ctx->src;
	struct src_file h;
	size_t i, kept = 0;
	bool ok = false;

	if (src_load(&h, ctx->tree, words[0].header)) {
		*why = xasprintf("%s: cannot read (the names of the kernel's "
				 "CPUID words)", words[0].header);
		return false;
	}
	for (i = 0; i < s->nr_out; i++) {
		struct cpuid_out *o = &s->out[i];
		char *err = NULL;
		unsigned int d;

		o->copy = copy_of(s, o, &h, &err);
		if (err) {
			*why = err;
			goto free_header;
		}
		if (o->copy) {
			kept++;
			continue;
		}
		/* No copy: only an output nothing reads after. */
		if (used_after(src, s->last + 1, o->expr)) {
			*why = xasprintf("CPUID leaf 0x%lx's %s, read into %s, "
					 "has no copy the kernel keeps (%s)",
					 s->leaf, o->reg, o->expr,
					 words[0].header);
			goto free_header;
		}
		d = decl_before(src, s->first, o->expr);
		if (d && (!s->decl || d < s->decl))
			s->decl = d;
		if (!d) {
			*why = xasprintf("CPUID leaf 0x%lx's %s goes to %s, "
					 "which has no copy and is declared "
					 "away from the statement", s->leaf,
					 o->reg, o->expr);
			goto free_header;
		}
	}
	if (!kept) {
		*why = xstrdup("no output of the CPUID is read after it");
		goto free_header;
	}
	ok = true;
free_header:
	src_free(&h);
	return ok;
}

/*
 * The second rewrite, when the copy cannot be read (its header breaks
 * the code that includes the file: verification said so): the function
 * that executes the CPUIDs asks once and keeps the answer. Only for a
 * static function of no parameters that calls nothing, whose result is
 * then what CPUID said: renamed NAME_uncached(), and a NAME() in the
 * kernel's style (tabs, whatever the file's) that calls it until one
 * caller has stored its answer (a compare-and-exchange elects it; a
 * release store publishes, an acquire load reads) and returns that since. The site's own edit
 * is none; the group's (x86_fix_group()) rename and add.
 */
static bool once_fix(const struct fix_ctx *ctx, const struct cpuid_stmt *s,
		     struct fix_edit *e, char **why)
{
	const struct finding *f = ctx->finding;
	const struct gnode *fn = f->fn;
	char leaf[24], *area, *failed;

	if (!fn->file || strcmp(fn->file, f->site->file) || !fn->is_static ||
	    fn->nr_out || fn->indirect_calls || (fn->params && *fn->params)) {
		*why = xasprintf("no second rewrite: %s() is not a static "
				 "function of no parameters that calls nothing, "
				 "whose answer could be kept", fn->name);
		return false;
	}
	leaf_text(s->leaf, leaf, sizeof(leaf));
	failed = xstrdup(ctx->failed ? ctx->failed : "");
	for (char *t = failed; *t; t++)
		if (*t == '\t' || *t == '\n')
			*t = ' ';
	e->first = e->last = 0;
	area = fix_area(f->site->file);
	e->subject = xasprintf("%s: ask CPUID once in %s()", area, fn->name);
	e->body = xstrdup("");
	e->group = xasprintf("%s:%s:%s", CPUID_ONCE_GROUP, f->site->file,
			     fn->name);
	e->group_arg = xasprintf("%s\t%s\t0x%s\t%u\t%s", f->site->file,
				 fn->name, leaf, fn->line, failed);
	free(failed);
	free(area);
	return true;
}

bool x86_fix_asm_cpuid(const struct fix_ctx *ctx, struct fix_edit *e,
		       char **why)
{
	const struct finding *f = ctx->finding;
	const struct src_file *src = ctx->src;
	struct cpuid_stmt s;
	unsigned int i, from;
	char *indent, *area, leaf[24];
	bool guarded;

	if (in_dirs(f->site->file, other_dirs, ARRAY_SIZE(other_dirs))) {
		*why = xasprintf("%s is built outside the kernel proper: no "
				 "boot_cpu_data there", f->site->file);
		return false;
	}
	if (!parse_stmt(ctx, &s, why))
		return false;
	if (ctx->attempt) {
		bool ok = once_fix(ctx, &s, e, why);

		stmt_free(&s);
		return ok;
	}
	if (!plan(ctx, &s, why)) {
		stmt_free(&s);
		return false;
	}
	guarded = needs_guard(f->site->file);
	from = s.decl ? s.decl : s.first;
	indent = line_indent(src->lines[s.first - 1]);
	e->first = from;
	e->last = s.last;
	if (guarded)
		fix_edit_add_line(e, "#if %s", guard[0]);
	for (i = 0; i < s.nr_out; i++)
		if (s.out[i].copy)
			fix_edit_add_line(e, "%s%s = %s;", indent,
					  s.out[i].expr, s.out[i].copy);
	if (guarded) {
		fix_edit_add_line(e, "#else");
		for (i = from; i <= s.last; i++)
			fix_edit_add_line(e, "%s", src->lines[i - 1]);
		fix_edit_add_line(e, "#endif");
	}
	leaf_text(s.leaf, leaf, sizeof(leaf));
	area = fix_area(f->site->file);
	e->subject = xasprintf("%s: read CPUID leaf 0x%s from boot_cpu_data "
			       "in %s()", area, leaf, f->fn->name);
	e->body = xasprintf("%s() executes CPUID for leaf 0x%s each time it "
			    "runs. Under virtualization CPUID always exits to "
			    "the hypervisor: each execution is a VM exit.\n\n"
			    "The kernel read the leaf at boot and keeps it in "
			    "boot_cpu_data (its feature words hold the bits "
			    "common to every CPU, as the kernel decided them: "
			    "a bit turned off with clearcpuid= or a feature "
			    "the kernel disables reads 0). Read that copy.%s",
			    f->fn->name, leaf, guarded ?
			    " Code built outside the kernel proper (the "
			    "decompressor, built with __DISABLE_EXPORTS) keeps "
			    "the instruction." : "");
	e->group = xasprintf("%s:%s", CPUID_GROUP, f->site->file);
	e->group_arg = xasprintf("%s\t%s\t0x%s", f->site->file, f->fn->name,
				 leaf);
	free(area);
	free(indent);
	stmt_free(&s);
	return true;
}

/*
 * Several sites of one file (@args "file\tfn\tleaf", in source order):
 * the message says each function's leaves.
 */
static void group_message(const char *const *args, size_t nr, bool guarded,
			  char **subject, char **body)
{
	char *file = xstrndup(args[0], strcspn(args[0], "\t"));
	char *area = fix_area(file), *buf = NULL, *first = NULL;
	const char *base = strrchr(file, '/');
	size_t len = 0, i, j, nr_fns = 0;
	FILE *out = open_memstream(&buf, &len);

	for (i = 0; i < nr; i = j) {
		const char *f = strchr(args[i], '\t') + 1;
		size_t n = strcspn(f, "\t");

		for (j = i; j < nr; j++) {
			const char *g = strchr(args[j], '\t') + 1;

			if (strcspn(g, "\t") != n || strncmp(g, f, n))
				break;
		}
		if (!first)
			first = xstrndup(f, n);
		fprintf(out, "%s%.*s() executes CPUID for %s ",
			nr_fns++ ? "\n" : "", (int)n, f,
			j - i > 1 ? "leaves" : "leaf");
		for (; i < j; i++)
			fprintf(out, "%s%s", strrchr(args[i], '\t') + 1,
				i + 2 < j ? ", " : i + 2 == j ? " and " : "");
		fputs(" each time it runs.", out);
	}
	fprintf(out, " Under virtualization CPUID always exits to the "
		"hypervisor: each execution is a VM exit.\n\nThe kernel read "
		"these leaves at boot and keeps them in boot_cpu_data (its "
		"feature words hold the bits common to every CPU, as the "
		"kernel decided them: a bit turned off with clearcpuid= or a "
		"feature the kernel disables reads 0). Read that copy.%s",
		guarded ? " Code built outside the kernel proper (the "
		"decompressor, built with __DISABLE_EXPORTS) keeps the "
		"instruction." : "");
	fclose(out);
	*subject = nr_fns == 1 ?
		   xasprintf("%s: read CPUID from boot_cpu_data in %s()", area,
			     first) :
		   xasprintf("%s: read CPUID from boot_cpu_data in %s", area,
			     base ? base + 1 : file);
	*body = buf;
	free(first);
	free(area);
	free(file);
}

/* A header's include guard: the line of "#define X" after "#ifndef X". */
static size_t guard_define(const struct src_file *s)
{
	size_t i;

	for (i = 0; i + 1 < s->nr_lines; i++) {
		const char *l = s->lines[i];

		if (strncmp(l, "#ifndef ", 8))
			continue;
		if (!strncmp(s->lines[i + 1], "#define ", 8) &&
		    !strcmp(skip_ws(l + 8), skip_ws(s->lines[i + 1] + 8)))
			return i + 2;
		return 0;
	}
	return 0;
}

/* The #include of the copies, where the file lacks it. */
static bool include_edit(const char *tree, const char *file, bool guarded,
			 struct fix_edit **extra, size_t *nr_extra,
			 char **why)
{
	char *want = xasprintf("#include <%s>", words[0].include);
	size_t i, last = 0;
	struct src_file s;
	bool have = false;

	if (src_load(&s, tree, file)) {
		*why = xasprintf("%s: cannot read", file);
		free(want);
		return false;
	}
	for (i = 0; i < s.nr_lines && !have; i++) {
		have = !strncmp(s.lines[i], want, strlen(want));
		if (!strncmp(s.lines[i], "#include ", 9))
			last = i + 1;
	}
	if (!have && !last)
		last = guard_define(&s);
	if (!have && !last) {
		*why = xasprintf("%s: no #include, or include guard, to add %s "
				 "after", file, want);
		goto free_src;
	}
	if (!have) {
		struct fix_edit *e = xcalloc(1, sizeof(*e));

		e->path = xstrdup(file);
		e->first = e->last = last;
		fix_edit_add_line(e, "%s", s.lines[last - 1]);
		if (strncmp(s.lines[last - 1], "#include ", 9))
			fix_edit_add_line(e, "%s", "");
		if (guarded)
			fix_edit_add_line(e, "#if %s", guard[0]);
		fix_edit_add_line(e, "%s", want);
		if (guarded)
			fix_edit_add_line(e, "#endif");
		*extra = e;
		*nr_extra = 1;
	}
	src_free(&s);
	free(want);
	return true;

free_src:
	src_free(&s);
	free(want);
	return false;
}

/* "a, b and c" of the third field of @args[0..nr) ("file\tfn\tleaf..."). */
static void leaves_of(const char *const *args, size_t nr, FILE *out)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const char *l = strchr(strchr(args[i], '\t') + 1, '\t') + 1;

		fprintf(out, "%.*s%s", (int)strcspn(l, "\t"), l,
			i + 2 < nr ? ", " : i + 2 == nr ? " and " : "");
	}
}

/* @name as a word followed by '(' in @l, or NULL. */
static const char *call_name(const char *l, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(l, name); p; p = strstr(p + 1, name))
		if ((p == l || (!isalnum((unsigned char)p[-1]) &&
				p[-1] != '_')) && *skip_ws(p + n) == '(')
			return p;
	return NULL;
}

/*
 * The function whose definition starts at line @at of @s: the name's
 * line, "NAME(void)" on it after a prefix that makes it static, and the
 * line of the '}' that ends its body; false when it is not so written.
 */
static bool once_shape(const struct src_file *s, unsigned int at,
		       const char *name, const char **after,
		       unsigned int *end)
{
	const char *l, *n, *p;
	bool in_comment = false, opened = false;
	unsigned int i;
	int depth = 0;

	if (!at || at > s->nr_lines)
		return false;
	l = s->lines[at - 1];
	n = call_name(l, name);
	if (!n || !strcasestr(l, "static") || strcasestr(n, "static"))
		return false;
	p = skip_ws(n + strlen(name));
	if (*p != '(')
		return false;
	p = skip_word(skip_ws(p + 1), "void");
	if (!p || *skip_ws(p) != ')')
		return false;
	*after = skip_ws(p) + 1;
	for (i = at; i <= s->nr_lines; i++) {
		char *code = line_code(s->lines[i - 1], &in_comment);
		const char *c;

		for (c = code; *c; c++) {
			if (*c == '{') {
				depth++;
				opened = true;
			} else if (*c == '}' && !--depth && opened) {
				bool alone = !strcmp(skip_ws(code), "}");

				free(code);
				*end = i;
				return alone;
			}
		}
		free(code);
	}
	return false;
}

/*
 * The return type in the words before a function's name, its storage
 * and inline words left out: "static inline struct x " -> "struct x";
 * a word in capitals with STATIC or INLINE in it is such a macro
 * (zstd's MEM_STATIC). NULL when anything else is there (an attribute,
 * a pointer's '*' is kept).
 */
static char *return_type(const char *prefix)
{
	static const char *const drop[] = {
		"static", "inline", "__inline", "__inline__",
		"__always_inline", "noinline",
	};
	char *buf = NULL, *w, *save = NULL, *copy = xstrdup(prefix);
	size_t len = 0, i;
	FILE *out = open_memstream(&buf, &len);
	bool any = false, odd = false;

	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t",
								&save)) {
		bool skip = false, caps = true;
		const char *c;

		for (i = 0; i < ARRAY_SIZE(drop); i++)
			skip |= !strcmp(w, drop[i]);
		for (c = w; *c; c++)
			caps &= isupper((unsigned char)*c) || *c == '_' ||
				isdigit((unsigned char)*c);
		if (caps && (strstr(w, "STATIC") || strstr(w, "INLINE")))
			skip = true;
		if (strchr(w, '(') || strchr(w, ')'))
			odd = true;
		if (skip)
			continue;
		fprintf(out, "%s%s", any ? " " : "", w);
		any = true;
	}
	fclose(out);
	free(copy);
	if (!any || odd) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * The group of once_fix(): NAME() renamed NAME_uncached(), and after its
 * body a NAME() that asks once.
 */
static bool once_group(const char *tree, const char *const *args, size_t nr,
		       struct fix_edit **extra, size_t *nr_extra,
		       char **subject, char **body, char **why)
{
	char *file = xstrndup(args[0], strcspn(args[0], "\t"));
	const char *fnp = strchr(args[0], '\t') + 1;
	char *fn = xstrndup(fnp, strcspn(fnp, "\t"));
	const char *linep = strchr(strchr(fnp, '\t') + 1, '\t') + 1;
	const char *failed = strchr(linep, '\t') + 1;
	unsigned int at = (unsigned int)strtoul(linep, NULL, 10), end;
	const char *after, *n;
	char *prefix, *area = NULL, *buf = NULL, *type = NULL;
	struct fix_edit *e;
	struct src_file s;
	size_t len = 0;
	FILE *out;
	bool ok = false;

	if (src_load(&s, tree, file)) {
		*why = xasprintf("%s: cannot read", file);
		goto free_names;
	}
	if (!once_shape(&s, at, fn, &after, &end)) {
		*why = xasprintf("no second rewrite: %s() is not written "
				 "\"static ... %s(void)\" with a body whose '}' "
				 "is alone on its line (the copy: %s)", fn, fn,
				 failed);
		goto free_src;
	}
	n = call_name(s.lines[at - 1], fn);
	prefix = xstrndup(s.lines[at - 1], (size_t)(n - s.lines[at - 1]));
	type = return_type(prefix);
	if (!type) {
		*why = xasprintf("no second rewrite: %s()'s return type is "
				 "not plain in \"%s\" (the copy: %s)", fn, prefix,
				 failed);
		free(prefix);
		goto free_src;
	}
	e = xcalloc(2, sizeof(*e));
	e[0].path = xstrdup(file);
	e[0].first = e[0].last = at;
	/* The kernel's style (checkpatch): the brace on a line of its own. */
	if (!strcmp(skip_ws(after), "{")) {
		fix_edit_add_line(&e[0], "%s%s_uncached(void)", prefix, fn);
		fix_edit_add_line(&e[0], "%s", "{");
	} else {
		fix_edit_add_line(&e[0], "%s%s_uncached(void)%s", prefix, fn,
				  after);
	}
	e[1].path = xstrdup(file);
	e[1].first = e[1].last = end;
	fix_edit_add_line(&e[1], "%s", s.lines[end - 1]);
	fix_edit_add_line(&e[1], "%s", "");
	fix_edit_add_line(&e[1], "%s", "/*");
	fix_edit_add_line(&e[1], " * CPUID exits to the hypervisor under "
			  "virtualization: ask it once. The");
	fix_edit_add_line(&e[1], " * answer does not change while the kernel "
			  "runs. The first caller to store");
	fix_edit_add_line(&e[1], " * it publishes it; a caller racing with it "
			  "uses its own.");
	fix_edit_add_line(&e[1], "%s", " */");
	fix_edit_add_line(&e[1], "%s%s(void)", prefix, fn);
	fix_edit_add_line(&e[1], "%s", "{");
	fix_edit_add_line(&e[1], "\tstatic %s answer;", type);
	fix_edit_add_line(&e[1], "\tstatic int state;\t/* 0: not asked, 1: "
			  "being stored, 2: stored */");
	fix_edit_add_line(&e[1], "%s", "");
	fix_edit_add_line(&e[1], "\tif (__builtin_expect(__atomic_load_n("
			  "&state, __ATOMIC_ACQUIRE) != 2, 0)) {");
	fix_edit_add_line(&e[1], "\t\t%s got = %s_uncached();", type, fn);
	fix_edit_add_line(&e[1], "\t\tint none = 0;");
	fix_edit_add_line(&e[1], "%s", "");
	fix_edit_add_line(&e[1], "\t\tif (__atomic_compare_exchange_n(&state, "
			  "&none, 1, 0,");
	fix_edit_add_line(&e[1], "\t\t\t\t\t\t__ATOMIC_RELAXED,");
	fix_edit_add_line(&e[1], "\t\t\t\t\t\t__ATOMIC_RELAXED)) {");
	fix_edit_add_line(&e[1], "\t\t\tanswer = got;");
	fix_edit_add_line(&e[1], "\t\t\t__atomic_store_n(&state, 2, "
			  "__ATOMIC_RELEASE);");
	fix_edit_add_line(&e[1], "\t\t}");
	fix_edit_add_line(&e[1], "\t\treturn got;");
	fix_edit_add_line(&e[1], "\t}");
	fix_edit_add_line(&e[1], "\treturn answer;");
	fix_edit_add_line(&e[1], "%s", "}");
	*extra = e;
	*nr_extra = 2;

	area = fix_area(file);
	*subject = xasprintf("%s: ask CPUID once in %s()", area, fn);
	out = open_memstream(&buf, &len);
	fprintf(out, "%s() executes CPUID for %s ", fn,
		nr > 1 ? "leaves" : "leaf");
	leaves_of(args, nr, out);
	fprintf(out, " each time it runs. Under virtualization CPUID always "
		"exits to the hypervisor: each execution is a VM exit.\n\n"
		"The kernel keeps these leaves in boot_cpu_data, but the "
		"rewrite that reads that copy (with #include <%s>) failed "
		"its check here: %s. "
		"Ask once instead: %s() keeps the answer of its first call%s. "
		"The caller that wins a compare-and-exchange of the state "
		"stores it and publishes it with a release store; callers "
		"read it after an acquire load of the state, and one racing "
		"with the first returns the answer it got itself: no access "
		"to the kept answer races. CPU features do not change while "
		"the kernel runs.", words[0].include, failed, fn,
		strlen(file) > 2 && !strcmp(file + strlen(file) - 2, ".h") ?
		" (one per file that includes this header)" : "");
	fclose(out);
	*body = buf;
	free(prefix);
	ok = true;
free_src:
	free(type);
	src_free(&s);
free_names:
	free(area);
	free(fn);
	free(file);
	return ok;
}

bool x86_fix_group(const char *tree, const char *group,
		   const char *const *args, size_t nr,
		   struct fix_edit **extra, size_t *nr_extra,
		   char **subject, char **body, char **why)
{
	char *file;
	bool ok, guarded;

	*extra = NULL;
	*nr_extra = 0;
	*subject = *body = NULL;
	if (!strncmp(group, CPUID_ONCE_GROUP ":", strlen(CPUID_ONCE_GROUP ":"))
	    && nr)
		return once_group(tree, args, nr, extra, nr_extra, subject,
				  body, why);
	if (strncmp(group, CPUID_GROUP ":", strlen(CPUID_GROUP ":")) || !nr) {
		*why = xasprintf("no edits for the group %s", group);
		return false;
	}
	file = xstrndup(args[0], strcspn(args[0], "\t"));
	guarded = needs_guard(file);
	ok = include_edit(tree, file, guarded, extra, nr_extra, why);
	if (ok && nr > 1)
		group_message(args, nr, guarded, subject, body);
	free(file);
	return ok;
}
