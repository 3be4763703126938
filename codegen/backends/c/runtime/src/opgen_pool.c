/* opgen_pool.c — a pool of worker threads kept between calls.
 *
 * Phase 2 used to start its threads with pthread_create and join them at the end of every call: 20-60 us per
 * call on a 2-vCPU virtual machine, so threads paid only from some 2^17 elements.  Workers kept here wait for
 * the next call, spinning briefly (a call that follows another closely finds them awake), then asleep on a
 * condition variable (an idle process takes no CPU).  One call at a time uses the pool; a call that finds it
 * busy (another thread of the program is running one) starts threads of its own, as before.
 *
 * Three rules keep a second thread from making a call slower than one thread (measured with a trace of each
 * call's post, take and finish times; 2-vCPU AMD EPYC, other processes on both cores):
 * - A worker is kept off the CPU of the calling thread (its affinity; see keep_off).  Woken while the other CPU
 *   was busy, the scheduler put it on the caller's CPU, where it preempted the caller, ran the whole call alone
 *   and then spun on, the caller still waiting: HardsigmoidBackward FLOAT 2^16 spent 184 us in the pool (one
 *   thread: 14 us), 2^20 790 us.  Kept off it, the worker waits for the other CPU and the caller runs what the
 *   worker has not taken (2^20 in a loop: the worker takes its share in 3103 calls of 3363, 101 us a call; 2^24:
 *   8.0 ms, one thread 16 ms).  Where it cannot be kept off (one CPU allowed), it leaves the share and sleeps.
 * - A sleeping worker is woken at once only for a call of OPGEN_POOL_WAKE_MIN elements or more, or one that follows
 *   the previous call within BURST_NS: the wake-up, a futex call on the caller's path (9-20 us here), costs more
 *   than a smaller call saves, unless more calls follow (a loop of calls: then the worker stays awake after the first).
 *   A worker still spinning from the previous call takes a share of any call.  A smaller call wakes it late
 *   (opgen_pool_progress): once the caller's own pace says the work left will take LAZY_NS or more, whatever
 *   the kernel costs an element.
 * - The caller polls for the workers' last shares only briefly, then sleeps (opgen_loops.c cuts a call into
 *   chunks small enough that the last one is short).
 *
 * After fork() the child has none of the parent's workers: a fork handler forgets them (the child starts its
 * own).  When the library is unloaded or the process exits, the workers are stopped and joined. */
#define _GNU_SOURCE   /* sched_getaffinity, sched_getcpu, CPU_COUNT */
#include "opgen_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

/* How long a worker polls for the next call before it sleeps, and the caller for the workers' shares before it
 * does: a back-to-back call is picked up without a futex wake-up, an idle pool sleeps soon.  (Timed, not
 * counted: a pause is 27 ns on this AMD EPYC, some 140 cycles on Intel since Skylake.) */
#define SPIN_NS 100000
/* Polls between two looks at the clock and at the CPU the thread runs on. */
#define POLLS 64
/* A call this soon after the end of the previous one is part of a loop of calls (a Python loop around the compiled
 * entry point leaves some 3-5 us between them; `opgen bench`'s passes, with other contenders between two calls of
 * ours, 50 us or more). */
#define BURST_NS 20000
/* A call left with its workers asleep wakes them once the work left, at the caller's pace so far, takes this long.
 * Isolated calls (0.5 ms apart: the worker asleep, no burst), two threads, 2-vCPU AMD EPYC, load average 1-3, against
 * waking at post time from 2^17 elements with no late wake (the rule before): HardsigmoidBackward, EluBackward
 * and LogSigmoidBackward FLOAT at 2^17 (45-90 us) 1.08-1.21x as fast (the wake-up had made them 0.80-0.89x as
 * fast as one thread), 2^16 and 2^18 0.96-1.05x, GeluBackwardV2 2^17 (210 us, woken late) 0.91x.  At 60 us
 * GeluBackwardV2's tanh form at 2^16 (85 us) ran 0.85-0.93x as fast; waking every call from 2^15 elements made the
 * 30-50 us calls 0.70-0.82x as fast. */
