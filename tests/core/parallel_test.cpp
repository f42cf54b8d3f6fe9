// The core's threads: parallel_for runs every task once, and the forward pass gives the same
// bits with any number of threads, on every path (the fused kernel, row blocks, full head
// matrices) and with masks, dropout and hard attention; so does the backward pass.
#if defined(AP_TEST_THREADS)
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // Catch2 v2: TestEventListenerBase, for the listener
#endif
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "compare.h"
#include "core/attention.h"
#include "core/gradient.h"
#include "core/parallel.h"

namespace {

using attn::Batch;
using attn::Problem;
using attn::Scoring;

// Restores the thread count a test started with, whatever it set.
struct ThreadsGuard {
  int before = attn::threads();
  ~ThreadsGuard() { attn::set_threads(before); }
};

#if defined(AP_TEST_THREADS)
// The whole suite on AP_TEST_THREADS threads (core_tests_threads).
struct ThreadsListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunStarting(Catch::TestRunInfo const& info) override {
    TestEventListenerBase::testRunStarting(info);
    attn::set_threads(AP_TEST_THREADS);
  }
};
CATCH_REGISTER_LISTENER(ThreadsListener)
#endif

// The first byte where two batches differ, or "" when they are the same bits.
std::string bit_difference(const Batch& a, const Batch& b, const char* name) {
  if (a.size() != b.size()) return std::string(name) + ": batch size differs";
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].rows() != b[i].rows() || a[i].cols() != b[i].cols())
      return std::string(name) + ": shape of item " + std::to_string(i) + " differs";
    if (a[i].size() &&
        std::memcmp(a[i].data(), b[i].data(), sizeof(float) * static_cast<size_t>(a[i].size())))
      return std::string(name) + ": bits of item " + std::to_string(i) + " differ";
  }
  return "";
}

std::string trace_difference(const attn::Trace& a, const attn::Trace& b) {
  std::vector<std::string> found;
  found.push_back(bit_difference(a.q_proj, b.q_proj, "q_proj"));
  found.push_back(bit_difference(a.concat, b.concat, "concat"));
  found.push_back(bit_difference(a.output, b.output, "output"));
  if (a.heads.size() != b.heads.size()) return "head count differs";
  for (size_t h = 0; h < a.heads.size(); ++h) {
    const attn::HeadTrace &x = a.heads[h], &y = b.heads[h];
    found.push_back(bit_difference(x.scores, y.scores, "scores"));
    found.push_back(bit_difference(x.masked, y.masked, "masked"));
    found.push_back(bit_difference(x.weights, y.weights, "weights"));
    found.push_back(bit_difference(x.output, y.output, "head output"));
  }
  for (const std::string& f : found)
    if (!f.empty()) return f;
  return "";
}

// Two heads, two batch items, 200 queries (three whole 64-row tasks and a part) and 170 keys:
// just enough work that the forward wakes the threads (attn::kMinParallelWork).
Problem tall_problem(Scoring scoring, uint64_t seed) {
  Problem p;
  const int B = 2, n_q = 200, n_k = 170, d = 8;
  p.queries = test::random_batch(B, n_q, d, -2, 2, seed);
  p.keys = test::random_batch(B, n_k, d, -2, 2, seed + 1);
  p.values = test::random_batch(B, n_k, d, -2, 2, seed + 2);
  p.scoring = scoring;
  p.heads = 2;
  if (scoring == Scoring::kAdditive) {
    p.weights.W_q = test::random_matrix(d, 6, -1, 1, seed + 3);
    p.weights.W_k = test::random_matrix(d, 6, -1, 1, seed + 4);
    p.weights.w_v = test::random_matrix(6, 1, -1, 1, seed + 5).col(0);
    p.heads = 1;
  } else {
    p.weights.W_q = test::random_matrix(d, d, -1, 1, seed + 6);
    p.weights.W_k = test::random_matrix(d, d, -1, 1, seed + 7);
  }
  if (scoring == Scoring::kGeneral) p.weights.W = test::random_matrix(4, 4, -1, 1, seed + 8);
  p.weights.W_v = test::random_matrix(d, d, -1, 1, seed + 9);
  p.weights.W_o = test::random_matrix(d, 5, -1, 1, seed + 10);
  return p;
}

