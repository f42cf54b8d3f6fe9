// The descriptions of the three views that draw the step's matrices and vectors (views.h): all
// heads side by side, the positional-encoding explorer and the 2-D view; and what the explorer
// computes, which its panel draws and its description reads.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "app/model/api.h"
#include "app/model/edits.h"
#include "app/model/matrices.h"
#include "app/model/views.h"
#include "app/model/views_internal.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"

namespace ui {

namespace {

// The sentence under a table that lists only the first rows and columns (kAccessibleRows ×
// kAccessibleCols, as the step's table in the table view).
std::string truncated_sentence(int rows, int shown_rows, int cols, int shown_cols) {
  return printf_text(T("The first %d of %d rows and %d of %d columns."), shown_rows, rows,
                     shown_cols, cols);
}

// Whether the scenario's mask belongs to positions (so that order shows without PE too).
bool positional_mask(const scenario::Scenario& sc) {
  return sc.causal || sc.window >= 0 || !sc.masked_cells.empty() ||
         sc.valid_lens_form != scenario::ValidLensForm::kNone;
}

}  // namespace

// -------------------------------------------------------------------------------------------
// What the views compute
// -------------------------------------------------------------------------------------------

Step heads_step(const AppState& s) {
  const Step st = s.step;
  return st == Step::kInputs || st == Step::kProjections || st == Step::kOutput ? Step::kWeights
                                                                                : st;
}

const attn::Matrix& positional_table(AppState& s) {
  PositionalPanel& e = s.positional;
  const int n = s.scenario.n_queries();
  const int scenario_d = attn::batch_cols(s.scenario.queries);
  if (e.followed_d != scenario_d) {
    e.followed_d = scenario_d;
    e.d = std::max(scenario_d, 2);
    e.positions = std::clamp(std::max(n, 32), 1, 256);
  }
  if (e.pe.rows() != e.positions || e.pe.cols() != e.d || e.pe_base != s.scenario.pe_base) {
    e.pe = attn::positional_encoding(e.positions, e.d, s.scenario.pe_base);
    e.pe_base = s.scenario.pe_base;
    ++e.pe_revision;
  }
  return e.pe;
}

// Runs the scenario in its order and shuffled, with PE off and on, and measures how much each
// token's output row moves (rows compared by token, not by position). The masks stay: they
// belong to positions, so with one the order shows even without PE.
void positional_experiment(const AppState& s, PositionalPanel* e) {
  if (e->experiment_revision == s.revision) return;
  e->experiment_revision = s.revision;
  e->experiment_valid = false;
  if (!s.scenario.self_attention || s.scenario.n_queries() > 256) return;
  const int n = s.scenario.n_queries();
  scenario::Scenario shuffled = s.scenario;
  // Tag each row with its index through a token list, then shuffle.
  shuffled.query_tokens.assign(1, {});
  for (int i = 0; i < n; ++i) shuffled.query_tokens[0].push_back(std::to_string(i));
  shuffled.key_tokens.clear();
  shuffled.query_tokens_zh.clear();
  shuffled.key_tokens_zh.clear();
  shuffled.has_dropout = false;  // random, and so not the order's doing
  scenario::Scenario original = shuffled;
  shuffle_tokens(&shuffled, 7);
  for (int pe = 0; pe < 2; ++pe) {
    original.positional_encoding = shuffled.positional_encoding = pe == 1;
    if (!scenario::validate(original).ok()) return;
    const attn::Trace a = attn::run(scenario::to_problem(original));
    const attn::Trace b = attn::run(scenario::to_problem(shuffled));
    std::vector<float>& out = pe ? e->change_with : e->change_without;
    out.assign(n, 0.0f);
    for (int row = 0; row < n; ++row) {
      const int token = std::stoi(shuffled.query_tokens[0][row]);
      // A row with every key masked under -inf is NaN in both orders: nothing to compare.
      const Eigen::ArrayXf change = (a.output[0].row(token) - b.output[0].row(row)).array().abs();
      out[token] = change.isFinite().all() ? change.maxCoeff() : 0.0f;
    }
  }
  e->experiment_valid = true;
}

std::vector<int> positional_plotted_columns(int d) {
  const int candidates[] = {0, 1, std::min(2, d - 1), std::min(d / 2, d - 1), d - 1};
  std::vector<int> shown;
  for (const int c : candidates)
    if (c >= 0 && std::find(shown.begin(), shown.end(), c) == shown.end()) shown.push_back(c);
  return shown;
}

bool plane_hidden(const AppState& s) {
  return picture_hidden(s);
}

PlaneVectors plane_vectors(AppState& s) {
  PlaneVectors v;
  if (s.trace.heads.empty() || !s.runs()) return v;
  v.batch = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  v.head = &s.head_trace(std::min(s.head, static_cast<int>(s.trace.heads.size()) - 1), v.batch);
  const attn::Matrix& q = v.head->q[v.batch];
  const attn::Matrix& k = v.head->k[v.batch];
  v.two_d = q.cols() == 2 && k.cols() == 2;
  s.plane_query = std::clamp(s.plane_query, 0, std::max(0, static_cast<int>(q.rows()) - 1));
  v.query_labels = query_labels(s.scenario, v.batch);
  v.key_labels = key_labels(s.scenario, v.batch);
  return v;
}

bool plane_drawn(const AppState& s) {
  if (!s.visible(Panel::kPlane) || s.trace.heads.empty() || !s.runs()) return false;
  const int h = std::clamp(s.head, 0, static_cast<int>(s.trace.heads.size()) - 1);
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  const attn::HeadTrace& ht = s.trace.heads[h];
  return b < static_cast<int>(ht.q.size()) && b < static_cast<int>(ht.k.size()) &&
         ht.q[b].cols() == 2 && ht.k[b].cols() == 2;
}

namespace views_detail {

// -------------------------------------------------------------------------------------------
// All heads
// -------------------------------------------------------------------------------------------

void describe_heads(AppState& s, json* out) {
  const int H = static_cast<int>(s.trace.heads.size());
  if (H == 0 || !s.runs() || s.computing()) return;
  const Step shown = heads_step(s);
  const MatrixKind kind = step_matrix(shown);
  const MatrixInfo& info = matrix_info(kind);
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.queries.size()) - 1);
  const int focused = std::clamp(s.head, 0, H - 1);
  const bool hidden = answer_hidden(s, kind);
  json first = first_section(
      T("Each head has its own queries and keys, so each can attend to different "
        "tokens. Click a head to focus it."),
      printf_text(T("Each head's %s."), T(step_name(shown))),
      printf_text(T("Head %d is focused: the step by step view shows it."), focused + 1));
  if (hidden) first["text"].push_back(T("Hidden until you answer the question above"));
  if (s.lean)
    first["text"].push_back(
        T("This scenario is too large to keep every head's matrices: only the focused "
          "head is computed in full. Click another head to compute it."));
  out->push_back(std::move(first));
  for (int h = 0; h < H; ++h) {
    json sec = section({}, printf_text(T("Head %d"), h + 1));
    if (s.lean && h != focused) {
      out->push_back(std::move(sec));
      continue;
    }
    const attn::Matrix* m = matrix_of(s, kind, h, b);
    if (!m) continue;
    const int rows = static_cast<int>(m->rows()), cols = static_cast<int>(m->cols());
    const int shown_rows = std::min(rows, api::kAccessibleRows),
              shown_cols = std::min(cols, api::kAccessibleCols);
    std::vector<std::string> row_labels = axis_labels(s, info.rows, b, rows);
    std::vector<std::string> col_labels = axis_labels(s, info.cols, b, cols);
    col_labels.resize(shown_cols);
    const std::vector<uint8_t>* mask = matrix_mask(s, kind, b);
    json t =
        table(printf_text(T("Head %d: %s"), h + 1, T(step_name(shown))), T("queries"), col_labels);
    for (int i = 0; i < shown_rows; ++i) {
      std::vector<std::string> cells;
      for (int c = 0; c < shown_cols; ++c) {
        const bool masked = mask && (*mask)[static_cast<size_t>(i) * cols + c];
        cells.push_back(cell_text((*m)(i, c), hidden, masked));
      }
      add_row(&t, row_labels[i], std::move(cells));
    }
    if (rows > shown_rows || cols > shown_cols)
      sec["text"].push_back(truncated_sentence(rows, shown_rows, cols, shown_cols));
    sec["tables"].push_back(std::move(t));
    out->push_back(std::move(sec));
  }
}

