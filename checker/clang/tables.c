// SPDX-License-Identifier: GPL-2.0
/*
 * tables.c - the tables an architecture reads from the tree (its
 * tables.def, model/arch.h): each definition's initialiser as a struct
 * table_view, which the architecture's read_table() makes rows of. The
 * view has two sides of the same declaration: the AST gives the entries
 * that are really compiled (#ifdef'd ones are absent) and the values the
 * compiler computes (a member's constant, the function it names); the
 * declaration's own tokens give the names as written, which macros paste
 * away. libclang's clang_tokenize() lexes at spelling locations, so the
 * tokens of a macro-made entry are taken from the whole declaration,
 * matched by file offset.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/clang/tables.h"
#include "trapcheck/clang/tokens.h"
#include "trapcheck/base/util.h"

const struct arch_table *tables_find(const char *name)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_tables; i++)
		if (!fnmatch(a->tables[i].global, name, 0))
			return &a->tables[i];
	return NULL;
}

static char *spelling(CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	char *r = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");

	clang_disposeString(s);
	return r;
}

/* The identifier written at @c's expansion location, or NULL. */
static char *written_ident(CXTranslationUnit tu, CXCursor c)
{
	CXFile f;
	unsigned int line, col, off;
	CXToken *tok;
	char *r = NULL;

	clang_getExpansionLocation(clang_getCursorLocation(c), &f, &line,
				   &col, &off);
	if (!f)
		return NULL;
	tok = clang_getToken(tu, clang_getLocation(tu, f, line, col));
	if (!tok)
		return NULL;
	if (clang_getTokenKind(*tok) == CXToken_Identifier) {
		CXString s = clang_getTokenSpelling(tu, *tok);

		r = xstrdup(clang_getCString(s));
		clang_disposeString(s);
	}
	clang_disposeTokens(tu, tok, 1);
	return r;
}

struct first_child {
	enum CXCursorKind kind;
	CXCursor found;
	bool any;
};

