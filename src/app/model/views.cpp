// The centre's views, listed once, and what each says about its numbers (views.h).
#include "app/model/views.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "app/model/matrices.h"
#include "app/model/views_internal.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "scenario/image.h"

namespace ui {

namespace views_detail {

std::string fixed2(double v) {
  return printf_text("%.2f", v);
}

json table(const std::string& caption, const std::string& row_header,
           const std::vector<std::string>& columns) {
  return {{"caption", caption},
          {"row_header", row_header},
          {"columns", columns},
          {"rows", json::array()}};
}
void add_row(json* t, const std::string& label, std::vector<std::string> cells) {
  (*t)["rows"].push_back({{"label", label}, {"cells", std::move(cells)}});
}
json section(std::vector<std::string> text, std::string heading) {
  json s = {{"text", std::move(text)}, {"tables", json::array()}};
  if (!heading.empty()) s["heading"] = std::move(heading);
  return s;
}
std::string joined(const std::vector<std::string>& words, const char* between) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : between) + w;
  return out;
}

std::string two_sentences(const std::string& first, const std::string& second) {
  if (second.empty()) return first;
  const bool zh = language() == Lang::kZh;
  const char* stop = zh ? "\xe3\x80\x82" : ".";
  const bool ends =
      !first.empty() &&
      (first.back() == '.' ||
       (first.size() >= 3 && first.compare(first.size() - 3, 3, "\xe3\x80\x82") == 0));
  return first + (ends ? "" : stop) + (zh ? "" : " ") + second;
}

json first_section(const char* intro, const std::string& place, const std::string& finds) {
  json sec = section({intro, place, finds});
  sec["now"] = two_sentences(place, finds);
  return sec;
}

}  // namespace views_detail

