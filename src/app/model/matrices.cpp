// The table of matrices, where each is in the trace, and the exports built from it.
//
// [SECTION] The table
// [SECTION] Where each matrix is
// [SECTION] Exports
#include "app/model/matrices.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "app/model/app_state.h"
#include "app/model/edits.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "scenario/export.h"

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] The table
//-----------------------------------------------------------------------------

namespace {

constexpr Palette kSeq = Palette::kSequential, kDiv = Palette::kDiverging;
constexpr RangeRule kData = RangeRule::kData, kAct = RangeRule::kActivations,
                    kSc = RangeRule::kScores;
constexpr Axis kQTok = Axis::kQueryTokens, kKTok = Axis::kKeyTokens, kIn = Axis::kInputFeatures,
               kKIn = Axis::kKeyFeatures, kVal = Axis::kValueFeatures,
               kModel = Axis::kModelFeatures, kQK = Axis::kQKHeadFeatures,
               kHead = Axis::kHeadFeatures, kOut = Axis::kOutputFeatures;

constexpr MatrixRole kX = MatrixRole::kInput, kPE = MatrixRole::kAdded, kW = MatrixRole::kWeight,
                     kStep = MatrixRole::kStep, kY = MatrixRole::kOutput;

// clang-format off
const std::vector<MatrixInfo> kTable = {
  // kind                   id             role   step       symbol    title                       head   palette range               masked rows   cols
  {MatrixKind::kQueries,    "queries",     kX,    nullptr,   "X",      N_("queries"),              false, kDiv, kAct,              false, kQTok, kIn},
  {MatrixKind::kKeys,       "keys",        kX,    nullptr,   "X",      N_("keys"),                 false, kDiv, kAct,              false, kKTok, kKIn},
  {MatrixKind::kValues,     "values",      kX,    nullptr,   "X",      N_("values"),               false, kDiv, kAct,              false, kKTok, kVal},
  {MatrixKind::kPositional, "positional",  kPE,   nullptr,   "PE",     N_("positional encoding"),  false, kDiv, kData,              false, kQTok, kIn},
  {MatrixKind::kWq,         "W_q",         kW,    nullptr,   "W_q",    N_("W_q"),                  false, kDiv, kData,              false, kIn,   kModel},
  {MatrixKind::kWk,         "W_k",         kW,    nullptr,   "W_k",    N_("W_k"),                  false, kDiv, kData,              false, kKIn,  kModel},
  {MatrixKind::kWv,         "W_v",         kW,    nullptr,   "W_v",    N_("W_v"),                  false, kDiv, kData,              false, kVal,  kModel},
  {MatrixKind::kWo,         "W_o",         kW,    nullptr,   "W_o",    N_("W_o"),                  false, kDiv, kData,              false, kHead, kOut},
  {MatrixKind::kQ,          "Q",           kStep, nullptr,   "Q",      N_("Q"),                    true,  kDiv, kAct,              false, kQTok, kQK},
  {MatrixKind::kK,          "K",           kStep, nullptr,   "K",      N_("K"),                    true,  kDiv, kAct,              false, kKTok, kQK},
  {MatrixKind::kV,          "V",           kStep, nullptr,   "V",      N_("V"),                    true,  kDiv, kAct,              false, kKTok, kHead},
  {MatrixKind::kScores,     "scores",      kStep, "scores",  "S",      N_("scores"),               true,  kDiv, kSc,               false, kQTok, kKTok},
  {MatrixKind::kScaled,     "scaled",      kStep, "scaled",  "S'",     N_("scaled scores"),        true,  kDiv, kSc,               false, kQTok, kKTok},
  {MatrixKind::kMasked,     "masked",      kStep, "masked",  "M",      N_("masked scores"),        true,  kDiv, kSc,               true,  kQTok, kKTok},
  {MatrixKind::kWeights,    "weights",     kStep, "weights", "A",      N_("weights"),              true,  kSeq, RangeRule::kWeights, true,  kQTok, kKTok},
  {MatrixKind::kHeadOutput, "head_output", kStep, "output",  "O",      N_("weighted values"),      true,  kDiv, kAct,              false, kQTok, kHead},
  {MatrixKind::kConcat,     "concat",      kStep, nullptr,   "concat", N_("concatenated heads"),   false, kDiv, kAct,              false, kQTok, kHead},
  {MatrixKind::kOutput,     "output",      kY,    nullptr,   "output", N_("output"),               false, kDiv, kAct,              false, kQTok, kOut},
};
// clang-format on

}  // namespace