// Variant 0–5 of a problem's options (masks, dropout, hard attention, positional encoding);
// returns what it set.
std::string vary(Problem* q, int variant) {
  Problem& p = *q;
  switch (variant) {
    case 1:
      p.mask.causal = true;
      p.mask.valid_lens = {{120}, {37}};
      p.mask.cells = {{0, 5, 2}, {0, 64, 10}, {1, 199, 0}, {1, 130, 31}};
      return "causal, valid lengths per item, explicit cells";
    case 2:
      p.mask.window = 3;
      p.mask.valid_lens = {std::vector<int>(200, 100), std::vector<int>(200, 0)};
      p.mask.mask_value = -std::numeric_limits<float>::infinity();
      return "window, -inf with fully masked rows";
    case 3:
      p.dropout_p = 0.3f;
      p.dropout_seed = 9;
      return "dropout";
    case 4:
      p.hard = true;
      p.mask.causal = true;
      return "hard attention, causal";
    case 5:
      p.positional_encoding = true;
      p.temperature = 0.7f;
      return "positional encoding, temperature";
  }
  return "no mask";
}

}  // namespace

TEST_CASE("parallel_for runs every task exactly once, nested calls in order", "[core][threads]") {
  ThreadsGuard guard;
  const int threads = GENERATE(1, 2, 3, 8);
  const int set = attn::set_threads(threads);
  INFO("asked for " << threads << " threads, got " << set);
  CHECK(set >= 1);
  CHECK(attn::threads() == set);
  for (int tasks : {0, 1, 2, 7, 100, 1000}) {
    std::vector<std::atomic<int>> runs(tasks);
    std::atomic<int> nested_total{0};
    attn::parallel_for(tasks, [&](int i) {
      runs[i].fetch_add(1);
      // A parallel_for inside a task runs its tasks in order on this thread; a single task
      // runs on the caller as a plain call, and a call inside it may use the threads (then
      // only that each of its tasks ran once is certain).
      std::atomic<int> last{-1};
      std::atomic<int> nested_runs{0};
      std::atomic<bool> in_order{true};
      attn::parallel_for(3, [&](int j) {
        if (j != last.load() + 1) in_order = false;
        last = j;
        nested_runs.fetch_add(1);
      });
      if ((in_order || tasks == 1) && nested_runs.load() == 3) nested_total.fetch_add(1);
    });
    int wrong = 0;
    for (int i = 0; i < tasks; ++i) wrong += runs[i].load() != 1;
    INFO(tasks << " tasks");
    CHECK(wrong == 0);
    CHECK(nested_total.load() == tasks);
  }
}

TEST_CASE("with two threads a worker takes tasks beside the caller", "[core][threads]") {
  ThreadsGuard guard;
  if (attn::set_threads(2) < 2) {
    CHECK(attn::worker_tasks() == 0);  // no threads in this build, or one core
    return;
  }
  const long long before = attn::worker_tasks();
  // Each of two tasks waits (up to 10 s) until both have started: only two threads at once
  // can start both, as the caller runs one task at a time.
  std::atomic<int> started{0};
  std::atomic<int> together{0};
  attn::parallel_for(2, [&](int) {
    started.fetch_add(1);
    for (int spin = 0; spin < 10000 && started.load() < 2; ++spin)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (started.load() == 2) together.fetch_add(1);
  });
  CHECK(together.load() == 2);
  CHECK(attn::worker_tasks() - before == 1);
}

TEST_CASE("set_threads clamps to at least one thread", "[core][threads]") {
  ThreadsGuard guard;
  CHECK(attn::set_threads(0) == 1);
  CHECK(attn::set_threads(-5) == 1);
  CHECK(attn::threads() == 1);
  CHECK(attn::max_threads() >= 1);
  CHECK(attn::set_threads(attn::max_threads()) == attn::max_threads());
}

TEST_CASE("the trace is the same bits with 1, 2 and 3 threads", "[core][threads]") {
  ThreadsGuard guard;
  const Scoring scoring =
      GENERATE(from_range(std::begin(attn::kScorings), std::end(attn::kScorings)));
  const int variant = GENERATE(range(0, 6));
  const bool keep = GENERATE(true, false);
  Problem p = tall_problem(scoring, 40 + static_cast<uint64_t>(variant));
  const std::string what = vary(&p, variant);
  INFO(attn::scoring_name(scoring) << ", " << what << (keep ? ", head matrices" : ", light"));
  REQUIRE(attn::validate(p).error == "");
  attn::RunOptions options;
  options.keep_head_matrices = keep;
  attn::set_threads(1);
  const attn::Trace one = attn::run(p, options);
  // Q·Kᵀ and P·V together: below kMinParallelWork the threads would not be used at all.
  double work = 0;
  for (const attn::HeadTrace& ht : one.heads)
    for (size_t b = 0; b < ht.q.size(); ++b)
      work +=
          static_cast<double>(ht.q[b].rows()) * ht.k[b].rows() * (ht.q[b].cols() + ht.v[b].cols());
  REQUIRE(work >= attn::kMinParallelWork);
  for (int threads : {2, 3}) {
    const int set = attn::set_threads(threads);
    INFO(set << " threads");
    CHECK(trace_difference(attn::run(p, options), one) == "");
  }
  // run_head computes one head the same way whatever the thread count.
  attn::set_threads(1);
  const attn::HeadTrace head_one = attn::run_head(p, p.heads - 1, 1);
  attn::set_threads(3);
  const attn::HeadTrace head_three = attn::run_head(p, p.heads - 1, 1);
  CHECK(bit_difference(head_one.weights, head_three.weights, "run_head weights") == "");
  CHECK(bit_difference(head_one.output, head_three.output, "run_head output") == "");
}