namespace {

using views_detail::add_row;
using views_detail::first_section;
using views_detail::fixed2;
using views_detail::joined;
using views_detail::json;
using views_detail::section;

// "The weights show … answered." and which question they wait for.
std::string held_back(const char* sentence, const AppState& s, bool any_matrix = false) {
  const std::string which = waiting_question(s, any_matrix);
  const char* space = language() == Lang::kZh ? "" : " ";  // Chinese runs on after "。"
  return which.empty() ? std::string(sentence) : std::string(sentence) + space + which;
}
using views_detail::table;
using views_detail::two_sentences;

// The most columns a table of the stream (tokens × features) lists: the canvas draws them as a
// heatmap; beyond these the table says how many there are.
constexpr int kStreamColumns = 16;

// -------------------------------------------------------------------------------------------
// Decoder
// -------------------------------------------------------------------------------------------

bool decoder_ready(const AppState& s) {
  const scenario::Seq2Seq& model = s.scenario.seq2seq;
  const attn::seq2seq::Forward& f = model.forward;
  const int m = s.decoder_words(), n = static_cast<int>(model.source.size());
  return !model.empty() && m > 0 && f.weights.rows() == m && f.weights.cols() == n &&
         f.probs.rows() == m;
}

void describe_decoder(AppState& s, json* out) {
  if (!decoder_ready(s)) return;
  s.set_decoder_step(s.decoder_step);
  const scenario::Seq2Seq& model = s.scenario.seq2seq;
  const attn::seq2seq::Forward& f = model.forward;
  const int m = s.decoder_words(), n = static_cast<int>(model.source.size());
  const int step = s.decoder_step;
  std::vector<std::string> source, written;
  for (int id : model.source) source.push_back(model.source_word(id));
  for (int id : model.produced) written.push_back(model.target_word(id));
  const std::vector<std::string> so_far(written.begin(), written.begin() + step);
  const std::string place = printf_text(T("Word %d of %d"), step, m);
  const std::string word = decoder_word_sentence(s, step);
  json sec = section({T("The decoder writes the translation one word at a time: the query of "
                        "each word attends over the source words (a new row of the alignment), "
                        "then its GRU writes the word."),
                      place, std::string(T("Source sentence:")) + " " + joined(source),
                      std::string(T("Written so far:")) + " " + joined(so_far), word,
                      decoder_training_status(s)});
  sec["now"] = two_sentences(place, word);
  const int allowed = decoder_rows_allowed(s, m);
  json t = table(T("The alignment: each written word's attention weights over the source words"),
                 T("written"), source);
  for (int i = 0; i < step; ++i) {
    std::vector<std::string> cells;
    for (int j = 0; j < n; ++j) cells.push_back(i < allowed ? fixed2(f.weights(i, j)) : "?");
    add_row(&t, written[i], std::move(cells));
  }
  sec["tables"].push_back(std::move(t));
  out->push_back(std::move(sec));
}

// -------------------------------------------------------------------------------------------
// Document
// -------------------------------------------------------------------------------------------

bool document_ready(const AppState& s) {
  const scenario::Hierarchy& hy = s.scenario.hierarchy;
  if (hy.empty() || !s.runs() || s.trace.heads.empty() || s.trace.heads[0].weights.empty())
    return false;
  const attn::Matrix& b = s.trace.heads[0].weights[0];
  const int n_q = static_cast<int>(hy.questions.rows());
  const int n_s = static_cast<int>(hy.sentences.size());
  return n_q > 0 && b.rows() == n_q && b.cols() == n_s &&
         static_cast<int>(hy.word_weights.size()) == n_s;
}

// What the Document tab draws for its chosen question (document_ready first): the description
// and the summary read the same.
struct DocumentView {
  explicit DocumentView(const AppState& s)
      : hy(s.scenario.hierarchy),
        b(s.trace.heads[0].weights[0]),
        n_q(static_cast<int>(hy.questions.rows())),
        n_s(static_cast<int>(hy.sentences.size())),
        q(std::clamp(s.hierarchy_question, 1, n_q) - 1),
        questions(axis_labels(s, Axis::kQueryTokens, 0, n_q)),
        sentences(axis_labels(s, Axis::kKeyTokens, 0, n_s)) {}
  const scenario::Hierarchy& hy;
  const attn::Matrix& b;
  int n_q, n_s, q;
  std::vector<std::string> questions, sentences;
};

void describe_document(AppState& s, json* out) {
  if (!document_ready(s)) return;
  const DocumentView v(s);
  const scenario::Hierarchy& hy = v.hy;
  const attn::Matrix& b = v.b;
  const int n_s = v.n_s, q = v.q;
  const std::vector<std::string>&questions = v.questions, &sentences = v.sentences;
  const bool hidden = document_row_hidden(s, q);
  const std::string place = std::string(T("Question:")) + " " + questions[q];
  const std::string summary = document_summary(s);
  json sec = first_section(
      T("Attention at two levels. Inside each sentence a word query weighs the words (the "
        "shade of each box: darker is more) and pools them into the sentence's vector. The "
        "question then weighs the sentence vectors (the bars), and their weighted sum o is the "
        "document's vector: what this question reads of the text."),
      place, summary);
  json t = table(T("Sentence weight b, then each word's weight a"), T("sentence"),
                 {T("sentence weight b"), T("words and their weights a")});
  for (int k = 0; k < n_s; ++k) {
    const std::vector<std::string> words = hierarchy_sentence_words(hy, k);
    std::vector<std::string> pairs;
    for (int i = 0; i < hy.word_weights[k].size(); ++i)
      pairs.push_back(words[i] + " " + fixed2(hy.word_weights[k](i)));
    add_row(&t, sentences[k], {hidden ? "?" : fixed2(b(q, k)), joined(pairs, ", ")});
  }
  sec["tables"].push_back(std::move(t));
  out->push_back(std::move(sec));
}

// -------------------------------------------------------------------------------------------
// Picture
// -------------------------------------------------------------------------------------------

const attn::Matrix* picture_weights(AppState& s) {
  const scenario::Image& im = s.scenario.image;
  if (im.empty() || !s.runs()) return nullptr;
  const attn::Matrix* w = matrix_of(s, MatrixKind::kWeights, std::max(0, s.head), 0);
  return w && w->cols() == im.patches() && w->rows() > 0 ? w : nullptr;
}

void describe_picture(AppState& s, json* out) {
  const attn::Matrix* weights = picture_weights(s);
  if (!weights || s.trace.keys.empty()) return;
  const scenario::Image& im = s.scenario.image;
  const int n_q = static_cast<int>(weights->rows());
  const int q = std::clamp(s.picture_query, 0, n_q - 1);
  const std::vector<std::string> queries = axis_labels(s, Axis::kQueryTokens, 0, n_q);
  const bool hidden = picture_hidden(s);
  const std::string place = std::string(T("Query:")) + " " + queries[q];
  const std::string summary =
      hidden ? held_back(T("The weights show over the picture once the lesson's questions "
                           "up to here are answered."),
                         s)
             : picture_summary(s);
  json sec = first_section(
      T("Each patch of the picture is a key, described by four numbers: how red, green and blue "
        "it is and how many edges it has (writing, windows and lane marks have many). A query "
        "says what to look for in the same four numbers. Its attention weights are drawn over "
        "the picture: the patches it looks at stay bright, the others are dimmed."),
      place, summary);
  std::vector<std::string> columns;
  const attn::Matrix& keys = s.trace.keys[0];
  const int features = std::min(scenario::kImageFeatures, static_cast<int>(keys.cols()));
  for (int f = 0; f < features; ++f) columns.push_back(T(scenario::kImageFeatureNames[f]));
  columns.push_back(T("weight"));
  json t = table(T("The patches (row and column): their colour, their edges and the query's "
                   "weight"),
                 T("patch"), columns);
  for (int j = 0; j < im.patches() && j < keys.rows(); ++j) {
    std::vector<std::string> cells;
    for (int f = 0; f < features; ++f) cells.push_back(fixed2(keys(j, f)));
    cells.push_back(hidden ? "?" : fixed2((*weights)(q, j)));
    add_row(&t, scenario::patch_name(im, j), std::move(cells));
  }
  sec["tables"].push_back(std::move(t));
  out->push_back(std::move(sec));
}

// -------------------------------------------------------------------------------------------
// Curve
// -------------------------------------------------------------------------------------------

bool curve_ready(const AppState& s) {
  if (!s.has_curve() || s.trace.heads.empty() || s.trace.output.empty() || !s.runs()) return false;
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.output.size()) - 1);
  return s.trace.output[b].cols() == 1 && s.trace.values[b].cols() == 1 &&
         s.trace.heads[0].weights[b].cols() == s.trace.keys[b].rows() &&
         s.trace.queries[b].rows() > 0;
}

