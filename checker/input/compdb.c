// SPDX-License-Identifier: GPL-2.0
/*
 * compdb.c - read compile_commands.json with jansson.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "trapcheck/input/compdb.h"
#include "trapcheck/base/util.h"

void compdb_free_argv(char **argv, int argc)
{
	strv_free(argv, argc);
}

int compdb_split_command(const char *cmd, char ***argvp)
{
	char **argv = NULL;
	size_t nr = 0, alloc = 0, len = strlen(cmd);
	char *word = xmalloc(len + 1);
	const char *p = cmd;

	for (;;) {
		size_t w = 0;
		bool have = false;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			if (*p == '\\' && p[1] == '\n') {
				p += 2;		/* a line continuation */
				continue;
			}
			have = true;
			if (*p == '\'') {
				p++;
				while (*p && *p != '\'')
					word[w++] = *p++;
				if (!*p)
					goto err_unterminated;
				p++;
			} else if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1] == '\n') {
						p += 2;
						continue;
					}
					if (*p == '\\' && (p[1] == '"' ||
							   p[1] == '\\' ||
							   p[1] == '$' ||
							   p[1] == '`'))
						p++;
					word[w++] = *p++;
				}
				if (!*p)
					goto err_unterminated;
				p++;
			} else if (*p == '\\' && p[1]) {
				word[w++] = p[1];
				p += 2;
			} else {
				word[w++] = *p++;
			}
		}
		if (have)
			*PUSH(argv, nr, alloc) = xstrndup(word, w);
	}
	free(word);
	*argvp = argv;
	return (int)nr;

err_unterminated:
	free(word);
	compdb_free_argv(argv, (int)nr);
	*argvp = NULL;
	return -EINVAL;
}

static const char *json_str(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int load_entry(struct compdb *db, json_t *obj, size_t idx,
		      char *err, size_t errlen)
{
	const char *dir = json_str(obj, "directory");
	const char *file = json_str(obj, "file");
	const char *cmd = json_str(obj, "command");
	json_t *args = json_object_get(obj, "arguments");
	struct compdb_entry *e;
	char **argv = NULL;
	int argc;

	if (!json_is_object(obj) || !dir || !file || (!cmd && !args)) {
		snprintf(err, errlen, "%s: entry %zu: needs \"directory\", "
			 "\"file\" and \"command\" or \"arguments\"",
			 db->path, idx);
		return -EINVAL;
	}
	if (args) {
		size_t i;
		json_t *a;

		if (!json_is_array(args) || !json_array_size(args)) {
			snprintf(err, errlen, "%s: entry %zu: \"arguments\" "
				 "is not a non-empty array", db->path, idx);
			return -EINVAL;
		}
		argc = (int)json_array_size(args);
		argv = xcalloc(argc, sizeof(*argv));
		json_array_foreach(args, i, a) {
			if (!json_is_string(a)) {
				compdb_free_argv(argv, argc);
				snprintf(err, errlen, "%s: entry %zu: argument "
					 "%zu is not a string", db->path, idx,
					 i);
				return -EINVAL;
			}
			argv[i] = xstrdup(json_string_value(a));
		}
	} else {
		argc = compdb_split_command(cmd, &argv);
		if (argc <= 0) {
			snprintf(err, errlen, "%s: entry %zu: %s command",
				 db->path, idx,
				 argc < 0 ? "unterminated quote in" : "empty");
			return -EINVAL;
		}
	}

	e = PUSH(db->entries, db->nr, db->alloc);
	/* A relative directory is taken relative to the database itself. */
	e->directory = path_join(db->root, dir);
	e->file = path_join(e->directory, file);
	e->argv = argv;
	e->argc = argc;
	return 0;
}

char *compdb_srctree_of_build(const char *dir)
{
	char *link = xasprintf("%s/source", dir), *real = NULL, *out;
	struct stat st;

	/* kbuild's outputmakefile: ln -fsn $(srctree) source */
	if (!lstat(link, &st) && S_ISLNK(st.st_mode) &&
	    !stat(link, &st) && S_ISDIR(st.st_mode))
		real = realpath(link, NULL);
	free(link);
	out = path_normalize(real ? real : dir);
	free(real);
	return out;
}

/* Is @path @dir or below it? */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n] ||
					   n == 1);
}

/* kbuild's "-include SRCTREE/include/linux/kconfig.h", as SRCTREE. */
static char *kconfig_srctree(const struct compdb_entry *e)
{
	static const char tail[] = "/include/linux/kconfig.h";
	const char *arg;
	char *abs;
	size_t n;
	int i;

	for (i = 0; i + 1 < e->argc; i++) {
		if (strcmp(e->argv[i], "-include"))
			continue;
		arg = e->argv[i + 1];
		abs = path_join(e->directory, arg);
		n = strlen(abs);
		if (n > sizeof(tail) - 1 &&
		    !strcmp(abs + n - (sizeof(tail) - 1), tail)) {
			abs[n - (sizeof(tail) - 1)] = '\0';
			return abs;
		}
		free(abs);
	}
	return NULL;
}

