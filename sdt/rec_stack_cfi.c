/*
 * rec_stack_cfi.c - see rec_stack_cfi.h.
 *
 * The FDE covering pc is found as libunwind finds it: the loaded module
 * whose PT_LOAD segment holds pc, its PT_GNU_EH_FRAME (.eh_frame_hdr)
 * sorted table, a binary search.  The CIE's initial instructions and the
 * FDE's instructions up to pc are then run for the three registers the
 * walker follows (CFA, rbp, return address); every other register's rule is
 * skipped.  Any encoding or opcode not understood makes the frame "other":
 * never a guess.  The input is the program's own mapped unwind tables,
 * which the loader and libunwind trust as well.
 */
#include "config.h"

#include "rec_stack_cfi.h"

#if defined(__x86_64__)

#include <link.h>
#include <stddef.h>
#include <string.h>

enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };

/* A register's rule, as far as the walker cares. */
enum rule { SAME, UNDEF, AT_CFA, OTHER };

struct regs {
	int cfa_reg;          /* REG_RSP, REG_RBP, or -1: another register or an expression */
	int64_t cfa_offset;
	enum rule rbp, rsp, ra;
	int64_t rbp_at, ra_at;
};

struct reader {
	const uint8_t *p;
	int bad;
};

static uint64_t uleb(struct reader *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
}

static int64_t sleb(struct reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

#define LOAD(type, p) ({ type v_; memcpy(&v_, (p), sizeof v_); v_; })

/* A pointer in DWARF exception-header encoding `enc`; datarel is the
 * .eh_frame_hdr's address.  Sets r->bad on an encoding not handled. */
static uintptr_t encoded(struct reader *r, uint8_t enc, uintptr_t datarel)
{
	const uint8_t *at = r->p;
	uint64_t v;
	if (enc == 0xff) /* DW_EH_PE_omit */
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = LOAD(uint64_t, r->p); r->p += 8; break;
	case 0x01: v = uleb(r); break;
	case 0x02: v = LOAD(uint16_t, r->p); r->p += 2; break;
	case 0x03: v = LOAD(uint32_t, r->p); r->p += 4; break;
	case 0x04: v = LOAD(uint64_t, r->p); r->p += 8; break;
	case 0x09: v = (uint64_t)sleb(r); break;
	case 0x0a: v = (uint64_t)(int64_t)LOAD(int16_t, r->p); r->p += 2; break;
	case 0x0b: v = (uint64_t)(int64_t)LOAD(int32_t, r->p); r->p += 4; break;
	case 0x0c: v = LOAD(uint64_t, r->p); r->p += 8; break;
	default: r->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += (uintptr_t)at; break;
	case 0x30: v += datarel; break;
	default: r->bad = 1; return 0;
	}
	if (enc & 0x80) /* DW_EH_PE_indirect */
		v = *(const uint64_t *)(uintptr_t)v;
	return (uintptr_t)v;
}

/* ---- finding the FDE ---- */

struct search {
	uintptr_t pc;
	const uint8_t *hdr;   /* the module's .eh_frame_hdr, NULL when none */
};

static int find_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct search *s = arg;
	const ElfW(Phdr) *eh = NULL;
	int holds = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && s->pc >= a && s->pc < a + ph->p_memsz)
			holds = 1;
		else if (ph->p_type == PT_GNU_EH_FRAME)
			eh = ph;
	}
	if (!holds)
		return 0;
	s->hdr = eh ? (const uint8_t *)(info->dlpi_addr + eh->p_vaddr) : NULL;
	return 1;
}

/* The FDE covering pc, from the sorted table of .eh_frame_hdr (version 1,
 * entries as 32-bit offsets from the header: what every linker writes). */
