// SPDX-License-Identifier: GPL-2.0
/*
 * fix-percpu.c - arm64's rewrites of a trapping ID-register read into a
 * read of this CPU's copy (percpu.def): in KVM's hyp code, a copy made
 * once per CPU at KVM's per-CPU init in the per-CPU host data; in other
 * code that needs this CPU's answer, the copy cpuinfo keeps from the
 * CPU's bring-up.
 *
 * Hyp code.
 * Why it changes nothing but the trap: an ID register's value is fixed
 * per CPU; the init runs on every CPU, preemption disabled, before that
 * CPU's hyp code runs (and again when the CPU comes back); hyp code runs
 * on one CPU with preemption disabled and host_data_ptr() gives it that
 * CPU's copy, in VHE (the kernel's per-CPU data) and nVHE (the hyp's own,
 * written by the host before it gives that memory up, as the init
 * function already writes host_ctxt there). The fixes of every such read
 * share the field and the init: they are one group, one patch.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "arm64.h"
#include "trapcheck/base/util.h"
#include "trapcheck/finding/edit.h"
#include "trapcheck/graph/graph.h"

struct host_data_def {
	const char *header, *opening, *accessor, *init_file, *init_fn;
};

static const struct host_data_def host_data[] = {
#define HOST_DATA(h, o, a, f, fn) { h, o, a, f, fn },
#define CPUINFO(file, store, reader, percpu, header)
#define STORED_BY(entry, store)
#define LOCAL_ASK(atom, source)
#include "percpu.def"
#undef LOCAL_ASK
#undef STORED_BY
#undef CPUINFO
#undef HOST_DATA
};

struct cpuinfo_def {
	const char *file, *store, *reader, *percpu, *header;
};

static const struct cpuinfo_def cpuinfo[] = {
#define HOST_DATA(h, o, a, f, fn)
#define CPUINFO(file, store, reader, percpu, header) \
	{ file, store, reader, percpu, header },
#define STORED_BY(entry, store)
#define LOCAL_ASK(atom, source)
#include "percpu.def"
#undef LOCAL_ASK
#undef STORED_BY
#undef CPUINFO
#undef HOST_DATA
};

struct stored_by_def {
	const char *entry, *store;
};

static const struct stored_by_def stored_by[] = {
#define HOST_DATA(h, o, a, f, fn)
#define CPUINFO(file, store, reader, percpu, header)
#define STORED_BY(entry, store) { entry, store },
#define LOCAL_ASK(atom, source)
#include "percpu.def"
#undef LOCAL_ASK
#undef STORED_BY
#undef CPUINFO
#undef HOST_DATA
};

#define HOST_DATA_GROUP	"arm64-host-data"
#define HOST_DATA_FIELD	"id_regs"
#define CPUINFO_GROUP	"arm64-cpuinfo"

/* "ID_AA64DFR0_EL1" -> "id_aa64dfr0_el1" (new). */
static char *member_of(const char *reg)
{
	char *m = xstrdup(reg), *p;

	for (p = m; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return m;
}

/* Leading blanks as tabs, as checkpatch wants them (new). */
static char *tab_indent(const char *line)
{
	size_t col = 0, i;
	char *s;

	for (i = 0; line[i] == ' ' || line[i] == '\t'; i++)
		col = line[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
	s = xmalloc(col / 8 + 2);
	memset(s, '\t', (col + 7) / 8);
	s[(col + 7) / 8] = '\0';
	return s;
}

bool arm64_fix_host_data(const struct fix_ctx *ctx, struct fix_edit *e,
			 char **why)
{
	const struct finding *f = ctx->finding;
	const char *line, *at, *open, *close, *live;
	char *member, *ind;

	if (!f->read.reg) {
		*why = xasprintf("%s; %s() reads a register chosen at run "
				 "time", ctx->no_rewrite, finding_sink(f));
		return false;
	}
	live = arch_live_reg(f->read.reg);
	if (live) {
		*why = xasprintf("%s is %s: a copy made at init is not its "
				 "value later", f->read.reg, live);
		return false;
	}
	at = fix_sink_call(ctx, &line);
	open = at ? strchr(at, '(') : NULL;
	close = open ? strchr(open, ')') : NULL;
	if (!close || memchr(open + 1, '(', (size_t)(close - open - 1))) {
		*why = xasprintf("%s; the read is not written as %s(...) on "
				 "one line", ctx->no_rewrite, finding_sink(f));
		return false;
	}
	member = member_of(f->read.reg);
	ind = tab_indent(line);
	e->first = e->last = f->site->line;
	fix_edit_add_line(e, "%s%.*s*host_data_ptr(%s.%s)%s", ind,
			  (int)(at - line - strspn(line, " \t")),
			  line + strspn(line, " \t"), HOST_DATA_FIELD, member,
			  close + 1);
	e->group = xstrdup(HOST_DATA_GROUP);
	e->group_arg = xasprintf("%s\t%.*s\t%s", f->read.reg,
				 (int)(close + 1 - at), at, f->fn->name);
	free(ind);
	free(member);
	return true;
}

/* One register of the group: its name, how it is read, who reads it. */
struct member {
	char *reg, *read, *fns;
};

static int member_order(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->reg,
		      ((const struct member *)b)->reg);
}

/* The group's registers, each once, by name (new, *@nr). */
static struct member *members_of(const char *const *args, size_t nr_args,
				 size_t *nr)
{
	struct member *v = xcalloc(nr_args + 1, sizeof(*v));
	size_t i, j, n = 0;

	for (i = 0; i < nr_args; i++) {
		char *a = xstrdup(args[i]), *t1 = strchr(a, '\t'), *t2;

		t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2) {
			free(a);
			continue;
		}
		*t1 = *t2 = '\0';
		for (j = 0; j < n && strcmp(v[j].reg, a); j++)
			;
		if (j == n) {
			v[n].reg = xstrdup(a);
			v[n].read = xstrdup(t1 + 1);
			v[n++].fns = xasprintf("%s()", t2 + 1);
		} else if (!strstr(v[j].fns, t2 + 1)) {
			char *s = xasprintf("%s, %s()", v[j].fns, t2 + 1);

			free(v[j].fns);
			v[j].fns = s;
		}
		free(a);
	}
	sort_n(v, n, sizeof(*v), member_order);
	*nr = n;
	return v;
}