static enum CXChildVisitResult find_kind(CXCursor c, CXCursor p,
					 CXClientData d)
{
	struct first_child *fc = d;

	(void)p;
	if (clang_getCursorKind(c) == fc->kind) {
		fc->found = c;
		fc->any = true;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult keep_last(CXCursor c, CXCursor p,
					 CXClientData d)
{
	(void)p;
	*(CXCursor *)d = c;
	return CXChildVisit_Continue;
}

static bool find_descendant(CXCursor c, enum CXCursorKind kind,
			    CXCursor *out)
{
	struct first_child fc = { .kind = kind };

	clang_visitChildren(c, find_kind, &fc);
	*out = fc.found;
	return fc.any;
}

/* The table being read: the view and what it is made from. */
struct table_walk {
	CXTranslationUnit tu;
	struct tokens k;
	CXCursor *cursors;	/* of each entry */
	struct table_entry *entries;
	size_t nr, alloc;
	const char *(*loc_file)(void *ctx, CXFile f);
	void *ctx;
};

/* One designated initialiser of an entry: ".member = value". */
static enum CXChildVisitResult visit_member(CXCursor c, CXCursor p,
					    CXClientData d)
{
	struct table_entry *e = d;
	struct table_member *m;
	CXCursor member, value, ref;
	CXEvalResult ev;

	(void)p;
	if (!find_descendant(c, CXCursor_MemberRef, &member))
		return CXChildVisit_Continue;
	value = clang_getNullCursor();
	clang_visitChildren(c, keep_last, &value);
	if (clang_Cursor_isNull(value))
		return CXChildVisit_Continue;
	e->members = xrealloc((void *)e->members,
			      (e->nr_members + 1) * sizeof(*e->members));
	m = (struct table_member *)&e->members[e->nr_members++];
	memset(m, 0, sizeof(*m));
	m->name = spelling(member);
	m->written = written_ident(clang_Cursor_getTranslationUnit(c), value);
	if (find_descendant(c, CXCursor_DeclRefExpr, &ref))
		m->ref = spelling(ref);
	ev = clang_Cursor_Evaluate(value);
	if (ev) {
		if (clang_EvalResult_getKind(ev) == CXEval_Int) {
			m->value = clang_EvalResult_getAsLongLong(ev);
			m->has_value = true;
		}
		clang_EvalResult_dispose(ev);
	}
	return CXChildVisit_Continue;
}

/* The index of the first token at or after @off. */
static unsigned int token_at(const struct tokens *k, unsigned int off)
{
	unsigned int i;

	for (i = 0; i < k->n && k->off[i] < off; i++)
		;
	return i;
}

/* From a "{" at @i to its matching "}" (exclusive). */
static unsigned int group_end(const struct tokens *k, unsigned int i)
{
	int depth = 0;

	for (; i < k->n; i++) {
		if (!strcmp(k->s[i], "{") || !strcmp(k->s[i], "("))
			depth++;
		else if ((!strcmp(k->s[i], "}") || !strcmp(k->s[i], ")")) &&
			 --depth <= 0)
			return i + 1;
	}
	return k->n;
}

static enum CXChildVisitResult visit_entry(CXCursor c, CXCursor p,
					   CXClientData d)
{
	struct table_walk *w = d;
	struct table_entry *e;
	unsigned int col, off;
	CXFile f;

	(void)p;
	if (w->nr == w->alloc) {
		w->alloc = w->alloc ? 2 * w->alloc : 64;
		w->entries = xrealloc(w->entries,
				      w->alloc * sizeof(*w->entries));
		w->cursors = xrealloc(w->cursors,
				      w->alloc * sizeof(*w->cursors));
	}
	w->cursors[w->nr] = c;
	e = &w->entries[w->nr++];
	memset(e, 0, sizeof(*e));
	clang_getExpansionLocation(clang_getCursorLocation(c), &f, &e->line,
				   &col, &off);
	e->file = w->loc_file(w->ctx, f);
	e->tok = token_at(&w->k, off);
	e->end = group_end(&w->k, e->tok);
	e->braced = clang_getCursorKind(c) == CXCursor_InitListExpr;
	if (e->braced)
		clang_visitChildren(c, visit_member, e);
	return CXChildVisit_Continue;
}

/* The definition a DeclRefExpr named @name below the entry refers to. */
struct ref_find {
	const char *name;
	CXCursor found;
	bool ok;
};

static enum CXChildVisitResult visit_ref(CXCursor c, CXCursor p,
					 CXClientData d)
{
	struct ref_find *r = d;
	CXCursor def;
	CXString s;
	bool same;

	(void)p;
	if (clang_getCursorKind(c) != CXCursor_DeclRefExpr)
		return CXChildVisit_Recurse;
	s = clang_getCursorSpelling(c);
	same = !strcmp(clang_getCString(s), r->name);
	clang_disposeString(s);
	if (!same)
		return CXChildVisit_Continue;
	def = clang_getCursorDefinition(clang_getCursorReferenced(c));
	if (clang_Cursor_isNull(def))
		return CXChildVisit_Continue;
	r->found = def;
	r->ok = true;
	return CXChildVisit_Break;
}

static bool ref_tokens(const struct table_view *v, size_t e,
		       const char *name, char ***tok, unsigned int *n)
{
	struct table_walk *w = v->priv;
	struct ref_find r = { .name = name };
	struct tokens k;

	if (e >= w->nr)
		return false;
	clang_visitChildren(w->cursors[e], visit_ref, &r);
	if (!r.ok)
		return false;
	tokens_get(&k, w->tu, clang_getCursorExtent(r.found), false);
	*tok = k.s;
	*n = k.n;
	return true;
}

static void tokens_release(char **tok, unsigned int n)
{
	strv_free(tok, n);
}

static void walk_free(struct table_walk *w)
{
	size_t i, j;

	for (i = 0; i < w->nr; i++) {
		struct table_entry *e = &w->entries[i];

		for (j = 0; j < e->nr_members; j++) {
			free((char *)e->members[j].name);
			free((char *)e->members[j].written);
			free((char *)e->members[j].ref);
		}
		free((void *)e->members);
	}
	free(w->entries);
	free(w->cursors);
	tokens_free(&w->k);
}

void tables_read(CXTranslationUnit tu, CXCursor var,
		 const struct arch_table *t, const char *name,
		 struct tu_facts *out,
		 const char *(*loc_file)(void *ctx, CXFile f), void *ctx)
{
	struct table_walk w = {
		.tu = tu, .loc_file = loc_file, .ctx = ctx,
	};
	const struct arch *a = arch_current();
	struct table_view v = {
		.name = name, .kind = t->kind, .ref_tokens = ref_tokens,
		.tokens_release = tokens_release, .priv = &w,
	};
	CXCursor list;

	out->tables_seen |= 1u << t->kind;
	if (!a->read_table ||
	    !find_descendant(var, CXCursor_InitListExpr, &list))
		return;
	tokens_get(&w.k, tu, clang_getCursorExtent(var), true);
	clang_visitChildren(list, visit_entry, &w);
	v.tok = w.k.s;
	v.nr_tok = w.k.n;
	v.entries = w.entries;
	v.nr_entries = w.nr;
	a->read_table(&v, out);
	walk_free(&w);
}

/*
 * Drivers' device match tables, whatever the architecture: the devices a
 * driver binds to (rows of kind ROW_DEVICE), so that a machine profile
 * can tell which drivers a guest never binds (rules/machine.c).
 */
static const struct {
	const char *type;	/* the struct */
	const char *bus;
} device_types[] = {
	{ "of_device_id", "of" },
	{ "acpi_device_id", "acpi" },
	{ "pci_device_id", "pci" },
};

/* One entry of a match table, as read. */
struct dev_walk {
	const char *bus;
	char **fields;		/* the struct's members, in order */
	unsigned int nr_fields, pos;
	char *compatible, *id;	/* of, acpi */
	long long vendor, device;	/* pci */
	bool has_vendor, has_device;
};

static enum CXChildVisitResult field_names(CXCursor c, CXCursor p,
					   CXClientData d)
{
	struct dev_walk *w = d;

	(void)p;
	if (clang_getCursorKind(c) == CXCursor_FieldDecl) {
		w->fields = xrealloc(w->fields, (w->nr_fields + 1) *
				     sizeof(*w->fields));
		w->fields[w->nr_fields++] = spelling(c);
	}
	return CXChildVisit_Continue;
}

/*
 * The text of string literal @c without its quotes (libclang 14 does not
 * evaluate one that initialises an array member), or NULL.
 */
static char *literal_text(CXCursor c)
{
	char *s = spelling(c), *out = NULL;
	size_t n = strlen(s);

	if (n > 2 && s[0] == '"' && s[n - 1] == '"' &&
	    !memchr(s + 1, '"', n - 2) && !memchr(s + 1, '\\', n - 2))
		out = xstrndup(s + 1, n - 2);
	free(s);
	return out;
}

/* Member @field of the entry is @value: keep what names the device. */
static void dev_field(struct dev_walk *w, const char *field, CXCursor value)
{
	char **str = !strcmp(field, "compatible") ? &w->compatible :
		     !strcmp(field, "id") ? &w->id : NULL;
	CXEvalResult ev;

	if (str) {
		if (!*str && clang_getCursorKind(value) ==
			     CXCursor_StringLiteral)
			*str = literal_text(value);
		return;
	}
	ev = clang_Cursor_Evaluate(value);
	if (!ev)
		return;
	if (clang_EvalResult_getKind(ev) == CXEval_Int) {
		long long v = clang_EvalResult_getAsLongLong(ev);

		if (!strcmp(field, "vendor")) {
			w->vendor = v;
			w->has_vendor = true;
		} else if (!strcmp(field, "device")) {
			w->device = v;
			w->has_device = true;
		}
	}
	clang_EvalResult_dispose(ev);
}

/* One initialiser of an entry: ".member = value", or the next member's. */
static enum CXChildVisitResult dev_member(CXCursor c, CXCursor p,
					  CXClientData d)
{
	struct dev_walk *w = d;
	CXCursor member, value = clang_getNullCursor();

	(void)p;
	if (find_descendant(c, CXCursor_MemberRef, &member)) {
		char *name = spelling(member);

		clang_visitChildren(c, keep_last, &value);
		if (!clang_Cursor_isNull(value))
			dev_field(w, name, value);
		free(name);
	} else if (w->pos < w->nr_fields) {
		dev_field(w, w->fields[w->pos], c);
	}
	w->pos++;
	return CXChildVisit_Continue;
}

/* The entry's device id as machine.def writes it, or NULL (a sentinel). */
static char *dev_id(const struct dev_walk *w)
{
	unsigned int vendor = (unsigned int)w->vendor;
	unsigned int device = (unsigned int)w->device;

	if (!strcmp(w->bus, "of"))
		return w->compatible ? xstrdup(w->compatible) : NULL;
	if (!strcmp(w->bus, "acpi"))
		return w->id ? xstrdup(w->id) : NULL;
	if (!w->has_vendor || (!vendor && !w->has_device))
		return NULL;
	/* PCI_ANY_ID: a class match, any vendor's device may bind. */
	if (vendor == 0xffffffffu)
		return xstrdup("*");
	if (!w->has_device || device == 0xffffffffu)
		return xasprintf("%04x:*", vendor);
	return xasprintf("%04x:%04x", vendor, device);
}

struct dev_table {
	struct dev_walk proto;
	struct tu_facts *out;
	const char *file;
	unsigned int line;
};

static void dev_entry_read(struct dev_table *t, CXCursor entry)
{
	struct dev_walk w = t->proto;
	char *id;

	clang_visitChildren(entry, dev_member, &w);
	id = dev_id(&w);
	if (id)
		facts_add_row(t->out, &(struct table_row_in){
			.kind = ROW_DEVICE, .table = w.bus, .key = id,
			.file = t->file, .line = t->line,
		});
	free(id);
	free(w.compatible);
	free(w.id);
}

static enum CXChildVisitResult dev_entry(CXCursor c, CXCursor p,
					 CXClientData d)
{
	(void)p;
	if (clang_getCursorKind(c) == CXCursor_InitListExpr)
		dev_entry_read(d, c);
	return CXChildVisit_Continue;
}

bool tables_read_devices(CXCursor var, struct tu_facts *out,
			 const char *(*loc_file)(void *ctx, CXFile f),
			 void *ctx)
{
	CXType t = clang_getCanonicalType(clang_getCursorType(var));
	CXType elem = clang_getArrayElementType(t);
	bool array = elem.kind != CXType_Invalid;
	CXCursor decl = clang_getTypeDeclaration(array ? elem : t), list;
	struct dev_table dt = { .out = out };
	unsigned int col, off, i;
	char *type;
	CXFile f;

	if (clang_getCursorKind(decl) != CXCursor_StructDecl)
		return false;
	type = spelling(decl);
	for (i = 0; i < ARRAY_SIZE(device_types); i++)
		if (!strcmp(type, device_types[i].type))
			dt.proto.bus = device_types[i].bus;
	free(type);
	if (!dt.proto.bus)
		return false;
	if (!find_descendant(var, CXCursor_InitListExpr, &list))
		return true;
	clang_getExpansionLocation(clang_getCursorLocation(var), &f, &dt.line,
				   &col, &off);
	dt.file = loc_file(ctx, f);
	clang_visitChildren(decl, field_names, &dt.proto);
	if (array)
		clang_visitChildren(list, dev_entry, &dt);
	else
		dev_entry_read(&dt, list);
	for (i = 0; i < dt.proto.nr_fields; i++)
		free(dt.proto.fields[i]);
	free(dt.proto.fields);
	return true;
}
