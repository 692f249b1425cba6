/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The facts of one translation unit: what extraction keeps of it after
 * its AST is gone. Every record is described once, in checker/model/facts.def;
 * the structs below are made from those lists, and the descriptions
 * (fact_records[]) let the byte encoding (factsio.h) and the database
 * (db.h) carry every field without naming it.
 */
#ifndef TRAPCHECK_FACTS_H
#define TRAPCHECK_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/facts.def"

#define FACT_T_KEY	char *
#define FACT_T_STR	char *
#define FACT_T_U32	unsigned int
#define FACT_T_INT	int
#define FACT_T_BOOL	bool
#define FACT_T_FUNC	int
#define FACT_T_SINK	int
#define FACT_DECLARE(kind, name)	FACT_T_##kind name;

struct tu_func { TU_FUNC_FIELDS(FACT_DECLARE) };
struct tu_call { TU_CALL_FIELDS(FACT_DECLARE) };
struct tu_sink { TU_SINK_FIELDS(FACT_DECLARE) };
struct tu_row { TU_ROW_FIELDS(FACT_DECLARE) };
struct tu_assign { TU_ASSIGN_FIELDS(FACT_DECLARE) };
struct tu_icall { TU_ICALL_FIELDS(FACT_DECLARE) };

/* An unknown compiler flag's warning, for the analysis to print once. */
struct tu_warning {
	char *flag;
	char *text;		/* the whole line, without '\n' */
};

/* tu_facts.parse_error beyond libclang's CXErrorCode values: */
#define TU_NOT_READ	(-1)	/* not a readable regular file */
#define TU_CRASHED	(-2)	/* its parser crashed or timed out */

#define FACT_ARRAY(s, fields, array, table)				\
	struct tu_##s *array;						\
	size_t nr_##array, alloc_##array;
#define FACT_STRLIST(array, count, alloc, table, column)		\
	char **array;							\
	size_t count, alloc;

struct tu_facts {
	char *file;		/* the TU, relative to the tree root */
	int parse_error;	/* a CXErrorCode, TU_*; 0 when a TU was built */
	unsigned int nr_errors;	/* error and fatal diagnostics */
	char *first_error;	/* "file:line:col: message" */
	bool retried;		/* re-parsed without rejected flags */
	/* Bit k: a definition of a table of row kind k was found. */
	unsigned int tables_seen;

	TU_RECORDS(FACT_ARRAY)
	TU_STRLISTS(FACT_STRLIST)

	/* With extract_opts.defer_warnings: not printed, but kept here. */
	struct tu_warning *warnings;
	size_t nr_warnings, alloc_warnings;
};

/* The description of a record's field, and of a record. */
enum fact_kind { FACT_KEY, FACT_STR, FACT_U32, FACT_INT, FACT_BOOL,
		 FACT_FUNC, FACT_SINK };

struct fact_field {
	enum fact_kind kind;
	const char *name;	/* the struct member and the column */
	size_t offset;
};

struct fact_record {
	const char *table;	/* the database table */
	const struct fact_field *fields;
	size_t nr_fields;
	size_t size;		/* of one struct */
	size_t array, count, alloc;	/* offsets in struct tu_facts */
};

struct fact_strlist {
	const char *table, *column;
	size_t array, count, alloc;	/* offsets in struct tu_facts */
};

extern const struct fact_record fact_records[];
extern const size_t fact_records_size;
extern const struct fact_strlist fact_strlists[];
extern const size_t fact_strlists_size;

/* The array, count and allocation of record @r (or list) in @f. */
void **fact_array(const struct tu_facts *f, size_t array);
size_t *fact_count(const struct tu_facts *f, size_t count);
/* Append one zeroed element to record @r's array of @f. */
void *fact_push(struct tu_facts *f, const struct fact_record *r);
/* A field of an element, by description. */
char **fact_str(void *elem, const struct fact_field *fd);
unsigned int *fact_u32(void *elem, const struct fact_field *fd);
int *fact_int(void *elem, const struct fact_field *fd);
bool *fact_bool(void *elem, const struct fact_field *fd);

/*
 * A row of a table an architecture reads from the tree (model/arch.h),
 * as its reader makes it: @table and @key never NULL; every string is
 * copied.
 */
struct table_row_in {
	unsigned int kind;
	const char *table, *key;
	const char *v[5];
	unsigned int num;
	bool flag;
	const char *file;
	unsigned int line;
};

/* A TU with errors, or not analysed (the summary lists them). */
struct tu_problem {
	char *file;
	unsigned int nr_errors;
	char *first_error;
	int parse_error;	/* nonzero: no TU was built */
};

/*
 * The run's TUs (the pipeline counts them): how many the compile
 * database names, how many were analysed, parsed now or read back from
 * the facts database, and which had errors.
 */
struct tu_stats {
	size_t entries;		/* compile database entries */
	size_t tus;		/* TUs analysed */
	size_t parsed;		/* handed to libclang in this run */
	size_t from_db;		/* facts read back from the database */
	size_t removed;		/* TUs dropped from the database */
	bool stored_link;	/* the graph read whole from the database */
	size_t skipped;		/* not C, host programs, other compilers */
	size_t shard_of;	/* --shard: the entries of every shard */
	size_t duplicates;	/* report: TUs in more than one database */
	struct tu_problem *problems;	/* TUs with errors, in db order */
	size_t nr_problems, alloc_problems;
};

/* Add a problem (@file and @first_error are taken); free the counts. */
void facts_add_problem(struct tu_stats *s, char *file,
		       unsigned int nr_errors, char *first_error,
		       int parse_error);
void facts_stats_free(struct tu_stats *s);

/* Append row @in to @f's, unless @f has the same row already. */
void facts_add_row(struct tu_facts *f, const struct table_row_in *in);

void facts_free(struct tu_facts *f);

#endif /* TRAPCHECK_FACTS_H */
