// SPDX-License-Identifier: GPL-2.0
/*
 * roots.c - read the hot-path root set files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/input/roots.h"
#include "trapcheck/base/util.h"

static struct root_set *set_get(struct root_sets *rs, const char *name,
				const char *path)
{
	struct root_set *s;
	size_t i;

	for (i = 0; i < rs->nr; i++)
		if (!strcmp(rs->sets[i].name, name))
			return &rs->sets[i];
	s = PUSH(rs->sets, rs->nr, rs->alloc);
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->path = xstrdup(path);
	s->weight = 1000;
	return s;
}

static bool is_ident(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/*
 * "register: FUNC N" (a function passed as argument N of FUNC, from 0) or
 * "member: STRUCT.MEMBER" (a function stored in it): the slot as the
 * facts name it (facts.def TU_ASSIGN_FIELDS), "FUNC()#N" or as written.
 */
static int reg_line(struct root_set *s, char *p, const char *path,
		    unsigned int lineno, char *err, size_t errlen)
{
	bool call = !strncmp(p, "register:", 9);
	char *w = p + (call ? 9 : 7), *n = NULL, *dot, *end;
	struct root_reg *r;
	long arg = 0;

	w += strspn(w, " \t");
	if (call) {
		n = w + strcspn(w, " \t");
		if (*n)
			*n++ = '\0';
		n += strspn(n, " \t");
		arg = strtol(n, &end, 10);
		if (!is_ident(w) || end == n || *end || arg < 0 || arg > 31) {
			snprintf(err, errlen, "%s:%u: register: wants a "
				 "function and an argument number: '%s %s'",
				 path, lineno, w, n);
			return -EINVAL;
		}
	} else {
		dot = strchr(w, '.');
		if (dot)
			*dot = '\0';
		if (!dot || !is_ident(w) || !is_ident(dot + 1)) {
			if (dot)
				*dot = '.';
			snprintf(err, errlen, "%s:%u: member: wants "
				 "STRUCT.MEMBER: '%s'", path, lineno, w);
			return -EINVAL;
		}
		*dot = '.';
	}
	r = PUSH(s->regs, s->nr_regs, s->alloc_regs);
	r->slot = call ? xasprintf("%s()#%ld", w, arg) : xstrdup(w);
	r->reason = NULL;
	return 1;
}

/*
 * A line of a roots file that says something of the set: "context:
 * atomic", "config: CONFIG_...", "per: <operation>", "weight: N",
 * "user: FUNC ...". 1 when
 * @p was one, 0 when it is not (a function name), -EINVAL with the error
 * in @err.
 */
static int set_line(struct root_set *s, char *p, const char *path,
		    unsigned int lineno, char *err, size_t errlen)
{
	char *end;

	if (!strcmp(p, "context: atomic")) {
		s->atomic = true;
		return 1;
	}
	if (!strncmp(p, "user:", 5)) {
		char *c, *save = NULL;
		bool any = false;

		for (c = strtok_r(p + 5, " \t", &save); c;
		     c = strtok_r(NULL, " \t", &save)) {
			any = true;
			if (!strcmp(c, "all")) {
				s->all_user = true;
				continue;
			}
			if (!is_ident(c)) {
				snprintf(err, errlen, "%s:%u: user: not a "
					 "function name: '%s'", path, lineno,
					 c);
				return -EINVAL;
			}
			*PUSH(s->user, s->nr_user, s->alloc_user) = xstrdup(c);
		}
		if (!any) {
			snprintf(err, errlen, "%s:%u: user: names no entry "
				 "point (FUNC ... or all)", path, lineno);
			return -EINVAL;
		}
		return 1;
	}
	if (!strncmp(p, "config:", 7)) {
		char *c, *save = NULL;

		for (c = strtok_r(p + 7, " \t", &save); c;
		     c = strtok_r(NULL, " \t", &save)) {
			if (strncmp(c, "CONFIG_", 7) || !is_ident(c)) {
				snprintf(err, errlen, "%s:%u: not a CONFIG_ "
					 "symbol: '%s'", path, lineno, c);
				return -EINVAL;
			}
			*PUSH(s->configs, s->nr_configs, s->alloc_configs) =
				xstrdup(c);
		}
		return 1;
	}
	if (!strncmp(p, "per:", 4)) {
		char *op = p + 4;

		while (*op == ' ' || *op == '\t')
			op++;
		if (!*op) {
			snprintf(err, errlen, "%s:%u: per: names no operation",
				 path, lineno);
			return -EINVAL;
		}
		free(s->per);
		s->per = xstrdup(op);
		return 1;
	}
	if (!strncmp(p, "register:", 9) || !strncmp(p, "member:", 7))
		return reg_line(s, p, path, lineno, err, errlen);
	if (!strncmp(p, "weight:", 7)) {
		char *num = p + 7;

		s->weight = strtod(num, &end);
		if (end == num || *end || s->weight <= 0) {
			snprintf(err, errlen, "%s:%u: bad weight: '%s'", path,
				 lineno, num);
			return -EINVAL;
		}
		return 1;
	}
	return 0;
}

static bool listed(const struct root_set *s, const char *func)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->funcs[i], func))
			return true;
	return false;
}

/* A "user:" name that is no entry point of the set is a typo. */
static int check_users(const struct root_set *s, const char *path,
		       char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < s->nr_user; i++)
		if (!listed(s, s->user[i])) {
			snprintf(err, errlen, "%s: user: %s is not an entry "
				 "point the set lists", path, s->user[i]);
			return -EINVAL;
		}
	return 0;
}