// -------------------------------------------------------------------------------------------
// Positional encoding
// -------------------------------------------------------------------------------------------

void describe_positional(AppState& s, json* out) {
  PositionalPanel& e = s.positional;
  const attn::Matrix& pe = positional_table(s);
  const int positions = static_cast<int>(pe.rows()), d = static_cast<int>(pe.cols());
  const double base = s.scenario.pe_base;
  json first =
      section({T("Self-attention compares tokens by their vectors only, so on its own it "
                 "cannot tell first from last. Sinusoidal positional encoding adds a "
                 "different pattern to each position: column pairs 2i and 2i+1 are a "
                 "sine and a cosine whose wavelength grows with i."),
               printf_text("PE[p, 2i] = sin(p / %g^(2i/d)),   PE[p, 2i+1] = cos(p / %g^(2i/d))",
                           base, base),
               positional_note(s)});
  const int shown_rows = std::min(positions, api::kAccessibleRows),
            shown_cols = std::min(d, api::kAccessibleCols);
  if (positions > shown_rows || d > shown_cols)
    first["text"].push_back(truncated_sentence(positions, shown_rows, d, shown_cols));
  std::vector<std::string> columns;
  for (int c = 0; c < shown_cols; ++c) columns.push_back(std::to_string(c));
  json t = table(T("PE matrix (rows: positions, columns: features)"), T("position"), columns);
  for (int p = 0; p < shown_rows; ++p) {
    std::vector<std::string> cells;
    for (int c = 0; c < shown_cols; ++c) cells.push_back(fixed2(pe(p, c)));
    add_row(&t, std::to_string(p), std::move(cells));
  }
  first["tables"].push_back(std::move(t));
  out->push_back(std::move(first));

  std::vector<std::string> plotted;
  for (const int c : positional_plotted_columns(d))
    plotted.push_back(printf_text("%s %d", T("column"), c));
  out->push_back(section(
      {printf_text(T("Plotted over the positions: %s."),
                   joined(plotted, language() == Lang::kZh ? "\xe3\x80\x81" : ", ").c_str())},
      T("Columns as functions of the position")));

  json experiment = section({}, T("Does word order matter?"));
  if (!s.scenario.self_attention) {
    experiment["text"].push_back(T("This experiment needs self-attention (a scenario with x)."));
  } else if (s.layered()) {
    experiment["text"].push_back(
        T("This experiment runs on one layer: open a scenario without \"layers\"."));
  } else {
    positional_experiment(s, &e);
    if (e.experiment_valid) {
      float without = 0.0f, with = 0.0f;
      for (float v : e.change_without) without = std::max(without, v);
      for (float v : e.change_with) with = std::max(with, v);
      experiment["text"] = {
          T("Shuffling the tokens and comparing each token's output row before and after:"),
          printf_text("%s %.4f", T("without positional encoding, the largest change is"), without),
          printf_text("%s %.4f", T("with positional encoding, the largest change is"), with),
          positional_conclusion(s.scenario)};
    }
  }
  out->push_back(std::move(experiment));
}

