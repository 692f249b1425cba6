// SPDX-License-Identifier: GPL-2.0
/*
 * asm.c - an assembly source (.S) into tu_facts (extract.h: extract_asm()),
 * read as the build reads it: preprocessed with its own compile command
 * (its compiler with -E -x assembler-with-cpp, in its directory, without
 * what writes files; where that compiler is missing, clang with the flags
 * flags_translate() makes: -D__ASSEMBLY__, the includes, the target), its
 * assembler
 * macros (.macro ... .endm, those of asm/assembler.h included) expanded,
 * and then read for
 *  - symbols: a label that is global, typed (.type) or sized (.size) is
 *    a function (SYM_FUNC_START() and SYM_CODE_START() make all three);
 *    its statements run up to the next such label or its .size;
 *  - calls: a branch to a symbol (arm64 bl and b; x86 call and jmp), to a
 *    C function or an assembly one (the graph links them by name);
 *  - sinks: the architecture's SINK_INSN lines (an mrs of a register, a
 *    cpuid), at the .S line that wrote them (a macro's expansion at its
 *    invocation, with the macro's name as "via"); an instruction written
 *    as its number (.inst) where the architecture says which register
 *    it reads (arch.asm_inst_read(), named from the definitions the
 *    preprocessed text keeps: arch.asm_define_reg());
 *  - alternatives: the statements between alternative_if_not CAP and
 *    alternative_else run unless CAP, those after it when CAP, and so on:
 *    each carries its condition (kind feature: conditions.def); a block
 *    that branches over what follows (b .Lskip) or returns (ret) gives
 *    that part the negation, up to the label or the symbol's end.
 * Conditional assembly (.if, .ifc) is read on both sides.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trapcheck/base/util.h"
#include "trapcheck/clang/extract.h"
#include "trapcheck/input/compdb.h"
#include "trapcheck/input/flags.h"
#include "trapcheck/model/arch.h"
#include "trapcheck/model/facts.h"
#include "trapcheck/model/sinks.h"

#ifndef CLANG_BIN
#define CLANG_BIN "/usr/lib/llvm-14/bin/clang"
#endif

#define ASM_MACRO_DEPTH	8
#define ASM_MAX_OUTPUT	(256u << 20)

/* A statement as written: its text and where. */
struct asm_line {
	const char *file;	/* pooled, relative to the tree */
	unsigned int line;
	char *text;
};

struct asm_macro {
	char *name;
	char **params;
	size_t nr_params, alloc_params;
	struct asm_line *body;
	size_t nr_body, alloc_body;
};

/* A statement after expansion, with its label(s) split off. */
struct asm_stmt {
	const char *file;
	unsigned int line;
	const char *via;	/* the assembler macro written there */
	const char *label;	/* a label it defines, or NULL */
	char *insn;		/* the rest, trimmed ("" for a label alone) */
	const char *guards;	/* the alternative's condition, or NULL */
};

struct asm_read {
	const struct extract_opts *opts;
	struct tu_facts *out;
	struct strpool pool;
	struct asm_macro *macros;
	size_t nr_macros, alloc_macros;
	struct strmap macro_index;
	struct asm_macro *defining;
	unsigned int skip_macro;	/* nested .macro inside a skipped one */
	struct asm_stmt *stmts;
	size_t nr_stmts, alloc_stmts;
	struct strmap symbols;		/* global, typed or sized names */
	struct strmap globals;
	struct strmap included;
	struct strmap cap_names;	/* "12" -> capv[]: its name */
	/* "<number>" -> regv[]: a register an encoded instruction names */
	struct strmap encoded;
	const char **regv;
	size_t nr_regv, alloc_regv;
	const char **capv;
	size_t nr_capv, alloc_capv;
	const char *guard[ASM_MACRO_DEPTH];
	int nr_guard;
	/*
	 * "alternative_if CAP; b .Lskip; alternative_else_nop_endif": what
	 * follows up to .Lskip runs unless CAP.
	 */
	const char *skip_label, *skip_guard;
	int skip_depth;			/* its place in guard[], or -1 */
	unsigned int expansions;	/* \@ of each macro expansion */
};

/*
 * The build's own command for @e as a preprocessor run: its compiler and
 * flags, without what compiles or writes a file (-c, -o, -Wp,-MMD and the
 * other dependency outputs, the source), with -E -dD -x
 * assembler-with-cpp and the source (new, NULL-terminated).
 */