void describe_curve(AppState& s, json* out) {
  if (!curve_ready(s)) return;
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.output.size()) - 1);
  const attn::Matrix& xq = s.trace.queries[b];
  const attn::Matrix& xk = s.trace.keys[b];
  const attn::Matrix& y = s.trace.values[b];
  const attn::Matrix& fitted = s.trace.output[b];
  const attn::Matrix& w = s.trace.heads[0].weights[b];
  const int n_q = static_cast<int>(xq.rows()), n_k = static_cast<int>(xk.rows());
  const int q = std::clamp(s.curve_query, 0, n_q - 1);
  const bool hidden = curve_hidden(s);
  const std::vector<std::string> queries = axis_labels(s, Axis::kQueryTokens, b, n_q);
  const std::vector<std::string> keys = axis_labels(s, Axis::kKeyTokens, b, n_k);
  const std::string place = std::string(T("query")) + ": " + queries[q];
  const std::string summary =
      hidden ? held_back(T("The predictions and weights show here once the lesson's questions "
                           "up to here are answered."),
                         s, true)
             : curve_summary(s);
  json sec = first_section(
      T("Each key is a point: its first number across, its value up. Each query predicts a "
        "value at its own first number: the weighted average of the points' values, with the "
        "weights its scores give (the bars below the points). The rings are those predictions; "
        "the orange line is the same average at every x, from all the points."),
      place, summary);
  json points =
      table(printf_text(T("The points (keys) and the weights of query %s"), queries[q].c_str()),
            T("key"), {"x", "y", T("weight")});
  for (int j = 0; j < n_k; ++j)
    add_row(&points, keys[j], {fixed2(xk(j, 0)), fixed2(y(j, 0)), hidden ? "?" : fixed2(w(q, j))});
  json predictions = table(T("The predictions: each query's x and the value it predicts"),
                           T("query"), {"x", T("prediction")});
  for (int i = 0; i < n_q; ++i)
    add_row(&predictions, queries[i], {fixed2(xq(i, 0)), hidden ? "?" : fixed2(fitted(i, 0))});
  sec["tables"].push_back(std::move(points));
  sec["tables"].push_back(std::move(predictions));
  out->push_back(std::move(sec));
}

