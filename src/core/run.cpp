// The forward pass: attn::RunJob runs it as stages of tasks (the projections, each head's
// packed copies and row blocks from head_work.cpp, the output), at once (attn::run, run_head)
// or in parts of a time budget; and the sizes of what it keeps.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/attention.h"
#include "core/attention_work.h"
#include "core/parallel.h"

namespace attn {

using namespace work;

namespace {

Batch with_positions(const Batch& x, float base, Batch* pe_out) {
  const Matrix pe = positional_encoding(batch_rows(x), batch_cols(x), base);
  Batch out(x.size());
  for (size_t b = 0; b < x.size(); ++b) out.mut(b) = x[b] + pe;
  if (pe_out) *pe_out = Batch(x.size(), pe);
  return out;
}

// Trace::queries, keys and values: the inputs after positional encoding, if any.
void encode_inputs(const Problem& p, Trace* t) {
  if (p.positional_encoding) {
    t->queries = with_positions(p.queries, p.pe_base, &t->pe_queries);
    t->keys = with_positions(p.keys, p.pe_base, &t->pe_keys);
    t->values = with_positions(p.values, p.pe_base, nullptr);
  } else {
    t->queries = p.queries;
    t->keys = p.keys;
    t->values = p.values;
  }
}

}  // namespace

// One stage of RunJob: `count` tasks of about `work` multiply-adds each, which `setup` (cheap:
// slices, allocations) makes when the stage starts.
struct RunJob::Stage {
  std::function<void()> setup;
  std::function<int()> count;
  std::function<double(int)> work;
  std::function<void(int)> task;
};

struct RunJob::State {
  const Problem& p;
  RunOptions options;
  int head = -1, item = -1;  // a job of run_head's: that head (and item, if >= 0)
  Trace t;
  HeadShape hs;
  ProductWork proj[3], out;
  HeadsWork heads;
  std::vector<Stage> stages;
  size_t stage = 0;
  bool started = false;
  int next = 0;
  double total = 0, done = 0;  // work
  double ms_per_work = 0;      // measured on the last part
  State(const Problem& problem, const RunOptions& o) : p(problem), options(o) {}

