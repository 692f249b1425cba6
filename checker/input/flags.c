// SPDX-License-Identifier: GPL-2.0
/*
 * flags.c - translate a kbuild gcc command line for libclang.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/input/flags.h"
#include "trapcheck/base/util.h"

enum flag_match { EXACT, PREFIX };

struct flag_rule {
	const char *spelling;
	enum flag_match match;
	enum flag_action action;
	const char *replacement;
};

#define KEEP FLAG_KEEP
#define KEEP_ARG FLAG_KEEP_ARG
#define DROP FLAG_DROP
#define DROP_ARG FLAG_DROP_ARG
#define PATH FLAG_PATH
#define MAP FLAG_MAP
static const struct flag_rule flag_table[] = {
#define FLAG(s, m, a, r) { s, m, a, r },
#include "flags.def"
#undef FLAG
};
#undef KEEP
#undef KEEP_ARG
#undef DROP
#undef DROP_ARG
#undef PATH
#undef MAP

/*
 * Directories whose entries are host programs, not kernel code
 * (fnmatch(3) patterns of a path's start): kbuild's scripts/ and tools/,
 * and each architecture's build tools (arch/<SRCARCH>/tools/).
 */
static const char *const host_dirs[] = {
	"scripts/*", "tools/*", "usr/gen_init_cpio*", "arch/*/tools/*",
};

/* Compiler drivers by basename suffix; a prefix before it is a triple. */
static const char *const compiler_names[] = {
	"gcc", "cc", "clang",
};

#ifndef CLANG_RESOURCE_INCLUDE
#define CLANG_RESOURCE_INCLUDE "/usr/lib/llvm-14/lib/clang/14.0.6/include"
#endif

/*
 * Include directories of gcc's own headers (arm_neon.h, stdarg.h: kbuild
 * adds them with "-isystem $(CC) -print-file-name=include") are gcc's
 * builtins; clang parses its own instead.
 */
static const struct {
	const char *contains, *suffix, *replacement;
} path_map[] = {
	{ "/lib/gcc-cross/", "/include", CLANG_RESOURCE_INCLUDE },
	{ "/lib/gcc/", "/include", CLANG_RESOURCE_INCLUDE },
};

static char *map_path(char *path)
{
	size_t i, n = strlen(path);

	for (i = 0; i < ARRAY_SIZE(path_map); i++) {
		size_t m = strlen(path_map[i].suffix);

		if (strstr(path, path_map[i].contains) && n >= m &&
		    !strcmp(path + n - m, path_map[i].suffix)) {
			free(path);
			return xstrdup(path_map[i].replacement);
		}
	}
	return path;
}

/* Wrappers that run the real compiler given as their first argument. */
static const char *const compiler_wrappers[] = {
	"ccache", "distcc", "sccache",
};

void flags_warnings_init(struct flag_warnings *w)
{
	pthread_mutex_init(&w->lock, NULL);
	w->seen = NULL;
	w->nr = w->alloc = 0;
}

void flags_warnings_free(struct flag_warnings *w)
{
	strv_free(w->seen, w->nr);
	pthread_mutex_destroy(&w->lock);
}

bool flags_warn_once(struct flag_warnings *w, const char *flag)
{
	bool first = true;
	size_t i;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->nr; i++) {
		if (!strcmp(w->seen[i], flag)) {
			first = false;
			break;
		}
	}
	if (first)
		*PUSH(w->seen, w->nr, w->alloc) = xstrdup(flag);
	pthread_mutex_unlock(&w->lock);
	return first;
}

enum flag_action flags_classify(const char *arg, const char **replacement,
				size_t *spelling_len)
{
	size_t i;

	*replacement = NULL;
	*spelling_len = 0;
	for (i = 0; i < ARRAY_SIZE(flag_table); i++) {
		const struct flag_rule *r = &flag_table[i];
		size_t n = strlen(r->spelling);

		if (r->match == EXACT ? strcmp(arg, r->spelling) :
					strncmp(arg, r->spelling, n))
			continue;
		*replacement = r->replacement;
		*spelling_len = n;
		return r->action;
	}
	return FLAG_UNKNOWN;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

char *flags_target_for(const char *compiler, bool *known)
{
	const char *base = base_name(compiler);
	size_t len = strlen(base), i;

	/* Strip a version suffix: "gcc-12", "clang-14". */
	while (len && ((base[len - 1] >= '0' && base[len - 1] <= '9') ||
		       base[len - 1] == '.'))
		len--;
	if (len && base[len - 1] == '-')
		len--;

	for (i = 0; i < ARRAY_SIZE(compiler_names); i++) {
		size_t n = strlen(compiler_names[i]);

		if (len < n || strncmp(base + len - n, compiler_names[i], n))
			continue;
		if (len == n) {
			*known = true;
			return NULL;	/* the host compiler */
		}
		if (base[len - n - 1] != '-')
			continue;
		*known = true;
		return xstrndup(base, len - n - 1);
	}
	*known = false;
	return NULL;
}

static void push_arg(struct clang_args *a, char *s)
{
	*PUSH(a->argv, a->argc, a->alloc) = s;
}

static bool is_c_source(const char *file)
{
	size_t n = strlen(file);

	return n > 2 && !strcmp(file + n - 2, ".c");
}

/* Assembly the preprocessor runs over first (kbuild's .S). */
static bool is_asm_source(const char *file)
{
	size_t n = strlen(file);

	return n > 2 && !strcmp(file + n - 2, ".S");
}

static bool in_host_dir(const char *file, const char *dir)
{
	char *rel = path_relative(file, dir);
	bool host = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(host_dirs); i++)
		if (!fnmatch(host_dirs[i], rel, FNM_PATHNAME | FNM_LEADING_DIR))
			host = true;
	free(rel);
	return host;
}