static const uint8_t *find_fde(uintptr_t pc)
{
	struct search s = { .pc = pc };
	if (!dl_iterate_phdr(find_module, &s) || !s.hdr || s.hdr[0] != 1 || s.hdr[3] != 0x3b)
		return NULL;
	uintptr_t base = (uintptr_t)s.hdr;
	struct reader r = { .p = s.hdr + 4 };
	encoded(&r, s.hdr[1], base); /* .eh_frame's address: not needed */
	uintptr_t count = encoded(&r, s.hdr[2], base);
	if (r.bad || !count)
		return NULL;
	const int32_t *table = (const int32_t *)(const void *)r.p;
	size_t lo = 0, hi = count;
	while (hi - lo > 1) { /* the last entry starting at or below pc */
		size_t mid = lo + (hi - lo) / 2;
		if (base + (intptr_t)table[2 * mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (base + (intptr_t)table[2 * lo] > pc)
		return NULL;
	return (const uint8_t *)(base + (intptr_t)table[2 * lo + 1]);
}

/* ---- the CIE and the FDE ---- */

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	int has_aug_length;
	const uint8_t *insns, *end;
};

/* An entry's extent: its contents start at *body; 0 when malformed. */
static const uint8_t *entry_end(const uint8_t *e, const uint8_t **body)
{
	uint32_t len = LOAD(uint32_t, e);
	if (len == 0 || len == 0xffffffffu) /* a terminator, or 64-bit DWARF: not ours */
		return NULL;
	*body = e + 4;
	return e + 4 + len;
}

static int parse_cie(const uint8_t *e, struct cie *c)
{
	const uint8_t *body;
	if (!(c->end = entry_end(e, &body)) || LOAD(uint32_t, body) != 0)
		return -1;
	struct reader r = { .p = body + 4 };
	uint8_t version = *r.p++;
	if (version != 1 && version != 3)
		return -1;
	const char *aug = (const char *)r.p;
	r.p += strlen(aug) + 1;
	c->code_align = uleb(&r);
	c->data_align = sleb(&r);
	if ((version == 1 ? *r.p++ : uleb(&r)) != REG_RA)
		return -1;
	c->fde_enc = 0;
	c->has_aug_length = aug[0] == 'z';
	if (aug[0] && aug[0] != 'z')
		return -1;
	const uint8_t *after = NULL;
	if (c->has_aug_length) {
		uint64_t n = uleb(&r);
		after = r.p + n;
	}
	for (const char *a = aug + (aug[0] == 'z'); *a; a++) {
		switch (*a) {
		case 'L': r.p++; break;
		case 'P': { uint8_t enc = *r.p++; encoded(&r, enc & 0x7f, 0); break; }
		case 'R': c->fde_enc = *r.p++; break;
		default: return -1; /* 'S' (a signal frame) included */
		}
	}
	if (r.bad)
		return -1;
	c->insns = after ? after : r.p;
	return c->insns <= c->end ? 0 : -1;
}

/* ---- the CFI program ---- */

#define STATES_MAX 8

struct machine {
	struct regs now, initial, saved[STATES_MAX];
	int depth;
	uintptr_t loc;
	const struct cie *cie;
};

static void set_rule(struct regs *s, uint64_t reg, enum rule rule, int64_t at)
{
	if (reg == REG_RBP) {
		s->rbp = rule;
		s->rbp_at = at;
	} else if (reg == REG_RSP) {
		s->rsp = rule;
	} else if (reg == REG_RA) {
		s->ra = rule;
		s->ra_at = at;
	}
}

static void restore_rule(struct machine *m, uint64_t reg)
{
	const struct regs *i = &m->initial;
	if (reg == REG_RBP)
		set_rule(&m->now, reg, i->rbp, i->rbp_at);
	else if (reg == REG_RSP)
		m->now.rsp = i->rsp;
	else if (reg == REG_RA)
		set_rule(&m->now, reg, i->ra, i->ra_at);
}

/* Runs instructions p..end while the location stays at or below pc.  0, or
 * -1 on anything not understood. */
static int run(struct machine *m, const uint8_t *p, const uint8_t *end, uintptr_t pc)
{
	struct reader r = { .p = p };
	const struct cie *c = m->cie;
	while (r.p < end && m->loc <= pc && !r.bad) {
		uint8_t op = *r.p++;
		uint64_t reg, n;
		switch (op >> 6) {
		case 1: m->loc += (op & 0x3f) * c->code_align; continue;
		case 2: set_rule(&m->now, op & 0x3f, AT_CFA, (int64_t)uleb(&r) * c->data_align); continue;
		case 3: restore_rule(m, op & 0x3f); continue;
		}
		switch (op) {
		case 0x00: break;
		case 0x01: m->loc = encoded(&r, c->fde_enc, 0); break;
		case 0x02: m->loc += *r.p++ * c->code_align; break;
		case 0x03: m->loc += LOAD(uint16_t, r.p) * c->code_align; r.p += 2; break;
		case 0x04: m->loc += LOAD(uint32_t, r.p) * c->code_align; r.p += 4; break;
		case 0x05: reg = uleb(&r); set_rule(&m->now, reg, AT_CFA, (int64_t)uleb(&r) * c->data_align); break;
		case 0x06: restore_rule(m, uleb(&r)); break;
		case 0x07: set_rule(&m->now, uleb(&r), UNDEF, 0); break;
		case 0x08: set_rule(&m->now, uleb(&r), SAME, 0); break;
		case 0x09: reg = uleb(&r); uleb(&r); set_rule(&m->now, reg, OTHER, 0); break;
		case 0x0a:
			if (m->depth == STATES_MAX)
				return -1;
			m->saved[m->depth++] = m->now;
			break;
		case 0x0b: /* the CFA rule is restored too, as libgcc and libunwind do */
			if (!m->depth)
				return -1;
			m->now = m->saved[--m->depth];
			break;
		case 0x0c: m->now.cfa_reg = (int)uleb(&r); m->now.cfa_offset = (int64_t)uleb(&r); break;
		case 0x0d: m->now.cfa_reg = (int)uleb(&r); break;
		case 0x0e: m->now.cfa_offset = (int64_t)uleb(&r); break;
		case 0x0f: n = uleb(&r); r.p += n; m->now.cfa_reg = -1; break;
		case 0x10: reg = uleb(&r); n = uleb(&r); r.p += n; set_rule(&m->now, reg, OTHER, 0); break;
		case 0x11: reg = uleb(&r); set_rule(&m->now, reg, AT_CFA, sleb(&r) * c->data_align); break;
		case 0x12: m->now.cfa_reg = (int)uleb(&r); m->now.cfa_offset = sleb(&r) * c->data_align; break;
		case 0x13: m->now.cfa_offset = sleb(&r) * c->data_align; break;
		case 0x14: reg = uleb(&r); uleb(&r); set_rule(&m->now, reg, OTHER, 0); break;
		case 0x15: reg = uleb(&r); sleb(&r); set_rule(&m->now, reg, OTHER, 0); break;
		case 0x16: reg = uleb(&r); n = uleb(&r); r.p += n; set_rule(&m->now, reg, OTHER, 0); break;
		case 0x2e: uleb(&r); break; /* DW_CFA_GNU_args_size */
		case 0x2f: reg = uleb(&r); set_rule(&m->now, reg, AT_CFA, -(int64_t)uleb(&r) * c->data_align); break;
		default: return -1;
		}
	}
	return r.bad ? -1 : 0;
}

/* libunwind's conditions for a standard frame (tdep_stash_frame), so that
 * what is walked here is what unw_backtrace would walk. */
static void describe(const struct regs *s, struct mt_frame_rule *rule)
{
	rule->kind = MT_FRAME_OTHER;
	if (s->ra == UNDEF || s->rbp == UNDEF) {
		rule->kind = MT_FRAME_LAST;
		return;
	}
	int64_t lim_cfa = (int64_t)1 << 28, lim_reg = (int64_t)1 << 14;
	if ((s->cfa_reg != REG_RSP && s->cfa_reg != REG_RBP) ||
	    s->cfa_offset <= -lim_cfa || s->cfa_offset >= lim_cfa ||
	    s->ra != AT_CFA || s->ra_at != -8 ||
	    (s->rbp == AT_CFA && (s->rbp_at <= -lim_reg || s->rbp_at >= lim_reg || s->rbp_at == -1)) ||
	    s->rbp == OTHER || s->rsp == OTHER || s->rsp == AT_CFA)
		return;
	rule->kind = MT_FRAME_STANDARD;
	rule->cfa_from_rbp = s->cfa_reg == REG_RBP;
	rule->cfa_offset = (int32_t)s->cfa_offset;
	rule->rbp_saved = s->rbp == AT_CFA;
	rule->rbp_offset = (int32_t)s->rbp_at;
}

void mt_cfi_rule(uintptr_t pc, struct mt_frame_rule *rule)
{
	rule->kind = MT_FRAME_OTHER;
	const uint8_t *fde = find_fde(pc), *body, *end;
	if (!fde || !(end = entry_end(fde, &body)))
		return;
	uint32_t cie_off = LOAD(uint32_t, body);
	struct cie c;
	if (!cie_off || parse_cie(body - cie_off, &c))
		return;
	struct reader r = { .p = body + 4 };
	uintptr_t start = encoded(&r, c.fde_enc, 0);
	uintptr_t range = encoded(&r, c.fde_enc & 0x0f, 0);
	if (r.bad || pc < start || pc - start >= range)
		return;
	if (c.has_aug_length) {
		uint64_t n = uleb(&r);
		r.p += n;
	}
	struct machine m = {
		.now = { .cfa_reg = -1, .rbp = SAME, .rsp = SAME, .ra = SAME },
		.loc = start, .cie = &c,
	};
	if (run(&m, c.insns, c.end, UINTPTR_MAX) || m.depth)
		return;
	m.initial = m.now;
	m.loc = start;
	if (run(&m, r.p, end, pc))
		return;
	describe(&m.now, rule);
}

#else

void mt_cfi_rule(uintptr_t pc, struct mt_frame_rule *rule)
{
	(void)pc;
	rule->kind = MT_FRAME_OTHER;
}

#endif
