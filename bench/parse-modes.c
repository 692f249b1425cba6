// SPDX-License-Identifier: GPL-2.0
/*
 * parse-modes - where libclang's time goes in a kernel TU, and what the
 * parse options that could cut it really save (docs/performance.md,
 * "Below the floor").
 *
 *	parse-modes MODE ARGS0 [ARGS1...]
 *
 * Each ARGS file holds one TU, NUL-separated: the source file, then its
 * clang arguments (trapcheck --print-clang-commands, without the
 * -fsyntax-only). MODE:
 *
 *   full      trapcheck's parse (clang_parseTranslationUnit2, its flags)
 *   nobodies  the same with CXTranslationUnit_SkipFunctionBodies: every
 *             body skipped, header and main file (declarations only)
 *   preamble  bodies skipped in the preamble (the leading #include block)
 *             only: SkipFunctionBodies, LimitSkipFunctionBodiesToPreamble,
 *             PrecompiledPreamble, CreatePreambleOnFirstParse
 *   session   clang_indexSourceFile() in one CXIndexAction session with
 *             CXIndexOpt_SkipParsedBodiesInSession (a header body parsed
 *             by an earlier TU is skipped)
 *
 * One line per TU (seconds, function definitions in the main file and in
 * headers, errors), then the total. The TUs run one after the other in
 * one process, as in one of trapcheck's parser processes.
 */
#include <clang-c/Index.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BASE_FLAGS (CXTranslationUnit_DetailedPreprocessingRecord |	\
		    CXTranslationUnit_KeepGoing |			\
		    CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles)

struct count {
	unsigned int main_defs;
	unsigned int header_defs;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static enum CXChildVisitResult count_defs(CXCursor c, CXCursor parent,
					  CXClientData data)
{
	struct count *n = data;

	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_FunctionDecl ||
	    !clang_isCursorDefinition(c))
		return CXChildVisit_Continue;
	if (clang_Location_isFromMainFile(clang_getCursorLocation(c)))
		n->main_defs++;
	else
		n->header_defs++;
	return CXChildVisit_Continue;
}

/* Read the NUL-separated @path into @argv; returns the count or -1. */
static int read_args(const char *path, char ***argv, char **buf)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 0, i;
	int n = 0;
	char *b = NULL;

	if (!f)
		return -1;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			b = realloc(b, cap + 1);
			if (!b)
				goto fail_close;
		}
		i = fread(b + len, 1, cap - len, f);
		if (!i)
			break;
		len += i;
	}
	fclose(f);
	b[len] = '\0';
	*argv = calloc(len + 1, sizeof(**argv));
	if (!*argv) {
		free(b);
		return -1;
	}
	for (i = 0; i < len; i += strlen(b + i) + 1)
		(*argv)[n++] = b + i;
	*buf = b;
	return n;

fail_close:
	fclose(f);
	free(b);
	return -1;
}

static unsigned int nr_errors(CXTranslationUnit tu)
{
	unsigned int i, n = 0;

	for (i = 0; i < clang_getNumDiagnostics(tu); i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);

		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error)
			n++;
		clang_disposeDiagnostic(d);
	}
	return n;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {
		"full", "nobodies", "preamble", "session",
	};
	IndexerCallbacks cb;
	CXIndexAction act;
	CXIndex idx;
	double total = 0;
	int mode, k, ret = 0;

	for (mode = 0; argc > 2 && mode < 4; mode++)
		if (!strcmp(argv[1], modes[mode]))
			break;
	if (argc < 3 || mode == 4) {
		fprintf(stderr, "usage: %s MODE ARGS...\n", argv[0]);
		fprintf(stderr, "MODE: full, nobodies, preamble, session\n");
		return 2;
	}
	memset(&cb, 0, sizeof(cb));
	idx = clang_createIndex(0, 0);
	act = clang_IndexAction_create(idx);
	for (k = 2; k < argc; k++) {
		unsigned int flags = BASE_FLAGS;
		struct count n = { 0 };
		CXTranslationUnit tu;
		char **av, *buf;
		int ac, err;
		double t;

		ac = read_args(argv[k], &av, &buf);
		if (ac < 1) {
			fprintf(stderr, "parse-modes: %s: %s\n", argv[k],
				ac < 0 ? strerror(errno) : "empty");
			return 2;
		}
		if (mode == 1)
			flags |= CXTranslationUnit_SkipFunctionBodies;
		if (mode == 2)
			flags |= CXTranslationUnit_SkipFunctionBodies |
				 CXTranslationUnit_LimitSkipFunctionBodiesToPreamble |
				 CXTranslationUnit_PrecompiledPreamble |
				 CXTranslationUnit_CreatePreambleOnFirstParse;
		t = now();
		if (mode == 3)
			err = clang_indexSourceFile(act, NULL, &cb, sizeof(cb),
					CXIndexOpt_SkipParsedBodiesInSession,
					av[0], (const char *const *)av + 1,
					ac - 1, NULL, 0, &tu, flags);
		else
			err = clang_parseTranslationUnit2(idx, av[0],
					(const char *const *)av + 1, ac - 1,
					NULL, 0, flags, &tu);
		t = now() - t;
		total += t;
		if (err) {
			printf("%s\t%.3f\tparse failed (%d)\n", av[0], t, err);
			ret = 1;
			goto next;
		}
		clang_visitChildren(clang_getTranslationUnitCursor(tu),
				    count_defs, &n);
		printf("%s\t%.3f\tmain %u\theaders %u\terrors %u\n", av[0], t,
		       n.main_defs, n.header_defs, nr_errors(tu));
		clang_disposeTranslationUnit(tu);
next:
		free(av);
		free(buf);
	}
	printf("total\t%s\t%.2f\t%d TUs\n", modes[mode], total, argc - 2);
	clang_IndexAction_dispose(act);
	clang_disposeIndex(idx);
	return ret;
}