/*
 * Under the source tree @root, or under the build directory (make O=
 * compiles generated host sources there: scripts/dtc/dtc-lexer.lex.c).
 */
static bool is_host_program(const struct compdb_entry *e, const char *root)
{
	return in_host_dir(e->file, root) ||
	       (e->directory && in_host_dir(e->file, e->directory));
}

/* Same file, whatever relative spelling the command uses for it. */
static bool is_source_arg(const struct compdb_entry *e, const char *arg)
{
	char *abs;
	bool same;

	if (arg[0] == '-')
		return false;
	abs = path_join(e->directory, arg);
	same = !strcmp(abs, e->file);
	free(abs);
	return same;
}

enum flags_skip flags_translate(const struct compdb_entry *e,
				const char *root, struct clang_args *out)
{
	int i = 0, first;
	bool known;

	memset(out, 0, sizeof(*out));
	out->assembly = is_asm_source(e->file);
	if (!is_c_source(e->file) && !out->assembly)
		return FLAGS_SKIP_NOT_C;
	if (is_host_program(e, root))
		return FLAGS_SKIP_HOST;

	for (i = 0; i < e->argc; i++)
		if (!str_in(base_name(e->argv[i]), compiler_wrappers,
			    ARRAY_SIZE(compiler_wrappers)))
			break;
	if (i >= e->argc)
		return FLAGS_SKIP_COMPILER;
	out->target = flags_target_for(e->argv[i], &known);
	if (!known)
		return FLAGS_SKIP_COMPILER;
	first = i + 1;

	if (out->target)
		push_arg(out, xasprintf("--target=%s", out->target));

	for (i = first; i < e->argc; i++) {
		const char *arg = e->argv[i], *rep;
		enum flag_action act;
		size_t n;
		bool joined;

		if (is_source_arg(e, arg))
			continue;
		act = flags_classify(arg, &rep, &n);
		joined = arg[n] != '\0';
		switch (act) {
		case FLAG_KEEP:
			push_arg(out, xstrdup(arg));
			break;
		case FLAG_KEEP_ARG:
			push_arg(out, xstrdup(arg));
			if (!joined && i + 1 < e->argc)
				push_arg(out, xstrdup(e->argv[++i]));
			break;
		case FLAG_DROP:
			break;
		case FLAG_DROP_ARG:
			if (!joined && i + 1 < e->argc)
				i++;
			break;
		case FLAG_MAP:
			push_arg(out, xstrdup(rep));
			break;
		case FLAG_PATH: {
			char *path;

			if (!joined) {
				push_arg(out, xstrdup(arg));
				if (i + 1 < e->argc)
					push_arg(out, map_path(path_join(
						e->directory, e->argv[++i])));
				break;
			}
			/* Joined: "-I./include" becomes "-I/abs/include". */
			path = map_path(path_join(e->directory, arg + n));
			push_arg(out, xasprintf("%.*s%s", (int)n, arg, path));
			free(path);
			break;
		}
		case FLAG_UNKNOWN:
			*PUSH(out->unknown, out->nr_unknown,
			      out->alloc_unknown) = xstrdup(arg);
			push_arg(out, xstrdup(arg));
			break;
		}
	}
	/* Parsing needs no warnings; errors are what we count. */
	push_arg(out, xstrdup("-w"));
	return FLAGS_PARSE;
}

void flags_drop_unknown(struct clang_args *a)
{
	int i, j, k = 0;

	for (i = 0; i < a->argc; i++) {
		bool drop = false;

		for (j = 0; j < a->nr_unknown; j++)
			if (!strcmp(a->argv[i], a->unknown[j]))
				drop = true;
		if (drop)
			free(a->argv[i]);
		else
			a->argv[k++] = a->argv[i];
	}
	a->argc = k;
}

void flags_args_free(struct clang_args *a)
{
	strv_free(a->argv, a->argc);
	strv_free(a->unknown, a->nr_unknown);
	free(a->target);
	memset(a, 0, sizeof(*a));
}

/* The value of -D@name=... in @a (joined or apart), or NULL. */
static const char *define_value(const struct clang_args *a,
				const char *name)
{
	size_t n = strlen(name);
	const char *d;
	int i;

	for (i = 0; i < a->argc; i++) {
		d = a->argv[i];
		if (!strcmp(d, "-D") && i + 1 < a->argc)
			d = a->argv[++i];
		else if (!strncmp(d, "-D", 2))
			d += 2;
		else
			continue;
		if (!strncmp(d, name, n) && (d[n] == '=' || !d[n]))
			return d[n] ? d + n + 1 : "";
	}
	return NULL;
}

char *flags_module(const struct clang_args *a, bool *loadable)
{
	const char *v = define_value(a, "KBUILD_MODFILE");
	size_t n;

	if (!v)
		v = define_value(a, "KBUILD_MODNAME");
	*loadable = define_value(a, "MODULE") != NULL;
	if (!v)
		return NULL;
	n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
		return xstrndup(v + 1, n - 2);
	return n ? xstrdup(v) : NULL;
}