bool roots_user_entry(const struct root_set *s, const char *func)
{
	size_t i;

	if (s->all_user)
		return listed(s, func);
	for (i = 0; i < s->nr_user; i++)
		if (!strcmp(s->user[i], func))
			return true;
	return false;
}

int roots_load_file(struct root_sets *rs, const char *path, char *err,
		    size_t errlen)
{
	const char *base = strrchr(path, '/');
	char line[512], *name, *dot;
	struct root_set *s;
	unsigned int lineno = 0;
	size_t nr_regs;
	FILE *f;
	int ret = 0;

	ret = input_open(path, "roots file", INPUT_MAX_LIST, &f, err, errlen);
	if (ret)
		return ret;
	name = xstrdup(base ? base + 1 : path);
	dot = strstr(name, ".roots");
	if (dot)
		*dot = '\0';
	s = set_get(rs, name, path);
	free(name);

	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end, *reason = "";

		lineno++;
		end = strchr(p, '#');
		if (end) {
			*end = '\0';
			reason = end + 1;
			while (*reason == ' ')
				reason++;
			reason[strcspn(reason, "\n")] = '\0';
		}
		while (*p == ' ' || *p == '\t')
			p++;
		end = p + strlen(p);
		while (end > p && (end[-1] == '\n' || end[-1] == ' ' ||
				   end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (!*p)
			continue;
		nr_regs = s->nr_regs;
		ret = set_line(s, p, path, lineno, err, errlen);
		if (ret < 0)
			break;
		if (s->nr_regs > nr_regs)
			s->regs[nr_regs].reason = xstrdup(reason);
		if (ret) {
			ret = 0;
			continue;
		}
		if (!is_ident(p)) {
			snprintf(err, errlen, "%s:%u: not a function name: "
				 "'%s'", path, lineno, p);
			ret = -EINVAL;
			break;
		}
		GROW(s->reasons, s->alloc_reasons, s->nr + 1);
		s->reasons[s->nr] = xstrdup(reason);
		*PUSH(s->funcs, s->nr, s->alloc) = xstrdup(p);
	}
	if (!ret && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		ret = -EIO;
	}
	fclose(f);
	return ret ? ret : check_users(s, path, err, errlen);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int roots_load_dir(struct root_sets *rs, const char *dir, char *err,
		   size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0, i;
	int ret = 0;

	if (!d) {
		snprintf(err, errlen, "%s: cannot open roots directory: %s",
			 dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n > 6 && !strcmp(de->d_name + n - 6, ".roots"))
			*PUSH(names, nr, alloc) = xstrdup(de->d_name);
	}
	closedir(d);
	sort_n(names, nr, sizeof(*names), name_cmp);
	for (i = 0; i < nr; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		if (!ret)
			ret = roots_load_file(rs, path, err, errlen);
		free(path);
		free(names[i]);
	}
	free(names);
	return ret;
}

static void root_set_free(struct root_set *s)
{
	size_t i;

	strv_free(s->configs, s->nr_configs);
	strv_free(s->user, s->nr_user);
	strv_free(s->funcs, s->nr);
	strv_free(s->reasons, s->nr);
	for (i = 0; i < s->nr_regs; i++) {
		free(s->regs[i].slot);
		free(s->regs[i].reason);
	}
	free(s->regs);
	free(s->name);
	free(s->path);
	free(s->per);
}

void roots_free(struct root_sets *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		root_set_free(&rs->sets[i]);
	free(rs->sets);
	memset(rs, 0, sizeof(*rs));
}

/* "crng, idle, irq, ..." : every set's name, in a new string. */
static char *set_names(const struct root_sets *rs)
{
	char *s = xstrdup(rs->nr ? "" : "none"), *t;
	size_t i;

	for (i = 0; i < rs->nr; i++) {
		t = xasprintf("%s%s%s", s, i ? ", " : "", rs->sets[i].name);
		free(s);
		s = t;
	}
	return s;
}

int roots_select(struct root_sets *rs, const char *names, char *err,
		 size_t errlen)
{
	char *copy = xstrdup(names), *save = NULL, *n, *all = set_names(rs);
	bool *keep = xcalloc(rs->nr + 1, sizeof(*keep));
	size_t i, k = 0, named = 0;
	int ret = 0;

	for (n = strtok_r(copy, ",", &save); n && !ret;
	     n = strtok_r(NULL, ",", &save)) {
		bool found = false;

		named++;
		for (i = 0; i < rs->nr; i++)
			if (!strcmp(rs->sets[i].name, n))
				found = keep[i] = true;
		if (!found) {
			snprintf(err, errlen, "--root-set: no root set named "
				 "'%s' (the sets are %s)", n, all);
			ret = -ENOENT;
		}
	}
	/* "", ",": a list that names no set would check nothing. */
	if (!ret && !named) {
		snprintf(err, errlen, "--root-set: no root set named (the "
			 "sets are %s)", all);
		ret = -EINVAL;
	}
	for (i = 0; !ret && i < rs->nr; i++) {
		if (keep[i])
			rs->sets[k++] = rs->sets[i];
		else
			root_set_free(&rs->sets[i]);
	}
	if (!ret)
		rs->nr = k;
	free(keep);
	free(copy);
	free(all);
	return ret;
}