// -------------------------------------------------------------------------------------------
// Layers
// -------------------------------------------------------------------------------------------

void describe_layers(AppState& s, json* out) {
  if (!s.layered() || s.stack_trace.layers.empty() || !s.runs()) return;
  const int B = static_cast<int>(s.stack_trace.stream.front().size());
  const int b = std::clamp(s.batch, 0, B - 1);
  const attn::Matrix& h0 = s.stack_trace.stream.front()[b];
  const std::vector<std::string> tokens =
      axis_labels(s, Axis::kQueryTokens, b, static_cast<int>(h0.rows()));
  const std::vector<std::string> features =
      axis_labels(s, Axis::kInputFeatures, b, static_cast<int>(h0.cols()));
  const bool hidden = layers_hidden(s);
  const auto stream_table = [&](const std::string& caption, const attn::Matrix& m) {
    const int cols = std::min(static_cast<int>(m.cols()), kStreamColumns);
    std::vector<std::string> columns(features.begin(), features.begin() + cols);
    json t = table(m.cols() > cols ? caption + " " +
                                         printf_text(T("(the first %d of %d features)"), cols,
                                                     static_cast<int>(m.cols()))
                                   : caption,
                   T("tokens"), columns);
    for (int i = 0; i < m.rows(); ++i) {
      std::vector<std::string> cells;
      for (int c = 0; c < cols; ++c) cells.push_back(fixed2(m(i, c)));
      add_row(&t, tokens[i], std::move(cells));
    }
    return t;
  };
  json first =
      section({T("Each layer reads the stream, attends, and adds what it found to the "
                 "stream: the next layer reads the sum. Rows are layers, one heatmap per "
                 "head (its attention weights); click a head to open it step by step.")});
  if (hidden)
    first["text"].push_back(held_back(T("The heads' weights show once the lesson's questions "
                                        "about weights up to here are answered."),
                                      s));
  first["tables"].push_back(
      stream_table(T("The stream h\xe2\x82\x80: the inputs (with their positions)"), h0));
  out->push_back(std::move(first));
  for (int l = 0; l < static_cast<int>(s.stack_trace.layers.size()); ++l) {
    const attn::Trace& t = s.stack_trace.layers[l];
    json sec = section({}, printf_text(T("Layer %d"), l + 1));
    for (int k = 0; k < static_cast<int>(t.heads.size()); ++k) {
      const attn::Matrix& a = t.heads[k].weights[b];
      json weights =
          table(printf_text(T("Layer %d, head %d: attention weights (rows queries, columns keys)"),
                            l + 1, k + 1),
                T("queries"), std::vector<std::string>(tokens.begin(), tokens.begin() + a.cols()));
      for (int i = 0; i < a.rows(); ++i) {
        std::vector<std::string> cells;
        for (int j = 0; j < a.cols(); ++j) cells.push_back(hidden ? "?" : fixed2(a(i, j)));
        add_row(&weights, tokens[i], std::move(cells));
      }
      sec["tables"].push_back(std::move(weights));
    }
    sec["tables"].push_back(stream_table(printf_text(T("The stream h%s = h%s + what layer %d adds"),
                                                     sub(l).c_str(), sub(l - 1).c_str(), l + 1),
                                         s.stack_trace.stream[l + 1][b]));
    out->push_back(std::move(sec));
  }
  if (s.stack.token_model() && b < static_cast<int>(s.next_probabilities.size())) {
    const attn::Matrix& p = s.next_probabilities[b];
    json sec = section({T("The next token: each position's probabilities (softmax of h_L \xc2\xb7 "
                          "unembed).")},
                       T("The next token"));
    json t = table(T("The two most likely next tokens at each position"), T("tokens"),
                   {T("most likely"), T("probability"), T("next most likely"), T("probability")});
    const auto vocab = [&](int id) {
      return id < static_cast<int>(s.whole.vocab.size()) ? s.whole.vocab[id] : std::to_string(id);
    };
    for (int i = 0; i < p.rows(); ++i) {
      int first_id = 0, second_id = p.cols() > 1 ? 1 : 0;
      for (int c = 0; c < p.cols(); ++c)
        if (p(i, c) > p(i, first_id)) first_id = c;
      if (second_id == first_id) second_id = first_id == 0 && p.cols() > 1 ? 1 : 0;
      for (int c = 0; c < p.cols(); ++c)
        if (c != first_id && p(i, c) > p(i, second_id)) second_id = c;
      add_row(&t, tokens[i],
              {vocab(first_id), fixed2(p(i, first_id)), vocab(second_id), fixed2(p(i, second_id))});
    }
    sec["tables"].push_back(std::move(t));
    out->push_back(std::move(sec));
  }
}

