// "seq2seq" (scenario/seq2seq_form.h): its checks, and the additive scenario it reads as.
#include "scenario/seq2seq_form.h"

#include <algorithm>
#include <cmath>

#include "scenario/json_util.h"
#include "scenario/scenario.h"

namespace scenario {

namespace s2s = attn::seq2seq;

int seq2seq_max_decode(int source_length) {
  return std::min(2 * std::max(source_length, 0) + 2, kMaxSeq2SeqLength);
}

namespace {

std::string word(const std::vector<std::string>& words, int id) {
  if (id == s2s::kBos) return "<bos>";
  if (id == s2s::kEos) return "<eos>";
  if (id < 2 || id - 2 >= static_cast<int>(words.size())) return "?";
  return words[static_cast<size_t>(id - 2)];
}

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + " × " + std::to_string(cols);
}

// Each weight's shape from the sizes, in for_each_param's order.
std::vector<std::pair<int, int>> param_shapes(const s2s::Sizes& z) {
  const int e = z.embed, h = z.hidden, a = z.attention;
  std::vector<std::pair<int, int>> out = {{z.src_vocab, e}, {z.tgt_vocab, e}};
  for (int d_in : {e, e + h}) {
    for (int k = 0; k < 3; ++k) out.emplace_back(d_in, h);
    for (int k = 0; k < 3; ++k) out.emplace_back(h, h);
    for (int k = 0; k < 3; ++k) out.emplace_back(1, h);
  }
  out.insert(out.end(), {{h, a}, {h, a}, {a, 1}, {2 * h, z.tgt_vocab}, {1, z.tgt_vocab}});
  return out;
}

bool finite(const attn::Matrix& m) {
  return m.allFinite();
}

}  // namespace

std::string Seq2Seq::source_word(int id) const {
  return word(source_words, id);
}
std::string Seq2Seq::target_word(int id) const {
  return word(target_words, id);
}

std::vector<std::string> seq2seq_param_names() {
  std::vector<std::string> names;
  s2s::Params p;
  s2s::for_each_param(p, [&names](const char* name, attn::Matrix&) { names.push_back(name); });
  return names;
}

bool Seq2Seq::toy_language() const {
  namespace s2s = attn::seq2seq;
  const s2s::Sizes toy;
  const s2s::Sizes& z = params.sizes;
  bool same = z.src_vocab == toy.src_vocab && z.tgt_vocab == toy.tgt_vocab &&
              z.embed == toy.embed && z.hidden == toy.hidden && z.attention == toy.attention &&
              static_cast<int>(source_words.size()) == toy.src_vocab - 2 &&
              static_cast<int>(target_words.size()) == toy.tgt_vocab - 2;
  for (int k = 0; same && k + 2 < toy.src_vocab; ++k)
    same = source_words[k] == s2s::toy_source_words()[k + 2] &&
           target_words[k] == s2s::toy_target_words()[k + 2];
  return same;
}

void Seq2Seq::set_learned(attn::seq2seq::Params p) {
  params = std::move(p);
  int count = 0;
  attn::seq2seq::for_each_param(params, [&count](const char*, const attn::Matrix&) { ++count; });
  given = count >= 32 ? ~uint32_t{0} : (uint32_t{1} << count) - 1;
}

