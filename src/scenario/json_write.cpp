// Scenario JSON v1 written (to_json: every field, numbers that read back exactly) and the
// trace JSON, whole or streamed.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "scenario/json_util.h"
#include "scenario/scenario.h"

namespace scenario {

using nlohmann::json;

namespace {

void append_number(std::string* out, float v) {
  char buf[48];
  const int n = format_float_to(buf, v);
  if (!std::isfinite(v)) *out += '"';
  out->append(buf, static_cast<size_t>(n));
  if (!std::isfinite(v)) *out += '"';
}

void append_matrix(std::string* out, const attn::Matrix& m) {
  *out += '[';
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    if (r) *out += ',';
    *out += '[';
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (c) *out += ',';
      append_number(out, m(r, c));
    }
    *out += ']';
  }
  *out += ']';
}

// A weight as scenario JSON writes it: a matrix as rows, w_v as one row.
void append_weight(std::string* out, const attn::Matrix& m) {
  append_matrix(out, m);
}
void append_weight(std::string* out, const attn::Vector& v) {
  *out += '[';
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (i) *out += ',';
    append_number(out, v(i));
  }
  *out += ']';
}

void append_batch(std::string* out, const attn::Batch& b, bool two_d) {
  if (two_d && b.size() == 1) return append_matrix(out, b[0]);
  *out += '[';
  for (size_t i = 0; i < b.size(); ++i) {
    if (i) *out += ',';
    append_matrix(out, b[i]);
  }
  *out += ']';
}

void append_key(std::string* out, const char* key) {
  if (out->back() != '{') *out += ',';
  *out += '"';
  *out += key;
  *out += "\":";
}

void append_string(std::string* out, const std::string& s) {
  *out += json(s).dump();
}

void append_strings(std::string* out, const std::vector<std::string>& v) {
  *out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) *out += ',';
    append_string(out, v[i]);
  }
  *out += ']';
}

void append_text(std::string* out, const LocalText& t) {
  if (t.zh.empty()) return append_string(out, t.en);
  *out += "{\"en\":";
  append_string(out, t.en);
  *out += ",\"zh\":";
  append_string(out, t.zh);
  *out += '}';
}

// Tokens as read: a token with a different Chinese as {"en": ..., "zh": ...}.
void append_tokens(std::string* out, const std::vector<std::vector<std::string>>& t,
                   const std::vector<std::vector<std::string>>& zh, bool per_item) {
  const auto list = [&](size_t b) {
    if (zh.size() != t.size()) return append_strings(out, t[b]);
    *out += '[';
    for (size_t i = 0; i < t[b].size(); ++i) {
      if (i) *out += ',';
      if (i < zh[b].size() && zh[b][i] != t[b][i]) {
        *out += "{\"en\":";
        append_string(out, t[b][i]);
        *out += ",\"zh\":";
        append_string(out, zh[b][i]);
        *out += '}';
      } else {
        append_string(out, t[b][i]);
      }
    }
    *out += ']';
  };
  if (!per_item) return list(0);
  *out += '[';
  for (size_t b = 0; b < t.size(); ++b) {
    if (b) *out += ',';
    list(b);
  }
  *out += ']';
}

// "seq2seq" as read (scenario/seq2seq_form.h): the given weights alone, in for_each_param's
// order; what derive_seq2seq makes of it is left out.
void append_seq2seq(std::string* o, const Seq2Seq& m) {
  const attn::seq2seq::Sizes& z = m.params.sizes;
  append_key(o, "seq2seq");
  *o += "{\"sizes\":{\"embed\":" + std::to_string(z.embed) +
        ",\"hidden\":" + std::to_string(z.hidden) +
        ",\"attention\":" + std::to_string(z.attention) + "}";
  append_key(o, "source_words");
  append_strings(o, m.source_words);
  append_key(o, "target_words");
  append_strings(o, m.target_words);
  if (m.has_seed) append_key(o, "seed"), *o += std::to_string(m.seed);
  if (m.given) {
    append_key(o, "weights");
    *o += '{';
    uint32_t k = 0;
    attn::seq2seq::for_each_param(m.params, [&](const char* name, const attn::Matrix& w) {
      if (m.given & (uint32_t{1} << k++)) append_key(o, name), append_matrix(o, w);
    });
    *o += '}';
  }
  const auto words = [&m](const std::vector<int>& ids, bool target) {
    std::vector<std::string> out;
    for (int id : ids) out.push_back(target ? m.target_word(id) : m.source_word(id));
    return out;
  };
  append_key(o, "source");
  append_strings(o, words(m.source, false));
  if (!m.target.empty()) append_key(o, "target"), append_strings(o, words(m.target, true));
  *o += '}';
}