const std::vector<MatrixInfo>& matrix_table() {
  return kTable;
}

const MatrixInfo& matrix_info(MatrixKind k) {
  return kTable[static_cast<size_t>(k)];
}

const MatrixInfo* find_matrix(std::string_view id) {
  for (const MatrixInfo& m : kTable)
    if (id == m.id) return &m;
  return nullptr;
}

std::string matrix_ids() {
  std::string out;
  for (const MatrixInfo& m : kTable) out += (out.empty() ? "" : ", ") + std::string(m.id);
  return out;
}

//-----------------------------------------------------------------------------
// [SECTION] Where each matrix is
//-----------------------------------------------------------------------------

const attn::Batch* batch_of(AppState& s, MatrixKind k, int head, int batch) {
  const attn::Trace& t = s.trace;
  switch (k) {
    case MatrixKind::kQueries:
      return &t.queries;
    case MatrixKind::kKeys:
      return &t.keys;
    case MatrixKind::kValues:
      return &t.values;
    case MatrixKind::kPositional:
      return t.pe_queries.empty() ? nullptr : &t.pe_queries;
    case MatrixKind::kConcat:
      return &t.concat;
    case MatrixKind::kOutput:
      return &t.output;
    default:
      break;
  }
  if (!matrix_info(k).per_head) return nullptr;  // the weights
  const attn::HeadTrace& ht = s.head_trace(head, batch);
  switch (k) {
    case MatrixKind::kQ:
      return &ht.q;
    case MatrixKind::kK:
      return &ht.k;
    case MatrixKind::kV:
      return &ht.v;
    default:  // the steps
      return matrix_info(k).step ? attn::head_matrix(ht, matrix_info(k).step) : nullptr;
  }
}

const attn::Matrix* matrix_of(AppState& s, MatrixKind k, int head, int batch) {
  if (matrix_info(k).role == MatrixRole::kWeight) {
    const attn::Matrix* w = attn::weight_matrix(s.problem.weights, matrix_info(k).id);
    return w && w->size() ? w : nullptr;
  }
  const attn::Batch* b = batch_of(s, k, head, batch);
  return b ? &(*b)[batch] : nullptr;
}

namespace {

std::vector<std::string> numbered(const char* prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i + 1));
  return out;
}

}  // namespace