// -------------------------------------------------------------------------------------------
// 2-D
// -------------------------------------------------------------------------------------------

void describe_plane(AppState& s, json* out) {
  const PlaneVectors v = plane_vectors(s);
  if (!v.head) return;
  if (!v.two_d) {
    out->push_back(
        section({T("The 2-D view needs queries and keys of exactly two numbers (per "
                   "head). Load the preset \"A 2-D toy\" or set the features d to 2 "
                   "without learned projections.")}));
    return;
  }
  const attn::Matrix& q = v.head->q[v.batch];
  const attn::Matrix& k = v.head->k[v.batch];
  const attn::Matrix& w = v.head->weights[v.batch];
  const attn::Matrix& o = v.head->output[v.batch];
  const int query = s.plane_query;
  const bool hidden = plane_hidden(s);
  std::string finds;
  if (hidden) {
    finds =
        T("The weights show here once the lesson's questions about weights up to here are "
          "answered.");
    if (const std::string which = waiting_question(s); !which.empty())
      finds += (language() == Lang::kZh ? "" : " ") + which;
  } else if (k.rows() > 0) {
    int best = 0;
    for (int j = 1; j < k.rows(); ++j)
      if (w(query, j) > w(query, best)) best = j;
    finds = printf_text(T("%s gives the most weight to %s (%.3f)."), v.query_labels[query].c_str(),
                        v.key_labels[best].c_str(), w(query, best));
  }
  json sec = first_section(
      T("Each query and each key is an arrow from the origin: its first number across, its "
        "second up. The more weight the chosen query gives a key, the thicker the key's arrow."),
      std::string(T("Query:")) + " " + v.query_labels[query], finds);
  json queries = table(T("The queries (arrows)"), T("query"), {"x", "y"});
  for (int i = 0; i < q.rows(); ++i)
    add_row(&queries, v.query_labels[i], {fixed2(q(i, 0)), fixed2(q(i, 1))});
  json keys = table(printf_text(T("The keys (arrows) and the weights of query %s"),
                                v.query_labels[query].c_str()),
                    T("key"), {"x", "y", T("weight")});
  for (int j = 0; j < k.rows(); ++j)
    add_row(&keys, v.key_labels[j],
            {fixed2(k(j, 0)), fixed2(k(j, 1)), hidden ? "?" : printf_text("%.3f", w(query, j))});
  if (o.cols() == 2)
    sec["text"].push_back(
        hidden ? printf_text(T("The output of %s (the blue dot): ?"), v.query_labels[query].c_str())
               : printf_text(T("The output of %s (the blue dot): (%.2f, %.2f)."),
                             v.query_labels[query].c_str(), o(query, 0), o(query, 1)));
  sec["tables"].push_back(std::move(queries));
  sec["tables"].push_back(std::move(keys));
  out->push_back(std::move(sec));
}

}  // namespace views_detail