static void members_free(struct member *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].reg);
		free(v[i].read);
		free(v[i].fns);
	}
	free(v);
}

/* The line of @s that is @text once its trailing blanks go, or 0. */
static size_t find_line(const struct src_file *s, size_t from,
			const char *text)
{
	size_t i, n = strlen(text);

	for (i = from; i < s->nr_lines; i++) {
		const char *l = s->lines[i];

		if (!strncmp(l, text, n) && !l[n + strspn(l + n, " \t")])
			return i + 1;
	}
	return 0;
}

static bool defines(const struct src_file *s, const char *macro)
{
	char *want = xasprintf("#define %s(", macro);
	size_t i;
	bool found = false;

	for (i = 0; i < s->nr_lines && !found; i++)
		found = strstr(s->lines[i], want) != NULL;
	free(want);
	return found;
}

/* The field: "struct { u64 <reg>; ... } id_regs;" before the closing. */
static bool header_edit(const struct host_data_def *d,
			const struct src_file *s, const struct member *v,
			size_t n, struct fix_edit *e, char **why)
{
	size_t open = find_line(s, 0, d->opening), close, i;
	char *probe = xasprintf("} %s;", HOST_DATA_FIELD);

	close = open ? find_line(s, open, "};") : 0;
	if (!close) {
		*why = xasprintf("%s: no \"%s\" ... \"};\" to add the copies "
				 "to", d->header, d->opening);
		free(probe);
		return false;
	}
	for (i = open; i < close; i++) {
		if (strstr(s->lines[i], probe)) {
			*why = xasprintf("%s: its structure has a field %s "
					 "already", d->header,
					 HOST_DATA_FIELD);
			free(probe);
			return false;
		}
	}
	free(probe);
	e->path = xstrdup(d->header);
	e->first = e->last = close;
	fix_edit_add_line(e, "%s", "");
	fix_edit_add_line(e, "\t/*");
	fix_edit_add_line(e, "\t * This CPU's ID registers that hyp code "
			  "reads, copied at init: a");
	fix_edit_add_line(e, "\t * read of the register itself traps under "
			  "nested virtualisation.");
	fix_edit_add_line(e, "\t */");
	fix_edit_add_line(e, "\tstruct {");
	for (i = 0; i < n; i++) {
		char *m = member_of(v[i].reg);

		fix_edit_add_line(e, "\t\tu64\t%s;", m);
		free(m);
	}
	fix_edit_add_line(e, "\t} %s;", HOST_DATA_FIELD);
	fix_edit_add_line(e, "};");
	return true;
}