#define LAZY_NS 100000

/* Worker w's next share: written by the calling thread while no worker holds it, marked POSTED (release),
 * then announced by advancing `go`.  Whoever turns POSTED into something else owns the share: the worker
 * (TAKEN: it runs it) or the caller, which cancels the shares no worker has taken by the time its own is done
 * and runs them itself — on a loaded machine a worker may not get a CPU for milliseconds, and waiting for it
 * made calls 10-50x slower than one thread.  A slot fills a cache line of its own: a worker polls its `go`. */
enum { IDLE, POSTED, TAKEN };
typedef struct {
    _Alignas(64) atomic_uint_fast64_t go;
    atomic_int state;
    atomic_int cpu;              /* the CPU the worker ran its last share on */
    uint_fast64_t first;         /* `go` when the worker was started: a share announced before it ran is new */
    opgen_task task;
    void *arg;
} slot;

static struct {
    pthread_mutex_t busy;        /* held by the call using the workers */
    pthread_mutex_t lock;        /* guards the sleeps and wake-ups below */
    pthread_cond_t wake, done;
    int nworkers;                /* started, numbered 1..nworkers */
    pthread_t ids[OPGEN_POOL_MAX];
    slot slots[OPGEN_POOL_MAX];
    _Alignas(64) atomic_int remaining;   /* shares of the current call the workers have not finished */
    atomic_int sleepers;         /* workers asleep on `wake`, or about to be */
    atomic_int caller_cpu;       /* the CPU of the thread that made the last call, -1 if unknown */
    uint64_t last_end;           /* when the last call ended (now_ns), under `busy` */
    bool quit;
} pool = {.busy = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The call this thread is making with its workers asleep (opgen_pool_progress), if any: when it started. */
static _Thread_local uint64_t lazy_since;

static int this_cpu(void)   /* (glibc reads it from the thread's rseq area: a few ns) */
{
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

/* Whether the calling thread runs on the CPU of the thread that made the last call: then that thread is waiting
 * for this CPU (or will be), and whatever runs here delays it. */
static bool on_callers_cpu(int cpu)
{
    return cpu >= 0 && cpu == atomic_load_explicit(&pool.caller_cpu, memory_order_relaxed);
}

/* Wait for the next call: `go` past `seen`.  Polls it for SPIN_NS first, unless `nap` or the worker finds itself
 * on the caller's CPU; then sleeps.  Returns the new `go`, or `seen` when the pool stops. */
static uint_fast64_t await_call(slot *mine, uint_fast64_t seen, bool nap)
{
    uint_fast64_t now = atomic_load_explicit(&mine->go, memory_order_acquire);
    if (!nap) {
        const uint64_t until = now_ns() + SPIN_NS;
        while (now == seen && !on_callers_cpu(this_cpu()) && now_ns() < until)
            for (int i = 0; i < POLLS && now == seen; ++i) {
                CPU_RELAX();
                now = atomic_load_explicit(&mine->go, memory_order_acquire);
            }
    }
    if (now != seen)
        return now;
    pthread_mutex_lock(&pool.lock);
    /* (sequentially consistent, as the caller's advance of `go` and its look at `sleepers`: either the caller
     * sees this worker asleep and wakes it, or the worker sees the new `go`) */
    atomic_fetch_add(&pool.sleepers, 1);
    while (!pool.quit && (now = atomic_load(&mine->go)) == seen)
        pthread_cond_wait(&pool.wake, &pool.lock);
    atomic_fetch_sub(&pool.sleepers, 1);
    pthread_mutex_unlock(&pool.lock);
    return now;
}

/* The CPUs a worker may run on: those it was started with, but for the caller's.  Woken while the other CPU is
 * busy, the worker was put on the caller's CPU (the scheduler prefers the waker's), where it could only wait or
 * preempt the caller; kept off it, it is woken on a CPU where it can help, at worst behind another thread until
 * the scheduler gives it a turn.  Redone when the caller's CPU changes; not when the worker may run on one CPU
 * only. */
typedef struct {
#if defined(__linux__)
    cpu_set_t allowed;
#endif
    int away_from;               /* the CPU left out of `allowed`, or -1 */
} placement;

static void place_start(placement *p)
{
    p->away_from = -1;
#if defined(__linux__)
    if (pthread_getaffinity_np(pthread_self(), sizeof p->allowed, &p->allowed) != 0)
        CPU_ZERO(&p->allowed);
#endif
}

static void keep_off(placement *p, int caller)
{
#if defined(__linux__)
    if (caller < 0 || caller == p->away_from || caller >= CPU_SETSIZE || !CPU_ISSET(caller, &p->allowed)
        || CPU_COUNT(&p->allowed) < 2)
        return;
    cpu_set_t set = p->allowed;
    CPU_CLR(caller, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);   /* (moves the thread off it now) */
    p->away_from = caller;   /* (tried once per move of the caller: a refusal is not asked again each call) */
#else
    (void)p;
    (void)caller;
#endif
}

static void *worker(void *arg)
{
    const int me = (int)(intptr_t)arg;
    slot *mine = &pool.slots[me];
    uint_fast64_t seen = mine->first;
    placement where;
    place_start(&where);
    bool nap = false;
    for (;;) {
        const uint_fast64_t now = await_call(mine, seen, nap);
        if (now == seen)
            return NULL;         /* the pool stops */
        seen = now;
        keep_off(&where, atomic_load_explicit(&pool.caller_cpu, memory_order_relaxed));
        const int cpu = this_cpu();
        nap = on_callers_cpu(cpu);
        if (nap)
            continue;            /* the caller waits for this CPU (kept off it in vain): the share is its own */
        int posted = POSTED;
        if (!atomic_compare_exchange_strong_explicit(&mine->state, &posted, TAKEN, memory_order_acquire,
                                                     memory_order_relaxed))
            continue;            /* the caller ran it */
        atomic_store_explicit(&mine->cpu, cpu, memory_order_relaxed);
        mine->task(mine->arg, me);
        if (atomic_fetch_sub_explicit(&pool.remaining, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.lock);
        }
    }
}

static void forget_workers(void)   /* in a forked child: the threads are the parent's */
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    pool.busy = pool.lock = m;
    pool.wake = pool.done = c;
    pool.nworkers = 0;
    atomic_store(&pool.sleepers, 0);
}

static void register_fork_handler(void) { pthread_atfork(NULL, NULL, forget_workers); }

__attribute__((destructor)) static void stop_workers(void)
{
    pthread_mutex_lock(&pool.lock);
    pool.quit = true;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int w = 1; w <= pool.nworkers; ++w)
        pthread_join(pool.ids[w - 1], NULL);
    pool.nworkers = 0;
}