// The explorer's sentence under its controls: which rows of its table this scenario adds.
std::string positional_note(AppState& s) {
  const attn::Matrix& pe = positional_table(s);
  const int n = s.scenario.n_queries();
  const int scenario_d = attn::batch_cols(s.scenario.queries);
  const bool same_d = pe.cols() == scenario_d;
  const int outlined = same_d ? std::min(n, static_cast<int>(pe.rows())) : 0;
  if (same_d && outlined == 1)
    return T(
        "The outlined row (position 0) is what this scenario adds to its input when "
        "positional encoding is on.");
  if (same_d)
    return printf_text(T("The outlined rows (positions 0 to %d) are what this scenario adds to "
                         "its inputs when positional encoding is on."),
                       outlined - 1);
  return printf_text(T("This scenario has d = %d, so it adds a different table (the frequencies "
                       "depend on d)."),
                     scenario_d);
}

std::string positional_conclusion(const scenario::Scenario& sc) {
  return positional_mask(sc)
             ? T("Here the outputs change even without positional encoding: the causal "
                 "mask, the window, the valid lengths or the masked cells belong to "
                 "positions, so the mask itself tells attention about order. Turn the masks "
                 "off to see attention alone, blind to order.")
             : T("Without positions, a token's output depends only on which tokens are "
                 "present, not where: attention is blind to order.");
}

}  // namespace ui
