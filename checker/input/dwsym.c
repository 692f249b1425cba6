// SPDX-License-Identifier: GPL-2.0
/*
 * dwsym.c - guest PCs to function, file and line through elfutils' libdw
 * (include/trapcheck/input/dwsym.h).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapcheck/input/dwsym.h"
#include "trapcheck/base/util.h"

struct dwsym {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	/*
	 * Where libdwfl placed the vmlinux, less where it was linked: a
	 * vmlinux whose first segment is not where its text starts gets a
	 * bias (arm64's: 64 KiB). Addresses given and returned here are
	 * link-time ones; libdwfl's are these plus the bias.
	 */
	Dwarf_Addr bias;
	struct strpool pool;	/* the names handed out */
};

static const Dwfl_Callbacks offline = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int dwsym_open(struct dwsym **out, const char *vmlinux, char *err,
	       size_t errlen)
{
	struct dwsym *s = xcalloc(1, sizeof(*s));
	FILE *f = fopen(vmlinux, "r");
	Dwarf_Addr bias;

	if (!f) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot read: %s", vmlinux,
			 strerror(e));
		free(s);
		return -e;
	}
	fclose(f);
	s->dwfl = dwfl_begin(&offline);
	if (s->dwfl)
		s->mod = dwfl_report_offline(s->dwfl, "vmlinux", vmlinux, -1);
	if (!s->mod || dwfl_report_end(s->dwfl, NULL, NULL)) {
		snprintf(err, errlen, "%s: not an ELF file libdw reads: %s",
			 vmlinux, dwfl_errmsg(-1));
		goto err_end;
	}
	if (!dwfl_module_getelf(s->mod, &s->bias) ||
	    !dwfl_module_getdwarf(s->mod, &bias)) {
		snprintf(err, errlen, "%s: no DWARF (build the guest with "
			 "CONFIG_DEBUG_INFO)", vmlinux);
		goto err_end;
	}
	strpool_init(&s->pool);
	*out = s;
	return 0;

err_end:
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s);
	return -EINVAL;
}

/* The innermost function (or inlined function) at @addr, or NULL. */
static const char *scope_name(Dwfl_Module *mod, Dwarf_Addr addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias), *scopes = NULL;
	const char *name = NULL;
	int n, i;

	if (!cu)
		return NULL;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (i = 0; i < n && !name; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram ||
		    tag == DW_TAG_inlined_subroutine)
			name = dwarf_diename(&scopes[i]);
	}
	free(scopes);
	return name;
}

/*
 * A DWARF file name as the analysis names files: a header a TU reached
 * through ".." ("lib/zstd/decompress/../common/cpu.h") folded, lexically.
 */
static const char *intern_path(struct dwsym *s, const char *name)
{
	char *norm = path_normalize(name);
	const char *p = strpool_intern(&s->pool, norm);

	free(norm);
	return p;
}

bool dwsym_lookup(struct dwsym *s, unsigned long long addr,
		  const char **func, const char **file, int *line)
{
	Dwfl_Module *mod;

	addr += s->bias;
	mod = dwfl_addrmodule(s->dwfl, addr);
	Dwfl_Line *l;
	const char *src, *fn;
	Dwarf_Addr a;

	if (!mod)
		return false;
	l = dwfl_module_getsrc(mod, addr);
	src = l ? dwfl_lineinfo(l, &a, line, NULL, NULL, NULL) : NULL;
	if (!src)
		return false;
	fn = scope_name(mod, addr);
	if (!fn)
		fn = dwfl_module_addrname(mod, addr);
	*func = fn ? strpool_intern(&s->pool, fn) : NULL;
	*file = intern_path(s, src);
	return true;
}


