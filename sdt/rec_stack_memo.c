/*
 * rec_stack_memo.c - see rec_stack_memo.h.
 *
 * The memos form a list that only grows (pushed by compare-and-swap); a
 * memo is claimed by compare-and-swap of its owner's thread id, so no lock
 * is taken, and this runs inside malloc.  A thread looks for its memo once:
 * then it is in initial-exec TLS.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "rec_stack_memo.h"

struct pooled {
	struct mt_stack_memo memo;
	struct pooled *next;
	pid_t owner;            /* thread id; 0: free */
};

static struct pooled *pool;
static __thread struct pooled *mine __attribute__((tls_model("initial-exec")));

static int gone(pid_t tid)
{
	int saved = errno; /* malloc does not change errno */
	int g = tgkill(getpid(), tid, 0) != 0 && errno == ESRCH;
	errno = saved;
	return g;
}

static struct pooled *claim(pid_t self)
{
	for (struct pooled *p = __atomic_load_n(&pool, __ATOMIC_ACQUIRE); p; p = p->next) {
		pid_t o = __atomic_load_n(&p->owner, __ATOMIC_RELAXED);
		if ((o == 0 || o == self || gone(o)) &&
		    __atomic_compare_exchange_n(&p->owner, &o, self, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return p;
	}
	void *m = mmap(NULL, sizeof(struct pooled), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	struct pooled *p = m;
	p->owner = self;
	p->next = __atomic_load_n(&pool, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&pool, &p->next, p, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return p;
}

struct mt_stack_memo *mt_stack_memo(void)
{
	if (__builtin_expect(!mine, 0)) {
		mine = claim(gettid());
		if (!mine)
			return NULL;
		mine->memo.count = 0;
		mt_memo_place(&mine->memo, MT_MEMO_HOME);
	}
	return &mine->memo;
}

void mt_stack_memo_after_fork(void)
{
	if (mine)
		__atomic_store_n(&mine->owner, gettid(), __ATOMIC_RELEASE);
}
