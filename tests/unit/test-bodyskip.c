// SPDX-License-Identifier: GPL-2.0
/*
 * test-bodyskip.c - header bodies blanked for the next TUs (bodyskip.h):
 * what stays of the text, when a range is taken, and a body given back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapcheck/clang/bodyskip.h"

static const char header[] =
	"static inline int f(int x)\n"
	"{\n"
	"\tint y = x + 1; /* } */\n"
	"#ifdef CONFIG_X\n"
	"\ty += g(\"{\\\n#not a line start\");\n"
	"#define LOCAL_M(a) \\\n"
	"\t((a) + 1) /* a comment\n"
	"   the directive opened */\n"
	"#endif\n"
	"\t/* a comment whose line\n"
	"# is not a directive */\n"
	"\ty += '#'; // and #this\n"
	"\treturn y;\n"
	"}\n"
	"static inline void h(void) { k(); }\n";

/* The body of f and h: [from, to), from at `{`, to after `}`. */
static unsigned int f_from, f_to, h_from, h_to;

static char path[] = "/tmp/trapcheck-bodyskip-XXXXXX";

static int setup(void **state)
{
	int fd = mkstemp(path);
	const char *p;

	if (fd < 0 || write(fd, header, strlen(header)) !=
		      (ssize_t)strlen(header))
		return -1;
	close(fd);
	f_from = (unsigned int)(strchr(header, '{') - header);
	p = strstr(header, "\treturn y;\n}") + strlen("\treturn y;\n}");
	f_to = (unsigned int)(p - header);
	h_from = (unsigned int)(strstr(header, "{ k();") - header);
	h_to = (unsigned int)(strstr(header, "k(); }") - header) + 6;
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static const struct CXUnsavedFile *find(const struct CXUnsavedFile *u,
					unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(u[i].Filename, name))
			return &u[i];
	return NULL;
}

/* Nothing is given to libclang before a body was noted and applied. */
static void test_nothing_noted(void **state)
{
	struct body_skip *s = body_skip_new(NULL, 0);
	struct CXUnsavedFile *u;

	assert_int_equal(body_skip_files(s, NULL, &u), 0);
	body_skip_note(s, path, f_from, f_to);
	/* Noted during a TU: that TU parsed the text as it was. */
	assert_false(body_skip_blanked(s, path, f_from));
	body_skip_free(s);
}

static void test_blank_keeps_lines_and_directives(void **state)
{
	struct body_skip *s = body_skip_new(NULL, 0);
	struct CXUnsavedFile *u;
	const struct CXUnsavedFile *h;
	char *want = strdup(header);
	unsigned int i, n;

	body_skip_note(s, path, f_from, f_to);
	n = body_skip_files(s, "/elsewhere/main.c", &u);
	assert_int_equal(n, 1);
	h = find(u, n, path);
	assert_non_null(h);
	assert_int_equal(h->Length, strlen(header));
	assert_true(body_skip_blanked(s, path, f_from));
	assert_false(body_skip_blanked(s, path, h_from));

	/*
	 * Expected: statements, comments and literals gone (a `#` in them
	 * too), directives kept with what they continue into.
	 */
	for (i = f_from + 1; i < f_to - 1; i++)
		if (want[i] != '\n')
			want[i] = ' ';
	{
		const char *keep[] = { "#ifdef CONFIG_X\n",
				       "#define LOCAL_M(a) \\\n"
				       "\t((a) + 1) /* a comment\n"
				       "   the directive opened */\n",
				       "#endif\n" };
		size_t k;

		for (k = 0; k < 3; k++) {
			const char *at = strstr(header, keep[k]);

			memcpy(want + (at - header), keep[k],
			       strlen(keep[k]));
		}
	}
	assert_memory_equal(h->Contents, want, strlen(header));
	/* Locations do not move: same length, same newlines. */
	for (i = 0; i < strlen(header); i++)
		assert_int_equal(h->Contents[i] == '\n', header[i] == '\n');
	assert_int_equal(h->Contents[f_from], '{');
	assert_int_equal(h->Contents[f_to - 1], '}');
	assert_non_null(strstr(h->Contents, "static inline void h(void) "
				"{ k(); }"));
	free(want);
	body_skip_free(s);
}

/* The TU's own file is never given blanked: its bodies are all walked. */
static void test_main_file_excluded(void **state)
{
	struct body_skip *s = body_skip_new(NULL, 0);
	struct CXUnsavedFile *u;

	body_skip_note(s, path, h_from, h_to);
	assert_int_equal(body_skip_files(s, path, &u), 0);
	assert_int_equal(body_skip_files(s, NULL, &u), 1);
	body_skip_free(s);
}