// Labels as read: {"en": ..., "zh": ...} where the Chinese differs (append_tokens' form).
void append_labels(std::string* o, const std::vector<std::string>& en,
                   const std::vector<std::string>& zh) {
  append_tokens(o, {en},
                zh.empty() ? std::vector<std::vector<std::string>>{}
                           : std::vector<std::vector<std::string>>{zh},
                false);
}

// "hierarchy" as read (scenario/hierarchy_form.h), in a fixed order, the labels when given;
// what derive_hierarchy makes of it is left out.
void append_hierarchy(std::string* o, const Hierarchy& h) {
  append_key(o, "hierarchy");
  *o += '{';
  append_key(o, "sentences");
  *o += '[';
  for (size_t k = 0; k < h.sentences.size(); ++k) {
    if (k) *o += ',';
    append_matrix(o, h.sentences[k]);
  }
  *o += ']';
  if (!h.words.empty()) {
    append_key(o, "words");
    append_tokens(o, h.words, h.words_zh, true);
  }
  if (!h.sentence_names.empty())
    append_key(o, "sentence_names"), append_labels(o, h.sentence_names, h.sentence_names_zh);
  if (!h.feature_names.empty())
    append_key(o, "feature_names"), append_labels(o, h.feature_names, h.feature_names_zh);
  append_key(o, "word_query");
  append_weight(o, h.word_query);
  append_key(o, "questions");
  append_matrix(o, h.questions);
  if (!h.question_names.empty())
    append_key(o, "question_names"), append_labels(o, h.question_names, h.question_names_zh);
  append_key(o, "scoring");
  *o += std::string("\"") + attn::scoring_name(h.scoring) + "\"";
  *o += '}';
}

void append_reading(std::string* o, const Scenario& s) {
  if (s.read_url.empty()) return;
  append_key(o, "read");
  *o += '{';
  append_key(o, "title");
  append_text(o, s.read_title);
  append_key(o, "url");
  append_text(o, s.read_url);
  *o += '}';
}

}  // namespace

namespace {

// Whether a scenario made from a model (`block`: seq2seq, hierarchy) is still what the model
// derives: written out without the block, it and a fresh derivation are the same text.
template <class Model>
bool as_derived(const Scenario& s, Model Scenario::*block, std::string (*derive)(Scenario*)) {
  Scenario derived = s;
  if (!derive(&derived).empty()) return false;
  Scenario as_is = s;
  as_is.*block = Model{};
  derived.*block = Model{};
  return to_json(as_is) == to_json(derived);
}

}  // namespace

