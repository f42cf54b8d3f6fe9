// Tensor types of the attention core: batches of row-major float32 matrices.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace attn {

// Rows are items (tokens), columns are features, as in `x·W`. Row-major so that a token's
// vector is contiguous, which is what the dot-product kernels read.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, Eigen::Dynamic, 1>;

// A 3-D tensor [batch][rows][cols]: one matrix per batch item, all of the same shape.
using Batch = std::vector<Matrix>;

inline int batch_rows(const Batch& b) {
  return b.empty() ? 0 : static_cast<int>(b[0].rows());
}
inline int batch_cols(const Batch& b) {
  return b.empty() ? 0 : static_cast<int>(b[0].cols());
}

}  // namespace attn
