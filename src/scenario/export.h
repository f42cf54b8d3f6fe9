// Exports of a scenario: matrices as CSV, and NumPy / PyTorch programs that recompute it.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "scenario/scenario.h"

namespace scenario {

// RFC 4180 CSV (CRLF line ends): a header row (an empty cell, then the column labels), then
// one line per row (its label, then the numbers). Numbers are written with format_float, so
// that each reads back to exactly the same float32; non-finite ones as -inf, inf and nan.
// Labels holding a comma, a quote or a line break are quoted; a label starting with = + - @
// or a tab gets a leading ' so that a spreadsheet shows it instead of running it as a formula.
// Missing labels (a list shorter than the matrix, e.g. empty) are generated from the
// prefixes: q1, q2, ... for rows and k1, k2, ... for columns by default.
std::string matrix_csv(const attn::Matrix& m, const std::vector<std::string>& row_labels,
                       const std::vector<std::string>& col_labels,
                       const std::string& row_prefix = "q", const std::string& col_prefix = "k");

// JSON of one matrix: {"rows": [labels], "columns": [labels], "values": [[...], ...]}, labels
// as in matrix_csv, numbers as in the trace JSON (non-finite ones as "-inf", "inf", "nan").
std::string matrix_json(const attn::Matrix& m, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels,
                        const std::string& row_prefix = "q", const std::string& col_prefix = "k");

// A matrix as CSV or JSON a part at a time, for exports too long to write in one go: the
// head, then its rows in pieces of any size, then the tail. Joined, they are matrix_csv or
// matrix_json with the same labels.
enum class MatrixText { kCsv, kJson };
struct MatrixLabels {
  std::vector<std::string> rows, cols;
  std::string row_prefix = "q", col_prefix = "k";
};
std::string matrix_text_head(MatrixText f, const attn::Matrix& m, const MatrixLabels& l);
// Appends rows [first, end) of m.
void append_matrix_rows(std::string* out, MatrixText f, const attn::Matrix& m,
                        const MatrixLabels& l, Eigen::Index first, Eigen::Index end);
std::string matrix_text_tail(MatrixText f);

// A self-contained Python program that rebuilds the scenario's inputs and all its weights
// (those that `init` generates written out as numbers) and recomputes every step as the
// playground's core does, in float64. Run as a script it prints the trace JSON v1 (as
// `attention-cli eval` does). Text from the scenario (title, tokens) only ever appears in
// comments with line breaks removed, or as escaped string literals.
// If validate(s) is not "", the program only reports that error when run.
std::string export_numpy(const Scenario& s);

// The same program with float64 torch tensors. It has the same sections, functions and names
// as the NumPy one, line for line where the libraries allow.
std::string export_pytorch(const Scenario& s);

}  // namespace scenario