static char **own_command(const struct compdb_entry *e)
{
	char **argv = xcalloc((size_t)e->argc + 8, sizeof(*argv));
	int n = 0, i;

	argv[n++] = e->argv[0];
	for (i = 1; i < e->argc; i++) {
		const char *a = e->argv[i];
		size_t len = strlen(a);

		if (!strcmp(a, "-o") || !strcmp(a, "-MF") ||
		    !strcmp(a, "-MT") || !strcmp(a, "-MQ")) {
			i++;
			continue;
		}
		if (!strcmp(a, "-c") || !strcmp(a, "-MD") ||
		    !strcmp(a, "-MMD") || !strncmp(a, "-Wp,-M", 6) ||
		    !strncmp(a, "-o", 2) || !strncmp(a, "-MF", 3))
			continue;
		/* The source itself (kbuild writes it last, relative). */
		if (a[0] != '-' && len > 2 && a[len - 2] == '.' &&
		    (a[len - 1] == 'S' || a[len - 1] == 's'))
			continue;
		argv[n++] = (char *)a;
	}
	argv[n++] = (char *)"-E";
	argv[n++] = (char *)"-dD";	/* the capabilities' numbers */
	argv[n++] = (char *)"-x";
	argv[n++] = (char *)"assembler-with-cpp";
	argv[n++] = e->file;
	argv[n] = NULL;
	return argv;
}

/* clang's own driver with the flags flags_translate() made (new). */
static char **clang_command(const char *file, const struct clang_args *args)
{
	char **argv = xcalloc((size_t)args->argc + 8, sizeof(*argv));
	int n = 0, i;

	argv[n++] = (char *)CLANG_BIN;
	for (i = 0; i < args->argc; i++)
		argv[n++] = args->argv[i];
	argv[n++] = (char *)"-E";
	argv[n++] = (char *)"-dD";
	argv[n++] = (char *)"-x";
	argv[n++] = (char *)"assembler-with-cpp";
	argv[n++] = (char *)file;
	argv[n] = NULL;
	return argv;
}

#define NOT_RUN	127	/* the child's exit when the program is missing */

/*
 * Run @argv (in @dir when not NULL; found in PATH) and keep its standard
 * output: the text, or NULL with *@why. *@missing: it could not be run.
 */
static char *run_preprocessor(char **argv, const char *dir, char **why,
			      bool *missing)
{
	int fd[2], status;
	size_t len = 0, cap = 0;
	char *buf = NULL, first[512] = "";
	FILE *err = tmpfile();
	ssize_t got;
	pid_t pid;

	*missing = false;
	if (!err || pipe(fd)) {
		*why = xasprintf("cannot preprocess: %s", strerror(errno));
		if (err)
			fclose(err);
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		*why = xasprintf("cannot preprocess: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		fclose(err);
		return NULL;
	}
	if (!pid) {
		dup2(fd[1], 1);
		dup2(fileno(err), 2);	/* its first line says why it failed */
		close(fd[0]);
		if (dir && chdir(dir))
			_exit(NOT_RUN);
		execvp(argv[0], argv);
		_exit(NOT_RUN);
	}
	close(fd[1]);
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = xrealloc(buf, cap + 1);
		}
		got = read(fd[0], buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
		if (len > ASM_MAX_OUTPUT) {
			kill(pid, SIGKILL);
			break;
		}
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rewind(err);
	while (fgets(first, sizeof(first), err) &&
	       !strstr(first, "error"))
		;
	first[strcspn(first, "\n")] = '\0';
	fclose(err);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || len > ASM_MAX_OUTPUT) {
		*missing = WIFEXITED(status) &&
			   WEXITSTATUS(status) == NOT_RUN && !len;
		*why = *missing ? xasprintf("cannot run %s", argv[0]) :
		       len > ASM_MAX_OUTPUT ?
		       xasprintf("preprocessed output over %u MiB",
				 ASM_MAX_OUTPUT >> 20) :
		       xasprintf("the preprocessor failed (%s -E "
				 "-x assembler-with-cpp)%s%s", argv[0],
				 *first ? ": " : "", first);
		free(buf);
		return NULL;
	}
	buf = buf ? buf : xmalloc(1);
	buf[len] = '\0';
	return buf;
}

/*
 * The preprocessed text of @e: with the build's own compiler, as the
 * build preprocesses it (and in a fraction of clang's start-up time for
 * gcc), else, where that compiler is not installed, with clang and the
 * translated flags @args. NULL with *@why.
 */