bool heads_shown(const AppState& s) {
  return s.visible(Panel::kHeads);
}

const std::vector<ViewSpec> kViews = {
    {"steps", N_("Step by step"), [](const AppState&) { return true; }, nullptr},
    {"picture", N_("Picture"),
     [](const AppState& s) { return heads_shown(s) && !s.scenario.image.empty(); },
     describe_picture},
    {"curve", N_("Curve"),
     [](const AppState& s) { return s.visible(Panel::kPlane) && s.has_curve(); }, describe_curve},
    {"decoder", N_("Decoder"),
     [](const AppState& s) { return heads_shown(s) && !s.scenario.seq2seq.empty(); },
     describe_decoder},
    {"document", N_("Document"),
     [](const AppState& s) { return heads_shown(s) && !s.scenario.hierarchy.empty(); },
     describe_document},
    {"layers", N_("Layers"), [](const AppState& s) { return heads_shown(s) && s.layered(); },
     describe_layers},
    // These three draw the step's matrices and vectors: every head's, the positions', the
    // queries and keys as arrows (views_matrices.cpp).
    {"heads", N_("All heads"), heads_shown, views_detail::describe_heads},
    {"positional", N_("Positional encoding"),
     [](const AppState& s) { return s.visible(Panel::kPositional); },
     views_detail::describe_positional},
    {"plane", N_("2-D view"), [](const AppState& s) { return s.visible(Panel::kPlane); },
     views_detail::describe_plane},
};

}  // namespace

const std::vector<ViewSpec>& view_registry() {
  return kViews;
}

const ViewSpec* find_view(const std::string& id) {
  for (const ViewSpec& v : kViews)
    if (id == v.id) return &v;
  return nullptr;
}

bool view_available(const AppState& s, const std::string& id) {
  const ViewSpec* v = find_view(id);
  return v && v->available(s);
}

nlohmann::json describe_view(AppState& s, const std::string& id) {
  const ViewSpec* v = find_view(id);
  if (!v || !v->describe || !v->available(s)) return nullptr;
  json sections = json::array();
  v->describe(s, &sections);
  json out = {{"id", v->id}, {"title", T(v->title)}};
  // What the view shows now (its word, question or query, and what that finds), which the
  // page announces when it changes: the first section's "now".
  if (!sections.empty() && sections[0].contains("now")) {
    out["now"] = sections[0]["now"];
    sections[0].erase("now");
  }
  out["sections"] = std::move(sections);
  return out;
}

// -------------------------------------------------------------------------------------------
// What each view holds back
// -------------------------------------------------------------------------------------------

std::string lesson_text_shown(const AppState& s, const std::string& text) {
  if (!s.transpose || text.empty()) return text;
  // Only a text that speaks of rows or columns.
  const auto has = [&text](const char* word) { return text.find(word) != std::string::npos; };
  if (!has("row") && !has("Row") && !has("column") && !has("Column") && !has("\xe8\xa1\x8c") &&
      !has("\xe5\x88\x97"))  // 行, 列
    return text;
  return text + (language() == Lang::kZh ? "" : " ") +
         T("(Written for untransposed matrices: its rows are the columns here.)");
}

