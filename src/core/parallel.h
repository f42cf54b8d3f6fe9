// Threads for the core: a small pool that the forward pass splits its heads, batch items and
// row blocks over.
//
// The work is always cut at the same places (a head, a batch item, a block of rows that is
// a multiple of the kernels' own block), whatever the number of threads, and every piece is
// computed by the same code as on one thread: the results are bit for bit the same with 1,
// 2 or 8 threads. Only the order in which the pieces finish differs.
//
// Without thread support (the single-thread WASM build) there is one thread and
// parallel_for runs the tasks in order on the caller's thread.
#pragma once

#include <functional>

namespace attn {

// Threads this build can run the core on at once: the hardware's count where the build has
// threads (natively; WASM built with -pthread), 1 otherwise.
int max_threads();

// Sets the threads the core uses (the caller's included), clamped to [1, max_threads()];
// returns the count set. Starts threads the first time they are needed and keeps them
// (parked while fewer are set). Call it between runs, from one thread, not during one.
int set_threads(int n);
int threads();

// Calls fn(i) for every i in [0, tasks), spread over threads(). Returns when all are done.
// A call from inside a task runs its tasks in order on that task's thread. A call with one
// task (or one whose work is below kMinParallelWork) runs it on the caller as a plain call,
// so a call inside that one may still use the threads.
void parallel_for(int tasks, const std::function<void(int)>& fn);

// About the least work (multiply-adds, or the like) worth splitting over threads: below it,
// waking the parked threads (tens of microseconds in a browser) costs more than it saves.
// Measured: training steps at n = 16 ran at 0.44-0.72x of one thread's speed on two threads
// when their tiny heads were split (bench/README.md, "The backward on two threads").
constexpr double kMinParallelWork = 1 << 20;

// parallel_for when `work` (all the tasks' together) is `min_work` or more, else the tasks in
// order on the caller's thread: the same results either way.
void parallel_for(int tasks, double work, const std::function<void(int)>& fn,
                  double min_work = kMinParallelWork);

// Tasks the pool's workers (not the callers of parallel_for) have run since the start: more
// than 0 once threads have really shared work. In WASM the workers load the module while
// the page starts (-sPTHREAD_POOL_DELAY_LOAD); until then the caller runs every task itself.
long long worker_tasks();

}  // namespace attn
