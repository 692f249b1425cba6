// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for the plugin oracles (tests/oracle/run-qemu-x86.sh,
 * tests/oracle/run-qemu-kvm.sh, docs/measured.md): counts each execution
 * of CPUID, RDMSR, RDRAND, RDSEED and RDPMC (x86_64), or of an MRS that reads an
 * ID group 3 register (aarch64: op0=3, op1=0, CRn=0, CRm=1..7, what
 * HCR_EL2.TID3 traps) or of the cache, revision and tag ID registers
 * (TID2, TID1, TID5), per guest virtual address, and each execution of
 * the instructions at a list of addresses (functions' first ones: the
 * workload's operations; call sites).
 *
 * The instructions are found by their bytes when QEMU translates a block
 * (x86: prefixes, then 0f a2 CPUID, 0f 32 RDMSR, 0f 33 RDPMC, 0f c7 /6
 * RDRAND and /7 RDSEED with a register operand; aarch64: the instruction word), not
 * from trapcheck's tables; each gets an inline counter, so nothing runs
 * per execution but one add. Counters are plain adds: run QEMU with
 * -accel tcg,thread=single.
 *
 * Arguments: out=FILE (required), entries=FILE (hex addresses, one per
 * line). FILE gets one line per address executed at least once:
 * "KIND ADDRESS COUNT", KIND one of cpuid rdmsr rdrand rdseed rdpmc idreg
 * tid2 tid1 tid5 entry.
 *
 * Built against the qemu-plugin.h of the QEMU that loads it (Debian's
 * source package of the installed version; run-qemu-x86.sh fetches it).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum kind {
	K_CPUID, K_RDMSR, K_RDRAND, K_RDSEED, K_RDPMC, K_IDREG, K_TID2, K_TID1,
	K_TID5, K_ENTRY, K_NONE
};

static const char *const kind_names[] = {
	"cpuid", "rdmsr", "rdrand", "rdseed", "rdpmc", "idreg", "tid2", "tid1",
	"tid5", "entry",
};

/*
 * aarch64: the other ID registers a hypervisor can trap (Arm ARM D19.2,
 * HCR_EL2): MRS of op0 3 and these op1, CRn 0, CRm 0, op2.
 */
static const struct {
	unsigned int op1, op2;
	int kind;
} a64_other[] = {
	{ 3, 1, K_TID2 },	/* CTR_EL0 */
	{ 1, 0, K_TID2 },	/* CCSIDR_EL1 */
	{ 1, 1, K_TID2 },	/* CLIDR_EL1 */
	{ 1, 2, K_TID2 },	/* CCSIDR2_EL1 */
	{ 2, 0, K_TID2 },	/* CSSELR_EL1 */
	{ 0, 6, K_TID1 },	/* REVIDR_EL1 */
	{ 1, 7, K_TID1 },	/* AIDR_EL1 */
	{ 1, 4, K_TID5 },	/* GMID_EL1 */
};

struct site {
	uint64_t vaddr;
	uint64_t count;
	int kind;
	struct site *next;	/* hash chain */
};

#define HASH_BITS 16
#define CHUNK 4096

static struct site *table[1 << HASH_BITS];
static struct site *chunk;
static size_t chunk_used = CHUNK;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool aarch64;
static uint64_t *entries;
static size_t nr_entries;
static char *out_path;

static unsigned int hash(uint64_t v)
{
	v ^= v >> 29;
	v *= 0xbf58476d1ce4e5b9ULL;
	return (unsigned int)(v >> (64 - HASH_BITS));
}

/* The counter of (vaddr, kind), made on first sight; NULL if out of memory. */
static struct site *site_get(uint64_t vaddr, int kind)
{
	struct site **head = &table[hash(vaddr)];
	struct site *s;

	for (s = *head; s; s = s->next)
		if (s->vaddr == vaddr && s->kind == kind)
			return s;
	if (chunk_used == CHUNK) {
		/* Never moved: the translated code adds to these counters. */
		chunk = calloc(CHUNK, sizeof(*chunk));
		if (!chunk)
			return NULL;
		chunk_used = 0;
	}
	s = &chunk[chunk_used++];
	s->vaddr = vaddr;
	s->kind = kind;
	s->next = *head;
	*head = s;
	return s;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_entry(uint64_t vaddr)
{
	return nr_entries &&
	       bsearch(&vaddr, entries, nr_entries, sizeof(*entries), cmp_u64);
}

/*
 * An aarch64 MRS of an ID group 3 register (Arm ARM D19.2), or of one of
 * a64_other[].
 */
static int classify_a64(const uint8_t *b, size_t len)
{
	unsigned int op1, crm, op2, i;
	uint32_t w;

	if (len != 4)
		return K_NONE;
	w = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
	if ((w & 0xfff00000) != 0xd5300000)	/* MRS, op0 bit 1 set */
		return K_NONE;
	if (!((w >> 19) & 1) || ((w >> 12) & 15))
		return K_NONE;			/* op0 3, CRn 0 */
	op1 = (w >> 16) & 7;
	crm = (w >> 8) & 15;
	op2 = (w >> 5) & 7;
	if (!op1 && crm >= 1 && crm <= 7)
		return K_IDREG;
	for (i = 0; !crm && i < sizeof(a64_other) / sizeof(a64_other[0]); i++)
		if (a64_other[i].op1 == op1 && a64_other[i].op2 == op2)
			return a64_other[i].kind;
	return K_NONE;
}

/* The kind of the instruction in BYTES (LEN of them). */
static int classify(const uint8_t *b, size_t len)
{
	size_t i = 0;

	if (aarch64)
		return classify_a64(b, len);

	/* Legacy prefixes and REX. */
	while (i < len && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf2 ||
			   b[i] == 0xf3 || (b[i] & 0xf0) == 0x40))
		i++;
	if (i + 2 > len || b[i] != 0x0f)
		return K_NONE;
	if (b[i + 1] == 0xa2)
		return K_CPUID;
	if (b[i + 1] == 0x32)
		return K_RDMSR;
	if (b[i + 1] == 0x33)
		return K_RDPMC;
	if (b[i + 1] == 0xc7 && i + 3 <= len && (b[i + 2] >> 6) == 3) {
		if (((b[i + 2] >> 3) & 7) == 6)
			return K_RDRAND;
		if (((b[i + 2] >> 3) & 7) == 7)
			return K_RDSEED;
	}
	return K_NONE;
}

static void count_insn(struct qemu_plugin_insn *insn, int kind,
		       uint64_t vaddr)
{
	struct site *s;

	pthread_mutex_lock(&lock);
	s = site_get(vaddr, kind);
	pthread_mutex_unlock(&lock);
	if (s)
		qemu_plugin_register_vcpu_insn_exec_inline(
			insn, QEMU_PLUGIN_INLINE_ADD_U64, &s->count, 1);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
		int kind = classify(qemu_plugin_insn_data(insn),
				    qemu_plugin_insn_size(insn));

		if (kind != K_NONE)
			count_insn(insn, kind, vaddr);
		if (is_entry(vaddr))
			count_insn(insn, K_ENTRY, vaddr);
	}
}