std::string to_json(const Scenario& s) {
  std::string o = "{";
  append_key(&o, "version");
  o += "1";
  if (!s.title.empty()) append_key(&o, "title"), append_text(&o, s.title);
  if (!s.description.empty()) append_key(&o, "description"), append_text(&o, s.description);
  if (!s.tour.empty()) {
    append_key(&o, "tour");
    o += '[';
    for (size_t i = 0; i < s.tour.size(); ++i) {
      o += i ? ",{" : "{";
      append_key(&o, "step");
      o += std::to_string(s.tour[i].step);
      append_key(&o, "text");
      append_text(&o, s.tour[i].text);
      if (!s.tour[i].controls.empty()) {
        append_key(&o, "controls");
        append_strings(&o, s.tour[i].controls);
      }
      o += '}';
    }
    o += ']';
  }
  if (!s.quiz.empty()) {
    append_key(&o, "quiz");
    o += '[';
    for (size_t i = 0; i < s.quiz.size(); ++i) {
      const QuizQuestion& q = s.quiz[i];
      o += i ? ",{" : "{";
      append_key(&o, "step");
      o += std::to_string(q.step);
      append_key(&o, "ask");
      append_text(&o, q.ask);
      append_key(&o, "why");
      append_text(&o, q.why);
      append_key(&o, "answer");
      const QuizAnswer& a = q.answer;
      o += '{';
      if (!s.layers.empty()) {
        append_key(&o, "layer");
        o += std::to_string(a.layer);
      }
      if (!a.argmax) {
        append_key(&o, "matrix");
        append_string(&o, a.matrix);
      }
      if (a.argmax || a.matrix != "output") {
        append_key(&o, "head");
        o += std::to_string(a.head);
      }
      append_key(&o, "batch");
      o += std::to_string(a.batch);
      if (a.argmax) {
        append_key(&o, "row");
        o += std::to_string(a.row);
        append_key(&o, "key");
        o += std::to_string(a.col);
      } else {
        append_key(&o, "cell");
        o += '[' + std::to_string(a.row) + ',' + std::to_string(a.col) + ']';
        append_key(&o, "value");
        append_number(&o, a.value);
        append_key(&o, "tolerance");
        append_number(&o, a.tolerance);
      }
      o += "}}";
    }
    o += ']';
  }
  // The model alone, its attention's inputs and weights being derived; once a learner has edited
  // that attention (a size, the temperature, a mask, a trained W_q), the scenario as it is.
  if (!s.seq2seq.empty() && as_derived(s, &Scenario::seq2seq, derive_seq2seq)) {
    append_reading(&o, s);
    append_seq2seq(&o, s.seq2seq);
    o += '}';
    return o;
  }
  // The same for attention over attention: the hierarchy alone, until its sentence level is
  // edited.
  if (!s.hierarchy.empty() && as_derived(s, &Scenario::hierarchy, derive_hierarchy)) {
    append_reading(&o, s);
    append_hierarchy(&o, s.hierarchy);
    o += '}';
    return o;
  }
  if (!s.feature_names.empty()) {
    append_key(&o, "feature_names");
    append_tokens(&o, s.feature_names, s.feature_names_zh, false);
  }
  if (!s.key_feature_names.empty()) {
    append_key(&o, "key_feature_names");
    append_tokens(&o, s.key_feature_names, s.key_feature_names_zh, false);
  }
  if (!s.value_names.empty()) {
    append_key(&o, "value_names");
    append_tokens(&o, s.value_names, s.value_names_zh, false);
  }
  if (!s.output_names.empty()) {
    append_key(&o, "output_names");
    append_tokens(&o, s.output_names, s.output_names_zh, false);
  }
  if (!s.target.empty()) {
    append_key(&o, "target");
    append_batch(&o, s.target, s.batch_of_one);
  }
  if (!s.trained_from_task.empty()) {
    append_key(&o, "trained_from");
    o += "{\"task\":\"" + s.trained_from_task +
         "\",\"seed\":" + std::to_string(s.trained_from_seed) + "}";
  }
  append_reading(&o, s);
  if (s.token_model()) {  // x is each token's row of embed: the tokens say it
    const auto ids = [&o, &s](const std::vector<std::vector<int>>& rows) {
      if (!s.batch_of_one) o += '[';
      for (size_t b = 0; b < rows.size(); ++b) {
        o += b ? ",[" : "[";
        for (size_t i = 0; i < rows[b].size(); ++i)
          o += (i ? "," : "") + std::to_string(rows[b][i]);
        o += ']';
      }
      if (!s.batch_of_one) o += ']';
    };
    append_key(&o, "tokens");
    ids(s.token_ids);
    if (!s.next_tokens.empty()) append_key(&o, "next"), ids(s.next_tokens);
    if (s.embed.size()) append_key(&o, "embed"), append_weight(&o, s.embed);
    if (s.unembed.size()) append_key(&o, "unembed"), append_weight(&o, s.unembed);
    if (!s.vocab.empty()) append_key(&o, "vocab"), append_strings(&o, s.vocab);
    if (!s.batches_task.empty()) {
      append_key(&o, "batches");
      o += "{\"task\":\"" + s.batches_task + "\",\"seed\":" + std::to_string(s.batches_seed) + "}";
    }
  } else if (s.self_attention) {
    append_key(&o, "x");
    append_batch(&o, s.queries, s.batch_of_one);
  } else if (!s.image.empty()) {
    // The picture; its patches' numbers are the keys and values, written only when a learner
    // changed them.
    append_key(&o, "image");
    o += "{\"width\":" + std::to_string(s.image.width) +
         ",\"height\":" + std::to_string(s.image.height) +
         ",\"patch\":" + std::to_string(s.image.patch) + ",\"pixels\":";
    append_strings(&o, image_rows(s.image));
    o += '}';
    append_key(&o, "queries");
    append_batch(&o, s.queries, s.batch_of_one);
    const attn::Matrix patches = image_features(s.image);
    if (s.keys.size() != 1 || s.keys[0] != patches)
      append_key(&o, "keys"), append_batch(&o, s.keys, s.batch_of_one);
    if (s.values.size() != 1 || s.values[0] != patches)
      append_key(&o, "values"), append_batch(&o, s.values, s.batch_of_one);
  } else {
    append_key(&o, "queries");
    append_batch(&o, s.queries, s.batch_of_one);
    append_key(&o, "keys");
    append_batch(&o, s.keys, s.batch_of_one);
    append_key(&o, "values");
    append_batch(&o, s.values, s.batch_of_one);
  }
  if (!s.query_tokens.empty())
    append_key(&o, "query_tokens"),
        append_tokens(&o, s.query_tokens, s.query_tokens_zh, s.tokens_per_item);
  if (!s.key_tokens.empty())
    append_key(&o, "key_tokens"),
        append_tokens(&o, s.key_tokens, s.key_tokens_zh, s.tokens_per_item);
  append_key(&o, "scoring");
  o += std::string("\"") + attn::scoring_name(s.scoring) + "\"";
  if (s.temperature != 1.0f) append_key(&o, "temperature"), o += format_float(s.temperature);
  // Always with gaussian scoring, so that a trained scenario shows the width it learned.
  if (s.scoring == attn::Scoring::kGaussian) append_key(&o, "sigma"), o += format_float(s.sigma);
  if (s.heads != 1) append_key(&o, "heads"), o += std::to_string(s.heads);
  switch (s.valid_lens_form) {
    case ValidLensForm::kNone:
      break;
    case ValidLensForm::kAll:
      append_key(&o, "valid_lens");
      o += std::to_string(s.valid_lens[0][0]);
      break;
    case ValidLensForm::kPerSequence:
    case ValidLensForm::kPerQuery: {
      append_key(&o, "valid_lens");
      o += '[';
      for (size_t b = 0; b < s.valid_lens.size(); ++b) {
        if (b) o += ',';
        if (s.valid_lens_form == ValidLensForm::kPerSequence) {
          o += std::to_string(s.valid_lens[b][0]);
          continue;
        }
        o += '[';
        for (size_t i = 0; i < s.valid_lens[b].size(); ++i)
          o += (i ? "," : "") + std::to_string(s.valid_lens[b][i]);
        o += ']';
      }
      o += ']';
      break;
    }
  }
  if (s.causal) append_key(&o, "causal"), o += "true";
  if (s.window >= 0) append_key(&o, "window"), o += std::to_string(s.window);
  if (!s.masked_cells.empty()) {
    append_key(&o, "masked_cells");
    o += '[';
    for (size_t c = 0; c < s.masked_cells.size(); ++c) {
      const auto& m = s.masked_cells[c];
      o += (c ? ",[" : "[") + std::to_string(m[0]) + "," + std::to_string(m[1]) + "," +
           std::to_string(m[2]) + "]";
    }
    o += ']';
  }
  if (s.mask_value != -1e6f) append_key(&o, "mask_value"), append_number(&o, s.mask_value);
  attn::for_each_weight(s, [&o](const char* name, const auto& m) {
    if (m.size()) append_key(&o, name), append_weight(&o, m);
  });
  if (!s.layers.empty()) {
    append_key(&o, "layers");
    o += '[';
    for (size_t l = 0; l < s.layers.size(); ++l) {
      o += l ? ",{" : "{";
      attn::for_each_weight(s.layers[l], [&o](const char* name, const auto& m) {
        if (m.size()) append_key(&o, name), append_weight(&o, m);
      });
      if (s.layers[l].heads != 1) append_key(&o, "heads"), o += std::to_string(s.layers[l].heads);
      o += '}';
    }
    o += ']';
  }
  if (s.has_init) {
    append_key(&o, "init");
    o += "{\"seed\":" + std::to_string(s.init_seed) +
         ",\"d_model\":" + std::to_string(s.init_d_model) + "}";
  }
  if (s.positional_encoding) {
    append_key(&o, "positional_encoding");
    o += "{\"kind\":\"sinusoidal\",\"base\":" + format_float(s.pe_base) + "}";
  }
  if (s.hard) {
    append_key(&o, "hard");
    if (s.hard_gradient == attn::HardGradient::kStraightThrough)
      o += "{\"estimator\":\"straight_through\"}";
    else if (s.hard_gradient == attn::HardGradient::kGumbel)
      o += "{\"estimator\":\"gumbel\",\"tau\":" + format_float(s.gumbel_tau) +
           ",\"seed\":" + std::to_string(s.gumbel_seed) +
           ",\"soft\":" + (s.gumbel_soft ? "true" : "false") + "}";
    else
      o += "true";
  }
  if (s.has_dropout) {
    append_key(&o, "dropout");
    o +=
        "{\"p\":" + format_float(s.dropout_p) + ",\"seed\":" + std::to_string(s.dropout_seed) + "}";
  }
  o += '}';
  return o;
}