static char *preprocess(const struct compdb_entry *e,
			const struct clang_args *args, char **why)
{
	char **argv = e && e->argc ? own_command(e) : NULL;
	bool missing = true;
	char *text = NULL;

	if (argv) {
		text = run_preprocessor(argv, e->directory, why, &missing);
		free(argv);
		if (text || !missing)
			return text;
		free(*why);
		*why = NULL;
	}
	argv = clang_command(e->file, args);
	text = run_preprocessor(argv, NULL, why, &missing);
	free(argv);
	return text;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* The first word of @s (an identifier, a directive or a mnemonic). */
static size_t word_len(const char *s)
{
	size_t n = 0;

	while (s[n] && (isalnum((unsigned char)s[n]) || s[n] == '_' ||
			s[n] == '.' || s[n] == '$'))
		n++;
	return n;
}

static bool is_word(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !strncmp(s, w, n);
}

/* A symbol name a branch can name: not a local label or a register. */
static bool symbol_name(const char *s)
{
	if (!*s || isdigit((unsigned char)*s) || !strncmp(s, ".L", 2) ||
	    *s == '%' || *s == '*' || *s == '#')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return true;
}

/* The macro's parameters: "name, a, b:req, c=0" after the name. */
static void macro_params(struct asm_macro *m, char *p)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(p, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		size_t n = strcspn(tok, ":=");

		*PUSH(m->params, m->nr_params, m->alloc_params) =
			xstrndup(tok, n);
	}
}

static void process(struct asm_read *r, const char *file, unsigned int line,
		    const char *via, char *text, int depth);

/* @text with each \param of @m replaced by its argument from @args. */
static char *substitute(const struct asm_macro *m, char **args, size_t nr,
			const char *text, unsigned int count)
{
	size_t cap = strlen(text) * 2 + 64, len = 0, i, n;
	char *out = xmalloc(cap);
	const char *p = text;

	while (*p) {
		const char *rep = NULL;

		if (*p == '\\') {
			if (p[1] == '(' && p[2] == ')') {
				p += 3;
				continue;
			}
			if (p[1] == '@') {
				char num[16];
				size_t k = (size_t)snprintf(num, sizeof(num),
							    "%u", count);

				if (len + k + 1 >= cap)
					out = xrealloc(out, cap = (len + k) * 2 + 64);
				memcpy(out + len, num, k);
				len += k;
				p += 2;
				continue;
			}
			n = word_len(p + 1);
			for (i = 0; i < m->nr_params && !rep; i++)
				if (is_word(p + 1, n, m->params[i]))
					rep = i < nr ? args[i] : "";
			if (rep) {
				size_t k = strlen(rep);

				if (len + k + 1 >= cap)
					out = xrealloc(out, cap = (len + k) * 2 + 64);
				memcpy(out + len, rep, k);
				len += k;
				p += 1 + n;
				continue;
			}
		}
		if (len + 2 >= cap)
			out = xrealloc(out, cap *= 2);
		out[len++] = *p++;
	}
	out[len] = '\0';
	return out;
}

/* Expand macro @m invoked with operands @ops at @file:@line. */
static void expand(struct asm_read *r, const struct asm_macro *m,
		   const char *file, unsigned int line, const char *via,
		   const char *ops, int depth)
{
	char *copy = xstrdup(ops), *tok, **args = NULL, *save = NULL;
	/* \@ is this expansion's number in all of its lines. */
	unsigned int count = ++r->expansions;
	size_t nr = 0, alloc = 0, i;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		*PUSH(args, nr, alloc) = xstrdup(trim(tok));
	/* "read_ctr x3" gives one argument; "op a b" (spaces) several. */
	if (nr == 1 && m->nr_params > 1 && strchr(args[0], ' ')) {
		char *one = args[0];

		nr = 0;
		for (tok = strtok_r(one, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save))
			*PUSH(args, nr, alloc) = xstrdup(tok);
		free(one);
	}
	for (i = 0; i < m->nr_body; i++) {
		char *t = substitute(m, args, nr, m->body[i].text, count);

		process(r, file, line, via, t, depth + 1);
		free(t);
	}
	for (i = 0; i < nr; i++)
		free(args[i]);
	free(args);
	free(copy);
}