/* Threads of its own, for a call that finds the pool busy. */
typedef struct {
    opgen_task task;
    void *arg;
    int t;
} own_share;

static void *run_own(void *p)
{
    const own_share *s = p;
    s->task(s->arg, s->t);
    return NULL;
}

static void run_on_own_threads(int n, opgen_task task, void *arg)
{
    own_share shares[OPGEN_POOL_MAX];
    pthread_t ids[OPGEN_POOL_MAX];
    bool started[OPGEN_POOL_MAX] = {false};
    for (int t = 1; t < n; ++t) {
        shares[t] = (own_share){task, arg, t};
        started[t] = pthread_create(&ids[t], NULL, run_own, &shares[t]) == 0;
    }
    task(arg, 0);
    for (int t = 1; t < n; ++t) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            task(arg, t);
    }
}

/* Wait until the workers have finished the shares they took: poll for SPIN_NS (a share taken late still runs a
 * while), unless a worker's last share ran on this CPU, then sleep. */
static void await_shares(int helped, int cpu)
{
    const uint64_t until = now_ns() + SPIN_NS;
    for (;;) {
        for (int i = 0; i < POLLS; ++i) {
            if (atomic_load_explicit(&pool.remaining, memory_order_acquire) == 0)
                return;
            CPU_RELAX();
        }
        bool shared = false;
        for (int w = 1; w <= helped; ++w)
            shared |= cpu >= 0 && atomic_load_explicit(&pool.slots[w].cpu, memory_order_relaxed) == cpu;
        if (shared || now_ns() >= until)
            break;
    }
    pthread_mutex_lock(&pool.lock);
    while (atomic_load_explicit(&pool.remaining, memory_order_acquire) > 0)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

static void wake_sleepers(void)
{
    pthread_mutex_lock(&pool.lock);   /* (a worker checks `go` under the lock before it sleeps) */
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
}

void opgen_pool_progress(int64_t done, int64_t total)
{
    if (lazy_since == 0 || done <= 0 || done >= total)
        return;
    const uint64_t spent = now_ns() - lazy_since;
    if ((double)spent * (double)(total - done) < (double)LAZY_NS * (double)done)
        return;
    lazy_since = 0;                   /* (once a call) */
    if (atomic_load(&pool.sleepers) > 0)
        wake_sleepers();
}

void opgen_parallel(int n, opgen_task task, void *arg, int64_t elements)
{
    if (n > OPGEN_POOL_MAX)
        n = OPGEN_POOL_MAX;
    if (n <= 1) {
        task(arg, 0);
        return;
    }
    if (pthread_mutex_trylock(&pool.busy) != 0) {
        run_on_own_threads(n, task, arg);
        return;
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_fork_handler);
    while (pool.nworkers < n - 1) {
        slot *s = &pool.slots[pool.nworkers + 1];
        s->first = atomic_load_explicit(&s->go, memory_order_relaxed);   /* (pthread_create orders it) */
        atomic_store_explicit(&s->cpu, -1, memory_order_relaxed);
        if (pthread_create(&pool.ids[pool.nworkers], NULL, worker, (void *)(intptr_t)(pool.nworkers + 1)) != 0)
            break;
        ++pool.nworkers;
    }
    const int cpu = this_cpu();
    atomic_store_explicit(&pool.caller_cpu, cpu, memory_order_relaxed);
    const bool burst = now_ns() - pool.last_end < BURST_NS;
    const int helped = n - 1 < pool.nworkers ? n - 1 : pool.nworkers;   /* shares 1..helped go to workers */
    atomic_store_explicit(&pool.remaining, helped, memory_order_relaxed);
    for (int w = 1; w <= helped; ++w) {
        pool.slots[w].task = task;
        pool.slots[w].arg = arg;
        atomic_store_explicit(&pool.slots[w].state, POSTED, memory_order_release);
        atomic_fetch_add(&pool.slots[w].go, 1);
    }
    if (atomic_load(&pool.sleepers) > 0) {
        if (elements >= OPGEN_POOL_WAKE_MIN || burst)
            wake_sleepers();
        else
            lazy_since = now_ns();   /* opgen_pool_progress may wake them */
    }

    task(arg, 0);
    lazy_since = 0;
    for (int t = helped + 1; t < n; ++t)   /* shares no worker could be started for */
        task(arg, t);
    for (int w = 1; w <= helped; ++w) {    /* shares no worker has taken yet */
        int posted = POSTED;
        if (atomic_compare_exchange_strong_explicit(&pool.slots[w].state, &posted, IDLE, memory_order_acquire,
                                                    memory_order_relaxed)) {
            task(arg, w);
            atomic_fetch_sub_explicit(&pool.remaining, 1, memory_order_relaxed);
        }
    }
    if (atomic_load_explicit(&pool.remaining, memory_order_acquire) > 0)
        await_shares(helped, cpu);
    pool.last_end = now_ns();
    pthread_mutex_unlock(&pool.busy);
}

int opgen_cpu_count(void)
{
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
#if defined(_SC_NPROCESSORS_ONLN)
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0)
        return n > OPGEN_POOL_MAX ? OPGEN_POOL_MAX : (int)n;
#endif
    return 1;
}