TraceJsonWriter::TraceJsonWriter(Sink sink) : sink_(std::move(sink)) {
  buffer_ = "{\"version\":1";
}

void TraceJsonWriter::flush_if_full() {
  if (buffer_.size() < (size_t{1} << 16)) return;
  sink_(buffer_);
  buffer_.clear();
}

void TraceJsonWriter::matrix(const attn::Matrix& m) {
  buffer_ += '[';
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    buffer_ += r ? ",[" : "[";
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (c) buffer_ += ',';
      // Runs of one value (uniform weights, masks, zeros) are formatted once.
      const float v = m(r, c);
      if (std::memcmp(&v, &last_value_, sizeof v) != 0) {
        last_value_ = v;
        last_text_.clear();
        append_number(&last_text_, v);
      }
      buffer_ += last_text_;
    }
    buffer_ += ']';
    flush_if_full();
  }
  buffer_ += ']';
}

void TraceJsonWriter::batch(const attn::Batch& b) {
  buffer_ += '[';
  for (size_t i = 0; i < b.size(); ++i) {
    if (i) buffer_ += ',';
    matrix(b[i]);
  }
  buffer_ += ']';
}

void TraceJsonWriter::key(const char* name) {
  if (!object_empty_) buffer_ += ',';
  object_empty_ = false;
  buffer_ += '"';
  buffer_ += name;
  buffer_ += "\":";
}