  void build();
};

void RunJob::State::build() {
  State& s = *this;
  s.hs = head_shape(p);
  const bool additive = p.scoring == Scoring::kAdditive;
  const Weights& w = p.weights;
  const bool one = head >= 0;
  // The projections: of one head, only its columns (the same kernel sums as of all of them).
  s.stages.push_back(
      Stage{[&s, additive, &w, one] {
              encode_inputs(s.p, &s.t);
              const int h = std::max(s.head, 0);
              s.proj[0].setup(s.t.queries, additive ? Matrix() : w.W_q, &s.t.q_proj, h * s.hs.dq,
                              one && !additive ? s.hs.dq : -1);
              s.proj[1].setup(s.t.keys, additive ? Matrix() : w.W_k, &s.t.k_proj, h * s.hs.dk,
                              one && !additive ? s.hs.dk : -1);
              s.proj[2].setup(s.t.values, w.W_v, &s.t.v_proj, h * s.hs.dv, one ? s.hs.dv : -1);
            },
            [&s] {
              return static_cast<int>(s.proj[0].tasks.size() + s.proj[1].tasks.size() +
                                      s.proj[2].tasks.size());
            },
            [&s](int task) {
              for (const ProductWork& pw : s.proj) {
                if (task < static_cast<int>(pw.tasks.size())) return pw.task_work();
                task -= static_cast<int>(pw.tasks.size());
              }
              return 0.0;
            },
            [&s](int task) {
              for (const ProductWork& pw : s.proj) {
                if (task < static_cast<int>(pw.tasks.size())) return pw.run(task);
                task -= static_cast<int>(pw.tasks.size());
              }
            }});
  // Each head's slices and packed copies, then its rows.
  s.stages.push_back(Stage{[&s, one] {
                             s.heads.p = &s.p;
                             s.heads.scale = s.hs.scale;
                             s.heads.keep = one || s.options.keep_head_matrices;
                             if (one) {
                               s.t.heads.resize(1);
                               s.t.heads[0].q = s.t.q_proj;
                               s.t.heads[0].k = s.t.k_proj;
                               s.t.heads[0].v = s.t.v_proj;
                               s.heads.head0 = s.head;
                               s.heads.setup(&s.t.heads, s.item);
                               return;
                             }
                             const int H = s.p.heads;
                             s.t.heads.resize(H);
                             for (int h = 0; h < H; ++h) {
                               HeadTrace& ht = s.t.heads[h];
                               ht.q = slice_cols(s.t.q_proj, h * s.hs.dq, s.hs.dq);
                               ht.k = slice_cols(s.t.k_proj, h * s.hs.dk, s.hs.dk);
                               ht.v = slice_cols(s.t.v_proj, h * s.hs.dv, s.hs.dv);
                             }
                             s.heads.setup(&s.t.heads, -1);
                           },
                           [&s] { return static_cast<int>(s.heads.items.size()); },
                           [&s](int i) { return s.heads.prepare_work(i); },
                           [&s](int i) { s.heads.prepare(i); }});
  s.stages.push_back(Stage{[] {}, [&s] { return static_cast<int>(s.heads.tasks.size()); },
                           [&s](int task) { return s.heads.task_work(task); },
                           [&s](int task) { s.heads.run(task); }});
  // The heads side by side, and times W_o.
  if (!one)
    s.stages.push_back(Stage{[&s, &w] {
                               std::vector<const Batch*> outputs;
                               for (const HeadTrace& ht : s.t.heads) outputs.push_back(&ht.output);
                               s.t.concat = concat_heads(outputs);
                               s.out.setup(s.t.concat, w.W_o, &s.t.output);
                             },
                             [&s] { return static_cast<int>(s.out.tasks.size()); },
                             [&s](int) { return s.out.task_work(); },
                             [&s](int task) { s.out.run(task); }});
  // The whole work, from the sizes alone (for progress()).
  const double B = static_cast<double>(p.queries.size()), n_q = batch_rows(p.queries),
               n_k = batch_rows(p.keys), H = one ? 1 : p.heads, items = one && item >= 0 ? 1 : B;
  const double d_q = batch_cols(p.queries), d_k = batch_cols(p.keys), d_v = batch_cols(p.values);
  const double share = one ? 1.0 / p.heads : 1.0;  // of the projections' columns
  if (!additive) s.total += B * share * (n_q * d_q * cols_of(w.W_q) + n_k * d_k * cols_of(w.W_k));
  s.total += B * share * n_k * d_v * cols_of(w.W_v);
  s.total += items * H * (n_q * n_k * (s.hs.dq + s.hs.dv) + n_k * (s.hs.dk + s.hs.dv));
  if (!one) s.total += B * n_q * H * s.hs.dv * cols_of(w.W_o);
}

RunJob::RunJob(const Problem& p, const RunOptions& options)
    : s_(std::make_unique<State>(p, options)) {
  s_->build();
}

RunJob::RunJob(const Problem& p, int head, int item)
    : s_(std::make_unique<State>(p, RunOptions{})) {
  s_->head = head;
  s_->item = item;
  s_->build();
}

RunJob::~RunJob() = default;
RunJob::RunJob(RunJob&&) noexcept = default;
RunJob& RunJob::operator=(RunJob&&) noexcept = default;

bool RunJob::done() const {
  return s_->stage >= s_->stages.size();
}

double RunJob::progress() const {
  if (done()) return 1.0;
  return s_->total > 0 ? std::min(0.99, s_->done / s_->total) : 0.0;
}

bool RunJob::advance(double budget_ms) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const bool bounded = budget_ms > 0 && std::isfinite(budget_ms);
  const auto t0 = Clock::now();
  State& s = *s_;
  while (!done()) {
    Stage& stage = s.stages[s.stage];
    if (!s.started) {
      stage.setup();
      s.started = true;
      s.next = 0;
    }
    const int count = stage.count();
    if (s.next < count) {
      // As many tasks as the time left allows at the pace of the last part: one at least.
      int n = count - s.next;
      if (bounded) {
        const double left = budget_ms - since(t0);
        int fit = 1;
        double work = stage.work(s.next);
        while (fit < n && s.ms_per_work > 0 &&
               (work + stage.work(s.next + fit)) * s.ms_per_work <= left)
          work += stage.work(s.next + fit++);
        n = fit;
      }
      const int first = s.next;
      double work = 0;
      for (int i = 0; i < n; ++i) work += stage.work(first + i);
      const auto c0 = Clock::now();
      parallel_for(n, work, [&](int i) { stage.task(first + i); });
      if (work > 0) s.ms_per_work = since(c0) / work;
      s.next += n;
      s.done += work;
    }
    if (s.next >= count) {
      ++s.stage;
      s.started = false;
    }
    if (bounded && since(t0) >= budget_ms) break;
  }
  return done();
}