std::string waiting_question(const AppState& s, bool any_matrix) {
  for (size_t q = 0; q < s.quiz().size(); ++q) {
    const bool answered = q < s.replies.size() && s.replies[q].answered;
    const bool waits = any_matrix ? !answered && s.quiz_fits(static_cast<int>(q)) &&
                                        s.quiz()[q].step >= static_cast<int>(s.step)
                                  : weights_question_waits(s, q);
    if (waits)
      return printf_text(T("It waits for the question on step %d: %s"), s.quiz()[q].step + 1,
                         s.quiz()[q].ask.in(language() == Lang::kZh ? "zh" : "en").c_str());
  }
  return "";
}

std::vector<std::string> step_verdicts(AppState& s) {
  std::vector<std::string> out;
  for (size_t q = 0; q < s.quiz().size() && q < s.replies.size(); ++q) {
    const AppState::QuizReply& r = s.replies[q];
    if (!r.answered || s.quiz()[q].step != static_cast<int>(s.step) ||
        !s.quiz_fits(static_cast<int>(q)))
      continue;
    out.push_back(std::string(r.correct ? T("Right.")
                              : r.shown ? T("Here it is.")
                                        : T("Not quite.")) +
                  " " + s.quiz_verdict(static_cast<int>(q)));
  }
  return out;
}

bool picture_hidden(const AppState& s) {
  if (answer_hidden(s, MatrixKind::kWeights)) return true;
  for (size_t q = 0; q < s.quiz().size(); ++q)
    if (weights_question_waits(s, q)) return true;
  return false;
}

bool layers_hidden(const AppState& s) {
  return picture_hidden(s);
}

bool curve_hidden(const AppState& s) {
  if (answer_hidden(s, MatrixKind::kWeights) || answer_hidden(s, MatrixKind::kOutput)) return true;
  for (size_t q = 0; q < s.quiz().size(); ++q) {
    const bool answered = q < s.replies.size() && s.replies[q].answered;
    if (!answered && s.quiz_fits(static_cast<int>(q)) &&
        s.quiz()[q].step >= static_cast<int>(s.step))
      return true;
  }
  return false;
}

bool document_row_hidden(const AppState& s, int row) {
  for (size_t q = 0; q < s.quiz().size(); ++q)
    if (weights_question_waits(s, q) && s.quiz()[q].answer.row == row) return true;
  return false;
}

int decoder_rows_allowed(const AppState& s, int words) {
  int allowed = words;
  for (size_t q = 0; q < s.quiz().size(); ++q)
    if (weights_question_waits(s, q))
      allowed = std::min(allowed, std::max(0, s.quiz()[q].answer.row));
  return allowed;
}

// -------------------------------------------------------------------------------------------
// The views' sentences
// -------------------------------------------------------------------------------------------

std::string decoder_word_sentence(const AppState& s, int step) {
  if (!decoder_ready(s)) return "";
  const scenario::Seq2Seq& model = s.scenario.seq2seq;
  const attn::seq2seq::Forward& f = model.forward;
  const int m = s.decoder_words(), n = static_cast<int>(model.source.size());
  step = std::clamp(step, 1, m);
  if (step - 1 >= decoder_rows_allowed(s, m))
    return printf_text(T("Word %d: its row of the alignment shows once the lesson's question "
                         "about it is answered."),
                       step);
  int best = 0;
  for (int j = 1; j < n; ++j)
    if (f.weights(step - 1, j) > f.weights(step - 1, best)) best = j;
  const int chosen = model.produced[step - 1];
  const std::string word = model.target_word(chosen);
  const std::string previous =
      model.target_word(step == 1 ? attn::seq2seq::kBos : model.produced[step - 2]);
  const double p = f.probs(step - 1, chosen), w = f.weights(step - 1, best);
  const char* format =
      model.greedy() ? T("Word %d: the query s%s put %.2f of its weight on \"%s\"; the context c%s "
                         "and the previous word \"%s\" went into the GRU, which wrote \"%s\" "
                         "(probability %.2f).")
                     : T("Word %d: the query s%s put %.2f of its weight on \"%s\"; the context c%s "
                         "and the previous word \"%s\" went into the GRU; the given word is \"%s\" "
                         "(the model's probability %.2f).");
  // sₜ₋₁ and cₜ with subscripts, as the lesson writes them (sub(k) is k + 1's).
  std::string text = printf_text(format, step, sub(step - 2).c_str(), w,
                                 model.source_word(model.source[best]).c_str(),
                                 sub(step - 1).c_str(), previous.c_str(), word.c_str(), p);
  if (f.probs.cols() > 1) {
    int other = chosen == 0 ? 1 : 0;
    for (int k = 0; k < f.probs.cols(); ++k)
      if (k != chosen && f.probs(step - 1, k) > f.probs(step - 1, other)) other = k;
    text += printf_text(T(" The next most likely word: \"%s\" (%.2f)."),
                        model.target_word(other).c_str(),
                        static_cast<double>(f.probs(step - 1, other)));
  }
  return text;
}

