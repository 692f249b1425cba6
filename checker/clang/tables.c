// SPDX-License-Identifier: GPL-2.0
/*
 * tables.c - read the tables an architecture lists (its tables.def) from
 * a TU's AST: the sanitised registers and their fields (arm64's
 * arm64_ftr_regs[]), the capability tables (arm64_features[],
 * arm64_errata[]) and the MSRs KVM may pass through (x86): what each
 * entry names, as written. The members and macros the entries are
 * spelled with are the architecture's words (its words.def).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/model/arch.h"
#include "trapcheck/clang/tables.h"
#include "trapcheck/clang/tokens.h"
#include "trapcheck/base/util.h"

/* The scope bits of a capability's type: one per scope word. */
static unsigned int scope_mask(void)
{
	unsigned int n = 0;

	while (arch_word(WORD_CAP_SCOPE, n))
		n++;
	return (1u << n) - 1;
}

int caps_table_kind(const char *name)
{
	const struct arch *a = arch_current();
	size_t i;

	for (i = 0; i < a->nr_tables; i++)
		if (!fnmatch(a->tables[i].global, name, 0))
			return a->tables[i].kind;
	return -1;
}


/* The strings of an entry that was not kept. */
static void cap_free(struct tu_cap *c)
{
	free(c->name);
	free(c->type);
	free(c->matches);
	free(c->reg);
	free(c->field);
	free(c->min);
	free(c->table);
	free(c->file);
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

static const char *tok(const struct tokens *k, unsigned int i)
{
	return i < k->n ? k->s[i] : "";
}

/* ".name = VALUE" at token i: VALUE, or NULL. */
static const char *designated(const struct tokens *k, unsigned int i,
			      const char *name)
{
	if (!name || strcmp(tok(k, i), ".") || strcmp(tok(k, i + 1), name) ||
	    strcmp(tok(k, i + 2), "="))
		return NULL;
	return tok(k, i + 3);
}

/* The register, field and minimum as the entry spells them. */
static void scan_entry_tokens(struct tu_cap *c, const struct tokens *k,
			      unsigned int from, unsigned int to)
{
	const char *reg_prefix = arch_word(WORD_REG_PREFIX, 0);
	const char *shift = arch_word(WORD_SHIFT_SUFFIX, 0);
	const char *pos = NULL, *v;
	unsigned int i;

	for (i = from; i < to; i++) {
		const char *t = k->s[i];

		/* ARM64_CPUID_FIELDS(reg, field, min) (6.6+), and _NEG. */
		if (arch_word_prefix(WORD_CAP_FIELDS_MACRO, t) &&
		    !strcmp(tok(k, i + 1), "(") && !c->reg) {
			c->reg = xstrdup(tok(k, i + 2));
			c->field = xstrdup(tok(k, i + 4));
			c->min = xstrdup(tok(k, i + 6));
		}
		v = designated(k, i, arch_word(WORD_CAP_REG, 0));
		if (v && reg_prefix && !c->reg &&
		    !strncmp(v, reg_prefix, strlen(reg_prefix)))
			c->reg = xstrdup(v + strlen(reg_prefix));
		v = designated(k, i, arch_word(WORD_CAP_FIELD_POS, 0));
		if (v && !pos)
			pos = v;
		v = designated(k, i, arch_word(WORD_CAP_MIN, 0));
		if (v && !c->min)
			c->min = xstrdup(v);
		if (arch_word_prefix(WORD_CAP_ID_MATCH, t))
			c->midr = true;
	}
	/* .field_pos = ID_AA64ISAR0_EL1_RNDR_SHIFT: the field is RNDR. */
	if (pos && c->reg && !c->field && shift) {
		size_t n = strlen(c->reg), m = strlen(pos), x = strlen(shift);

		if (!strncmp(pos, c->reg, n) && pos[n] == '_' &&
		    m > n + 1 + x && !strcmp(pos + m - x, shift))
			c->field = xstrndup(pos + n + 1, m - n - 1 - x);
	}
}

struct entry_walk {
	CXTranslationUnit tu;
	struct tu_cap *cap;
};

/* One designated initialiser of an entry: ".member = value". */
static enum CXChildVisitResult visit_init(CXCursor c, CXCursor p,
					  CXClientData d)
{
	struct entry_walk *w = d;
	CXCursor member, value;
	char *name;

	(void)p;
	if (!find_descendant(c, CXCursor_MemberRef, &member))
		return CXChildVisit_Continue;
	name = spelling(member);
	value = clang_getNullCursor();
	clang_visitChildren(c, keep_last, &value);
	if (clang_Cursor_isNull(value)) {
		free(name);
		return CXChildVisit_Continue;
	}
	if (arch_word_is(WORD_CAP_NAME, name) && !w->cap->name) {
		w->cap->name = written_ident(w->tu, value);
	} else if (arch_word_is(WORD_CAP_TYPE, name) && !w->cap->type) {
		CXEvalResult ev = clang_Cursor_Evaluate(value);

		w->cap->type = written_ident(w->tu, value);
		if (ev) {
			if (clang_EvalResult_getKind(ev) == CXEval_Int)
				w->cap->scope = (unsigned int)
					clang_EvalResult_getAsLongLong(ev) &
					scope_mask();
			clang_EvalResult_dispose(ev);
		}
	} else if (arch_word_is(WORD_CAP_MATCHES, name) &&
		   !w->cap->matches) {
		CXCursor ref;

		if (find_descendant(c, CXCursor_DeclRefExpr, &ref))
			w->cap->matches = spelling(ref);
	}
	free(name);
	return CXChildVisit_Continue;
}

/*
 * Entries are read from two views of the same declaration: the AST gives
 * the entries that are really compiled (#ifdef'd ones are absent) and
 * the values the compiler computes (.type's scope, .matches' function);
 * the declaration's own tokens give the names as written, which the
 * macros (ARM64_CPUID_FIELDS, ARM64_FTR_REG) paste away. libclang's
 * clang_tokenize() lexes at spelling locations, so tokens of a macro-made
 * entry are taken from the whole declaration, matched by file offset.
 */
struct table_walk {
	CXTranslationUnit tu;
	int kind;
	const char *table;
	const struct caps_sink *out;
	struct tokens k;
};

static unsigned int entry_offset(CXCursor c)
{
	CXFile f;
	unsigned int line, col, off;

	clang_getExpansionLocation(clang_getCursorLocation(c), &f, &line,
				   &col, &off);
	return off;
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

static void extract_cap(struct table_walk *w, CXCursor entry)
{
	struct entry_walk ew = { .tu = w->tu };
	struct tu_cap c = { 0 };
	unsigned int i, col, off;
	CXFile f;

	ew.cap = &c;
	clang_visitChildren(entry, visit_init, &ew);
	if (!c.name) {
		cap_free(&c);
		return;
	}
	i = token_at(&w->k, entry_offset(entry));
	scan_entry_tokens(&c, &w->k, i, group_end(&w->k, i));
	c.table = xstrdup(w->table);
	clang_getExpansionLocation(clang_getCursorLocation(entry), &f,
				   &c.line, &col, &off);
	c.file = xstrdup(w->out->loc_file(w->out->ctx, f));
	*PUSH(*w->out->caps, *w->out->nr_caps, *w->out->alloc_caps) = c;
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

static void push_bits(struct table_walk *w, char *s)
{
	*PUSH(*w->out->ftr_bits, *w->out->nr_ftr_bits,
	      *w->out->alloc_ftr_bits) = s;
}

/*
 * The fields of @reg that its arm64_ftr_bits array (@name) describes, as
 * "REG FIELD_SHIFT S" (FTR_STRICT) or "... N" (FTR_NONSTRICT), after a
 * "REG *" that says every entry of the array was read (none gives its
 * shift as a number). read_sanitised_ftr_reg() returns 0 in the bits of a
 * field the array leaves out (init_cpu_ftr_reg(): val &= valid_mask).
 */
static void extract_ftr_bits(struct table_walk *w, CXCursor entry,
			     const char *reg, const char *name)
{
	struct ref_find r = { .name = name };
	char **bits = NULL;
	size_t nr = 0, alloc = 0;
	bool complete = true;
	struct tokens k;
	unsigned int i, j, end;

	clang_visitChildren(entry, visit_ref, &r);
	if (!r.ok)
		return;
	tokens_get(&k, w->tu, clang_getCursorExtent(r.found), false);
	for (i = 0; i < k.n; i++) {
		const char *shift = NULL;
		bool nonstrict = false;

		if (!arch_word_suffix(WORD_FTR_BITS_MACRO, k.s[i]) ||
		    i + 1 >= k.n || strcmp(k.s[i + 1], "("))
			continue;
		end = group_end(&k, i + 1);
		for (j = i + 1; j < end; j++) {
			if (arch_word_is(WORD_FTR_NONSTRICT, k.s[j]))
				nonstrict = true;
			else if (!shift &&
				 arch_word_suffix(WORD_SHIFT_SUFFIX, k.s[j]) &&
				 !arch_word_is(WORD_SHIFT_SUFFIX, k.s[j]))
				shift = k.s[j];
		}
		if (!shift) {
			/*
			 * A shift written as a number (ftr_generic_32bits):
			 * which fields the array leaves out is not known.
			 */
			complete = false;
			continue;
		}
		*PUSH(bits, nr, alloc) = xasprintf("%s %s %c", reg, shift,
						   nonstrict ? 'N' : 'S');
		i = end - 1;
	}
	tokens_free(&k);
	if (complete)
		push_bits(w, xasprintf("%s *", reg));
	for (i = 0; i < nr; i++)
		push_bits(w, bits[i]);
	free(bits);
}

/*
 * ARM64_FTR_REG(SYS_ID_PFR0_EL1, ftr_id_pfr0): the first SYS_ name of the
 * entry, and the fields of its ftr_ array.
 */
static void extract_ftr(struct table_walk *w, CXCursor entry)
{
	unsigned int i = token_at(&w->k, entry_offset(entry));
	unsigned int end = group_end(&w->k, i);
	const char *reg = NULL, *prefix = arch_word(WORD_REG_PREFIX, 0);

	for (; i < end; i++) {
		if (!reg && prefix &&
		    !strncmp(w->k.s[i], prefix, strlen(prefix))) {
			reg = w->k.s[i] + strlen(prefix);
			*PUSH(*w->out->ftr, *w->out->nr_ftr,
			      *w->out->alloc_ftr) = xstrdup(reg);
		} else if (reg &&
			   arch_word_prefix(WORD_FTR_BITS_PREFIX, w->k.s[i])) {
			extract_ftr_bits(w, entry, reg, w->k.s[i]);
			break;
		}
	}
}

/*
 * An entry of a list of MSRs KVM may pass through, as written: a plain
 * MSR_IA32_SPEC_CTRL (VMX), or { .index = MSR_STAR, .always = true }
 * (SVM). "table MSR" ("vmx_possible_passthrough_msrs MSR_IA32_SPEC_CTRL");
 * the SVM list's MSR_INVALID end marker is no MSR.
 */
static void extract_msr(struct table_walk *w, CXCursor entry)
{
	unsigned int i = token_at(&w->k, entry_offset(entry));
	unsigned int end = group_end(&w->k, i);
	const char *msr = NULL;

	if (i < end && !strcmp(w->k.s[i], "{")) {
		for (; i < end && !msr; i++)
			msr = designated(&w->k, i,
					 arch_word(WORD_MSR_MEMBER, 0));
	} else if (i < end) {
		msr = w->k.s[i];
	}
	if (!msr || !ident_start(msr[0]) || arch_word_is(WORD_MSR_END, msr))
		return;
	*PUSH(*w->out->msrs, *w->out->nr_msrs, *w->out->alloc_msrs) =
		xasprintf("%s %s", w->table, msr);
}

static enum CXChildVisitResult visit_entry(CXCursor c, CXCursor p,
					   CXClientData d)
{
	struct table_walk *w = d;

	(void)p;
	if (w->kind == TABLE_FTR_REGS)
		extract_ftr(w, c);
	else if (w->kind == TABLE_MSR_LIST)
		extract_msr(w, c);
	else if (clang_getCursorKind(c) == CXCursor_InitListExpr)
		extract_cap(w, c);
	return CXChildVisit_Continue;
}

void caps_extract(CXTranslationUnit tu, CXCursor var, int kind,
		  const char *table, const struct caps_sink *out)
{
	struct table_walk w = {
		.tu = tu, .kind = kind, .table = table, .out = out,
	};
	CXCursor list;

	if (!find_descendant(var, CXCursor_InitListExpr, &list))
		return;
	tokens_get(&w.k, tu, clang_getCursorExtent(var), true);
	clang_visitChildren(list, visit_entry, &w);
	tokens_free(&w.k);
}

