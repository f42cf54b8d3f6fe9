// Scenario JSON v1 written (to_json: every field, numbers that read back exactly); a scenario
// made from a model as the model's block ("seq2seq", "hierarchy") while it is what the model
// derives. The pieces of text are json_write_values.cpp's.
#include <cstdint>
#include <string>
#include <vector>

#include "scenario/json_write_internal.h"
#include "scenario/scenario.h"

namespace scenario {

using json_write_internal::append_batch;
using json_write_internal::append_key;
using json_write_internal::append_matrix;
using json_write_internal::append_number;
using json_write_internal::append_string;
using json_write_internal::append_strings;
using json_write_internal::append_text;
using json_write_internal::append_tokens;
using json_write_internal::append_weight;

namespace {

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
  if (s.true_curve.size()) append_key(&o, "true_curve"), append_matrix(&o, s.true_curve);
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

}  // namespace scenario