static void add_stmt(struct asm_read *r, const char *file, unsigned int line,
		     const char *via, const char *label, const char *insn)
{
	struct asm_stmt *s = PUSH(r->stmts, r->nr_stmts, r->alloc_stmts);

	s->file = file;
	s->line = line;
	s->via = via;
	s->label = label ? strpool_intern(&r->pool, label) : NULL;
	s->insn = xstrdup(insn);
	s->guards = NULL;
	if (r->nr_guard) {
		size_t len = 0;
		char *g;
		int i;

		for (i = 0; i < r->nr_guard; i++)
			len += strlen(r->guard[i]) + 4;
		g = xmalloc(len + 1);
		*g = '\0';
		for (i = 0; i < r->nr_guard; i++) {
			if (i)
				strcat(g, " && ");
			strcat(g, r->guard[i]);
		}
		s->guards = strpool_intern(&r->pool, g);
		free(g);
	}
	/* The end of what an alternative's branch skips. */
	if (label && r->skip_depth >= 0 && r->skip_label &&
	    !strcmp(label, r->skip_label)) {
		r->nr_guard = r->skip_depth;
		r->skip_depth = -1;
		r->skip_label = NULL;
	}
}

/* Negate a guard atom: "!x" <-> "x". */
static const char *negate(struct asm_read *r, const char *g)
{
	char *n = *g == '!' ? xstrdup(g + 1) : xasprintf("!%s", g);
	const char *p = strpool_intern(&r->pool, n);

	free(n);
	return p;
}

/* "#define NAME NUMBER" of a capability header (arch.asm_caps). */
static void cap_define(struct asm_read *r, const char *file, const char *d)
{
	const char *pat = arch_current()->asm_caps;
	char name[128], num[32];

	if (!pat || fnmatch(pat, file, 0) ||
	    sscanf(d, "%127s %31s", name, num) != 2 ||
	    strspn(num, "0123456789") != strlen(num))
		return;
	if (strmap_get(&r->cap_names, num) >= 0)
		return;
	strmap_put(&r->cap_names, num, (int)r->nr_capv);
	*PUSH(r->capv, r->nr_capv, r->alloc_capv) =
		strpool_intern(&r->pool, name);
}

/*
 * A register's definition (arch.asm_define_reg()): the name of the one an
 * encoded instruction of that number reads (its .inst has only the
 * number).
 */
static void reg_define(struct asm_read *r, const char *d)
{
	const struct arch *a = arch_current();
	char name[128], key[24];
	unsigned long enc;

	if (!a->asm_define_reg || !a->asm_define_reg(d, name, sizeof(name),
						     &enc))
		return;
	snprintf(key, sizeof(key), "%lu", enc);
	if (strmap_get(&r->encoded, key) >= 0)
		return;
	strmap_put(&r->encoded, key, (int)r->nr_regv);
	*PUSH(r->regv, r->nr_regv, r->alloc_regv) =
		strpool_intern(&r->pool, name);
}

/* The capability an alternative names: its name for its number. */
static const char *cap_name(const struct asm_read *r, const char *ops)
{
	int k = strmap_get(&r->cap_names, ops);

	return k >= 0 ? r->capv[k] : ops;
}

/* alternative_if CAP, alternative_if_not CAP, _else, _endif. */
static bool alternative(struct asm_read *r, const char *w, size_t n,
			const char *ops)
{
	char *g;

	if (is_word(w, n, "alternative_if_not") ||
	    is_word(w, n, "alternative_if")) {
		bool not = n == strlen("alternative_if_not");

		if (r->nr_guard >= ASM_MACRO_DEPTH)
			return true;
		g = xasprintf("%salternative_has_cap_unlikely(%s)",
			      not ? "!" : "", cap_name(r, ops));
		r->guard[r->nr_guard++] = strpool_intern(&r->pool, g);
		free(g);
		return true;
	}
	if (is_word(w, n, "alternative_else")) {
		if (r->nr_guard)
			r->guard[r->nr_guard - 1] =
				negate(r, r->guard[r->nr_guard - 1]);
		return true;
	}
	if (is_word(w, n, "alternative_endif") ||
	    is_word(w, n, "alternative_else_nop_endif")) {
		if (!r->nr_guard)
			return true;
		r->nr_guard--;
		/* Its branch over what follows: that runs unless CAP. */
		if (r->skip_guard && r->skip_depth < 0 &&
		    r->nr_guard < ASM_MACRO_DEPTH) {
			r->skip_depth = r->nr_guard;
			r->guard[r->nr_guard++] = r->skip_guard;
		}
		r->skip_guard = NULL;
		return true;
	}
	return false;
}

