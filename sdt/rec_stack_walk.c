/*
 * rec_stack_walk.c - see rec_stack_walk.h.
 *
 * Per frame: one probe of the rule cache (a multiply, a load, a compare),
 * the CFA from rsp or rbp, the return address and perhaps rbp read from
 * the stack.  The rules are packed in one word each, published with a
 * release store after their key was claimed by compare-and-swap, so the
 * cache needs no lock; keys are only ever added.  A rule not in the cache
 * is read from the CFI (rec_stack_cfi.c) on the spot: the first time an
 * address is seen, or always when its probe run is full (16 slots), which
 * a cache of 65,536 slots makes rare.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "rec_stack_cfi.h"
#include "rec_stack_memo.h"
#include "rec_stack_walk.h"
#include "rec_unwind.h"

#define RULE_SLOTS (1u << 16)
#define PROBES 16
#define LOWEST_CODE 0x4000 /* below it a return address is bogus (libunwind's bound) */

struct rule_slot {
	uint64_t pc;          /* return address - 1; 0: free */
	uint64_t packed;      /* pack(rule); 0 while being filled */
};

static struct rule_slot *rules;

int mt_walk_init(void)
{
	void *m = mmap(NULL, RULE_SLOTS * sizeof *rules, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	rules = m;
	return 0;
}

/* A rule in a word: bit 0 set for any frame but a standard one (with
 * kind in bits 1-2), cfa_from_rbp bit 3, rbp_saved bit 4, rbp_offset
 * (|x| < 2^14) bits 16-31, cfa_offset bits 32-63.  0 is no rule. */
#define NOT_STANDARD(w) ((w) & 1)
#define KIND(w) ((enum mt_frame_kind)((w) >> 1 & 3))
#define CFA_FROM_RBP(w) ((w) & 8)
#define RBP_SAVED(w) ((w) & 16)
#define RBP_OFFSET(w) ((int16_t)(uint16_t)((w) >> 16))
#define CFA_OFFSET(w) ((int32_t)(uint32_t)((w) >> 32))

static uint64_t pack(const struct mt_frame_rule *r)
{
	if (r->kind != MT_FRAME_STANDARD)
		return 1 | (uint64_t)r->kind << 1;
	return (uint64_t)r->kind << 1 | (r->cfa_from_rbp ? 8u : 0) | (r->rbp_saved ? 16u : 0) |
	       (uint64_t)(uint16_t)r->rbp_offset << 16 | (uint64_t)(uint32_t)r->cfa_offset << 32;
}

static __attribute__((noinline)) uint64_t learn(struct rule_slot *free_slot, uintptr_t pc)
{
	struct mt_frame_rule r;
	mt_cfi_rule(pc, &r);
	uint64_t w = pack(&r), none = 0;
	if (free_slot && __atomic_compare_exchange_n(&free_slot->pc, &none, pc, 0,
						     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		__atomic_store_n(&free_slot->packed, w, __ATOMIC_RELEASE);
	return w;
}

static inline uint64_t rule_of(uintptr_t pc)
{
	uint32_t i = (uint32_t)((pc * 0x9e3779b97f4a7c15u) >> 48);
	for (unsigned tries = 0; tries < PROBES; tries++, i = (i + 1) & (RULE_SLOTS - 1)) {
		struct rule_slot *s = &rules[i];
		uint64_t key = __atomic_load_n(&s->pc, __ATOMIC_ACQUIRE);
		if (key == pc) {
			uint64_t w = __atomic_load_n(&s->packed, __ATOMIC_ACQUIRE);
			return w ? w : learn(NULL, pc);
		}
		if (!key)
			return learn(s, pc);
	}
	return learn(NULL, pc);
}

struct regs {
	uintptr_t rip, rsp, rbp;
};

enum step { STEPPED, ENDED, FAILED };

/* Out of the frame in r, into its caller's, as unw_backtrace steps;
 * fr->rbp_slot says where the caller's rbp was read (0: not read), and
 * fr->flags whether the CFA came from rbp. */
static inline __attribute__((always_inline, no_sanitize_address))
enum step step(struct regs *r, struct mt_memo_frame *fr)
{
	uint64_t w = rule_of(r->rip - 1);
	if (__builtin_expect(NOT_STANDARD(w), 0)) {
		fr->rbp_slot = 0; /* the outermost frame reads nothing */
		fr->flags = 0;
		return KIND(w) == MT_FRAME_LAST ? ENDED : FAILED;
	}
	uintptr_t cfa = (CFA_FROM_RBP(w) ? r->rbp : r->rsp) + (intptr_t)CFA_OFFSET(w);
	if (__builtin_expect(cfa <= r->rsp, 0))
		return FAILED;
	fr->flags = CFA_FROM_RBP(w) ? MT_MEMO_CFA_FROM_RBP : 0;
	fr->rbp_slot = 0;
	if (RBP_SAVED(w)) {
		fr->rbp_slot = cfa + (intptr_t)RBP_OFFSET(w);
		r->rbp = *(const uintptr_t *)fr->rbp_slot;
	}
	r->rip = *(const uintptr_t *)(cfa - 8);
	r->rsp = cfa;
	return STEPPED;
}

/* Whether the last walk, from its frame p outwards, would read the same
 * stack words now, where they matter: then walking on from a frame in that
 * state gives the same frames (the rules depend on the return addresses
 * alone).  Saved rbp values no CFA depends on are not read.  Returns
 * m->count when it would, else the frame where a word differs: a frame of
 * the last walk further out may still hold. */
static __attribute__((no_sanitize_address))
uint32_t still_there(const struct mt_stack_memo *m, uint32_t p)
{
	const struct mt_memo_frame *fr = &m->f[p], *last = &m->f[m->count - 1];
	const uint64_t *rip = &m->rip[p + 1];
	for (; fr < last; fr++, rip++)
		if (*(const uintptr_t *)(fr[1].rsp - 8) != *rip ||
		    ((fr->flags & MT_MEMO_CHECK_SLOT) &&
		     *(const uintptr_t *)fr->rbp_slot != fr[1].rbp))
			return (uint32_t)(fr - m->f);
	if (m->end == MT_MEMO_LOW && *(const uintptr_t *)(m->end_rsp - 8) != m->end_rip)
		return m->count - 1;
	return m->count;
}

/* The frame of the last walk in state r, if that walk is still valid from
 * there: its index, else -1.  *from is where to search (frames below it
 * are inner to r, or cannot be reused), kept across calls of one walk.
 * rbp is compared only where the walk from there depends on it. */
static inline long match(const struct mt_stack_memo *m, uint32_t *from, const struct regs *r)
{
	uint32_t p = *from;
	while (p < m->count && m->f[p].rsp < r->rsp)
		p++;
	*from = p;
	if (p == m->count || m->f[p].rsp != r->rsp || m->rip[p] != r->rip ||
	    ((m->f[p].flags & MT_MEMO_NEEDS_RBP) && m->f[p].rbp != r->rbp))
		return -1;
	uint32_t differs = still_there(m, p);
	if (differs < m->count) {
		*from = differs + 1; /* frames out to it read a word that changed */
		return -1;
	}
	return p;
}

/* The last walk's frames [p, n) as the stack holds them now, walked on
 * from: their rbp, which a reuse does not check where nothing needed it,
 * read again from where the walk read it (from frame p's, rbp_p, known
 * true).  The state in which the outermost frame is stepped out of. */
static __attribute__((no_sanitize_address))
struct regs refresh_rbp(struct mt_stack_memo *m, uint32_t p, uint32_t n, uintptr_t rbp_p)
{
	m->f[p].rbp = rbp_p;
	for (uint32_t q = p; q + 1 < n; q++)
		m->f[q + 1].rbp = m->f[q].rbp_slot ? *(const uintptr_t *)m->f[q].rbp_slot
						    : m->f[q].rbp;
	return (struct regs){ m->rip[n - 1], m->f[n - 1].rsp, m->f[n - 1].rbp };
}

/* Frames [0, upto) get their hash and flags, from frame upto's (or from
 * nothing: the walk's end) inwards. */
static inline void finish(struct mt_stack_memo *m, uint32_t upto, uint32_t n, uint64_t *hash)
{
	uint64_t h = MT_STACK_HASH_SEED;
	uint32_t needs = 0;
	if (upto < n) {
		h = m->f[upto].hash;
		needs = m->f[upto].flags & MT_MEMO_NEEDS_RBP;
	}
	for (uint32_t i = upto; i-- > 0;) {
		struct mt_memo_frame *fr = &m->f[i];
		fr->hash = h = mt_stack_hash_step(h, m->rip[i]);
		uint32_t from_rbp = fr->flags & MT_MEMO_CFA_FROM_RBP;
		uint32_t check = fr->rbp_slot && needs ? MT_MEMO_CHECK_SLOT : 0;
		needs = from_rbp || (!fr->rbp_slot && needs) ? MT_MEMO_NEEDS_RBP : 0;
		fr->flags = from_rbp | needs | check;
	}
	*hash = h;
}

/* Frames [0, n) of the memo's window from its fresh ones. */
static inline void settle(struct mt_stack_memo *m, uint32_t n)
{
	memcpy(m->rip, m->fresh_rip, n * sizeof m->rip[0]);
	memcpy(m->f, m->fresh, n * sizeof m->f[0]);
}

/* Reads other functions' frames, as any unwinder does: not for the
 * address sanitizer to check.  __builtin_frame_address gives this function
 * a frame pointer, from which the caller's registers at the call follow.
 *
 * New frames go to the memo's fresh ones until a frame of the last walk
 * is met in the same state; the new ones are then copied in front of that
 * frame, and the window starts at them (the last walk's frames move only
 * when there is no room there, or too much room is left above). */
__attribute__((noinline, no_sanitize_address))
long mt_walk(const uint64_t **frames, size_t max, uintptr_t skip_lo, uintptr_t skip_hi,
	     uint64_t *hash)
{
	const uintptr_t *fp = __builtin_frame_address(0);
	struct regs r = { .rip = fp[1], .rsp = (uintptr_t)(fp + 2), .rbp = fp[0] };
	struct mt_memo_frame ignored;
	while (r.rip >= skip_lo && r.rip < skip_hi) {
		enum step s = step(&r, &ignored);
		if (s != STEPPED) {
			*hash = MT_STACK_HASH_SEED;
			return s == ENDED ? 0 : -1;
		}
	}
	struct mt_stack_memo *m = mt_stack_memo();
	if (!m)
		return -1;
	uint64_t *out_rip = m->fresh_rip;
	struct mt_memo_frame *out = m->fresh;
	uint32_t n = 0, from = 0, hashed = UINT32_MAX; /* m->f[hashed..n) hash and flags hold */
	enum mt_memo_end end;
	for (;;) {
		if (r.rip < LOWEST_CODE) {
			end = MT_MEMO_LOW;
			m->end_rip = r.rip;
			m->end_rsp = r.rsp;
			break;
		}
		if (n == max) {
			end = MT_MEMO_MAX;
			break;
		}
		long p = out == m->fresh ? match(m, &from, &r) : -1;
		if (p >= 0) {
			uint32_t rest = m->count - (uint32_t)p;
			uint32_t take = rest < max - n ? rest : (uint32_t)(max - n);
			ptrdiff_t start = m->rip - m->rip_space + p - n;
			if (start < 0 || start > MT_STACK_FRAMES_MAX) {
				start = MT_MEMO_HOME;
				memmove(&m->rip_space[start + n], &m->rip[p], take * sizeof m->rip[0]);
				memmove(&m->f_space[start + n], &m->f[p], take * sizeof m->f[0]);
			}
			mt_memo_place(m, (uint32_t)start);
			settle(m, n);
			out_rip = m->rip;
			out = m->f;
			n += take;
			end = take < rest ? MT_MEMO_MAX : m->end;
			if (take < rest)
				break;
			if (m->end != MT_MEMO_MAX || n == max) {
				hashed = n - take;
				break;
			}
			/* The last walk stopped at its depth and this one is
			 * shallower inside: walk on from its outermost frame. */
			r = refresh_rbp(m, n - take, n, r.rbp);
			enum step s = step(&r, &m->f[n - 1]);
			if (s == ENDED) {
				end = MT_MEMO_LAST;
				break;
			}
			if (s == FAILED)
				goto failed;
			continue;
		}
		out_rip[n] = r.rip;
		out[n] = (struct mt_memo_frame){ .rsp = r.rsp, .rbp = r.rbp };
		enum step s = step(&r, &out[n]);
		n++;
		if (s == ENDED) {
			end = MT_MEMO_LAST;
			break;
		}
		if (s == FAILED)
			goto failed;
	}
	if (out == m->fresh) {
		mt_memo_place(m, MT_MEMO_HOME);
		settle(m, n);
	}
	m->count = n;
	m->end = end;
	finish(m, hashed < n ? hashed : n, n, hash);
	*frames = m->rip;
	return (long)n;
failed:
	if (out != m->fresh)
		m->count = 0; /* partly overwritten */
	return -1;
}