/* The copies, first in the init function's body. */
static bool init_edit(const struct host_data_def *d,
		      const struct src_file *s, const struct member *v,
		      size_t n, struct fix_edit *e, char **why)
{
	char *head = xasprintf("static void %s(void)", d->init_fn);
	size_t at = find_line(s, 0, head), i;

	free(head);
	if (!at || at >= s->nr_lines || strcmp(s->lines[at], "{")) {
		*why = xasprintf("%s: no definition \"static void %s(void)\" "
				 "followed by \"{\" to make the copies in",
				 d->init_file, d->init_fn);
		return false;
	}
	e->path = xstrdup(d->init_file);
	e->first = e->last = at + 1;
	fix_edit_add_line(e, "{");
	for (i = 0; i < n; i++) {
		char *m = member_of(v[i].reg);
		char *lhs = xasprintf("\t*%s(%s.%s) =", d->accessor,
				      HOST_DATA_FIELD, m);

		/* 80 columns: the tab counts 8. */
		if (8 + strlen(lhs + 1) + 1 + strlen(v[i].read) + 1 <= 80)
			fix_edit_add_line(e, "%s %s;", lhs, v[i].read);
		else {
			fix_edit_add_line(e, "%s", lhs);
			fix_edit_add_line(e, "\t\t%s;", v[i].read);
		}
		free(lhs);
		free(m);
	}
	fix_edit_add_line(e, "%s", "");
	return true;
}

static char *group_body(const struct host_data_def *d,
			const struct member *v, size_t n)
{
	char *regs = xstrdup(""), *s, *t;
	size_t i;

	for (i = 0; i < n; i++) {
		t = xasprintf("%s%s%s (%s)", regs, i ? (i + 1 < n ? ", " :
							" and ") : "",
			      v[i].reg, v[i].fns);
		free(regs);
		regs = t;
	}
	s = xasprintf("KVM's hyp code reads %s from hardware on every use. "
		      "Under nested virtualisation the outer hypervisor "
		      "traps guest reads of the ID registers "
		      "(HCR_EL2.TID3): each read is an exit to it.\n\n"
		      "The values are this CPU's and never change. Read "
		      "each once per CPU in %s(), which runs on every CPU "
		      "with preemption disabled before its hyp code does "
		      "(and again when a CPU comes back), into a new field "
		      "%s of the per-CPU struct kvm_host_data, and read it "
		      "there with %s(), which gives the VHE and the nVHE "
		      "hyp code alike this CPU's copy: %s() already "
		      "initialises host_ctxt through %s() the same way. "
		      "The sanitised copy (read_sanitised_ftr_reg()) is no "
		      "substitute: hyp code cannot call it, and it holds "
		      "the system-wide value, not this CPU's.\n\n"
		      "This follows commit 38131c02a53f (\"KVM: arm64: "
		      "Track presence of SPE/TRBE in kvm_host_data instead "
		      "of vCPU\"), which reads ID_AA64DFR0_EL1 once per CPU "
		      "into kvm_host_data in the same function.",
		      regs, d->init_fn, HOST_DATA_FIELD, d->accessor,
		      d->init_fn, d->accessor);
	free(regs);
	return s;
}