/* One statement (no ';' in it) at @file:@line. */
static void statement(struct asm_read *r, const char *file, unsigned int line,
		      const char *via, char *s, int depth)
{
	const struct asm_macro *m;
	size_t n;
	int k;

	s = trim(s);
	/* Labels first: "name:" (also "1:", ".Lx:"). */
	for (;;) {
		n = word_len(s);
		if (!n || s[n] != ':' || s[n + 1] == ':')
			break;
		s[n] = '\0';
		add_stmt(r, file, line, via, s, "");
		s = trim(s + n + 1);
	}
	if (!*s)
		return;
	n = word_len(s);
	if (r->defining) {
		if (is_word(s, n, ".endm") && !r->skip_macro) {
			r->defining = NULL;
			return;
		}
		if (is_word(s, n, ".macro"))
			r->skip_macro++;
		else if (is_word(s, n, ".endm"))
			r->skip_macro--;
		*PUSH(r->defining->body, r->defining->nr_body,
		      r->defining->alloc_body) = (struct asm_line){
			file, line, xstrdup(s) };
		return;
	}
	if (is_word(s, n, ".macro")) {
		char *p = trim(s + n);
		size_t k2 = word_len(p);
		struct asm_macro *d;
		char *name = xstrndup(p, k2);

		k = strmap_get(&r->macro_index, name);
		if (k < 0) {
			k = (int)r->nr_macros;
			d = PUSH(r->macros, r->nr_macros, r->alloc_macros);
			memset(d, 0, sizeof(*d));
			d->name = name;
			strmap_put(&r->macro_index, name, k);
		} else {
			/* Redefined (after .purgem): the latest counts. */
			d = &r->macros[k];
			free(name);
			d->nr_params = 0;
			d->nr_body = 0;
		}
		macro_params(d, p + k2);
		r->defining = d;
		return;
	}
	if (alternative(r, s, n, trim(s + n)))
		return;
	/* A symbol's end (SYM_FUNC_END()): no alternative goes on past it. */
	if (is_word(s, n, ".size")) {
		r->nr_guard = 0;
		r->skip_depth = -1;
		r->skip_label = r->skip_guard = NULL;
	}
	if (depth < ASM_MACRO_DEPTH && s[0] != '.') {
		char *w = xstrndup(s, n);

		k = strmap_get(&r->macro_index, w);
		free(w);
		if (k >= 0) {
			m = &r->macros[k];
			expand(r, m, file, line, via ? via : m->name,
			       trim(s + n), depth);
			return;
		}
	}
	/*
	 * "b .Lx" in an alternative's block: what follows runs, up to .Lx,
	 * only without it; "ret": up to the symbol's end.
	 */
	if (r->nr_guard && r->skip_depth < 0 && n == 1 && s[0] == 'b' &&
	    isspace((unsigned char)s[1])) {
		const char *t = trim(s + 1);

		if (!strncmp(t, ".L", 2)) {
			r->skip_label = strpool_intern(&r->pool, t);
			r->skip_guard = negate(r, r->guard[r->nr_guard - 1]);
		}
	} else if (r->nr_guard && r->skip_depth < 0 && is_word(s, n, "ret")) {
		r->skip_label = NULL;
		r->skip_guard = negate(r, r->guard[r->nr_guard - 1]);
	}
	add_stmt(r, file, line, via, NULL, s);
}

/* A source line: its statements, comments dropped. */
static void process(struct asm_read *r, const char *file, unsigned int line,
		    const char *via, char *text, int depth)
{
	char *p, *start = text;
	bool quote = false;

	for (p = text; *p; p++) {
		if (*p == '"' && (p == text || p[-1] != '\\'))
			quote = !quote;
		if (quote)
			continue;
		if (p[0] == '/' && p[1] == '/') {
			*p = '\0';
			break;
		}
		if (*p == ';') {
			*p = '\0';
			statement(r, file, line, via, start, depth);
			start = p + 1;
		}
	}
	statement(r, file, line, via, start, depth);
}