void TraceJsonWriter::close_heads() {
  if (heads_ && !heads_closed_) buffer_ += ']', heads_closed_ = true;
}

void TraceJsonWriter::close_layers() {
  if (in_layer_) end_layer();
  if (layers_ && !layers_closed_) buffer_ += ']', layers_closed_ = true;
}

void TraceJsonWriter::begin_layer() {
  if (in_layer_) end_layer();
  close_heads();
  if (layers_++) {
    buffer_ += ",{";
  } else {
    key("layers");
    buffer_ += "[{";
  }
  object_empty_ = true;
  in_layer_ = true;
  heads_ = 0;
  heads_closed_ = false;
}

void TraceJsonWriter::layer_output(const attn::Batch& added) {
  close_heads();
  key("output");
  batch(added);
}

void TraceJsonWriter::end_layer() {
  close_heads();
  buffer_ += '}';
  in_layer_ = false;
  object_empty_ = false;
  heads_ = 0;
  heads_closed_ = false;
}

void TraceJsonWriter::head(const attn::HeadTrace& h, const std::vector<std::string>& names,
                           int index) {
  if (heads_++) {
    buffer_ += ",{";
  } else {
    key("heads");
    buffer_ += "[{";
  }
  bool first = true;
  if (index >= 0) {
    buffer_ += "\"head\":" + std::to_string(index);
    first = false;
  }
  attn::for_each_head_matrix(h, [&](const char* name, const attn::Batch& b) {
    if (!names.empty() && std::find(names.begin(), names.end(), name) == names.end()) return;
    buffer_ += first ? "\"" : ",\"";
    buffer_ += name;
    buffer_ += "\":";
    batch(b);
    first = false;
  });
  buffer_ += '}';
}

void TraceJsonWriter::output(const attn::Batch& out) {
  close_heads();
  close_layers();
  key("output");
  batch(out);
}

void TraceJsonWriter::batch_member(const char* name, const attn::Batch& b) {
  close_heads();
  close_layers();
  key(name);
  batch(b);
}

void TraceJsonWriter::json_member(const char* name, const std::string& json_text) {
  close_heads();
  close_layers();
  key(name);
  buffer_ += json_text;
}

void TraceJsonWriter::finish() {
  close_heads();
  close_layers();
  buffer_ += '}';
  sink_(buffer_);
  buffer_.clear();
}