static bool host_data_group(const char *tree, const char *const *args,
			    size_t nr, struct fix_edit **extra,
			    size_t *nr_extra, char **subject, char **body,
			    char **why)
{
	const struct host_data_def *d = &host_data[0];
	struct src_file h = { 0 }, init = { 0 };
	struct fix_edit *e;
	struct member *v;
	size_t n;
	bool ok = false;

	v = members_of(args, nr, &n);
	if (!n) {
		*why = xstrdup("no register to copy");
		goto out_members;
	}
	if (src_load(&h, tree, d->header)) {
		*why = xasprintf("%s: cannot read", d->header);
		goto out_members;
	}
	if (!defines(&h, d->accessor)) {
		*why = xasprintf("this tree's %s defines no %s(): no per-CPU "
				 "host data that hyp code reads in both modes",
				 d->header, d->accessor);
		goto out_header;
	}
	if (src_load(&init, tree, d->init_file)) {
		*why = xasprintf("%s: cannot read", d->init_file);
		goto out_header;
	}
	e = xcalloc(2, sizeof(*e));
	if (!header_edit(d, &h, v, n, &e[0], why) ||
	    !init_edit(d, &init, v, n, &e[1], why)) {
		fix_edit_free(&e[0]);
		fix_edit_free(&e[1]);
		free(e);
		goto out_init;
	}
	*extra = e;
	*nr_extra = 2;
	*subject = n == 1 ?
		   xasprintf("KVM: arm64: Read %s once per CPU for hyp code",
			     v[0].reg) :
		   xstrdup("KVM: arm64: Read ID registers once per CPU for "
			   "hyp code");
	*body = group_body(d, v, n);
	ok = true;
out_init:
	src_free(&init);
out_header:
	src_free(&h);
out_members:
	members_free(v, n);
	return ok;
}

/* The line of @entry's first call of @store, or 0. */
static unsigned int store_line(const struct graph *g, int entry,
			       const char *store)
{
	const struct gnode *n = &g->nodes[entry];
	unsigned int line = 0;
	size_t i;

	for (i = 0; i < n->nr_out; i++) {
		const struct gedge *e = &g->edges[n->out[i]];

		if (!strcmp(g->nodes[e->callee].name, store) &&
		    (!line || e->line < line))
			line = e->line;
	}
	return line;
}

/*
 * Does a CPU run @fn before its copy is stored: does a STORED_BY entry
 * reach it through a call written before its call of the store? Direct
 * calls only: a call inferred through a struct member or a registration
 * reaches, from early code, every callback ever registered (a
 * WARN_ON() in setup_arch() schedules, and the scheduler's preempt
 * notifiers reach KVM's vcpu load), which runs only once registered.
 * The entry's name in *@entry.
 */
static bool before_store(const struct graph *g, const struct gnode *fn,
			 const char **entry)
{
	size_t nr = g->nr_nodes, head = 0, tail = 0, i, k;
	int *queue = xcalloc(nr + 1, sizeof(*queue));
	bool *seen = xcalloc(nr + 1, sizeof(*seen));
	bool found = false;

	queue[tail++] = (int)(fn - g->nodes);
	seen[fn - g->nodes] = true;
	while (head < tail && !found) {
		const struct gnode *n = &g->nodes[queue[head++]];

		for (i = 0; i < n->nr_in && !found; i++) {
			const struct gedge *e = &g->edges[n->in[i]];
			const char *name = g->nodes[e->caller].name;

			if (e->inferred)
				continue;
			for (k = 0; k < ARRAY_SIZE(stored_by) && !found; k++) {
				unsigned int at;

				if (strcmp(name, stored_by[k].entry))
					continue;
				at = store_line(g, e->caller,
						stored_by[k].store);
				found = !at || e->line < at;
				*entry = stored_by[k].entry;
			}
			if (!seen[e->caller]) {
				seen[e->caller] = true;
				queue[tail++] = e->caller;
			}
		}
	}
	free(queue);
	free(seen);
	return found;
}

/*
 * Other code: this CPU's copy that the kernel keeps from the CPU's
 * bring-up (percpu.def CPUINFO: cpuinfo.c's "info->reg_x =
 * read_cpuid(REG);"), read with this_cpu_read(). The same value as the
 * register gives on the CPU the code runs on, which is what code asks
 * that needs this CPU's answer (@refused: why the sanitised copy is not).
 */
