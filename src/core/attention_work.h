// The forward pass's parts that the core's sources share: products on the kernels, masks,
// dropout and Gumbel noise of row blocks (attention.cpp), and one head's rows and the projections
// as tasks (head_work.cpp), which attn::RunJob runs at once or in parts (run.cpp). Not the core's
// API: callers include core/attention.h.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/attention.h"
#include "core/kernels.h"

namespace attn::work {

inline int rows_of(const Matrix& m) {
  return static_cast<int>(m.rows());
}
inline int cols_of(const Matrix& m) {
  return static_cast<int>(m.cols());
}

// W (or the column block [col0, col0 + cols) of it) packed for the GEMM kernel.
std::vector<float> packed_b(const Matrix& W, int col0, int cols);

// Rows per task of a product: even, so that the kernel's row pairs stay whole and each row
// is computed as on one thread.
constexpr int kProductRows = 64;

// x · B, B packed (k × n), in blocks of kProductRows rows over the core's threads.
Matrix times_packed(const Matrix& x, const std::vector<float>& packed, int n);
Matrix times(const Matrix& x, const Matrix& W);
// x · W for every batch item (W packed once), or x itself (its matrices shared) when W is absent.
Batch times(const Batch& x, const Matrix& W);
// Columns [col0, col0 + cols) of every batch item: x itself (shared) when that is all of them.
Batch slice_cols(const Batch& x, int col0, int cols);

// The raw scores of queries q against keys k under p's scoring (its score_* function).
Matrix scores_of(const Problem& p, const Matrix& q, const Matrix& k);

// Sets the masked cells of rows [i0, i0 + x.rows()) of batch item b to m.mask_value.
void mask_rows(Matrix* x, const MaskSpec& m, int b, int i0);
// Dropout on rows [i0, i0 + w.rows()) of the n_q × n_k weights of (head, batch).
void dropout_rows(Matrix* weights, float p, uint64_t seed, int head, int batch, int batch_size,
                  int n_q, int i0);
// Gumbel's perturbed scores on rows [i0, i0 + x->rows()) of the masked n_q × n_k scores of
// (head, batch): each visible cell becomes masked + gumbel_noise (divided by p.gumbel_tau with
// over_tau, as the softmax takes it); a masked cell keeps mask_value, noise-free.
void gumbel_rows(Matrix* x, const Problem& p, int head, int batch, int batch_size, int n_q, int i0,
                 bool over_tau);

// One head and batch item of the pass without n_q × n_k matrices: what every row task of it
// reads, prepared once.
struct LightItem {
  int head = 0, b = 0;
  const Matrix* q = nullptr;
  const Matrix* k = nullptr;
  const Matrix* v = nullptr;
  std::vector<float> packed_v;
  int dv = 0;
  Matrix* out = nullptr;
  // The fused kernel's inputs: scores q'·k' with q' = q·W (general) or unit rows (cosine),
  // k' unit rows (cosine); q' carries scale·log2(e) so that the scores come out in the
  // kernel's base-2 units.
  Matrix qs;
  std::vector<float> packed_kt;
  std::vector<int> lo, hi;
  std::vector<kernels::MaskedCell> cells;  // this batch item's explicit cells
};

// The heads of a forward pass as tasks, from their slices ht.q, ht.k, ht.v (one matrix per
// batch item) into heads head0, head0 + 1, … of p: every batch item, or only `only_item`
// (>= 0), the others' matrices left empty. First each (head, item) is prepared (its packed
// copies), then its rows are computed in blocks of 64, each block by the same code whatever
// thread runs it and whenever: run_head runs the tasks at once, RunJob in parts.
struct HeadsWork {
  const Problem* p = nullptr;
  float scale = 1.0f;
  bool keep = true;  // every intermediate (RunOptions::keep_head_matrices), or outputs only
  int head0 = 0;
  std::vector<LightItem> items;
  std::vector<std::array<Matrix*, 5>> kept;  // keep: scores, scaled, masked, weights, output
  std::vector<std::pair<int, int>> tasks;    // (item, first row)

  void setup(std::vector<HeadTrace>* heads, int only_item);
  // Multiply-adds, about: of preparing item i, and of one task.
  double prepare_work(int i) const;
  double task_work(int task) const;
  void prepare(int i);
  void run(int task);
};

// x · W for every batch item as tasks of kProductRows rows (the same kernel calls as
// times(x, W)), into `out`; x itself, shared, when W is absent.
struct ProductWork {
  const Batch* x = nullptr;
  std::vector<float> packed;
  int n = 0, k = 0;
  std::vector<Matrix*> out;
  std::vector<std::pair<int, int>> tasks;  // (item, first row)

  // Columns [col0, col0 + cols) of the product (cols < 0: all of them).
  void setup(const Batch& in, const Matrix& W, Batch* result, int col0 = 0, int cols = -1);
  double task_work() const { return static_cast<double>(kProductRows) * n * k; }
  void run(int task) const;
};

}  // namespace attn::work