std::vector<std::string> axis_labels(const AppState& s, Axis axis, int batch, int n) {
  switch (axis) {
    case Axis::kQueryTokens:
      return query_labels(s.scenario, batch);
    case Axis::kKeyTokens:
      return key_labels(s.scenario, batch);
    // Feature columns are named one way everywhere, d1, d2, ..., or by the lesson's names
    // wherever the columns are the named ones: without projections Q = X, and their columns
    // read alike.
    case Axis::kModelFeatures:
      return numbered("d", n);
    case Axis::kInputFeatures:
    case Axis::kKeyFeatures:
    case Axis::kValueFeatures:
    case Axis::kQKHeadFeatures:
    case Axis::kHeadFeatures:
    case Axis::kOutputFeatures: {
      const scenario::Scenario& sc = s.scenario;
      const attn::Weights& w = s.problem.weights;
      const bool zh = language() == Lang::kZh;
      const auto names = [&](const std::vector<std::vector<std::string>>& en,
                             const std::vector<std::vector<std::string>>& in_zh) {
        const auto& list = zh && !in_zh.empty() ? in_zh : en;
        return list.empty() || static_cast<int>(list[0].size()) != n ? numbered("d", n) : list[0];
      };
      const auto value_side = [&] {
        return sc.self_attention ? names(sc.feature_names, sc.feature_names_zh)
                                 : names(sc.value_names, sc.value_names_zh);
      };
      const bool one_head = sc.heads == 1;
      switch (axis) {
        case Axis::kInputFeatures:
          return names(sc.feature_names, sc.feature_names_zh);
        case Axis::kKeyFeatures:
          return sc.key_feature_names.empty()
                     ? names(sc.feature_names, sc.feature_names_zh)
                     : names(sc.key_feature_names, sc.key_feature_names_zh);
        case Axis::kValueFeatures:
          return value_side();
        case Axis::kQKHeadFeatures:
          return one_head && !w.W_q.size() && !w.W_k.size() && sc.key_feature_names.empty()
                     ? names(sc.feature_names, sc.feature_names_zh)
                     : numbered("d", n);
        case Axis::kHeadFeatures:
          return one_head && !w.W_v.size() ? value_side() : numbered("d", n);
        default:  // the output
          if (!sc.output_names.empty()) return names(sc.output_names, sc.output_names_zh);
          return one_head && !w.W_v.size() && !w.W_o.size() ? value_side() : numbered("d", n);
      }
    }
  }
  return {};
}

std::vector<uint8_t> transpose_mask(const std::vector<uint8_t>& mask, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0 || static_cast<int64_t>(mask.size()) != rows * cols) return mask;
  std::vector<uint8_t> out(mask.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[j * rows + i] = mask[i * cols + j];
  return out;
}

DrawnMatrix drawn_matrix(const AppState& s, const MatrixInfo& info, const attn::Matrix& m,
                         const std::vector<uint8_t>* mask, int batch, bool transposed,
                         const attn::Matrix* m_transposed) {
  DrawnMatrix d;
  d.transposed = transposed;
  d.rows = transposed ? info.cols : info.rows;
  d.cols = transposed ? info.rows : info.cols;
  const int rows = static_cast<int>(transposed ? m.cols() : m.rows());
  const int cols = static_cast<int>(transposed ? m.rows() : m.cols());
  d.row_labels = axis_labels(s, d.rows, batch, rows);
  d.col_labels = axis_labels(s, d.cols, batch, cols);
  d.source = &m;
  d.source_mask = mask;
  if (transposed) {
    if (m_transposed && m_transposed->rows() == m.cols() && m_transposed->cols() == m.rows())
      d.cached = m_transposed;
    else
      d.transposed_values = m.transpose();
    if (mask) d.transposed_mask = transpose_mask(*mask, m.rows(), m.cols());
  }
  return d;
}

const std::vector<uint8_t>* matrix_mask(AppState& s, MatrixKind k, int batch) {
  if (!matrix_info(k).masked || batch < 0 || batch >= static_cast<int>(s.problem.queries.size()))
    return nullptr;
  return &s.mask(batch);
}

namespace {

// The largest finite |value| of m.
float largest(const attn::Matrix& m) {
  float a = 0.0f;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const float v = m.data()[i];
    if (std::isfinite(v)) a = std::max(a, std::fabs(v));
  }
  return a;
}