bool arm64_fix_cpuinfo(const struct fix_ctx *ctx, const char *refused,
		       struct fix_edit *e, char **why)
{
	const struct cpuinfo_def *d = &cpuinfo[0];
	const struct finding *f = ctx->finding;
	const char *line, *at, *open, *close, *p, *q;
	char *needle, *field = NULL, *area;
	const char *entry = NULL;
	struct src_file s;
	size_t i;

	if (before_store(ctx->graph, f->fn, &entry)) {
		*why = xasprintf("%s; keep this CPU's value: %s() may run in "
				 "%s() before this CPU's copy is stored, "
				 "where %s would read 0", refused, f->fn->name,
				 entry, d->percpu);
		return false;
	}
	if (!f->read.reg || src_load(&s, ctx->tree, d->file)) {
		*why = xasprintf("%s; keep this CPU's value, cached at CPU "
				 "bring-up (%s, where the kernel keeps its "
				 "per-CPU copies, cannot be read)", refused,
				 d->file);
		return false;
	}
	needle = xasprintf("%s(%s);", d->reader, f->read.reg);
	for (i = 0; i < s.nr_lines && !field; i++) {
		p = strstr(s.lines[i], d->store);
		q = strstr(s.lines[i], needle);
		if (!p || !q || q < p)
			continue;
		p += strlen(d->store);
		field = xstrndup(p, strspn(p, "abcdefghijklmnopqrstuvwxyz"
					      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					      "0123456789_"));
	}
	free(needle);
	src_free(&s);
	if (!field || !*field) {
		*why = xasprintf("%s; keep this CPU's value, cached at CPU "
				 "bring-up (%s keeps no per-CPU copy of %s)",
				 refused, d->file, f->read.reg);
		free(field);
		return false;
	}
	at = fix_sink_call(ctx, &line);
	open = at ? strchr(at, '(') : NULL;
	close = open ? strchr(open, ')') : NULL;
	if (!close || memchr(open + 1, '(', (size_t)(close - open - 1))) {
		*why = xasprintf("%s; the read is not written as %s(...) on "
				 "one line", refused, finding_sink(f));
		free(field);
		return false;
	}
	e->first = e->last = f->site->line;
	fix_edit_add_line(e, "%.*sthis_cpu_read(%s.%s)%s", (int)(at - line),
			  line, d->percpu, field, close + 1);
	area = fix_area(f->site->file);
	e->subject = xasprintf("%s: %s this CPU's copy of %s in %s()", area,
			       !strncmp(area, "KVM", 3) ? "Use" : "use",
			       f->read.reg, f->fn->name);
	e->body = xasprintf("%s() reads %s from hardware with %s(). Under "
			    "virtualization the hypervisor traps reads of the "
			    "ID registers (%s): each read is an exit to it.\n\n"
			    "The sanitised copy is no substitute here: %s. "
			    "But the kernel already keeps this CPU's own "
			    "value: %s reads it at the CPU's bring-up into the "
			    "per-CPU %s (%s). Read that: this_cpu_read() gives "
			    "the copy of the CPU the code runs on, the value "
			    "the register read gave.", f->fn->name,
			    f->read.reg, finding_sink(f), f->read.trap,
			    refused, d->file, d->percpu, field);
	e->group = xasprintf("%s:%s", CPUINFO_GROUP, f->site->file);
	e->group_arg = xasprintf("%s\t%s\t%s\t%s", f->site->file,
				 f->read.reg, f->fn->name, refused);
	free(area);
	free(field);
	return true;
}

/*
 * Several reads of one file in one patch: its subject and body say each
 * function's reason (@args: "file\treg\tfn\trefused").
 */