/* Read the preprocessed text: line markers, then statements. */
static void read_text(struct asm_read *r, char *text)
{
	const char *file = r->out->file;
	unsigned int line = 1;
	char *p = text, *nl;

	for (; *p; p = nl ? nl + 1 : p + strlen(p), line++) {
		unsigned int l;
		char name[4096];

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (p[0] == '#' && sscanf(p, "# %u \"%4095[^\"]\"", &l,
					  name) == 2) {
			char *norm;

			/* gcc's -fworking-directory marker (with -g). */
			if (name[strlen(name) - 1] == '/')
				continue;
			norm = path_normalize(name);
			char *rel = path_relative(norm, r->opts->root);

			file = strpool_intern(&r->pool, rel);
			if (strcmp(file, r->out->file) && *file != '<' &&
			    strmap_get(&r->included, file) < 0) {
				strmap_put(&r->included, file, 1);
				*PUSH(r->out->includes, r->out->nr_includes,
				      r->out->alloc_includes) = xstrdup(file);
			}
			free(rel);
			free(norm);
			line = l - 1;
			continue;
		}
		if (!strncmp(p, "#define ", 8)) {
			cap_define(r, file, p + 8);
			reg_define(r, p + 8);
			continue;
		}
		if (p[0] == '#')
			continue;
		process(r, file, line, NULL, p, 0);
		if (!nl)
			break;
	}
}

/* Global, typed or sized names: the symbols (functions) of the file. */
static void find_symbols(struct asm_read *r)
{
	size_t i, n;

	for (i = 0; i < r->nr_stmts; i++) {
		char *s = r->stmts[i].insn, *name;
		bool global;

		n = word_len(s);
		global = is_word(s, n, ".globl") || is_word(s, n, ".global");
		if (!global && !is_word(s, n, ".type") &&
		    !is_word(s, n, ".size") && !is_word(s, n, ".weak"))
			continue;
		name = trim(s + n);
		name = xstrndup(name, strcspn(name, ", \t"));
		if (symbol_name(name)) {
			strmap_put(&r->symbols, name, 1);
			if (global || is_word(s, n, ".weak"))
				strmap_put(&r->globals, name, 1);
		}
		free(name);
	}
}

/* The key of symbol @name: a C function's USR when it is global. */
static char *symbol_key(const struct asm_read *r, const char *name)
{
	if (strmap_get(&r->globals, name) >= 0 ||
	    strmap_get(&r->symbols, name) < 0)
		return xasprintf("c:@F@%s", name);
	return xasprintf("asm:%s@%s", name, r->out->file);
}

static int add_func(struct asm_read *r, const struct asm_stmt *s)
{
	struct tu_func *f = PUSH(r->out->funcs, r->out->nr_funcs,
				 r->out->alloc_funcs);

	memset(f, 0, sizeof(*f));
	f->key = symbol_key(r, s->label);
	f->name = xstrdup(s->label);
	f->file = xstrdup(s->file);
	f->line = s->line;
	f->col = 1;
	f->is_static = strmap_get(&r->globals, s->label) < 0;
	return (int)r->out->nr_funcs - 1;
}

static void add_call(struct asm_read *r, int fn, const struct asm_stmt *s,
		     const char *target)
{
	struct tu_call *c = PUSH(r->out->calls, r->out->nr_calls,
				 r->out->alloc_calls);

	memset(c, 0, sizeof(*c));
	c->caller = fn;
	c->callee_key = symbol_key(r, target);
	c->callee_name = xstrdup(target);
	c->file = xstrdup(s->file);
	c->line = s->line;
	c->col = 1;
	c->via = s->via ? xstrdup(s->via) : NULL;
	c->guards = s->guards ? xstrdup(s->guards) : NULL;
}

static void add_sink(struct asm_read *r, int fn, const struct asm_stmt *s,
		     int sink, const char *arg)
{
	unsigned int nth = 1;
	struct tu_sink *k;
	size_t i;

	/*
	 * A line has no columns for its instructions: a macro's expansion
	 * puts all of its sinks on its invocation's line. Each one is its
	 * own site (cache.S's caches_clean_inval_pou_macro reads CTR_EL0
	 * twice, for the D- and the I-cache line sizes, each under its own
	 * alternative): the nth sink of the line gets column n.
	 */
	for (i = 0; i < r->out->nr_sinks; i++)
		if (r->out->sinks[i].line == s->line &&
		    !strcmp(r->out->sinks[i].file, s->file))
			nth++;
	k = PUSH(r->out->sinks, r->out->nr_sinks, r->out->alloc_sinks);
	memset(k, 0, sizeof(*k));
	k->func = fn;
	k->sink = sink;
	k->arg = arg ? xstrdup(arg) : NULL;
	k->file = xstrdup(s->file);
	k->line = s->line;
	k->col = nth;
	k->guards = s->guards ? xstrdup(s->guards) : NULL;
}