/* DW_AT_call_file of inlined subroutine @die, named by @cu's file table. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t n;

	if (!dwarf_attr(die, DW_AT_call_file, &at) ||
	    dwarf_formudata(&at, &idx) || dwarf_getsrcfiles(cu, &files, &n) ||
	    idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

size_t dwsym_frames(struct dwsym *s, unsigned long long addr,
		    struct dwsym_frame *f, size_t max)
{
	const char *func, *file;
	Dwarf_Die *cu, *scopes = NULL;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf_Attribute at;
	Dwarf_Word line;
	size_t nr = 0;
	int n, i, l;

	if (!max || !dwsym_lookup(s, addr, &func, &file, &l))
		return 0;
	f[nr].func = func;
	f[nr].file = file;
	f[nr++].line = l;
	addr += s->bias;
	mod = dwfl_addrmodule(s->dwfl, addr);
	cu = mod ? dwfl_module_addrdie(mod, addr, &bias) : NULL;
	n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	/*
	 * dwarf_getscopes() continues an inlined instance with its abstract
	 * definition's scopes; the concrete chain, inlined into inlined
	 * into a function, comes from the innermost DIE (as eu-addr2line
	 * -i does).
	 */
	if (n > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	for (i = 0; i < n && nr < max; i++) {
		const char *cf, *outer = NULL;
		int j;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		/* The function this one was inlined into. */
		for (j = i + 1; j < n && !outer; j++)
			if (dwarf_tag(&scopes[j]) == DW_TAG_subprogram ||
			    dwarf_tag(&scopes[j]) == DW_TAG_inlined_subroutine)
				outer = dwarf_diename(&scopes[j]);
		cf = call_file(cu, &scopes[i]);
		if (!outer || !cf || !dwarf_attr(&scopes[i], DW_AT_call_line,
						 &at) ||
		    dwarf_formudata(&at, &line))
			break;
		f[nr].func = strpool_intern(&s->pool, outer);
		f[nr].file = intern_path(s, cf);
		f[nr++].line = (int)line;
	}
	free(scopes);
	return nr;
}

bool dwsym_symbol(struct dwsym *s, const char *name,
		  unsigned long long *addr)
{
	int i, n = dwfl_module_getsymtab(s->mod);

	for (i = 1; i < n; i++) {
		const char *sym;
		GElf_Addr a;
		GElf_Sym st;

		sym = dwfl_module_getsym_info(s->mod, i, &st, &a, NULL, NULL,
					      NULL);
		if (sym && !strcmp(sym, name)) {
			*addr = a - s->bias;
			return true;
		}
	}
	return false;
}

/* Does @insn start at @p (@left bytes there)? */
static bool insn_at(const unsigned char *p, size_t left,
		    const struct dwsym_insn *insn, bool le)
{
	unsigned long w = 0;
	unsigned int i;

	if (left < insn->size)
		return false;
	for (i = 0; i < insn->size; i++)
		w |= (unsigned long)p[le ? i : insn->size - 1 - i] << (8 * i);
	return (w & insn->mask) == insn->value;
}

size_t dwsym_insns(struct dwsym *s, const struct dwsym_insn *insn,
		   unsigned long long **addrs)
{
	unsigned long long *v = NULL;
	size_t nr = 0, alloc = 0;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(s->mod, &bias);

	*addrs = NULL;
	if (!elf || !gelf_getehdr(elf, &eh) || !insn->size || !insn->align)
		return 0;
	if (!eh.e_machine || (eh.e_machine != insn->machine &&
			      eh.e_machine != insn->machine2))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = NULL;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		while ((d = elf_getdata(scn, d))) {
			const unsigned char *p = d->d_buf;
			size_t i;

			for (i = 0; p && i + insn->align <= d->d_size;
			     i += insn->align) {
				if (!insn_at(p + i, d->d_size - i, insn,
					     eh.e_ident[EI_DATA] == ELFDATA2LSB))
					continue;
				*PUSH(v, nr, alloc) = sh.sh_addr +
						      (unsigned long long)d->d_off + i;
			}
		}
	}
	*addrs = v;
	return nr;
}

void dwsym_close(struct dwsym *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	strpool_free(&s->pool);
	free(s);
}