static void write_counts(qemu_plugin_id_t id, void *p)
{
	char tmp[4096];
	size_t h;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", out_path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "insn-count: %s: %s\n", tmp, strerror(errno));
		return;
	}
	for (h = 0; h < (1 << HASH_BITS); h++) {
		struct site *s;

		for (s = table[h]; s; s = s->next)
			if (s->count)
				fprintf(f, "%s %" PRIx64 " %" PRIu64 "\n",
					kind_names[s->kind], s->vaddr,
					s->count);
	}
	if (fclose(f) || rename(tmp, out_path))
		fprintf(stderr, "insn-count: %s: %s\n", out_path,
			strerror(errno));
}

static int read_entries(const char *path)
{
	size_t cap = 0;
	uint64_t v;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "insn-count: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (fscanf(f, "%" SCNx64, &v) == 1) {
		if (nr_entries == cap) {
			uint64_t *n;

			cap = cap ? 2 * cap : 256;
			n = realloc(entries, cap * sizeof(*entries));
			if (!n)
				goto fail_close;
			entries = n;
		}
		entries[nr_entries++] = v;
	}
	if (!feof(f)) {
		fprintf(stderr, "insn-count: %s: not a list of addresses\n",
			path);
		goto fail_close;
	}
	fclose(f);
	qsort(entries, nr_entries, sizeof(*entries), cmp_u64);
	return 0;

fail_close:
	fclose(f);
	return -EINVAL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	int i;

	aarch64 = !strcmp(info->target_name, "aarch64");
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "entries=", 8)) {
			if (read_entries(argv[i] + 8))
				return -1;
		} else {
			fprintf(stderr, "insn-count: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insn-count: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