/* The deepest directory that holds every entry's file. */
static char *common_dir(const struct compdb *db)
{
	char *dir = xstrdup(db->entries[0].file), *slash;
	size_t i;

	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	for (i = 1; i < db->nr; i++) {
		while (!path_under(db->entries[i].file, dir)) {
			slash = strrchr(dir, '/');
			if (!slash || slash == dir) {
				strcpy(dir, "/");
				break;
			}
			*slash = '\0';
		}
	}
	return dir;
}

static char *find_srctree(const struct compdb *db)
{
	char *dir = compdb_srctree_of_build(db->root);
	size_t i;

	if (strcmp(dir, db->root))
		return dir;			/* make O=: BUILD/source */
	free(dir);
	/*
	 * Before the database's own directory: a make O= tree also compiles
	 * generated host programs in BUILD (scripts/dtc/dtc-lexer.lex.c).
	 */
	for (i = 0; i < db->nr; i++) {
		dir = kconfig_srctree(&db->entries[i]);
		if (dir)
			return dir;
	}
	for (i = 0; i < db->nr; i++)
		if (path_under(db->entries[i].file, db->root))
			return xstrdup(db->root);	/* built in place */
	dir = common_dir(db);
	if (strcmp(dir, "/"))
		return dir;
	/* Nothing in common: paths stay absolute, as before. */
	free(dir);
	return xstrdup(db->root);
}

int compdb_set_srctree(struct compdb *db, const char *dir, char *err,
		       size_t errlen)
{
	struct stat st;
	char *real;

	if (stat(dir, &st)) {
		snprintf(err, errlen, "%s: not a source tree: %s", dir,
			 strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a source tree: %s", dir,
			 strerror(ENOTDIR));
		return -ENOTDIR;
	}
	real = realpath(dir, NULL);
	free(db->srctree);
	db->srctree = path_normalize(real ? real : dir);
	free(real);
	return 0;
}

int compdb_load(struct compdb *db, const char *path, char *err,
		size_t errlen)
{
	json_error_t jerr;
	json_t *root, *obj;
	char *abs, *slash, cwd[4096];
	FILE *in;
	size_t i;
	int ret = 0;

	memset(db, 0, sizeof(*db));
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		abs = path_join(cwd, path);
	else
		abs = path_normalize(path);
	db->path = abs;
	db->root = xstrdup(abs);
	slash = strrchr(db->root, '/');
	if (slash)
		*(slash == db->root ? slash + 1 : slash) = '\0';

	/* A FIFO, a device or a directory is refused at once. */
	ret = input_open(path, NULL, INPUT_MAX_TEXT, &in, err, errlen);
	if (ret)
		goto out_free_db;
	root = json_loadf(in, 0, &jerr);
	fclose(in);
	if (!root) {
		snprintf(err, errlen, "%s:%d:%d: malformed JSON: %s", path,
			 jerr.line, jerr.column, jerr.text);
		ret = -EINVAL;
		goto out_free_db;
	}
	if (!json_is_array(root)) {
		snprintf(err, errlen, "%s: not a compile database: the top "
			 "level is not an array", path);
		ret = -EINVAL;
		goto out_decref;
	}
	if (!json_array_size(root)) {
		snprintf(err, errlen, "%s: empty compile database", path);
		ret = -ENOENT;
		goto out_decref;
	}
	json_array_foreach(root, i, obj) {
		ret = load_entry(db, obj, i, err, errlen);
		if (ret)
			goto out_decref;
	}
	json_decref(root);
	db->srctree = find_srctree(db);
	return 0;

out_decref:
	json_decref(root);
out_free_db:
	compdb_free(db);
	one_line(err);
	return ret;
}

size_t compdb_shard(struct compdb *db, unsigned int k, unsigned int n)
{
	size_t i, kept = 0, before = db->nr;

	for (i = 0; i < db->nr; i++) {
		struct compdb_entry *e = &db->entries[i];
		char *rel = path_relative(e->file, db->srctree);
		bool keep = hash_mix(hash_str(rel), n) % n == k - 1;

		free(rel);
		if (keep) {
			db->entries[kept++] = *e;
			continue;
		}
		free(e->directory);
		free(e->file);
		compdb_free_argv(e->argv, e->argc);
	}
	db->nr = kept;
	return before;
}

void compdb_free(struct compdb *db)
{
	size_t i;

	for (i = 0; i < db->nr; i++) {
		free(db->entries[i].directory);
		free(db->entries[i].file);
		compdb_free_argv(db->entries[i].argv, db->entries[i].argc);
	}
	free(db->entries);
	free(db->path);
	free(db->root);
	free(db->srctree);
	memset(db, 0, sizeof(*db));
}
