/* opgen_pool.c — a pool of worker threads kept between calls.
 *
 * Phase 2 used to start its threads with pthread_create and join them at the end of every call: 20-60 us per
 * call on a 2-vCPU virtual machine, so threads paid only from some 2^17 elements.  Workers kept here wait for
 * the next call, spinning briefly (a call that follows another closely finds them awake), then asleep on a
 * condition variable (an idle process takes no CPU).  One call at a time uses the pool; a call that finds it
 * busy (another thread of the program is running one) starts threads of its own, as before.
 *
 * After fork() the child has none of the parent's workers: a fork handler forgets them (the child starts its
 * own).  When the library is unloaded or the process exits, the workers are stopped and joined. */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include "opgen_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

/* Polls of a worker's slot before it sleeps (some 50-100 us), and of the shares left before the caller
 * does: a back-to-back call is picked up without a futex wake-up, an idle pool sleeps soon. */
#define SPINS 4096

/* Worker w's next share: written by the calling thread while no worker holds it, marked POSTED (release),
 * then announced by advancing `go`.  Whoever turns POSTED into something else owns the share: the worker
 * (TAKEN: it runs it) or the caller, which cancels the shares no worker has taken by the time its own is done
 * and runs them itself — on a loaded machine a worker may not get a CPU for milliseconds, and waiting for it
 * made calls 10-50x slower than one thread. */
enum { IDLE, POSTED, TAKEN };
typedef struct {
    atomic_uint_fast64_t go;
    atomic_int state;
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
    _Alignas(64) slot slots[OPGEN_POOL_MAX];
    atomic_int remaining;        /* shares of the current call the workers have not finished */
    bool quit;
} pool = {.busy = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static void *worker(void *arg)
{
    const int me = (int)(intptr_t)arg;
    slot *mine = &pool.slots[me];
    uint_fast64_t seen = mine->first;
    for (;;) {
        uint_fast64_t now = seen;
        for (int i = 0; i < SPINS && now == seen; ++i) {
            CPU_RELAX();
            now = atomic_load_explicit(&mine->go, memory_order_acquire);
        }
        if (now == seen) {
            pthread_mutex_lock(&pool.lock);
            while (!pool.quit && (now = atomic_load_explicit(&mine->go, memory_order_acquire)) == seen)
                pthread_cond_wait(&pool.wake, &pool.lock);
            const bool quit = pool.quit;
            pthread_mutex_unlock(&pool.lock);
            if (quit)
                return NULL;
        }
        seen = now;
        int posted = POSTED;
        if (!atomic_compare_exchange_strong_explicit(&mine->state, &posted, TAKEN, memory_order_acquire,
                                                     memory_order_relaxed))
            continue;            /* the caller ran it */
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

void opgen_parallel(int n, opgen_task task, void *arg)
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
        if (pthread_create(&pool.ids[pool.nworkers], NULL, worker, (void *)(intptr_t)(pool.nworkers + 1)) != 0)
            break;
        ++pool.nworkers;
    }
    const int helped = n - 1 < pool.nworkers ? n - 1 : pool.nworkers;   /* shares 1..helped go to workers */
    atomic_store_explicit(&pool.remaining, helped, memory_order_relaxed);
    for (int w = 1; w <= helped; ++w) {
        pool.slots[w].task = task;
        pool.slots[w].arg = arg;
        atomic_store_explicit(&pool.slots[w].state, POSTED, memory_order_release);
        atomic_fetch_add_explicit(&pool.slots[w].go, 1, memory_order_release);
    }
    pthread_mutex_lock(&pool.lock);   /* (a worker checks `go` under the lock before it sleeps: none is missed) */
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);

    task(arg, 0);
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
    for (int i = 0; i < SPINS && atomic_load_explicit(&pool.remaining, memory_order_acquire) > 0; ++i)
        CPU_RELAX();
    if (atomic_load_explicit(&pool.remaining, memory_order_acquire) > 0) {
        pthread_mutex_lock(&pool.lock);
        while (atomic_load_explicit(&pool.remaining, memory_order_acquire) > 0)
            pthread_cond_wait(&pool.done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
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
