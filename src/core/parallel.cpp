// The core's thread pool: threads() - 1 workers that sleep until parallel_for hands them a
// batch of tasks, and the calling thread working beside them. Tasks are taken one at a time
// from a shared counter, so a slow task does not hold the others back.
#include "core/parallel.h"

#include <algorithm>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define AP_CORE_THREADS 1
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#else
#define AP_CORE_THREADS 0
#endif

namespace attn {

#if AP_CORE_THREADS

namespace {

// Set while a thread runs a task: a parallel_for from inside one runs in order.
thread_local bool t_in_task = false;

// One parallel_for: its tasks, the next one to take, and how many are not finished yet.
// Held by shared_ptr, so a worker that wakes late only ever sees a job with nothing left.
struct Job {
  const std::function<void(int)>* fn = nullptr;
  int threads = 1;  // the caller and workers 1 .. threads - 1
  int tasks = 0;
  int pending = 0;  // guarded by Pool::mutex_
  std::atomic<int> next{0};
};

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
  }

  int active() const { return active_; }
  long long worker_tasks() const { return worker_tasks_.load(std::memory_order_relaxed); }

  // Threads are started when first needed and then kept, parked when fewer are asked for:
  // a WASM module's threads come from the workers it starts with, and one that exits goes
  // back to them only through the main thread's event loop, which a caller that waits for
  // its tasks never returns to. A thread whose worker is still loading the module starts
  // later; meanwhile the caller takes the tasks, and never waits for one nobody took.
  void set_active(int n) {
    while (static_cast<int>(workers_.size()) < n - 1) {
      const int index = static_cast<int>(workers_.size()) + 1;
      workers_.emplace_back([this, index] { work(index); });
    }
    active_ = n;
  }

  void run(int tasks, const std::function<void(int)>& fn) {
    auto job = std::make_shared<Job>();
    job->fn = &fn;
    job->threads = active_;
    job->tasks = tasks;
    job->pending = tasks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = job;
      ++generation_;
    }
    wake_.notify_all();
    take_tasks(job, false);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return job->pending == 0; });
    job_.reset();
  }

 private:
  // Worker `index` (1, 2, …; the caller is 0) takes part in jobs run on more threads.
  void work(int index) {
    unsigned long seen = 0;
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
        job = job_;
      }
      if (job && index < job->threads) take_tasks(job, true);
    }
  }

  // Runs the job's tasks until none is left; the last one to finish wakes run().
  void take_tasks(const std::shared_ptr<Job>& job, bool worker) {
    int finished = 0;
    t_in_task = true;
    for (int i = job->next.fetch_add(1); i < job->tasks; i = job->next.fetch_add(1)) {
      (*job->fn)(i);
      ++finished;
    }
    t_in_task = false;
    if (finished == 0) return;
    if (worker) worker_tasks_.fetch_add(finished, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mutex_);
    job->pending -= finished;
    if (job->pending == 0) done_.notify_all();
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  unsigned long generation_ = 0;
  bool stop_ = false;
  int active_ = 1;
  std::shared_ptr<Job> job_;
  std::atomic<long long> worker_tasks_{0};
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

int max_threads() {
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
#if defined(AP_THREAD_LIMIT)
  // A WASM module creates its workers as it starts (-sPTHREAD_POOL_SIZE): a thread beyond
  // them would only start once the caller returns to the event loop, and joining it would hang.
  return std::min(hardware, AP_THREAD_LIMIT);
#else
  return hardware;
#endif
}

int set_threads(int n) {
  n = std::clamp(n, 1, max_threads());
  pool().set_active(n);
  return n;
}

int threads() {
  return pool().active();
}

void parallel_for(int tasks, const std::function<void(int)>& fn) {
  if (tasks <= 0) return;
  if (tasks == 1 || t_in_task || threads() == 1) {
    for (int i = 0; i < tasks; ++i) fn(i);
    return;
  }
  pool().run(tasks, fn);
}

long long worker_tasks() {
  return pool().worker_tasks();
}

void parallel_for(int tasks, double work, const std::function<void(int)>& fn, double min_work) {
  if (work >= min_work) {
    parallel_for(tasks, fn);
  } else {
    for (int i = 0; i < tasks; ++i) fn(i);
  }
}

#else  // no threads in this build

int max_threads() {
  return 1;
}

int set_threads(int) {
  return 1;
}

int threads() {
  return 1;
}

void parallel_for(int tasks, const std::function<void(int)>& fn) {
  for (int i = 0; i < tasks; ++i) fn(i);
}

long long worker_tasks() {
  return 0;
}

void parallel_for(int tasks, double, const std::function<void(int)>& fn, double) {
  for (int i = 0; i < tasks; ++i) fn(i);
}

#endif

}  // namespace attn