void update_shared_ranges(AppState& s, int head, int batch) {
  AppState::SharedRanges& r = s.shared_ranges;
  if (r.revision == s.revision && r.head == head && r.batch == batch) return;
  const attn::Trace& t = s.trace;
  // Two groups: what is compared (the queries and keys, Q and K: their dot products are the
  // scores) and what is carried (the values, V, the heads' outputs, their concatenation and
  // the output: O, an average of V's rows, never looks stronger than V). Keys of ones beside
  // values up to 39 (textbook_ones) would be blank on one scale.
  float compared = std::max(largest(t.queries[batch]), largest(t.keys[batch]));
  float carried =
      std::max({largest(t.values[batch]), largest(t.concat[batch]), largest(t.output[batch])});
  for (const attn::HeadTrace& h : t.heads) carried = std::max(carried, largest(h.output[batch]));
  // Q, K, V are kept by a full trace; a lean one computes them with the head's scores, only
  // when a step shows them.
  if (!s.lean) {
    const attn::HeadTrace& h = t.heads[head];
    compared = std::max({compared, largest(h.q[batch]), largest(h.k[batch])});
    carried = std::max(carried, largest(h.v[batch]));
  }
  r.revision = s.revision;
  r.head = head;
  r.batch = batch;
  r.activations = carried;
  r.compared = compared;
  r.scores = -1.0f;  // computed when first asked (it may compute a lean trace's head)
}

}  // namespace

ValueRange matrix_range(AppState& s, MatrixKind k, int head, int batch) {
  ValueRange r;
  const RangeRule rule = matrix_info(k).range;
  if (rule == RangeRule::kWeights) {
    if (!s.problem.hard && s.problem.dropout_p == 0.0f) r = ValueRange{true, 0.0f, 1.0f};
    return r;
  }
  if (s.scale_alone || rule == RangeRule::kData || s.trace.heads.empty() || head < 0 ||
      head >= static_cast<int>(s.trace.heads.size()) || batch < 0 ||
      batch >= static_cast<int>(s.trace.output.size()))
    return r;
  update_shared_ranges(s, head, batch);
  AppState::SharedRanges& shared = s.shared_ranges;
  const bool compared_side = k == MatrixKind::kQueries || k == MatrixKind::kKeys ||
                             k == MatrixKind::kQ || k == MatrixKind::kK;
  float a = compared_side ? shared.compared : shared.activations;
  if (rule == RangeRule::kScores) {
    if (shared.scores < 0.0f) {
      // S and S' (M's unmasked cells are those of S'; its masked ones hold the mask value,
      // which stays out of the scale).
      const attn::HeadTrace& h = s.head_trace(head, batch);
      shared.scores = std::max(largest(h.scores[batch]), largest(h.scaled[batch]));
    }
    a = shared.scores;
  }
  a = std::max(a, 1e-6f);
  return ValueRange{true, -a, a};
}

std::optional<CellRef> first_overflow(const AppState& s) {
  const attn::Trace& t = s.trace;
  auto find = [](const attn::Batch& x, MatrixKind kind, int head) -> std::optional<CellRef> {
    for (size_t b = 0; b < x.size(); ++b)
      for (Eigen::Index i = 0; i < x[b].rows(); ++i)
        for (Eigen::Index j = 0; j < x[b].cols(); ++j)
          if (std::isinf(x[b](i, j)))
            return CellRef{kind, head, static_cast<int>(b), static_cast<int>(i),
                           static_cast<int>(j)};
    return std::nullopt;
  };
  for (int h = 0; h < static_cast<int>(t.heads.size()); ++h) {
    const attn::HeadTrace& ht = t.heads[h];
    for (const auto& [x, kind] : {std::pair{&ht.q, MatrixKind::kQ},
                                  {&ht.k, MatrixKind::kK},
                                  {&ht.v, MatrixKind::kV},
                                  {&ht.scores, MatrixKind::kScores},
                                  {&ht.scaled, MatrixKind::kScaled}})
      if (const auto c = find(*x, kind, h)) return c;
  }
  return find(t.output, MatrixKind::kOutput, 0);
}

//-----------------------------------------------------------------------------
// [SECTION] Exports
//-----------------------------------------------------------------------------

std::string export_stem(MatrixKind k, int head, int batch) {
  const MatrixInfo& info = matrix_info(k);
  std::string stem = info.id;
  if (info.per_head) stem += "_head" + std::to_string(head + 1);
  return stem + "_batch" + std::to_string(batch + 1);
}