static void cpuinfo_message(const char *const *args, size_t nr,
			    char **subject, char **body)
{
	char *file = xstrndup(args[0], strcspn(args[0], "\t"));
	char *area = fix_area(file), *buf = NULL, *reg = NULL;
	const char *base = strrchr(file, '/');
	size_t len = 0, i;
	bool one_reg = true;
	FILE *out = open_memstream(&buf, &len);

	for (i = 0; i < nr; i++) {
		const char *r = strchr(args[i], '\t') + 1;
		const char *fn = strchr(r, '\t') + 1;
		const char *why = strchr(fn, '\t') + 1;	/* names fn */
		size_t n = strcspn(r, "\t");

		if (!reg)
			reg = xstrndup(r, n);
		else if (strlen(reg) != n || strncmp(reg, r, n))
			one_reg = false;
		fprintf(out, "%s- %s\n", i ? "" : "These functions read ID "
			"registers from hardware, each to learn this CPU's "
			"answer; the sanitised copy (read_sanitised_ftr_reg()) "
			"would not give it:\n\n", why);
	}
	fprintf(out, "\nUnder virtualization the hypervisor traps reads of "
		"the ID registers: each read is an exit to it. The kernel "
		"already keeps each CPU's own values, read at the CPU's "
		"bring-up into the per-CPU cpu_data (cpuinfo.c). Read those: "
		"this_cpu_read() gives the copy of the CPU the code runs on, "
		"the value the register read gave.");
	fclose(out);
	*subject = one_reg ?
		   xasprintf("%s: %s this CPU's copy of %s in %s", area,
			     !strncmp(area, "KVM", 3) ? "Use" : "use", reg,
			     base ? base + 1 : file) :
		   xasprintf("%s: %s this CPU's copies of ID registers in %s",
			     area, !strncmp(area, "KVM", 3) ? "Use" : "use",
			     base ? base + 1 : file);
	*body = buf;
	free(reg);
	free(area);
	free(file);
}

/* The header that declares the copies, where the file lacks it. */
static bool cpuinfo_group(const char *tree, const char *file,
			  struct fix_edit **extra, size_t *nr_extra,
			  char **why)
{
	const struct cpuinfo_def *d = &cpuinfo[0];
	char *want = xasprintf("#include <%s>", d->header);
	size_t i, last_asm = 0, last = 0;
	struct src_file s;
	bool have = false;

	if (src_load(&s, tree, file)) {
		*why = xasprintf("%s: cannot read", file);
		free(want);
		return false;
	}
	for (i = 0; i < s.nr_lines && !have; i++) {
		const char *l = s.lines[i];

		have = !strncmp(l, want, strlen(want));
		if (!strncmp(l, "#include <asm/", 14))
			last_asm = i + 1;
		if (!strncmp(l, "#include ", 9))
			last = i + 1;
	}
	if (!have) {
		struct fix_edit *e = xcalloc(1, sizeof(*e));
		size_t at = last_asm ? last_asm : last;

		if (!at) {
			*why = xasprintf("%s: no #include to add %s after",
					 file, want);
			free(e);
			src_free(&s);
			free(want);
			return false;
		}
		e->path = xstrdup(file);
		e->first = e->last = at;
		fix_edit_add_line(e, "%s", s.lines[at - 1]);
		fix_edit_add_line(e, "%s", want);
		*extra = e;
		*nr_extra = 1;
	}
	src_free(&s);
	free(want);
	return true;
}

bool arm64_fix_group(const char *tree, const char *group,
		     const char *const *args, size_t nr,
		     struct fix_edit **extra, size_t *nr_extra,
		     char **subject, char **body, char **why)
{
	*extra = NULL;
	*nr_extra = 0;
	*subject = *body = NULL;
	if (!strcmp(group, HOST_DATA_GROUP))
		return host_data_group(tree, args, nr, extra, nr_extra,
				       subject, body, why);
	if (!strncmp(group, CPUINFO_GROUP ":", strlen(CPUINFO_GROUP ":")) &&
	    nr) {
		char *file = xstrndup(args[0], strcspn(args[0], "\t"));
		bool ok = cpuinfo_group(tree, file, extra, nr_extra, why);

		if (ok && nr > 1)
			cpuinfo_message(args, nr, subject, body);
		free(file);
		return ok;
	}
	*why = xasprintf("no edits for the group %s", group);
	return false;
}
