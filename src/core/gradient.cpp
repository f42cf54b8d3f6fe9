// attn::gradients: the float32 backward pass on the attention kernels (core/kernels.h), which
// the Optimizer, the CLI and the app use. Its float64 reference is gradient_reference.cpp, its
// checks gradient_checks.cpp.
//
// Over the forward trace of attn::run (head matrices kept), with best_kernels():
//   - every product on kernels::gemm, B packed by pack_b (or pack_bt for a product with Bᵀ),
//     a transposed A (dSᵀ·Q, Aᵀ·dO, Xᵀ·dP) as an explicit transposed copy;
//   - each softmax row's backward on kernels::softmax_backward_row (masks: the row's visible
//     interval plus its explicit cells, as in the forward);
//   - the weight gradients summed over batch items (and heads, for general scoring's W) by one
//     product over stacked rows: Σ_b X_bᵀ·dP_b = [X_0; X_1; …]ᵀ·[dP_0; dP_1; …].
// Threads (core/parallel.h): each product is packed once, then its rows are computed in blocks
// of kRows over the core's threads, as the forward's products are; the softmax backward, the
// transposes and dropout's rows are split the same way. Every row is computed by the same code
// on any thread, so the gradients are the same bits with 1, 2 or 8 threads.
// Scalar float32 loops where the work is not the hot path: the loss (summed in float64) and
// dY, dropout's fixed mask (one hash per weight, as the forward draws it), cosine scoring's
// normalisation (O(n·d) per head), gaussian scoring's row and column sums and σ's gradient
// (O(n_q·n_k) per head) and additive scoring's tanh network (O(n_q·n_k·hidden), like
// its forward, which is a scalar loop too).
//
// [SECTION] Helpers
// [SECTION] The backward pass
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "core/attention_work.h"
#include "core/gradient.h"
#include "core/kernels.h"
#include "core/parallel.h"

namespace attn {

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

namespace {

namespace k = kernels;

// Rows per task when a product or a row loop is split over threads: even, so that the GEMM
// micro-kernel's row pairs stay whole and every row is computed as on one thread.
constexpr int kRows = 64;

// Work (multiply-adds, or about that in other operations) below which a loop or a product is
// not split: four times the forward's kMinParallelWork (measured: splitting n = 256's loops
// made one head's backward 0.87x of one thread; bench/README.md).
constexpr double kMinSplitWork = 4 * kMinParallelWork;

// fn(r0, r1) for blocks [r0, r1) of kRows rows of [0, rows), over the core's threads when
// the rows hold kMinSplitWork (row_work each) or more, else in order on this thread.
template <class Fn>
void row_blocks(int rows, double row_work, const Fn& fn) {
  const int tasks = (rows + kRows - 1) / kRows;
  parallel_for(
      tasks, rows * row_work,
      [&](int task) {
        const int r0 = task * kRows;
        fn(r0, std::min(rows, r0 + kRows));
      },
      kMinSplitWork);
}

// Products on the kernels, each packing its B into `pack` (reused between calls), then its
// rows in blocks over the threads.
struct Products {
  const k::KernelSet& ks;
  std::vector<float> pack;

  // C (m × n, row stride ldc) = A (m × kk, lda) · B (kk × n, row-major, ldb).
  void ab(int m, int n, int kk, const float* a, int lda, const float* b, int ldb, float* c,
          int ldc) {
    pack.resize(k::packed_size(kk, n));
    k::pack_b(kk, n, b, ldb, pack.data());
    rows(m, n, kk, a, lda, c, ldc);
  }
  // C (m × n, ldc) = A (m × kk, lda) · Bᵀ, with B given as n × kk (row stride ldb).
  void abt(int m, int n, int kk, const float* a, int lda, const float* b, int ldb, float* c,
           int ldc) {
    pack.resize(k::packed_size(kk, n));
    k::pack_bt(kk, n, b, ldb, pack.data());
    rows(m, n, kk, a, lda, c, ldc);
  }