namespace {

// A matrix export's file name and type, from its stem.
void name_export(Export* e, const std::string& stem, ExportFormat format) {
  const bool csv = format == ExportFormat::kCsv;
  e->filename = stem + (csv ? ".csv" : ".json");
  e->mime = csv ? "text/csv" : "application/json";
}

}  // namespace

Export export_values(const attn::Matrix& m, const std::vector<std::string>& rows,
                     const std::vector<std::string>& cols, const std::string& stem,
                     ExportFormat format) {
  Export e;
  name_export(&e, stem, format);
  e.data = format == ExportFormat::kCsv ? scenario::matrix_csv(m, rows, cols, "r", "c")
                                        : scenario::matrix_json(m, rows, cols, "r", "c");
  return e;
}

Export export_matrix(AppState& s, MatrixKind k, ExportFormat format, int head, int batch) {
  const MatrixInfo& info = matrix_info(k);
  const attn::Matrix* m = matrix_of(s, k, head, batch);
  if (!m) {
    Export e;
    e.error = std::string(info.id) + ": this scenario has none";
    return e;
  }
  return export_values(*m, axis_labels(s, info.rows, batch, static_cast<int>(m->rows())),
                       axis_labels(s, info.cols, batch, static_cast<int>(m->cols())),
                       export_stem(k, head, batch), format);
}

namespace {

// The matrix an export names, or why there is none; nullptr for the documents (trace, ...).
const MatrixInfo* export_target(AppState& s, const std::string& what, const std::string& format,
                                int head, int batch, std::string* error) {
  const int heads = static_cast<int>(s.trace.heads.size());
  const int items = static_cast<int>(s.trace.output.size());
  if (format != "csv" && format != "json") {
    *error = "format: must be \"csv\" or \"json\"";
  } else if (heads == 0) {
    *error = "scenario: has no trace yet";
  } else if (head < 0 || head >= heads) {
    *error = "head: must be from 0 to " + std::to_string(heads - 1);
  } else if (batch < 0 || batch >= items) {
    *error = "batch: must be from 0 to " + std::to_string(items - 1);
  } else if (const MatrixInfo* info = find_matrix(what)) {
    return info;
  } else {
    *error = "matrix: unknown \"" + what.substr(0, 40) + "\" (" + matrix_ids() +
             ", trace, scenario, numpy, pytorch)";
  }
  return nullptr;
}

bool is_document(const std::string& what) {
  return what == "trace" || what == "scenario" || what == "numpy" || what == "pytorch";
}

}  // namespace

ExportJob start_export(AppState& s, const std::string& what, const std::string& format, int head,
                       int batch) {
  s.recompute_if_needed();
  ExportJob job;
  if (is_document(what)) {
    job.file = make_export(s, what, format, head, batch);
    job.whole = std::move(job.file.data);
    job.file.data.clear();
    return job;  // rows() is 0: the head part is the whole
  }
  const MatrixInfo* info = export_target(s, what, format, head, batch, &job.file.error);
  if (!info) return job;
  const attn::Matrix* m = matrix_of(s, info->kind, head, batch);
  if (!m) {
    job.file.error = std::string(info->id) + ": this scenario has none";
    return job;
  }
  // The job shares the matrices it writes (a batch copies on write): no copy of a matrix that
  // may hold 4096 × 4096 numbers, and a later recompute leaves the job's numbers as they were.
  if (const attn::Batch* from = batch_of(s, info->kind, head, batch)) {
    job.source = *from;
    job.item = static_cast<size_t>(batch);
  } else {
    job.source = attn::Batch{*m};  // a weight matrix, of the model's size
  }
  job.labels = {axis_labels(s, info->rows, batch, static_cast<int>(m->rows())),
                axis_labels(s, info->cols, batch, static_cast<int>(m->cols())), "r", "c"};
  const bool csv = format == "csv";
  job.format = csv ? scenario::MatrixText::kCsv : scenario::MatrixText::kJson;
  name_export(&job.file, export_stem(info->kind, head, batch),
              csv ? ExportFormat::kCsv : ExportFormat::kJson);
  return job;
}

