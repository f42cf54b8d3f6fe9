// The trace JSON, whole (trace_to_json) or streamed in pieces (TraceJsonWriter); the
// gradients JSON of attention-cli grad (gradients_json, stack_gradients_json); and what a
// seq2seq or hierarchy scenario adds to its trace.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scenario/json_write_internal.h"
#include "scenario/scenario.h"

namespace scenario {

using json_write_internal::append_matrix;
using json_write_internal::append_number;
using json_write_internal::append_strings;
using json_write_internal::append_weight;

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
