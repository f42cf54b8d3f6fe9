// The table of matrices: every matrix the playground shows, explains or exports, one row
// each — its name in exports and the JavaScript API, its symbol and title on screen, how it is
// coloured, whether masks show on it, how its rows and columns are labelled, and where it is
// in the trace. Views, the details panel, the exports and the JS API all read this table;
// adding a matrix is adding a row (and, for "behind this cell", a case in explain_cell).
//
// GL-free (part of the model that the native tests cover).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/attention.h"
#include "scenario/export.h"

namespace ui {

struct AppState;

enum class MatrixKind {
  kQueries,     // the inputs after positional encoding (when it is on)
  kKeys,        //
  kValues,      //
  kPositional,  // the PE added to the queries
  kWq,          // weights, as in x·W
  kWk,
  kWv,
  kWo,
  kQ,  // this head's slices of the projected queries, keys and values
  kK,
  kV,
  kScores,
  kScaled,
  kMasked,
  kWeights,
  kHeadOutput,  // this head's weighted sum of the value rows
  kConcat,      // the heads' outputs side by side
  kOutput,      // the final output
};

// What a matrix is to the computation: what the scenario gives (the inputs), what the
// positional encoding adds, what is learned, a step computed from those, or the result.
enum class MatrixRole { kInput, kAdded, kWeight, kStep, kOutput };

// How values map to colours: viridis for weights, purple–orange around 0 for signed values.
enum class Palette { kSequential, kDiverging };

// The value range a matrix's colours span. Matrices that are compared share one scale, so
// that S' = S/√d looks fainter than S, and O, an average of rows of V, no stronger than V.
enum class RangeRule {
  kData,         // its own finite values (symmetric around 0 on the diverging palette)
  kWeights,      // 0 to 1; from the data when dropout scales the survivors above 1
  kScores,       // S, S' and M of one head and batch item share ±(largest |S| or |S'|)
  kActivations,  // X, Q and K share one scale (they are compared); V, the head outputs, their
                 // concatenation and the output another (what is carried)
};

// What the rows or the columns of a matrix are, and so how they are labelled.
enum class Axis {
  kQueryTokens,  // the query tokens (or q1, q2, ...)
  kKeyTokens,    // the key tokens (or k1, k2, ...)
  // Feature axes are labelled d1, d2, ... (one way everywhere), or by the lesson's
  // feature_names, key_feature_names, value_names and output_names where the columns are the
  // named ones (no projection between, or the output's named space).
  kInputFeatures,   // the columns of the queries and keys (x)
  kKeyFeatures,     // the columns of the keys (the queries' unless key_feature_names)
  kValueFeatures,   // the columns of the values (x's with self-attention)
  kModelFeatures,   // the projected columns of all heads
  kQKHeadFeatures,  // one head's columns of Q and K
  kHeadFeatures,    // one head's columns of V and O, or the concatenated heads' columns
  kOutputFeatures,  // the columns of the final output
};

// A cell of a matrix of the table, in one head and batch item.
struct CellRef {
  MatrixKind kind = MatrixKind::kWeights;
  int head = 0, batch = 0, row = 0, col = 0;
  int pe_d = 0;  // kPositional: the table's width d (0 = the scenario's)
};

struct MatrixInfo {
  MatrixKind kind;
  // In exports and the JS API: "weights", "W_q", "head_output", ... (a weight's is its name
  // in attn::kWeightNames).
  const char* id;
  MatrixRole role;
  const char* step;    // its name among a head's steps (attn::kHeadMatrixNames), or null
  const char* symbol;  // on screen, as in the formulas: "S'", "W_q", "Q"
  const char* title;   // what it is, in English (translated with T()): "scaled scores"
  bool per_head;       // one per head: Q, K, V and the steps from scores to weighted values
  Palette palette;
  RangeRule range;
  bool masked;  // masked cells are hatched
  Axis rows, cols;
};

// The row of a kind, and the row with a given id (nullptr when there is none).
const MatrixInfo& matrix_info(MatrixKind k);
const MatrixInfo* find_matrix(std::string_view id);
const std::vector<MatrixInfo>& matrix_table();
// "queries, keys, ..." (every id, for error messages).
std::string matrix_ids();

// The matrix of `kind` for head `head` and batch item `batch` of the state's trace (a head the
// lean trace does not keep is computed on demand), or nullptr when the scenario has none (W_q
// without projections, PE when it is off). Precondition: head and batch are in range.
const attn::Matrix* matrix_of(AppState& s, MatrixKind k, int head, int batch);
// The batch that holds matrix k of every batch item (of head `head`, computing that head's
// matrices for item `batch` when the trace is lean), or null for the weight matrices and for a
// matrix this scenario does not have.
const attn::Batch* batch_of(AppState& s, MatrixKind k, int head, int batch);

// Labels of the n rows or columns along `axis` for batch item `batch`.
std::vector<std::string> axis_labels(const AppState& s, Axis axis, int batch, int n);

// A matrix as the step view draws it: in the row convention (queries down, keys across) or,
// with AppState::transpose, transposed for the column convention (S = KᵀQ, O = V·A: tokens
// along the columns), with the same numbers, its labels and the axes they name swapped and its
// mask transposed. Only the drawing turns: the trace, the cell references (CellRef), the hover's
// arithmetic, masks by click and the exports stay in the row convention; to_matrix and
// to_drawn map a cell between the two.
struct DrawnMatrix {
  const attn::Matrix* source = nullptr;               // the matrix as the trace holds it
  const std::vector<uint8_t>* source_mask = nullptr;  // its mask, or nullptr
  attn::Matrix transposed_values;                     // when transposed (and not `cached`)
  const attn::Matrix* cached = nullptr;               // mᵀ made before, instead
  std::vector<uint8_t> transposed_mask;
  std::vector<std::string> row_labels, col_labels;
  Axis rows = Axis::kQueryTokens, cols = Axis::kKeyTokens;  // what the drawn rows/columns are
  bool transposed = false;
  // The values as drawn, and the mask over the drawn shape (row-major), or nullptr.
  const attn::Matrix& values() const {
    return !transposed ? *source : cached ? *cached : transposed_values;
  }
  const std::vector<uint8_t>* mask() const {
    return transposed && source_mask ? &transposed_mask : source_mask;
  }
  // The matrix's (row, col) of drawn cell (r, c), and the drawn cell of the matrix's (r, c);
  // -1 stays -1 (no row, no column).
  std::pair<int, int> to_matrix(int r, int c) const {
    return transposed ? std::pair<int, int>{c, r} : std::pair<int, int>{r, c};
  }
  std::pair<int, int> to_drawn(int r, int c) const { return to_matrix(r, c); }
};
// `m` (labelled by `info`'s axes for batch item `batch`, masked by `mask` when not null) as
// drawn, transposed or not. DrawnMatrix::source is `m`, so m (and the mask) must outlive the
// result. `m_transposed`, when given, is mᵀ made before (a view keeps it while m is unchanged,
// so that a large matrix is not copied every frame).
DrawnMatrix drawn_matrix(const AppState& s, const MatrixInfo& info, const attn::Matrix& m,
                         const std::vector<uint8_t>* mask, int batch, bool transposed,
                         const attn::Matrix* m_transposed = nullptr);
// A row-major rows × cols mask, transposed (cols × rows, row-major); a mask of another size is
// returned as it is.
std::vector<uint8_t> transpose_mask(const std::vector<uint8_t>& mask, int64_t rows, int64_t cols);

// Whether matrix `kind` would give away the answer to the lesson's open question on this step
// (AppState::open_question): a key question (the row's largest weight) is answered by every
// matrix from the scores to the weights, a value question by its own matrix and the ones
// that show the same numbers (the masked scores show the scaled ones; the output, the heads').
bool answer_hidden(const AppState& s, MatrixKind k);

// Whether question q waits for its answer and asks about the attention weights of its row (the
// row's largest weight, or a cell of the scores, scaled or masked scores or weights), on this
// step or a step still ahead: the tabs that draw the weights outside the step view (Picture,
// Decoder, Document) hold that row back until it is answered.
bool weights_question_waits(const AppState& s, size_t q);

// A cell as the table view reads it: its number as a heatmap prints it (cell_number), or "?"
// while a question holds it back, then "masked" in the UI's language when it is masked.
std::string cell_text(float v, bool hidden, bool masked);

// The mask to hatch on a matrix of `kind` for batch item `batch`, or nullptr.
const std::vector<uint8_t>* matrix_mask(AppState& s, MatrixKind k, int batch);

// The range a matrix of `kind` colours for head `head` and batch item `batch` (RangeRule; with
// AppState::scale_alone, every matrix but the weights from its own data). A shared range
// leaves out masked cells and numbers that are not finite; it is computed once per revision,
// head and batch item. A lean trace adds to the activations' scale only what it keeps (the
// inputs and the outputs), so the inputs step never computes a head.
struct ValueRange {
  bool fixed = false;  // false: from the data
  float lo = 0.0f, hi = 1.0f;
};
ValueRange matrix_range(AppState& s, MatrixKind k, int head, int batch);

// The first number that overflowed float32 (±∞ where the inputs were finite), looked for in
// the projections, each head's scores and scaled scores (when the trace keeps them) and the
// output; nullopt when there is none. After one, what follows from it is ∞ or NaN: a
// temperature near 0 or inputs near 3.4e38 pass the validation and still overflow.
std::optional<CellRef> first_overflow(const AppState& s);

//-----------------------------------------------------------------------------
// Exports
//-----------------------------------------------------------------------------

struct Export {
  std::string filename, mime, data;
  std::string error;  // "" on success, else "<field>: <problem>"
  bool ok() const { return error.empty(); }
};

enum class ExportFormat { kCsv, kJson };

// A file name stem: the id, then the head (per-head matrices) and the batch item, 1-based:
// "weights_head2_batch1", "output_batch1".
std::string export_stem(MatrixKind k, int head, int batch);

// One matrix as CSV or JSON, labelled as on screen.
Export export_matrix(AppState& s, MatrixKind k, ExportFormat format, int head, int batch);
// Any labelled matrix (one the trace does not hold, such as the PE explorer's table).
Export export_values(const attn::Matrix& m, const std::vector<std::string>& rows,
                     const std::vector<std::string>& cols, const std::string& stem,
                     ExportFormat format);

// Every export by name: "trace", "scenario", "numpy", "pytorch", or a matrix id with format
// "csv" or "json" (ignored for the others); head and batch are 0-based.
Export make_export(AppState& s, const std::string& what, const std::string& format, int head,
                   int batch);

// An export written a part at a time, so that a long one never holds up a frame (the page's
// exportFile): the job keeps the matrix as it was when the job started (sharing the batch
// that holds it, which copies on write), with its labels, whatever happens to the state after;
// any other export is one part. Joined, the parts are make_export's data.
struct ExportJob {
  Export file;         // filename, mime and error; `data` stays empty
  attn::Batch source;  // the matrix is source[item]
  size_t item = 0;
  scenario::MatrixLabels labels;
  scenario::MatrixText format = scenario::MatrixText::kCsv;
  std::string whole;      // an export that is not a matrix: its one part
  int64_t next_row = -1;  // -1: the head is next; rows() + 1: done
  const attn::Matrix& matrix() const {
    static const attn::Matrix kNone;
    return source.empty() ? kNone : source[item];
  }
  int64_t rows() const { return matrix().rows(); }
  bool done() const { return next_row > rows(); }
};
// Above this many numbers (some 3 MB of text) the page's export menu writes in parts.
constexpr int64_t kExportInPartsNumbers = int64_t{1} << 18;
ExportJob start_export(AppState& s, const std::string& what, const std::string& format, int head,
                       int batch);
// The next part, of about `numbers` numbers (at least one row); "" once done.
std::string next_export_part(ExportJob* job, int64_t numbers);
// How many numbers the export of matrix `what` holds; 0 for the documents and for a request
// make_export refuses.
int64_t export_numbers(AppState& s, const std::string& what, int head, int batch);

}  // namespace ui