int64_t export_numbers(AppState& s, const std::string& what, int head, int batch) {
  s.recompute_if_needed();
  std::string error;
  const MatrixInfo* info = export_target(s, what, "csv", head, batch, &error);
  const attn::Matrix* m = info ? matrix_of(s, info->kind, head, batch) : nullptr;
  return m ? m->size() : 0;
}

std::string next_export_part(ExportJob* job, int64_t numbers) {
  if (!job->file.ok() || job->done()) return "";
  if (job->next_row < 0) {
    job->next_row = 0;
    if (!job->whole.empty() || job->rows() == 0) {
      job->next_row = job->rows() + 1;
      return std::move(job->whole);
    }
    return scenario::matrix_text_head(job->format, job->matrix(), job->labels);
  }
  const int64_t per_row = std::max<int64_t>(1, job->matrix().cols());
  const int64_t end =
      std::min(job->rows(), job->next_row + std::max<int64_t>(1, numbers / per_row));
  std::string part;
  scenario::append_matrix_rows(&part, job->format, job->matrix(), job->labels, job->next_row, end);
  job->next_row = end;
  if (end == job->rows()) {
    part += scenario::matrix_text_tail(job->format);
    job->next_row = job->rows() + 1;
  }
  return part;
}

Export make_export(AppState& s, const std::string& what, const std::string& format, int head,
                   int batch) {
  s.recompute_if_needed();
  Export e;
  auto document = [&](const char* filename, const char* mime, std::string data) {
    e.filename = filename;
    e.mime = mime;
    e.data = std::move(data);
    return e;
  };
  if (what == "trace")
    return document("trace.json", "application/json",
                    s.layered() ? s.stack_trace_json() : scenario::trace_to_json(s.trace));
  if (what == "scenario")
    return document("scenario.json", "application/json", scenario::to_json(s.document()));
  if (what == "numpy")
    return document("attention_numpy.py", "text/x-python", scenario::export_numpy(s.document()));
  if (what == "pytorch")
    return document("attention_pytorch.py", "text/x-python",
                    scenario::export_pytorch(s.document()));
  if (const MatrixInfo* info = export_target(s, what, format, head, batch, &e.error))
    return export_matrix(s, info->kind, format == "csv" ? ExportFormat::kCsv : ExportFormat::kJson,
                         head, batch);
  return e;
}

std::string cell_text(float v, bool hidden, bool masked) {
  return (hidden ? std::string("?") : cell_number(v)) +
         (masked ? std::string(" ") + T("masked") : std::string());
}

bool weights_question_waits(const AppState& s, size_t q) {
  if (q >= s.quiz().size() || (q < s.replies.size() && s.replies[q].answered)) return false;
  if (!s.quiz_fits(static_cast<int>(q))) return false;  // its cell is not there to hide
  const scenario::QuizQuestion& question = s.quiz()[q];
  const scenario::QuizAnswer& a = question.answer;
  const bool about_weights = a.argmax || a.matrix == "weights" || a.matrix == "scores" ||
                             a.matrix == "scaled" || a.matrix == "masked";
  return about_weights && question.step >= static_cast<int>(s.step);
}

bool answer_hidden(const AppState& s, MatrixKind k) {
  const int q = s.open_question();
  if (q < 0) return false;
  const scenario::QuizAnswer& a = s.quiz()[q].answer;
  using K = MatrixKind;
  const auto any = [k](std::initializer_list<K> kinds) {
    return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
  };
  if (a.argmax) return any({K::kScores, K::kScaled, K::kMasked, K::kWeights});
  if (a.matrix == "scores") return any({K::kScores});
  if (a.matrix == "scaled") return any({K::kScaled, K::kMasked});
  if (a.matrix == "masked") return any({K::kMasked});
  if (a.matrix == "weights") return any({K::kWeights});
  return any({K::kHeadOutput, K::kConcat, K::kOutput});  // head_output, output
}

}  // namespace ui
