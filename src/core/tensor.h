// Tensor types of the attention core: batches of row-major float32 matrices.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace attn {

// Rows are items (tokens), columns are features, as in `x·W`. Row-major so that a token's
// vector is contiguous, which is what the dot-product kernels read.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, Eigen::Dynamic, 1>;

// A 3-D tensor [batch][rows][cols]: one matrix per batch item, all of the same shape.
//
// Copies share their matrices until one of them is written (copy on write): a Trace holds the
// inputs, their projections and each head's slice without copying them where they are the
// same matrices (no positional encoding, no W_q, one head), and a scenario, the problem made
// from it and its trace hold one copy of the inputs between them.
//
// Reading never copies: operator[] and iteration are const. Writing goes through mut(b) (or
// resize, push_back, ...), which first gives this batch matrices of its own if it shares them.
// Like std::vector, writing invalidates references into the batch; unlike it, it may also
// leave a reference taken before the write pointing at the matrices another batch still
// shares. Reading from several threads at once is safe, and so is writing different items
// from several threads once the batch has matrices of its own (after resize, say).
class Batch {
 public:
  using value_type = Matrix;
  using size_type = std::size_t;
  using const_iterator = std::vector<Matrix>::const_iterator;
  using iterator = const_iterator;

  Batch() = default;
  explicit Batch(size_type n) : items_(std::make_shared<std::vector<Matrix>>(n)) {}
  Batch(size_type n, const Matrix& m) : items_(std::make_shared<std::vector<Matrix>>(n, m)) {}
  Batch(std::initializer_list<Matrix> items)
      : items_(std::make_shared<std::vector<Matrix>>(items)) {}
  explicit Batch(std::vector<Matrix> items)
      : items_(std::make_shared<std::vector<Matrix>>(std::move(items))) {}

  size_type size() const { return items_ ? items_->size() : 0; }
  bool empty() const { return size() == 0; }
  const Matrix& operator[](size_type b) const { return (*items_)[b]; }
  const Matrix& front() const { return items_->front(); }
  const Matrix& back() const { return items_->back(); }
  const_iterator begin() const { return items_ ? items_->cbegin() : const_iterator(); }
  const_iterator end() const { return items_ ? items_->cend() : const_iterator(); }

  // Item b, to write: this batch's own copy from here on.
  Matrix& mut(size_type b) { return own()[b]; }
  void resize(size_type n) { own().resize(n); }
  void reserve(size_type n) { own().reserve(n); }
  void assign(size_type n, const Matrix& m) {
    items_ = std::make_shared<std::vector<Matrix>>(n, m);
  }
  void clear() { items_.reset(); }
  void push_back(Matrix m) { own().push_back(std::move(m)); }
  template <class... Args>
  Matrix& emplace_back(Args&&... args) {
    return own().emplace_back(std::forward<Args>(args)...);
  }

  // Whether the two hold the very same matrices (not a test of equal values).
  bool shares(const Batch& other) const { return items_ && items_ == other.items_; }

 private:
  std::vector<Matrix>& own() {
    if (!items_)
      items_ = std::make_shared<std::vector<Matrix>>();
    else if (items_.use_count() > 1)
      items_ = std::make_shared<std::vector<Matrix>>(*items_);
    return *items_;
  }

  std::shared_ptr<std::vector<Matrix>> items_;
};

inline int batch_rows(const Batch& b) {
  return b.empty() ? 0 : static_cast<int>(b[0].rows());
}
inline int batch_cols(const Batch& b) {
  return b.empty() ? 0 : static_cast<int>(b[0].cols());
}
// Numbers in the batch: size × rows × cols.
inline int64_t batch_cells(const Batch& b) {
  return static_cast<int64_t>(b.size()) * batch_rows(b) * batch_cols(b);
}

}  // namespace attn