/* A range that is not a body in the file is not taken. */
static void test_not_a_body(void **state)
{
	struct body_skip *s = body_skip_new(NULL, 0);
	struct CXUnsavedFile *u;

	body_skip_note(s, path, f_from + 1, f_to);	/* not at `{` */
	body_skip_note(s, path, f_from, f_to - 1);	/* not after `}` */
	body_skip_note(s, path, f_from, (unsigned int)strlen(header) + 5);
	body_skip_note(s, "/nonexistent/trapcheck.h", 0, 2);
	assert_int_equal(body_skip_files(s, NULL, &u), 0);
	body_skip_free(s);
}

/* A body that made a TU parse again is given back and never taken. */
static void test_never(void **state)
{
	struct body_skip *s = body_skip_new(NULL, 0);
	struct CXUnsavedFile *u;
	struct body_skip_stats st;
	unsigned int n;

	body_skip_note(s, path, f_from, f_to);
	body_skip_note(s, path, h_from, h_to);
	body_skip_note(s, path, h_from, h_to);	/* twice in one TU */
	n = body_skip_files(s, NULL, &u);
	assert_int_equal(n, 1);
	body_skip_stats(s, &st);
	assert_int_equal(st.bodies, 2);
	assert_int_equal(st.files, 1);

	body_skip_never(s, path, f_from);
	assert_false(body_skip_blanked(s, path, f_from));
	assert_true(body_skip_blanked(s, path, h_from));
	body_skip_note(s, path, f_from, f_to);
	n = body_skip_files(s, NULL, &u);
	assert_int_equal(n, 1);
	assert_memory_equal(u[0].Contents, header, h_from);
	assert_false(body_skip_blanked(s, path, f_from));
	body_skip_count(s, false);
	body_skip_count(s, true);
	body_skip_stats(s, &st);
	assert_int_equal(st.bodies, 1);
	assert_int_equal(st.tus, 2);
	assert_int_equal(st.redone, 1);
	/* A TU given no blanked header is not counted. */
	body_skip_never(s, path, h_from);
	assert_int_equal(body_skip_files(s, NULL, &u), 0);
	body_skip_count(s, true);
	body_skip_stats(s, &st);
	assert_int_equal(st.tus, 2);
	assert_int_equal(st.redone, 1);
	body_skip_free(s);
}

/*
 * A patch's view of the tree (unsaved text): always given, its bodies
 * noted and blanked in that text, not in the file on disk; the TU's own
 * file given whole; a new file under its own name.
 */
static void test_overlay(void **state)
{
	static const char pre[] = "/* a patched line */\n";
	const char *fresh = "/nonexistent/trapcheck-new.h";
	unsigned int p = (unsigned int)strlen(pre), n;
	size_t len = strlen(pre) + strlen(header);
	char *text = malloc(len + 1);
	struct CXUnsavedFile over[2] = {
		{ .Filename = path, .Contents = text, .Length = len },
		{ .Filename = fresh, .Contents = "int n;\n", .Length = 7 },
	};
	struct body_skip *s;
	struct CXUnsavedFile *u;
	const struct CXUnsavedFile *h;
	struct body_skip_stats st;

	strcpy(text, pre);
	strcat(text, header);
	s = body_skip_new(over, 2);
	text[0] = 'X';		/* the skip keeps its own copy */
	n = body_skip_files(s, NULL, &u);
	assert_int_equal(n, 2);
	h = find(u, n, path);
	assert_non_null(h);
	assert_int_equal(h->Length, len);
	assert_memory_equal(h->Contents, pre, p);
	assert_non_null(find(u, n, fresh));
	body_skip_count(s, false);	/* nothing blanked: not counted */
	body_skip_stats(s, &st);
	assert_int_equal(st.tus, 0);

	/* At the file's offsets on disk there is no body: the overlay's. */
	body_skip_note(s, path, f_from, f_to);
	body_skip_note(s, path, f_from + p, f_to + p);
	n = body_skip_files(s, "/elsewhere/main.c", &u);
	assert_int_equal(n, 2);
	h = find(u, n, path);
	assert_true(body_skip_blanked(s, path, f_from + p));
	assert_false(body_skip_blanked(s, path, f_from));
	assert_memory_equal(h->Contents, pre, p);
	assert_int_equal(h->Contents[f_from + p], '{');
	assert_int_equal(h->Contents[f_from + p + 1], '\n');
	assert_int_equal(h->Contents[f_from + p + 2], ' ');
	body_skip_count(s, false);
	body_skip_stats(s, &st);
	assert_int_equal(st.tus, 1);

	/* The header as a TU's own file: the patched text, whole. */
	n = body_skip_files(s, path, &u);
	assert_int_equal(n, 2);
	h = find(u, n, path);
	assert_memory_equal(h->Contents, pre, p);
	assert_memory_equal(h->Contents + p, header, strlen(header));
	body_skip_free(s);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_noted),
		cmocka_unit_test(test_blank_keeps_lines_and_directives),
		cmocka_unit_test(test_main_file_excluded),
		cmocka_unit_test(test_not_a_body),
		cmocka_unit_test(test_never),
		cmocka_unit_test(test_overlay),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