TEST_CASE("a run in parts is the same bits as the run at once, and says how far it is",
          "[core][threads]") {
  ThreadsGuard guard;
  const Scoring scoring =
      GENERATE(from_range(std::begin(attn::kScorings), std::end(attn::kScorings)));
  const int variant = GENERATE(range(0, 6));
  const bool keep = GENERATE(true, false);
  const int threads = GENERATE(1, 3);
  Problem p = tall_problem(scoring, 60 + static_cast<uint64_t>(variant));
  const std::string what = vary(&p, variant);
  INFO(attn::scoring_name(scoring)
       << ", " << what << (keep ? ", head matrices" : ", light") << ", " << threads << " threads");
  REQUIRE(attn::validate(p).error == "");
  attn::set_threads(threads);
  attn::RunOptions options;
  options.keep_head_matrices = keep;
  const attn::Trace whole = attn::run(p, options);
  // A budget too small for two tasks: one task (a block of rows) a call.
  attn::RunJob job(p, options);
  int calls = 0;
  double last = 0;
  while (!job.advance(1e-6)) {
    ++calls;
    CHECK(job.progress() >= last);
    CHECK(job.progress() < 1.0);
    last = job.progress();
    REQUIRE(calls < 100000);
  }
  CHECK(job.done());
  CHECK(job.progress() == 1.0);
  // 2 items × 200 rows: at least the head rows' blocks (4 a head and item) came one by one.
  CHECK(calls >= 4 * 2 * p.heads);
  CHECK(trace_difference(job.take(), whole) == "");
  // One head of one item in parts, as run_head computes it.
  const attn::HeadTrace head = attn::run_head(p, p.heads - 1, 1);
  attn::RunJob one(p, p.heads - 1, 1);
  int parts = 0;
  while (!one.advance(1e-6)) REQUIRE(++parts < 100000);
  CHECK(parts >= 4);  // 200 rows: 4 blocks
  const attn::HeadTrace got = one.take_head();
  for (const auto& [a, b, name] : {std::tuple{&got.q, &head.q, "q"},
                                   {&got.k, &head.k, "k"},
                                   {&got.v, &head.v, "v"},
                                   {&got.scores, &head.scores, "scores"},
                                   {&got.weights, &head.weights, "weights"},
                                   {&got.output, &head.output, "output"}})
    CHECK(bit_difference(*a, *b, name) == "");
  CHECK(got.weights[0].size() == 0);  // only item 1
}

TEST_CASE("a job's advance(0) does all that is left; take() finishes a job not yet advanced",
          "[core][threads]") {
  Problem p = tall_problem(Scoring::kScaledDot, 90);
  vary(&p, 1);
  const attn::Trace whole = attn::run(p);
  attn::RunJob started(p, attn::RunOptions{});
  CHECK_FALSE(started.advance(1e-6));
  CHECK(started.advance(0));
  CHECK(trace_difference(started.take(), whole) == "");
  attn::RunJob fresh(p, attn::RunOptions{});
  CHECK_FALSE(fresh.done());
  CHECK(fresh.progress() == 0.0);
  CHECK(trace_difference(fresh.take(), whole) == "");
}

// The first gradient that is not the same bits in a and b, or "".
std::string gradient_difference(const attn::Gradients& a, const attn::Gradients& b) {
  const auto same = [](const auto& x, const auto& y) {
    return x.rows() == y.rows() && x.cols() == y.cols() &&
           (x.size() == 0 ||
            std::memcmp(x.data(), y.data(), sizeof(double) * static_cast<size_t>(x.size())) == 0);
  };
  const auto same_batch = [&](const attn::BatchD& x, const attn::BatchD& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!same(x[i], y[i])) return false;
    return true;
  };
  if (std::memcmp(&a.loss, &b.loss, sizeof a.loss) != 0) return "loss";
  if (!same_batch(a.queries, b.queries)) return "queries";
  if (!same_batch(a.keys, b.keys)) return "keys";
  if (!same_batch(a.values, b.values)) return "values";
  if (!same(a.W_q, b.W_q)) return "W_q";
  if (!same(a.W_k, b.W_k)) return "W_k";
  if (!same(a.W_v, b.W_v)) return "W_v";
  if (!same(a.W_o, b.W_o)) return "W_o";
  if (!same(a.W, b.W)) return "W";
  if (!same(a.w_v, b.w_v)) return "w_v";
  return "";
}