namespace {

// attention-cli grad's numbers: 9 significant digits (%.9g), matrices as [[...], ...].
struct GradientText {
  std::string o = "{\"version\":1,\"loss\":";
  char buf[32];
  void number(double v) {
    std::snprintf(buf, sizeof buf, "%.9g", v);
    o += buf;
  }
  void matrix(const attn::MatrixD& m) {
    o += '[';
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
      o += i ? ",[" : "[";
      for (Eigen::Index j = 0; j < m.cols(); ++j) {
        if (j) o += ',';
        number(m(i, j));
      }
      o += ']';
    }
    o += ']';
  }
  // "name": a batch, as the field was written (2-D for a batch of one).
  void batch(const char* name, const attn::BatchD& b, bool batch_of_one, bool first) {
    o += first ? "\"" : ",\"";
    o += name;
    o += "\":";
    if (batch_of_one && b.size() == 1) return matrix(b[0]);
    o += '[';
    for (size_t i = 0; i < b.size(); ++i) {
      if (i) o += ',';
      matrix(b[i]);
    }
    o += ']';
  }
  // Every weight t has, in attn::kWeightNames order ("name": matrix; w_v one row).
  template <class T>
  void weights(const T& t, bool first) {
    attn::for_each_weight(t, [&](const char* name, const auto& m) {
      if (!m.size()) return;
      o += first ? "\"" : ",\"";
      o += name;
      o += "\":";
      first = false;
      if constexpr (std::is_same_v<std::decay_t<decltype(m)>, attn::MatrixD>) {
        matrix(m);
      } else {
        o += '[';
        for (Eigen::Index u = 0; u < m.size(); ++u) {
          if (u) o += ',';
          number(m(u));
        }
        o += ']';
      }
    });
  }
};

}  // namespace

std::string gradients_json(const Scenario& s, const attn::Gradients& g) {
  GradientText t;
  t.number(g.loss);
  t.o += ",\"grads\":{";
  if (s.self_attention) {  // x is queries, keys and values at once: the three summed
    attn::BatchD x;
    for (size_t b = 0; b < g.queries.size(); ++b)
      x.push_back(g.queries[b] + g.keys[b] + g.values[b]);
    t.batch("x", x, s.batch_of_one, true);
  } else {
    t.batch("queries", g.queries, s.batch_of_one, true);
    t.batch("keys", g.keys, s.batch_of_one, false);
    t.batch("values", g.values, s.batch_of_one, false);
  }
  t.weights(g, false);
  if (s.scoring == attn::Scoring::kGaussian) {  // σ's gradient, a number, after the weights
    t.o += ",\"sigma\":";
    t.number(g.sigma);
  }
  t.o += "}}";
  return t.o;
}

std::string stack_gradients_json(const Scenario& s, const attn::StackGradients& g) {
  GradientText t;
  t.number(g.loss);
  t.o += ",\"grads\":{";
  if (s.token_model()) {  // the inputs are embed's rows: its gradient, and unembed's
    t.o += "\"embed\":";
    t.matrix(g.embed);
    t.o += ",\"unembed\":";
    t.matrix(g.unembed);
  } else {
    t.batch("x", g.x, s.batch_of_one, true);
  }
  t.o += ",\"layers\":[";
  for (size_t l = 0; l < g.layers.size(); ++l) {
    t.o += l ? ",{" : "{";
    t.weights(g.layers[l], true);
    t.o += '}';
  }
  t.o += "]}}";
  return t.o;
}

std::string seq2seq_trace_json(const Scenario& s) {
  const Seq2Seq& m = s.seq2seq;
  std::string o = "{\"source\":";
  std::vector<std::string> words;
  for (int id : m.source) words.push_back(m.source_word(id));
  append_strings(&o, words);
  words.clear();
  for (int id : m.produced) words.push_back(m.target_word(id));
  o += ",\"produced\":";
  append_strings(&o, words);
  o += m.greedy() ? ",\"greedy\":true,\"loss\":" : ",\"greedy\":false,\"loss\":";
  char loss[32];
  std::snprintf(loss, sizeof loss, "%.9g", m.forward.loss);
  return o + loss + "}";
}

std::string hierarchy_trace_json(const Scenario& s) {
  const Hierarchy& h = s.hierarchy;
  std::string o = "{\"word_weights\":[";
  for (size_t k = 0; k < h.word_weights.size(); ++k) {
    if (k) o += ',';
    append_weight(&o, h.word_weights[k]);
  }
  o += "],\"sentence_vectors\":";
  append_matrix(&o, h.sentence_vectors);
  return o + "}";
}

std::string trace_to_json(const attn::Trace& t) {
  std::string text;
  TraceJsonWriter w([&text](const std::string& piece) { text += piece; });
  for (const attn::HeadTrace& h : t.heads) w.head(h);
  w.output(t.output);
  w.finish();
  return text;
}

}  // namespace scenario