std::string validate_seq2seq(const Seq2Seq& m) {
  const s2s::Sizes& z = m.params.sizes;
  const struct {
    const char* field;
    int value, lo, hi;
  } sizes[] = {
      {"seq2seq.sizes.embed", z.embed, 1, kMaxSeq2SeqSize},
      {"seq2seq.sizes.hidden", z.hidden, 1, kMaxSeq2SeqSize},
      {"seq2seq.sizes.attention", z.attention, 1, kMaxSeq2SeqSize},
      {"seq2seq.source_words", z.src_vocab - 2, 1, kMaxSeq2SeqWords},
      {"seq2seq.target_words", z.tgt_vocab - 2, 1, kMaxSeq2SeqWords},
  };
  for (const auto& s : sizes)
    if (s.value < s.lo || s.value > s.hi)
      return std::string(s.field) + ": is " + std::to_string(s.value) + ", must be from " +
             std::to_string(s.lo) + " to " + std::to_string(s.hi);
  if (static_cast<int>(m.source_words.size()) != z.src_vocab - 2)
    return "seq2seq.source_words: has " + std::to_string(m.source_words.size()) +
           " words, expected " + std::to_string(z.src_vocab - 2);
  if (static_cast<int>(m.target_words.size()) != z.tgt_vocab - 2)
    return "seq2seq.target_words: has " + std::to_string(m.target_words.size()) +
           " words, expected " + std::to_string(z.tgt_vocab - 2);
  const std::vector<std::pair<int, int>> shapes = param_shapes(z);
  std::string error;
  size_t k = 0;
  s2s::for_each_param(m.params, [&](const char* name, const attn::Matrix& w) {
    const auto [rows, cols] = shapes[k++];
    if (!error.empty()) return;
    const std::string field = std::string("seq2seq.weights.") + name;
    if (w.rows() != rows || w.cols() != cols) {
      error = field + ": must be " + shape(rows, cols) + ", got " + shape(w.rows(), w.cols());
      return;
    }
    for (Eigen::Index r = 0; r < w.rows() && error.empty(); ++r)
      for (Eigen::Index c = 0; c < w.cols(); ++c)
        if (!(std::fabs(w(r, c)) <= kMaxSeq2SeqWeight)) {
          error = json_util::idx(json_util::idx(field, static_cast<size_t>(r)),
                                 static_cast<size_t>(c)) +
                  ": is " + format_float(w(r, c)) + ", must be a finite number within ±" +
                  format_float(kMaxSeq2SeqWeight) + " (larger can overflow the model's float32)";
          break;
        }
  });
  if (!error.empty()) return error;
  const struct {
    const char* field;
    const std::vector<int>& ids;
    int lo, vocab;
    bool may_be_empty;
  } lists[] = {{"seq2seq.source", m.source, 2, z.src_vocab, false},
               {"seq2seq.target", m.target, 1, z.tgt_vocab, true}};
  for (const auto& l : lists) {
    if (l.ids.empty() && !l.may_be_empty) return std::string(l.field) + ": is empty";
    if (static_cast<int>(l.ids.size()) > kMaxSeq2SeqLength)
      return std::string(l.field) + ": has " + std::to_string(l.ids.size()) +
             " words, more than the limit " + std::to_string(kMaxSeq2SeqLength);
    for (size_t i = 0; i < l.ids.size(); ++i)
      if (l.ids[i] < l.lo || l.ids[i] >= l.vocab)
        return json_util::idx(l.field, i) + ": id " + std::to_string(l.ids[i]) +
               " is outside the vocabulary";
  }
  return "";
}

std::string derive_seq2seq(Scenario* s) {
  Seq2Seq& m = s->seq2seq;
  if (std::string e = validate_seq2seq(m); !e.empty()) return e;
  m.produced = m.greedy()
                   ? s2s::greedy_decode(m.params, m.source,
                                        seq2seq_max_decode(static_cast<int>(m.source.size())))
                         .tokens
                   : m.target;
  m.forward = s2s::forward(m.params, m.source, m.produced);
  const s2s::Forward& f = m.forward;
  if (!finite(f.enc_states) || !finite(f.queries) || !finite(f.weights) || !finite(f.contexts) ||
      !finite(f.logits) || !std::isfinite(f.loss))
    return "seq2seq.weights: values too large: the model computes numbers that are not finite";

  s->self_attention = false;
  s->batch_of_one = true;
  s->scoring = attn::Scoring::kAdditive;
  s->temperature = 1.0f;
  s->heads = 1;
  s->queries = attn::Batch{f.queries};
  s->keys = attn::Batch{f.enc_states};
  s->values = s->keys;
  s->W_q = m.params.W_q;
  s->W_k = m.params.W_k;
  s->w_v = m.params.w_v.col(0);
  s->W_v = attn::Matrix();
  s->W_o = attn::Matrix();
  s->W = attn::Matrix();
  s->tokens_per_item = false;
  s->query_tokens = {{}};
  for (int y : m.produced) s->query_tokens[0].push_back(m.target_word(y));
  s->key_tokens = {{}};
  for (int x : m.source) s->key_tokens[0].push_back(m.source_word(x));
  s->query_tokens_zh.clear();
  s->key_tokens_zh.clear();
  std::vector<std::string> h;
  for (int i = 1; i <= m.params.sizes.hidden; ++i) h.push_back("h" + std::to_string(i));
  s->feature_names = {h};
  s->value_names = {h};
  s->output_names = {h};
  s->feature_names_zh.clear();
  s->value_names_zh.clear();
  s->output_names_zh.clear();
  return "";
}

}  // namespace scenario