/* The operand @i (0 first) of @ops, trimmed, as a new string, or NULL. */
static char *nth_operand(const char *ops, int i)
{
	const char *p = ops, *e;
	char *o, *t;

	while (i-- > 0) {
		p = strchr(p, ',');
		if (!p)
			return NULL;
		p++;
	}
	e = strchr(p, ',');
	o = xstrndup(p, e ? (size_t)(e - p) : strlen(p));
	t = xstrdup(trim(o));
	free(o);
	return t;
}

/* An instruction of function @fn: a branch or a sink. */
static void instruction(struct asm_read *r, int fn, const struct asm_stmt *s)
{
	const char *insn = s->insn, *ops;
	size_t n = word_len(insn), i;
	char *mn = xstrndup(insn, n), *target = NULL;
	int sink;

	for (i = 0; i < n; i++)
		mn[i] = (char)tolower((unsigned char)mn[i]);
	ops = insn + n;
	while (isspace((unsigned char)*ops))
		ops++;
	/* Branches: arm64 bl/b, x86 call/jmp (and their q forms). */
	if (!strcmp(mn, "bl") || !strcmp(mn, "b") || !strcmp(mn, "call") ||
	    !strcmp(mn, "callq") || !strcmp(mn, "jmp") ||
	    !strcmp(mn, "jmpq")) {
		target = nth_operand(ops, 0);
		if (target && symbol_name(target))
			add_call(r, fn, s, target);
		free(target);
		free(mn);
		return;
	}
	sink = sink_lookup(SINK_INSN, mn);
	if (sink >= 0) {
		const struct sink_def *d = sink_at(sink);
		char *arg = NULL;

		if (d->arg != SINK_ARG_NONE) {
			/* mrs Xt, <register>: the second operand. */
			arg = nth_operand(ops, 1);
			for (i = 0; arg && arg[i]; i++)
				arg[i] = (char)tolower((unsigned char)arg[i]);
		}
		/* Only a register of the trap tables: not every mrs. */
		if (d->arg == SINK_ARG_NONE ||
		    (arg && reg_lookup_arg(d, arg) &&
		     reg_lookup_arg(d, arg)->trap))
			add_sink(r, fn, s, sink, arg);
		free(arg);
	}
	free(mn);
}

/*
 * The value of a constant expression as the preprocessor leaves an
 * encoded instruction: numbers, |, &, +, <<, >> and parentheses; a symbol
 * (.L__gpr_num_x1, the register number) counts 0. false: not one.
 */
static bool eval_or(const char **p, unsigned long *v);