std::string decoder_training_status(const AppState& s) {
  const std::string untrainable = s.decoder_untrainable();
  if (!untrainable.empty()) return untrainable;
  const AppState::DecoderTraining& dt = s.decoder_training;
  if (!dt.error.empty()) return dt.error;
  if (dt.losses.empty())
    return printf_text(T("Train: Adam on %d sentence pairs a step, pausing every %d steps."),
                       AppState::kDecoderBatch, AppState::kDecoderTrainSteps);
  return printf_text(T("Step %d, loss %.3g"), static_cast<int>(dt.losses.size()),
                     static_cast<double>(dt.losses.back()));
}

std::vector<std::string> hierarchy_sentence_words(const scenario::Hierarchy& h, int k) {
  const bool zh = language() == Lang::kZh && !h.words_zh.empty();
  const auto& words = zh ? h.words_zh : h.words;
  std::vector<std::string> out;
  const int n = static_cast<int>(h.sentences[k].rows());
  for (int i = 0; i < n; ++i) {
    if (k < static_cast<int>(words.size()) && i < static_cast<int>(words[k].size()))
      out.push_back(words[k][i]);
    else
      out.push_back("w" + std::to_string(i + 1));
  }
  return out;
}

std::string document_summary(const AppState& s) {
  if (!document_ready(s)) return "";
  const DocumentView v(s);
  const scenario::Hierarchy& hy = v.hy;
  const attn::Matrix& b = v.b;
  const int n_s = v.n_s, q = v.q;
  const std::vector<std::string>&questions = v.questions, &sentences = v.sentences;
  if (document_row_hidden(s, q))
    return printf_text(T("For \"%s\", the sentence weights show once the lesson's question about "
                         "them is answered. The word weights are already here: use them to "
                         "predict."),
                       questions[q].c_str());
  int best = 0;
  for (int k = 1; k < n_s; ++k)
    if (b(q, k) > b(q, best)) best = k;
  const attn::Vector& a = hy.word_weights[best];
  const std::vector<std::string> words = hierarchy_sentence_words(hy, best);
  std::vector<int> order(static_cast<size_t>(a.size()));
  for (int i = 0; i < a.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return a(x) > a(y); });
  if (order.empty()) return "";
  if (order.size() > 1 && a(order[0]) - a(order[1]) < 0.005f)
    return printf_text(T("For \"%s\", the sentence \"%s\" gets %.2f of the weight; inside it, "
                         "\"%s\" and \"%s\" get %.2f each."),
                       questions[q].c_str(), sentences[best].c_str(), b(q, best),
                       words[order[0]].c_str(), words[order[1]].c_str(), a(order[0]));
  return printf_text(T("For \"%s\", the sentence \"%s\" gets %.2f of the weight; inside it, "
                       "\"%s\" gets the most, %.2f."),
                     questions[q].c_str(), sentences[best].c_str(), b(q, best),
                     words[order[0]].c_str(), a(order[0]));
}