TEST_CASE("the gradients are the same bits with 1, 2 and 3 threads", "[core][threads]") {
  ThreadsGuard guard;
  const Scoring scoring =
      GENERATE(from_range(std::begin(attn::kScorings), std::end(attn::kScorings)));
  // The trace test's variants that have a gradient (not hard attention, not fully masked
  // rows under -inf), 6: pairs as tasks, 7: one head whose products and rows are split.
  const int variant = GENERATE(0, 1, 3, 5, 6, 7);
  Problem p = tall_problem(scoring, 70 + static_cast<uint64_t>(variant));
  std::string what = variant < 6 ? vary(&p, variant) : "";
  if (variant == 6) {
    // Enough work per (batch item, head) that the pairs become the threads' tasks: 2 items ×
    // 4 heads, 300 × 300 weights and 8 + 8 columns each (the small problems above split only
    // their products and loops).
    what = "pairs as tasks, causal";
    const int d = 32;
    p.queries = test::random_batch(2, 300, d, -2, 2, 81);
    p.keys = test::random_batch(2, 300, d, -2, 2, 82);
    p.values = test::random_batch(2, 300, d, -2, 2, 83);
    p.mask.causal = true;
    if (scoring != Scoring::kAdditive) {
      p.heads = 4;
      p.weights.W_q = test::random_matrix(d, d, -1, 1, 84);
      p.weights.W_k = test::random_matrix(d, d, -1, 1, 85);
      if (scoring == Scoring::kGeneral) p.weights.W = test::random_matrix(8, 8, -1, 1, 86);
    } else {
      p.weights.W_q = test::random_matrix(d, 6, -1, 1, 84);
      p.weights.W_k = test::random_matrix(d, 6, -1, 1, 85);
    }
    p.weights.W_v = test::random_matrix(d, d, -1, 1, 87);
    p.weights.W_o = test::random_matrix(d, 5, -1, 1, 88);
  }
  if (variant == 7) {
    // One batch item, one head, 1100 queries and keys of 32 features: each product (38 M
    // multiply-adds), the softmax backward's and dropout's rows are split over the threads.
    what = "one head, products and rows split, dropout, causal";
    const int n = 1100, d = 32;
    p = Problem{};
    p.scoring = scoring;
    p.queries = test::random_batch(1, n, d, -2, 2, 91);
    p.keys = test::random_batch(1, n, d, -2, 2, 92);
    p.values = test::random_batch(1, n, d, -2, 2, 93);
    p.mask.causal = true;
    p.dropout_p = 0.2f;
    p.dropout_seed = 5;
    if (scoring == Scoring::kGeneral) p.weights.W = test::random_matrix(d, d, -1, 1, 94);
    if (scoring == Scoring::kAdditive) {
      p.weights.W_q = test::random_matrix(d, 6, -1, 1, 95);
      p.weights.W_k = test::random_matrix(d, 6, -1, 1, 96);
      p.weights.w_v = test::random_matrix(6, 1, -1, 1, 97).col(0);
    }
    p.weights.W_o = test::random_matrix(d, 5, -1, 1, 98);
  }
  INFO(attn::scoring_name(scoring) << ", " << what);
  const Batch target = test::random_batch(static_cast<int>(p.queries.size()),
                                          static_cast<int>(p.queries[0].rows()), 5, -1, 1, 99);
  attn::set_threads(1);
  attn::Gradients one;
  REQUIRE(attn::gradients(p, target, &one).error == "");
  for (int threads : {2, 3}) {
    const int set = attn::set_threads(threads);
    INFO(set << " threads");
    attn::Gradients more;
    REQUIRE(attn::gradients(p, target, &more).error == "");
    CHECK(gradient_difference(more, one) == "");
  }
}

#if defined(AP_TEST_THREADS)
TEST_CASE("this suite runs on the threads it asked for", "[core][threads]") {
  INFO("max_threads " << attn::max_threads());
  CHECK(attn::threads() == std::min(AP_TEST_THREADS, attn::max_threads()));
  // On a one-core machine this suite runs on one thread: then it proves only that the
  // module with shared memory works. CI's machines have two cores.
  if (attn::max_threads() < 2) WARN("one core: the suite ran on one thread");
}
#endif