 private:
  void rows(int m, int n, int kk, const float* a, int lda, float* c, int ldc) {
    row_blocks(m, static_cast<double>(n) * kk, [&](int r0, int r1) {
      k::gemm(ks, r1 - r0, n, kk, a + static_cast<ptrdiff_t>(r0) * lda, lda, pack.data(),
              c + static_cast<ptrdiff_t>(r0) * ldc, ldc);
    });
  }
};

// dst (cols × rows, row stride ldd) = the transpose of src (rows × cols, row stride lds), in
// 16 × 16 tiles: element by element, the two n × n transposes wrote one float per cache line
// and took 28% of attn::gradients at n = 1024 (natively; 20.8 → 31.6 GFLOP/s with tiles).
// Blocks of kRows source rows (dst's columns) over the threads.
void transpose(int rows, int cols, const float* src, int lds, float* dst, int ldd) {
  constexpr int kTile = 16;
  static_assert(kRows % kTile == 0, "a thread's rows are whole tiles");
  row_blocks(rows, cols, [&](int r0, int r1) {
    for (int i0 = r0; i0 < r1; i0 += kTile) {
      const int i1 = std::min(r1, i0 + kTile);
      for (int j0 = 0; j0 < cols; j0 += kTile) {
        const int j1 = std::min(cols, j0 + kTile);
        for (int j = j0; j < j1; ++j) {
          float* d = dst + static_cast<ptrdiff_t>(j) * ldd;
          for (int i = i0; i < i1; ++i) d[i] = src[static_cast<ptrdiff_t>(i) * lds + j];
        }
      }
    }
  });
}

// A row-major float matrix in a vector, for the stacked and scratch matrices.
struct Buf {
  int rows = 0, cols = 0;
  std::vector<float> v;
  void resize(int r, int c) {
    rows = r;
    cols = c;
    v.assign(static_cast<size_t>(r) * c, 0.0f);
  }
  float* row(int i) { return v.data() + static_cast<ptrdiff_t>(i) * cols; }
  const float* row(int i) const { return v.data() + static_cast<ptrdiff_t>(i) * cols; }
  float* data() { return v.data(); }
};

// Rows [row0, row0 + rows) of a stacked buffer as a float64 matrix.
MatrixD rows_of(const Buf& m, int row0, int rows) {
  MatrixD out(rows, m.cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < m.cols; ++j) out(i, j) = m.row(row0 + i)[j];
  return out;
}

MatrixD to_double(const Buf& m) {
  return rows_of(m, 0, m.rows);
}

// The explicit cells of one batch item, by row: the columns masked in row i are
// cols[start[i] .. start[i + 1]).
struct RowCells {
  std::vector<int> start, cols;
  void build(const MaskSpec& m, int b, int n_q) {
    start.assign(n_q + 1, 0);
    cols.clear();
    for (const auto& c : m.cells)
      if (c[0] == b) ++start[c[1] + 1];
    for (int i = 0; i < n_q; ++i) start[i + 1] += start[i];
    cols.resize(start[n_q]);
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (const auto& c : m.cells)
      if (c[0] == b) cols[fill[c[1]]++] = c[2];
  }
  const int* of(int i) const { return cols.data() + start[i]; }
  int count(int i) const { return start[i + 1] - start[i]; }
};

// The rows of a head's q or k (x) scaled to unit length as the forward's cosine scoring does
// (attn::unit_rows), and their lengths (attn::vector_length, in double: a length past float32's
// range is kept, not taken as infinite).
void unit_rows(const Matrix& x, Buf* unit, std::vector<double>* norms) {
  const int rows = static_cast<int>(x.rows()), cols = static_cast<int>(x.cols());
  unit->resize(rows, cols);
  norms->resize(rows);
  for (int i = 0; i < rows; ++i) {
    const float* row = x.data() + static_cast<ptrdiff_t>(i) * cols;
    const double n = vector_length(row, cols);
    (*norms)[i] = n;
    if (n > 0.0)
      for (int c = 0; c < cols; ++c) unit->row(i)[c] = static_cast<float>(row[c] / n);
  }
}

// The gradient through x̂ = x / |x| (row by row): dx = (dx̂ − (dx̂·x̂) x̂) / |x|, 0 where x = 0,
// written to dst (row stride ldd). The division is in double, by the double length.
void through_unit_rows(const Buf& dunit, const Buf& unit, const std::vector<double>& norms,
                       float* dst, int ldd) {
  for (int i = 0; i < unit.rows; ++i) {
    float* out = dst + static_cast<ptrdiff_t>(i) * ldd;
    if (norms[i] == 0.0) {
      std::fill(out, out + unit.cols, 0.0f);
      continue;
    }
    const float* du = dunit.row(i);
    const float* u = unit.row(i);
    float dot = 0.0f;
    for (int c = 0; c < unit.cols; ++c) dot += du[c] * u[c];
    for (int c = 0; c < unit.cols; ++c)
      out[c] = static_cast<float>((du[c] - dot * u[c]) / norms[i]);
  }
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] The backward pass
//-----------------------------------------------------------------------------

namespace {

// The backward pass from dY, the loss's gradient with respect to the output, stacked over the
// batch (B·n_q × d_out): gradients() and backward() in one.
Status backward_from(const Problem& p, const Trace& t, Buf dY, double loss, Gradients* out) {
  Products mul{k::best_kernels(), {}};
  const k::KernelSet& ks = mul.ks;
  const Weights& w = p.weights;
  const HeadShape hs = head_shape(p);
  const int B = static_cast<int>(t.output.size()), H = p.heads;
  const int n_q = batch_rows(t.queries), n_k = batch_rows(t.keys);
  const int d_out = batch_cols(t.output), d_cat = batch_cols(t.concat);
  const int wq = batch_cols(t.q_proj), wk = batch_cols(t.k_proj), wv = batch_cols(t.v_proj);
  const int Bq = B * n_q, Bk = B * n_k;  // rows of the stacked batch
  const bool additive = p.scoring == Scoring::kAdditive;
  const bool dropout = p.dropout_p > 0.0f;
  // Where the weights that multiplied the values are not the softmax the backward goes through
  // (dropout rescaled some; hard attention, straight through or Gumbel's, made them one-hot;
  // Gumbel's soft weights are that softmax, but of noise drawn again here), it computes that
  // softmax again.
  const bool softmax_again = dropout || p.hard;
  // Gumbel: that softmax is of (masked + noise) / tau, the noise drawn again as the forward drew
  // it, and a score's gradient through it carries 1/tau besides the scores' scale.
  const bool noisy = gumbel(p);
  const float back_scale = noisy ? hs.scale / p.gumbel_tau : hs.scale;
  const float keep_scale = 1.0f / (1.0f - p.dropout_p);  // as the forward scales the kept

  Gradients g;
  g.loss = loss;

  // Through W_o: dW_o = Σ_b concat_bᵀ·dY_b, dConcat = dY·W_oᵀ.
  Buf dConcat;
  if (w.W_o.size()) {
    Buf concat_t;
    concat_t.resize(d_cat, Bq);
    for (int b = 0; b < B; ++b)
      transpose(n_q, d_cat, t.concat[b].data(), d_cat, concat_t.data() + b * n_q, Bq);
    Buf gWo;
    gWo.resize(d_cat, d_out);
    mul.ab(d_cat, d_out, Bq, concat_t.data(), Bq, dY.data(), d_out, gWo.data(), d_out);
    g.W_o = to_double(gWo);
    dConcat.resize(Bq, d_cat);
    mul.abt(Bq, d_cat, d_out, dY.data(), d_out, w.W_o.data(), d_out, dConcat.data(), d_cat);
  } else {
    dConcat = std::move(dY);
  }

  // The gradients of the projected queries, keys and values (stacked), and what general and
  // additive scoring gather for their weights over every batch item and head.
  Buf dQp, dKp, dVp;
  dQp.resize(Bq, wq);
  dKp.resize(Bk, wk);
  dVp.resize(Bk, wv);
  Buf general_qt, general_t1;  // general: [q_bh]ᵀ and [dS_bh·k_bh], stacked over (b, h)
  if (p.scoring == Scoring::kGeneral) {
    general_qt.resize(hs.dq, B * H * n_q);
    general_t1.resize(B * H * n_q, hs.dk);
  }
  const int hidden = additive ? static_cast<int>(w.w_v.size()) : 0;
  Buf dqa, dka;  // additive: ∂L/∂(q·W_q) and ∂L/∂(k·W_k), stacked over b
  if (additive) {
    dqa.resize(Bq, hidden);
    dka.resize(Bk, hidden);
  }

  // One (batch item, head) at a time per thread, each with scratch of its own: a task takes a
  // free one, so there are never more than threads run at once. Split over threads when
  // there are several and enough work (else each product's rows are split, as above).
  struct Scratch {
    explicit Scratch(const k::KernelSet& set) : mul{set, {}} {}
    Products mul;
    Buf A, dS, At, dSt, t2, unit_q, unit_k, dunit_q, dunit_k, qa, ka;
    std::vector<double> norm_q, norm_k;
    std::vector<int> lo, hi;
    RowCells cells;
    int item = -1;  // the batch item lo, hi and cells are for
    bool sized = false;
  };
  std::vector<std::unique_ptr<Scratch>> spare;
  std::mutex spare_mutex;
  // Additive scoring's Σ over the pairs for w_v, per batch item (summed in order below).
  std::vector<float> gwv_items(static_cast<size_t>(B) * hidden, 0.0f);
  // Gaussian scoring's ∂L/∂σ, per (batch item, head) (summed in order below).
  std::vector<double> gsigma_pairs(static_cast<size_t>(B) * H, 0.0);

  const auto pair_backward = [&](int pair) {
    const int b = pair / H, h = pair % H;
    std::unique_ptr<Scratch> held;
    {
      std::lock_guard<std::mutex> lock(spare_mutex);
      if (!spare.empty()) {
        held = std::move(spare.back());
        spare.pop_back();
      }
    }
    if (!held) held = std::make_unique<Scratch>(ks);
    Scratch& sc = *held;
    Buf &A = sc.A, &dS = sc.dS, &At = sc.At, &dSt = sc.dSt, &t2 = sc.t2;
    Buf &unit_q = sc.unit_q, &unit_k = sc.unit_k, &dunit_q = sc.dunit_q, &dunit_k = sc.dunit_k;
    Buf &qa = sc.qa, &ka = sc.ka;
    std::vector<double>&norm_q = sc.norm_q, &norm_k = sc.norm_k;
    std::vector<int>&lo = sc.lo, &hi = sc.hi;
    RowCells& cells = sc.cells;
    if (sc.item != b) {
      lo.resize(n_q);
      hi.resize(n_q);
      for (int i = 0; i < n_q; ++i) visible_range(p.mask, b, i, n_k, &lo[i], &hi[i]);
      cells.build(p.mask, b, n_q);
      sc.item = b;
    }
    if (!sc.sized) {
      sc.sized = true;
      dS.resize(n_q, n_k);
      At.resize(n_k, n_q);
      dSt.resize(n_k, n_q);
      if (softmax_again) A.resize(n_q, n_k);
    }
    float* gwv = gwv_items.data() + static_cast<ptrdiff_t>(b) * hidden;
    const HeadTrace& ht = t.heads[h];
    const Matrix& q = ht.q[b];           // n_q × dq
    const Matrix& kk = ht.k[b];          // n_k × dk
    const Matrix& v = ht.v[b];           // n_k × dv
    const Matrix& used = ht.weights[b];  // what multiplied the values (one-hot, after dropout)
    // The softmax weights before dropout (or instead of the one-hot ones): the forward's softmax
    // of the masked scores again.
    const float* a = used.data();
    if (softmax_again) {
      row_blocks(n_q, 8.0 * n_k, [&](int r0, int r1) {
        if (noisy) {
          Matrix z = ht.masked[b].middleRows(r0, r1 - r0);
          work::gumbel_rows(&z, p, h, b, B, n_q, r0, true);
          for (int i = r0; i < r1; ++i) ks.softmax_row(n_k, z.row(i - r0).data(), A.row(i));
          return;
        }
        for (int i = r0; i < r1; ++i) ks.softmax_row(n_k, ht.masked[b].row(i).data(), A.row(i));
      });
      a = A.data();
    }
    // dO: this head's columns of dConcat. dA = dO·vᵀ (⊙ the dropout mask), held in dS until
    // the softmax backward turns it into dS; dV = (A after dropout)ᵀ·dO.
    const float* dO = dConcat.row(b * n_q) + h * hs.dv;
    sc.mul.abt(n_q, n_k, hs.dv, dO, d_cat, v.data(), hs.dv, dS.data(), n_k);
    if (dropout) {
      row_blocks(n_q, 8.0 * n_k, [&](int r0, int r1) {
        for (int i = r0; i < r1; ++i)
          for (int j = 0; j < n_k; ++j) {
            float& da = dS.row(i)[j];
            da = dropout_draw(p.dropout_seed, h, b, i, j, B, n_q, n_k) < p.dropout_p
                     ? 0.0f
                     : da * keep_scale;
          }
      });
    }
    transpose(n_q, n_k, used.data(), n_k, At.data(), n_q);
    sc.mul.ab(n_k, hs.dv, n_q, At.data(), n_q, dO, d_cat, dVp.row(b * n_k) + h * hs.dv, wv);
    // dS, in place over dA: the gradient of the raw scores; masked cells get exactly 0.
    row_blocks(n_q, 4.0 * n_k, [&](int r0, int r1) {
      for (int i = r0; i < r1; ++i)
        ks.softmax_backward_row(n_k, a + static_cast<ptrdiff_t>(i) * n_k, dS.row(i), back_scale,
                                lo[i], hi[i], cells.of(i), cells.count(i), dS.row(i));
    });
    transpose(n_q, n_k, dS.data(), n_k, dSt.data(), n_q);

    float* dq = dQp.row(b * n_q) + h * hs.dq;
    float* dk = dKp.row(b * n_k) + h * hs.dk;
    switch (p.scoring) {
      case Scoring::kDot:
      case Scoring::kScaledDot:  // S = q·kᵀ: dq = dS·k, dk = dSᵀ·q
        sc.mul.ab(n_q, hs.dq, n_k, dS.data(), n_k, kk.data(), hs.dk, dq, wq);
        sc.mul.ab(n_k, hs.dk, n_q, dSt.data(), n_q, q.data(), hs.dq, dk, wk);
        break;
      case Scoring::kGeneral: {  // S = q·W·kᵀ: dq = (dS·k)·Wᵀ, dk = (dSᵀ·q)·W, dW = qᵀ·dS·k
        const int slot = (b * H + h) * n_q;
        float* dsk = general_t1.row(slot);
        sc.mul.ab(n_q, hs.dk, n_k, dS.data(), n_k, kk.data(), hs.dk, dsk, hs.dk);
        sc.mul.abt(n_q, hs.dq, hs.dk, dsk, hs.dk, w.W.data(), hs.dk, dq, wq);
        transpose(n_q, hs.dq, q.data(), hs.dq, general_qt.data() + slot, B * H * n_q);
        t2.resize(n_k, hs.dq);
        sc.mul.ab(n_k, hs.dq, n_q, dSt.data(), n_q, q.data(), hs.dq, t2.data(), hs.dq);
        sc.mul.ab(n_k, hs.dk, hs.dq, t2.data(), hs.dq, w.W.data(), hs.dk, dk, wk);
        break;
      }
      case Scoring::kCosine: {  // S = q̂·k̂ᵀ: dq̂ = dS·k̂, dk̂ = dSᵀ·q̂, then through x / |x|
        unit_rows(q, &unit_q, &norm_q);
        unit_rows(kk, &unit_k, &norm_k);
        dunit_q.resize(n_q, hs.dq);
        dunit_k.resize(n_k, hs.dk);
        sc.mul.ab(n_q, hs.dq, n_k, dS.data(), n_k, unit_k.data(), hs.dk, dunit_q.data(), hs.dq);
        sc.mul.ab(n_k, hs.dk, n_q, dSt.data(), n_q, unit_q.data(), hs.dq, dunit_k.data(), hs.dk);
        through_unit_rows(dunit_q, unit_q, norm_q, dq, wq);
        through_unit_rows(dunit_k, unit_k, norm_k, dk, wk);
        break;
      }
      case Scoring::kGaussian: {  // S_ij = −|q_i − k_j|² / (2σ²)
        // ∂S_ij/∂q_i = (k_j − q_i)/σ², ∂S_ij/∂k_j = (q_i − k_j)/σ², ∂S_ij/∂σ = −2·S_ij/σ:
        // dq = (dS·k − rowsum(dS) ⊙ q)/σ², dk = (dSᵀ·q − colsum(dS) ⊙ k)/σ², and σ's
        // gradient from the trace's raw scores (a masked cell, dS = 0, is skipped: its score
        // may be anything).
        const double sigma = w.sigma;
        const float inv_s2 = static_cast<float>(1.0 / (sigma * sigma));
        sc.mul.ab(n_q, hs.dq, n_k, dS.data(), n_k, kk.data(), hs.dk, dq, wq);
        sc.mul.ab(n_k, hs.dk, n_q, dSt.data(), n_q, q.data(), hs.dq, dk, wk);
        const Matrix& S = ht.scores[b];
        double gsigma = 0.0;
        for (int i = 0; i < n_q; ++i) {
          float row = 0.0f;
          for (int j = 0; j < n_k; ++j) {
            const float ds = dS.row(i)[j];
            row += ds;
            if (ds != 0.0f) gsigma += static_cast<double>(ds) * S(i, j);
          }
          float* dq_i = dq + static_cast<ptrdiff_t>(i) * wq;
          for (int c = 0; c < hs.dq; ++c) dq_i[c] = (dq_i[c] - row * q(i, c)) * inv_s2;
        }
        for (int j = 0; j < n_k; ++j) {
          float col = 0.0f;
          for (int i = 0; i < n_q; ++i) col += dSt.row(j)[i];
          float* dk_j = dk + static_cast<ptrdiff_t>(j) * wk;
          for (int c = 0; c < hs.dk; ++c) dk_j[c] = (dk_j[c] - col * kk(j, c)) * inv_s2;
        }
        gsigma_pairs[static_cast<size_t>(pair)] = -2.0 * gsigma / sigma;
        break;
      }
      case Scoring::kAdditive: {  // S_ij = Σ_u w_v[u]·tanh(qa_iu + ka_ju), qa = q·W_q, ka = k·W_k
        // The forward's own products (the same kernel on the same packing: the same bits).
        qa.resize(n_q, hidden);
        ka.resize(n_k, hidden);
        sc.mul.ab(n_q, hidden, hs.dq, q.data(), hs.dq, w.W_q.data(), hidden, qa.data(), hidden);
        sc.mul.ab(n_k, hidden, hs.dk, kk.data(), hs.dk, w.W_k.data(), hidden, ka.data(), hidden);
        const float* wv_u = w.w_v.data();
        for (int i = 0; i < n_q; ++i) {
          float* dqa_i = dqa.row(b * n_q + i);
          for (int j = 0; j < n_k; ++j) {
            const float ds = dS.row(i)[j];
            if (ds == 0.0f) continue;
            const float* qa_i = qa.row(i);
            const float* ka_j = ka.row(j);
            float* dka_j = dka.row(b * n_k + j);
            for (int u = 0; u < hidden; ++u) {
              const float th = std::tanh(qa_i[u] + ka_j[u]);
              gwv[u] += ds * th;
              const float dz = ds * wv_u[u] * (1.0f - th * th);
              dqa_i[u] += dz;
              dka_j[u] += dz;
            }
          }
        }
        // dq = dqa·W_qᵀ, dk = dka·W_kᵀ (one head: the whole width).
        sc.mul.abt(n_q, hs.dq, hidden, dqa.row(b * n_q), hidden, w.W_q.data(), hidden, dq, wq);
        sc.mul.abt(n_k, hs.dk, hidden, dka.row(b * n_k), hidden, w.W_k.data(), hidden, dk, wk);
        break;
      }
    }
    std::lock_guard<std::mutex> lock(spare_mutex);
    spare.push_back(std::move(held));
  };
  const int pairs = B * H;
  // Each pair must be worth a thread of its own (kMinParallelWork, core/parallel.h), so the
  // work given is one pair's; else the pairs go in order (as does a single one), and each
  // product's rows are split where they are worth it.
  const double pair_work = static_cast<double>(n_q) * n_k * (hs.dq + hs.dv);
  parallel_for(pairs, pair_work, pair_backward);
  std::vector<float> gwv(hidden, 0.0f);
  for (int b = 0; b < B; ++b)
    for (int u = 0; u < hidden; ++u) gwv[u] += gwv_items[static_cast<size_t>(b) * hidden + u];

  // The weights gathered over the batch (and heads): one product each.
  // Σ_b X_bᵀ·dP_b for inputs X (one n × d_in matrix per batch item) and dP (stacked).
  const auto weight_grad = [&](const Batch& X, const Buf& dP) {
    const int n = batch_rows(X), d_in = batch_cols(X), rows = dP.rows;
    Buf xt, gw;
    xt.resize(d_in, rows);
    for (size_t b = 0; b < X.size(); ++b)
      transpose(n, d_in, X[b].data(), d_in, xt.data() + b * n, rows);
    gw.resize(d_in, dP.cols);
    mul.ab(d_in, dP.cols, rows, xt.data(), rows, dP.v.data(), dP.cols, gw.data(), dP.cols);
    return to_double(gw);
  };
  if (p.scoring == Scoring::kGeneral) {
    Buf gW;
    gW.resize(hs.dq, hs.dk);
    const int rows = B * H * n_q;
    mul.ab(hs.dq, hs.dk, rows, general_qt.data(), rows, general_t1.data(), hs.dk, gW.data(), hs.dk);
    g.W = to_double(gW);
  }
  if (p.scoring == Scoring::kGaussian)
    for (double gs : gsigma_pairs) g.sigma += gs;
  if (additive) {
    g.W_q = weight_grad(t.queries, dqa);
    g.W_k = weight_grad(t.keys, dka);
    g.w_v = Eigen::Map<const Eigen::VectorXf>(gwv.data(), hidden).cast<double>();
  }

  // Through the projections: dW = Σ_b X_bᵀ·dP_b and dX = dP·Wᵀ, or dX = dP without one.
  // Additive scoring's W_q and W_k belong to its scorer (done above), not to projections.
  const auto back = [&](const Buf& dP, const Batch& X, const Matrix& W, MatrixD* dW, BatchD* dX) {
    const int n = batch_rows(X);
    if (!W.size()) {
      for (int b = 0; b < B; ++b) dX->push_back(rows_of(dP, b * n, n));
      return;
    }
    *dW = weight_grad(X, dP);
    const int d_in = static_cast<int>(W.rows()), d_p = static_cast<int>(W.cols());
    Buf dx;
    dx.resize(dP.rows, d_in);
    mul.abt(dP.rows, d_in, d_p, dP.v.data(), d_p, W.data(), d_p, dx.data(), d_in);
    for (int b = 0; b < B; ++b) dX->push_back(rows_of(dx, b * n, n));
  };
  static const Matrix kNone;
  back(dQp, t.queries, additive ? kNone : w.W_q, &g.W_q, &g.queries);
  back(dKp, t.keys, additive ? kNone : w.W_k, &g.W_k, &g.keys);
  back(dVp, t.values, w.W_v, &g.W_v, &g.values);
  *out = std::move(g);
  return Status{};
}

}  // namespace

Status gradients(const Problem& p, const Batch& target, Gradients* out) {
  Trace t;
  const Status st = forward_for_gradients(p, target, &t);
  if (!st.ok()) return st;
  // The loss (float64, as exact as the reference's) and dY = 2·(output − target)/count.
  const int B = static_cast<int>(t.output.size());
  const int n_q = batch_rows(t.output), d_out = batch_cols(t.output);
  const double count = static_cast<double>(B) * n_q * d_out;
  double loss = 0.0;
  Buf dY;
  dY.resize(B * n_q, d_out);
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < n_q; ++i)
      for (int j = 0; j < d_out; ++j) {
        const double diff = static_cast<double>(t.output[b](i, j)) - target[b](i, j);
        loss += diff * diff;
        dY.row(b * n_q + i)[j] = static_cast<float>(2.0 * diff / count);
      }
  return backward_from(p, t, std::move(dY), loss / count, out);
}

Status backward(const Problem& p, const Trace& t, const Batch& dY, Gradients* out) {
  Status st = check_gradient(p);
  if (!st.ok()) return st;
  st = check_gradient(p, t, dY);  // dY has the output's shape, as a target has
  if (!st.ok()) return st;
  const int B = static_cast<int>(dY.size()), n_q = batch_rows(dY), d_out = batch_cols(dY);
  Buf stacked;
  stacked.resize(B * n_q, d_out);
  for (int b = 0; b < B; ++b)
    std::copy(dY[b].data(), dY[b].data() + dY[b].size(), stacked.row(b * n_q));
  return backward_from(p, t, std::move(stacked), 0.0, out);
}

}  // namespace attn