std::string picture_summary(AppState& s) {
  const attn::Matrix* weights = picture_weights(s);
  if (!weights || picture_hidden(s)) return "";
  const scenario::Image& im = s.scenario.image;
  const int n_q = static_cast<int>(weights->rows());
  const int q = std::clamp(s.picture_query, 0, n_q - 1);
  const std::vector<std::string> queries = axis_labels(s, Axis::kQueryTokens, 0, n_q);
  std::vector<int> order(im.patches());
  for (int j = 0; j < im.patches(); ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return (*weights)(q, a) > (*weights)(q, b); });
  std::string line;
  for (int k = 0; k < 3 && k < static_cast<int>(order.size()); ++k)
    line += (k ? ", " : "") + scenario::patch_name(im, order[k]) + " " +
            fixed2((*weights)(q, order[k]));
  return printf_text(T("\"%s\" looks most at %s (row and column of patches)."), queries[q].c_str(),
                     line.c_str());
}

double curve_error(const AppState& s) {
  if (!curve_ready(s)) return -1.0;
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.output.size()) - 1);
  const attn::Batch& target = s.scenario.target;
  if (static_cast<int>(target.size()) <= b) return -1.0;
  const attn::Matrix& out = s.trace.output[b];
  const attn::Matrix& t = target[b];
  if (t.rows() != out.rows() || t.cols() != out.cols() || out.rows() == 0) return -1.0;
  double sum = 0.0;
  for (Eigen::Index i = 0; i < out.rows(); ++i) {
    const double d = static_cast<double>(out(i, 0)) - static_cast<double>(t(i, 0));
    sum += d * d;
  }
  return sum / static_cast<double>(out.rows());
}

std::vector<float> curve_estimate(const AppState& s, float lo, float hi, int n) {
  if (!curve_ready(s) || n < 2 || !(hi > lo) || s.problem.keys.size() == 0) return {};
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.output.size()) - 1);
  attn::Problem p = s.problem;  // its scoring, σ, temperature and weights
  attn::Matrix xs(n, s.problem.queries[b].cols());
  xs.setZero();
  for (int i = 0; i < n; ++i)
    xs(i, 0) = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n - 1);
  attn::Batch q(1), k(1), v(1);
  q.mut(0) = xs;
  k.mut(0) = s.problem.keys[b];
  v.mut(0) = s.problem.values[b];
  p.queries = std::move(q);
  p.keys = std::move(k);
  p.values = std::move(v);
  p.mask = attn::MaskSpec{};
  p.dropout_p = 0.0f;
  if (!attn::validate(p).ok()) return {};
  attn::RunOptions outputs_only;
  outputs_only.keep_head_matrices = false;
  const attn::Trace t = attn::run(p, outputs_only);
  if (t.output.size() != 1 || t.output[0].cols() != 1) return {};
  std::vector<float> ys(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ys[i] = t.output[0](i, 0);
  return ys;
}

std::string curve_summary(const AppState& s) {
  if (!curve_ready(s) || curve_hidden(s)) return "";
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.output.size()) - 1);
  const attn::Matrix& xq = s.trace.queries[b];
  const attn::Matrix& xk = s.trace.keys[b];
  const attn::Matrix& w = s.trace.heads[0].weights[b];
  const int n_q = static_cast<int>(xq.rows());
  const int q = std::clamp(s.curve_query, 0, n_q - 1);
  const std::vector<std::string> names = axis_labels(s, Axis::kQueryTokens, b, n_q);
  int most = 0;
  for (int j = 1; j < w.cols(); ++j)
    if (w(q, j) > w(q, most)) most = j;
  std::string text = printf_text(
      T("Query %s (x = %.2f) predicts %.2f; its largest weight, %.2f, is on the point at x = "
        "%.2f."),
      names[q].c_str(), static_cast<double>(xq(q, 0)), static_cast<double>(s.trace.output[b](q, 0)),
      static_cast<double>(w(q, most)), static_cast<double>(xk(most, 0)));
  // How good the predictions are together, for this σ (the lesson's note quotes it).
  if (const double e = curve_error(s); e >= 0.0)
    text += (language() == Lang::kZh ? "" : " ") +
            printf_text(T("The mean squared error of the %d predictions is %.3f (σ = %.3g)."), n_q,
                        e, static_cast<double>(s.scenario.sigma));
  return text;
}

}  // namespace ui
