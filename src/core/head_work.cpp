// One head's rows as tasks: step by step (every intermediate kept, or in row blocks when the
// scoring, hard attention or dropout has no fused path), or through the fused kernel without
// the n_q × n_k matrices; and the projections as tasks (attn::work::HeadsWork, ProductWork,
// which attn::RunJob in run.cpp runs).
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "core/attention.h"
#include "core/attention_work.h"
#include "core/kernels.h"
#include "core/kernels_exp.h"

namespace attn {

using namespace work;

HeadShape head_shape(const Problem& p) {
  const Weights& w = p.weights;
  // In additive scoring W_q and W_k belong to the scoring network, not to a projection.
  const bool projected = scoring_info(p.scoring).projects;
  HeadShape s;
  s.dq = (projected && w.W_q.size() ? cols_of(w.W_q) : batch_cols(p.queries)) / p.heads;
  s.dk = (projected && w.W_k.size() ? cols_of(w.W_k) : batch_cols(p.keys)) / p.heads;
  s.dv = (w.W_v.size() ? cols_of(w.W_v) : batch_cols(p.values)) / p.heads;
  s.scale = score_scale(p.scoring, s.dk, p.temperature);
  return s;
}

namespace {

// Rows per block when hard attention, dropout or additive scoring run without keeping the
// head matrices: four 64 × n_k matrices at a time.
constexpr int kRowBlock = 64;

// Rows [i0, i0 + rows) of every intermediate of one head and batch item, step by step.
struct HeadRows {
  Matrix scores, scaled, masked, weights, output;
};

void head_rows(const Problem& p, int head, int b, const Matrix& q, const Matrix& k,
               const std::vector<float>& packed_v, int dv, float scale, int i0, int rows,
               HeadRows* r) {
  const int B = static_cast<int>(p.queries.size());
  r->scores = rows == rows_of(q) ? scores_of(p, q, k) : scores_of(p, q.middleRows(i0, rows), k);
  r->scaled.resize(r->scores.rows(), r->scores.cols());
  kernels::best_kernels().vscale(static_cast<int>(r->scores.size()), r->scores.data(), scale,
                                 r->scaled.data());
  r->masked = r->scaled;
  mask_rows(&r->masked, p.mask, b, i0);
  if (gumbel(p)) {
    // Gumbel: the weights come from the masked scores plus noise (the trace keeps the masked
    // scores themselves); soft, their softmax at temperature tau, else their one-hot argmax.
    Matrix y = r->masked;
    gumbel_rows(&y, p, head, b, B, rows_of(q), i0, p.gumbel_soft);
    r->weights = p.gumbel_soft ? softmax_rows(y) : hard_rows(y);
  } else {
    r->weights = p.hard ? hard_rows(r->masked) : softmax_rows(r->masked);
  }
  dropout_rows(&r->weights, p.dropout_p, p.dropout_seed, head, b, B, rows_of(q), i0);
  r->output = times_packed(r->weights, packed_v, dv);
}

// Rows per task when a head's output is computed without its n_q × n_k matrices: a multiple
// of the fused kernel's block (kernels::kFusedRows) and of kRowBlock, so that each task runs
// exactly the blocks one thread would: the results do not depend on the thread count.
constexpr int kTaskRows = 64;
static_assert(kTaskRows % kernels::kFusedRows == 0 && kTaskRows % kRowBlock == 0,
              "tasks must cut rows where the kernels' blocks are cut");

// Whether a head's output comes from the fused kernel (softmax attention with dot-product-
// like scores) or from row blocks of head_rows.
bool fused_path(const Problem& p) {
  return !(p.hard || p.dropout_p > 0.0f ||
           scoring_info(p.scoring).fused == ScoringInfo::Fused::kNone);
}

void prepare_light(const Problem& p, float scale, LightItem* it) {
  const Matrix& q = *it->q;
  const Matrix& k = *it->k;
  const Matrix& v = *it->v;
  it->dv = cols_of(v);
  it->packed_v.resize(kernels::packed_size(rows_of(v), it->dv));
  kernels::pack_b(rows_of(v), it->dv, v.data(), it->dv, it->packed_v.data());
  it->out->resize(rows_of(q), it->dv);
  if (!fused_path(p)) return;
  const kernels::KernelSet& ks = kernels::best_kernels();
  // The scores' q' and k' (ScoringInfo::fused); dot and scaled dot scale q itself, in the same
  // pass that copies it.
  const ScoringInfo::Fused form = scoring_info(p.scoring).fused;
  const bool plain = form == ScoringInfo::Fused::kDot;
  if (plain)
    it->qs.resize(q.rows(), q.cols());
  else if (form == ScoringInfo::Fused::kBilinear)
    it->qs = times(q, p.weights.W);
  else  // kUnitRows (fused_path() excludes kNone)
    it->qs = unit_rows(q);
  ks.vscale(static_cast<int>(it->qs.size()), plain ? q.data() : it->qs.data(),
            scale * kernels::kLog2e, it->qs.data());
  const bool unit_keys = form == ScoringInfo::Fused::kUnitRows;
  const Matrix k_unit = unit_keys ? unit_rows(k) : Matrix();
  const Matrix& k_scores = unit_keys ? k_unit : k;
  const int d = cols_of(it->qs), n_q = rows_of(q), n_k = rows_of(k);
  it->packed_kt.resize(kernels::packed_size(d, n_k));
  kernels::pack_bt(d, n_k, k_scores.data(), d, it->packed_kt.data());
  it->lo.resize(n_q);
  it->hi.resize(n_q);
  for (int i = 0; i < n_q; ++i) visible_range(p.mask, it->b, i, n_k, &it->lo[i], &it->hi[i]);
  it->cells.clear();
  for (const auto& c : p.mask.cells)
    if (c[0] == it->b) it->cells.push_back({c[1], c[2]});
}

// Rows [i0, i0 + rows) of a prepared item's output.
void light_rows(const Problem& p, float scale, const LightItem& it, int i0, int rows) {
  if (!fused_path(p)) {
    HeadRows r;
    for (int r0 = i0; r0 < i0 + rows; r0 += kRowBlock) {
      const int n = std::min(kRowBlock, i0 + rows - r0);
      head_rows(p, it.head, it.b, *it.q, *it.k, it.packed_v, it.dv, scale, r0, n, &r);
      it.out->middleRows(r0, n) = r.output;
    }
    return;
  }
  std::vector<kernels::MaskedCell> cells;
  for (const kernels::MaskedCell& c : it.cells)
    if (c.i >= i0 && c.i < i0 + rows) cells.push_back({c.i - i0, c.j});
  const int d = cols_of(it.qs);
  kernels::FusedArgs args;
  args.n_q = rows;
  args.n_k = rows_of(*it.k);
  args.d = d;
  args.d_v = it.dv;
  args.q = it.qs.data() + static_cast<ptrdiff_t>(i0) * d;
  args.ldq = d;
  args.packed_kt = it.packed_kt.data();
  args.packed_v = it.packed_v.data();
  args.lo = it.lo.data() + i0;
  args.hi = it.hi.data() + i0;
  args.cells = cells.data();
  args.n_cells = static_cast<int>(cells.size());
  args.mask_value = p.mask.mask_value;
  args.out = it.out->data() + static_cast<ptrdiff_t>(i0) * it.dv;
  args.ldo = it.dv;
  // One workspace per thread, kept between calls.
  thread_local kernels::FusedWorkspace ws;
  kernels::attention_fused(kernels::best_kernels(), args, &ws);
}

}  // namespace

namespace work {

void HeadsWork::setup(std::vector<HeadTrace>* heads, int only_item) {
  const int B = static_cast<int>(p->queries.size());
  for (HeadTrace& ht : *heads) {
    ht.output.resize(B);
    if (keep)
      for (Batch* m : {&ht.scores, &ht.scaled, &ht.masked, &ht.weights}) m->resize(B);
  }
  // The matrices each task writes, taken here, on one thread (Batch::mut).
  for (int h = 0; h < static_cast<int>(heads->size()); ++h) {
    HeadTrace& ht = (*heads)[h];
    for (int b = 0; b < B; ++b) {
      if (only_item >= 0 && b != only_item) continue;
      LightItem& it = items.emplace_back();
      it.head = head0 + h;
      it.b = b;
      it.q = &ht.q[b];
      it.k = &ht.k[b];
      it.v = &ht.v[b];
      it.out = &ht.output.mut(b);
      if (keep)
        kept.push_back(
            {&ht.scores.mut(b), &ht.scaled.mut(b), &ht.masked.mut(b), &ht.weights.mut(b), it.out});
    }
  }
  for (int i = 0; i < static_cast<int>(items.size()); ++i)
    for (int i0 = 0; i0 < rows_of(*items[i].q); i0 += kTaskRows) tasks.emplace_back(i, i0);
}

double HeadsWork::prepare_work(int i) const {
  const LightItem& it = items[i];
  return static_cast<double>(rows_of(*it.k)) * (cols_of(*it.k) + cols_of(*it.v)) +
         static_cast<double>(rows_of(*it.q)) * cols_of(*it.q) *
             (p->scoring == Scoring::kGeneral ? cols_of(*it.q) : 1);
}

double HeadsWork::task_work(int task) const {
  const LightItem& it = items[tasks[task].first];
  return static_cast<double>(std::min(kTaskRows, rows_of(*it.q) - tasks[task].second)) *
         rows_of(*it.k) * (cols_of(*it.q) + cols_of(*it.v));
}

void HeadsWork::prepare(int i) {
  LightItem& it = items[i];
  if (!keep) {
    prepare_light(*p, scale, &it);
    return;
  }
  it.dv = cols_of(*it.v);
  it.packed_v = packed_b(*it.v, 0, it.dv);
  const int n_q = rows_of(*it.q), n_k = rows_of(*it.k);
  if (n_q <= kTaskRows) return;  // one task, which moves its rows in
  for (int m = 0; m < 4; ++m) kept[i][m]->resize(n_q, n_k);
  kept[i][4]->resize(n_q, it.dv);
}

void HeadsWork::run(int task) {
  const auto [i, i0] = tasks[task];
  const LightItem& it = items[i];
  const int rows = std::min(kTaskRows, rows_of(*it.q) - i0);
  if (!keep) {
    light_rows(*p, scale, it, i0, rows);
    return;
  }
  HeadRows r;
  head_rows(*p, it.head, it.b, *it.q, *it.k, it.packed_v, it.dv, scale, i0, rows, &r);
  Matrix* parts[5] = {&r.scores, &r.scaled, &r.masked, &r.weights, &r.output};
  for (int m = 0; m < 5; ++m) {
    if (rows == rows_of(*it.q))
      *kept[i][m] = std::move(*parts[m]);
    else
      kept[i][m]->middleRows(i0, rows) = *parts[m];
  }
}

void ProductWork::setup(const Batch& in, const Matrix& W, Batch* result, int col0, int cols) {
  if (!W.size()) {
    *result = cols < 0 ? in : slice_cols(in, col0, cols);
    return;
  }
  x = &in;
  n = cols < 0 ? cols_of(W) : cols;
  k = rows_of(W);
  packed = packed_b(W, col0, n);
  *result = Batch(in.size());
  for (size_t b = 0; b < in.size(); ++b) {
    Matrix& m = result->mut(b);
    m.resize(in[b].rows(), n);
    out.push_back(&m);
    for (int i0 = 0; i0 < rows_of(in[b]); i0 += kProductRows)
      tasks.emplace_back(static_cast<int>(b), i0);
  }
}

void ProductWork::run(int task) const {
  const auto [b, i0] = tasks[task];
  const Matrix& in = (*x)[b];
  kernels::gemm(kernels::best_kernels(), std::min(kProductRows, rows_of(in) - i0), n, k,
                in.data() + static_cast<ptrdiff_t>(i0) * k, k, packed.data(),
                out[b]->data() + static_cast<ptrdiff_t>(i0) * n, n);
}

}  // namespace work

}  // namespace attn