Trace RunJob::take() {
  advance(0);
  return std::move(s_->t);
}

HeadTrace RunJob::take_head() {
  advance(0);
  return std::move(s_->t.heads[0]);
}

Trace run(const Problem& p) {
  return run(p, RunOptions{});
}

Trace run(const Problem& p, const RunOptions& options) {
  return RunJob(p, options).take();
}

Batch concat_heads(const std::vector<const Batch*>& outputs) {
  const int B = static_cast<int>(outputs[0]->size());
  const int n_q = batch_rows(*outputs[0]), dv = batch_cols(*outputs[0]);
  const int H = static_cast<int>(outputs.size());
  if (H == 1) return *outputs[0];  // shared
  Batch concat(B);
  for (int b = 0; b < B; ++b) {
    Matrix& c = concat.mut(b);
    c.resize(n_q, dv * H);
    for (int h = 0; h < H; ++h) c.middleCols(h * dv, dv) = (*outputs[h])[b];
  }
  return concat;
}

Batch output_of(const Problem& p, const Batch& concat) {
  return times(concat, p.weights.W_o);
}

HeadTrace run_head(const Problem& p, int head, int item) {
  return RunJob(p, head, item).take_head();
}

namespace {

constexpr int64_t kFloat = sizeof(float);

}  // namespace

int64_t trace_bytes(const Problem& p, const RunOptions& options) {
  const HeadShape hs = head_shape(p);
  const int64_t B = static_cast<int64_t>(p.queries.size()), H = p.heads;
  const int64_t n_q = batch_rows(p.queries), n_k = batch_rows(p.keys);
  const Weights& w = p.weights;
  const bool additive = p.scoring == Scoring::kAdditive;
  int64_t floats = 0;
  // Without positional encoding Trace::queries, keys and values share the problem's matrices;
  // without W_q (or in additive scoring) q_proj shares Trace::queries, and so on.
  if (p.positional_encoding)
    floats += 2 * (batch_cells(p.queries) + batch_cells(p.keys)) +
              batch_cells(p.values);  // sums and the PE
  if (!additive && w.W_q.size()) floats += B * n_q * hs.dq * H;
  if (!additive && w.W_k.size()) floats += B * n_k * hs.dk * H;
  if (w.W_v.size()) floats += B * n_k * hs.dv * H;
  // One head's slices are the projections themselves, its output the concatenation.
  if (H > 1) floats += B * (n_q * hs.dq + n_k * hs.dk + n_k * hs.dv) * H + B * n_q * hs.dv * H;
  floats += B * n_q * hs.dv * H;                       // the heads' outputs
  if (w.W_o.size()) floats += B * n_q * w.W_o.cols();  // output (else: the concatenation)
  int64_t bytes = floats * kFloat;
  if (options.keep_head_matrices) bytes += head_matrix_bytes(p);
  return bytes;
}

int64_t head_matrix_bytes(const Problem& p) {
  const int64_t B = static_cast<int64_t>(p.queries.size());
  const int64_t n_q = batch_rows(p.queries), n_k = batch_rows(p.keys);
  return 4 * static_cast<int64_t>(p.heads) * B * n_q * n_k * static_cast<int64_t>(sizeof(float));
}

}  // namespace attn
