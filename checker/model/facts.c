// SPDX-License-Identifier: GPL-2.0
/*
 * facts.c - the descriptions of a TU's facts (checker/model/facts.def) and
 * what works from them alone: freeing, appending, field access.
 */
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/facts.h"
#include "trapcheck/base/util.h"

#define FIELD_OF(s)	FIELD_OF_##s
#define DESCRIBE(s, kind, name) \
	{ FACT_##kind, #name, offsetof(struct tu_##s, name) },
#define FIELD_OF_func(kind, name)	DESCRIBE(func, kind, name)
#define FIELD_OF_call(kind, name)	DESCRIBE(call, kind, name)
#define FIELD_OF_sink(kind, name)	DESCRIBE(sink, kind, name)
#define FIELD_OF_row(kind, name)	DESCRIBE(row, kind, name)
#define FIELD_OF_assign(kind, name)	DESCRIBE(assign, kind, name)
#define FIELD_OF_icall(kind, name)	DESCRIBE(icall, kind, name)

#define FIELDS(s, fields, array, table)					\
	static const struct fact_field s##_fields[] = {			\
		fields(FIELD_OF(s))					\
	};
TU_RECORDS(FIELDS)

#define RECORD(s, fields, array, table)					\
	{ table, s##_fields, ARRAY_SIZE(s##_fields),			\
	  sizeof(struct tu_##s), offsetof(struct tu_facts, array),	\
	  offsetof(struct tu_facts, nr_##array),			\
	  offsetof(struct tu_facts, alloc_##array) },
const struct fact_record fact_records[] = { TU_RECORDS(RECORD) };
const size_t fact_records_size = ARRAY_SIZE(fact_records);

#define STRLIST(array, count, alloc, table, column)			\
	{ table, column, offsetof(struct tu_facts, array),		\
	  offsetof(struct tu_facts, count),				\
	  offsetof(struct tu_facts, alloc) },
const struct fact_strlist fact_strlists[] = { TU_STRLISTS(STRLIST) };
const size_t fact_strlists_size = ARRAY_SIZE(fact_strlists);

void **fact_array(const struct tu_facts *f, size_t array)
{
	return (void **)((char *)f + array);
}

size_t *fact_count(const struct tu_facts *f, size_t count)
{
	return (size_t *)((char *)f + count);
}

void *fact_push(struct tu_facts *f, const struct fact_record *r)
{
	void **v = fact_array(f, r->array);
	size_t *nr = fact_count(f, r->count), *alloc = fact_count(f, r->alloc);
	char *e;

	if (*nr == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 16;
		*v = xrealloc(*v, *alloc * r->size);
	}
	e = (char *)*v + (*nr)++ * r->size;
	memset(e, 0, r->size);
	return e;
}

char **fact_str(void *elem, const struct fact_field *fd)
{
	return (char **)((char *)elem + fd->offset);
}

unsigned int *fact_u32(void *elem, const struct fact_field *fd)
{
	return (unsigned int *)((char *)elem + fd->offset);
}

int *fact_int(void *elem, const struct fact_field *fd)
{
	return (int *)((char *)elem + fd->offset);
}

bool *fact_bool(void *elem, const struct fact_field *fd)
{
	return (bool *)((char *)elem + fd->offset);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_row(const struct tu_row *r, const struct table_row_in *in)
{
	return r->kind == in->kind && r->num == in->num &&
	       r->flag == in->flag && r->line == in->line &&
	       !strcmp(r->table, in->table) && !strcmp(r->key, in->key) &&
	       same_str(r->v1, in->v[0]) && same_str(r->v2, in->v[1]) &&
	       same_str(r->v3, in->v[2]) && same_str(r->v4, in->v[3]) &&
	       same_str(r->v5, in->v[4]) && same_str(r->file, in->file);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void facts_add_row(struct tu_facts *f, const struct table_row_in *in)
{
	struct tu_row *r;
	size_t i;

	for (i = 0; i < f->nr_rows; i++)
		if (same_row(&f->rows[i], in))
			return;
	r = PUSH(f->rows, f->nr_rows, f->alloc_rows);
	r->kind = in->kind;
	r->table = xstrdup(in->table);
	r->key = xstrdup(in->key);
	r->v1 = dup_or_null(in->v[0]);
	r->v2 = dup_or_null(in->v[1]);
	r->v3 = dup_or_null(in->v[2]);
	r->v4 = dup_or_null(in->v[3]);
	r->v5 = dup_or_null(in->v[4]);
	r->num = in->num;
	r->flag = in->flag;
	r->file = dup_or_null(in->file);
	r->line = in->line;
}

void facts_add_problem(struct tu_stats *s, char *file,
		       unsigned int nr_errors, char *first_error,
		       int parse_error)
{
	struct tu_problem *pr = PUSH(s->problems, s->nr_problems,
				     s->alloc_problems);

	pr->file = file;
	pr->nr_errors = nr_errors;
	pr->first_error = first_error;
	pr->parse_error = parse_error;
}

void facts_stats_free(struct tu_stats *s)
{
	size_t i;

	for (i = 0; i < s->nr_problems; i++) {
		free(s->problems[i].file);
		free(s->problems[i].first_error);
	}
	free(s->problems);
	memset(s, 0, sizeof(*s));
}

void facts_free(struct tu_facts *f)
{
	size_t i, j, k;

	for (i = 0; i < fact_records_size; i++) {
		const struct fact_record *r = &fact_records[i];
		char *v = *fact_array(f, r->array);
		size_t nr = *fact_count(f, r->count);

		for (j = 0; j < nr; j++)
			for (k = 0; k < r->nr_fields; k++)
				if (r->fields[k].kind <= FACT_STR)
					free(*fact_str(v + j * r->size,
						       &r->fields[k]));
		free(v);
	}
	for (i = 0; i < fact_strlists_size; i++) {
		char **v = *(char ***)fact_array(f, fact_strlists[i].array);
		size_t nr = *fact_count(f, fact_strlists[i].count);

		strv_free(v, nr);
	}
	for (i = 0; i < f->nr_warnings; i++) {
		free(f->warnings[i].flag);
		free(f->warnings[i].text);
	}
	free(f->warnings);
	free(f->file);
	free(f->first_error);
	memset(f, 0, sizeof(*f));
}
