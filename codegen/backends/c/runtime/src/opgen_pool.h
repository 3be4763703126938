/* opgen_pool.h — the threads phase 2 runs on (opgen_pool.c). */
#ifndef OPGEN_POOL_H_
#define OPGEN_POOL_H_

#include <stdint.h>

/* Share `t` of a parallel call. */
typedef void (*opgen_task)(void *arg, int t);

/* Run task(arg, t) for every t in [0, n) at once and return when all have: the caller runs share 0, the
 * process's worker threads the others (started on first use, kept for the next calls).  Calls made at the same
 * time from several threads each get threads of their own; a share no thread could be started for, or that no
 * worker has taken by the time the caller's own is done, runs on the caller.  A sleeping worker is woken for a
 * call of OPGEN_POOL_WAKE_MIN `elements` or more, or one right after the previous call (a loop of calls); a
 * worker still awake from the previous call takes a share of any call.  Thread-safe; n is at most
 * OPGEN_POOL_MAX. */
void opgen_parallel(int n, opgen_task task, void *arg, int64_t elements);

/* Called by the thread running share 0 of opgen_parallel's call between two parts of its work (`done` of `total`
 * parts done by it): where the call left the workers asleep (fewer than OPGEN_POOL_WAKE_MIN elements, no loop),
 * they are woken once what is left, at the pace so far, will take long enough to pay for a wake-up (LAZY_NS,
 * opgen_pool.c) — an expensive kernel's (exp, erfc) pays sooner than the element count says.  Does nothing on any other thread or
 * call. */
void opgen_pool_progress(int64_t done, int64_t total);
#define OPGEN_POOL_MAX 64
#define OPGEN_POOL_WAKE_MIN (INT64_C(1) << 18)

/* The CPUs this process may run on (its affinity mask where the OS has one; at least 1): the threads a call
 * uses when $OPGEN_NUM_THREADS is not set. */
int opgen_cpu_count(void);

#endif /* OPGEN_POOL_H_ */