static void skip_blank(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

static bool eval_primary(const char **p, unsigned long *v)
{
	char *end;

	skip_blank(p);
	if (**p == '(') {
		(*p)++;
		if (!eval_or(p, v))
			return false;
		skip_blank(p);
		if (**p != ')')
			return false;
		(*p)++;
		return true;
	}
	if (isdigit((unsigned char)**p)) {
		*v = strtoul(*p, &end, 0);
		*p = end;
		while (**p == 'U' || **p == 'u' || **p == 'L' || **p == 'l')
			(*p)++;
		return true;
	}
	if (isalpha((unsigned char)**p) || **p == '_' || **p == '.') {
		while (isalnum((unsigned char)**p) || **p == '_' || **p == '.')
			(*p)++;
		*v = 0;
		return true;
	}
	return false;
}

static bool eval_binary(const char **p, unsigned long *v, int level)
{
	unsigned long w;

	if (!(level ? eval_binary(p, v, level - 1) : eval_primary(p, v)))
		return false;
	for (;;) {
		const char *q;

		skip_blank(p);
		q = *p;
		if (level == 0 && (!strncmp(q, "<<", 2) || !strncmp(q, ">>", 2))) {
			*p += 2;
			if (!eval_primary(p, &w))
				return false;
			*v = q[0] == '<' ? *v << (w & 63) : *v >> (w & 63);
		} else if (level == 1 && *q == '+') {
			(*p)++;
			if (!eval_binary(p, &w, 0))
				return false;
			*v += w;
		} else if (level == 2 && *q == '&' && q[1] != '&') {
			(*p)++;
			if (!eval_binary(p, &w, 1))
				return false;
			*v &= w;
		} else if (level == 3 && *q == '|' && q[1] != '|') {
			(*p)++;
			if (!eval_binary(p, &w, 2))
				return false;
			*v |= w;
		} else {
			return true;
		}
	}
}

static bool eval_or(const char **p, unsigned long *v)
{
	return eval_binary(p, v, 3);
}

/*
 * ".inst(<number>)" of an instruction that reads a register
 * (arch.asm_inst_read()): a sink of that mnemonic of the register whose
 * definition has that number.
 */
static void inst_sink(struct asm_read *r, int fn, const struct asm_stmt *s)
{
	const struct arch *a = arch_current();
	const char *p = s->insn + strlen(".inst"), *mn;
	unsigned long v, enc;
	char key[24], *arg;
	int sink, k;
	size_t i;

	if (!a->asm_inst_read || !eval_or(&p, &v))
		return;
	skip_blank(&p);
	mn = *p ? NULL : a->asm_inst_read(v, &enc);
	sink = mn ? sink_lookup(SINK_INSN, mn) : -1;
	if (sink < 0)
		return;
	snprintf(key, sizeof(key), "%lu", enc);
	k = strmap_get(&r->encoded, key);
	if (k < 0)
		return;
	arg = xstrdup(r->regv[k]);
	for (i = 0; arg[i]; i++)
		arg[i] = (char)tolower((unsigned char)arg[i]);
	if (reg_lookup_arg(sink_at(sink), arg) &&
	    reg_lookup_arg(sink_at(sink), arg)->trap)
		add_sink(r, fn, s, sink, arg);
	free(arg);
}

/* Attribute the statements to the symbols that hold them. */
static void collect(struct asm_read *r)
{
	int fn = -1;
	size_t i, n;

	for (i = 0; i < r->nr_stmts; i++) {
		const struct asm_stmt *s = &r->stmts[i];

		if (s->label) {
			if (strmap_get(&r->symbols, s->label) >= 0)
				fn = add_func(r, s);
			continue;
		}
		n = word_len(s->insn);
		if (is_word(s->insn, n, ".size") && fn >= 0) {
			fn = -1;
			continue;
		}
		if (fn >= 0 && is_word(s->insn, n, ".inst"))
			inst_sink(r, fn, s);
		if (fn < 0 || s->insn[0] == '.' || !*s->insn)
			continue;
		instruction(r, fn, s);
	}
}

static void read_free(struct asm_read *r)
{
	size_t i, j;

	for (i = 0; i < r->nr_macros; i++) {
		struct asm_macro *m = &r->macros[i];

		free(m->name);
		strv_free(m->params, (int)m->nr_params);
		for (j = 0; j < m->nr_body; j++)
			free(m->body[j].text);
		free(m->body);
	}
	free(r->macros);
	for (i = 0; i < r->nr_stmts; i++)
		free(r->stmts[i].insn);
	free(r->stmts);
	strmap_free(&r->macro_index);
	strmap_free(&r->symbols);
	strmap_free(&r->globals);
	strmap_free(&r->included);
	strmap_free(&r->cap_names);
	free(r->capv);
	strmap_free(&r->encoded);
	free(r->regv);
	strpool_free(&r->pool);
}

int extract_asm(const struct compdb_entry *e, struct clang_args *args,
		const struct extract_opts *opts, struct tu_facts *out)
{
	const char *file = e->file;
	struct asm_read r = { .opts = opts, .out = out, .skip_depth = -1 };
	char *text, *why = NULL, *mod;
	bool loadable;

	memset(out, 0, sizeof(*out));
	out->file = path_relative(file, opts->root);
	if (args->nr_unknown)
		flags_drop_unknown(args);
	text = preprocess(e, args, &why);
	if (!text) {
		out->parse_error = TU_NOT_READ;
		out->first_error = why;
		return -EIO;
	}
	strpool_init(&r.pool);
	strmap_init(&r.macro_index);
	strmap_init(&r.symbols);
	strmap_init(&r.globals);
	strmap_init(&r.included);
	strmap_init(&r.cap_names);
	strmap_init(&r.encoded);
	read_text(&r, text);
	free(text);
	find_symbols(&r);
	collect(&r);
	mod = flags_module(args, &loadable);
	if (mod)
		facts_add_row(out, &(struct table_row_in){
			.kind = ROW_MODULE, .table = loadable ? "m" : "y",
			.key = mod, .file = out->file,
		});
	free(mod);
	read_free(&r);
	return 0;
}
