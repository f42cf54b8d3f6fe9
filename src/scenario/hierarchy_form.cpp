// "hierarchy" (scenario/hierarchy_form.h): its checks, the word level, and the sentence-level
// scenario it reads as.
#include "scenario/hierarchy_form.h"

#include <cmath>

#include "scenario/json_util.h"
#include "scenario/scenario.h"

namespace scenario {

namespace {

using json_util::idx;

const std::string kField = "hierarchy";

std::string count_error(const std::string& field, size_t count, int lo, int hi, const char* what) {
  if (count < static_cast<size_t>(lo))
    return field + ": is empty, expected at least one of " + what;
  if (count > static_cast<size_t>(hi))
    return field + ": has " + std::to_string(count) + " " + what + ", more than the limit " +
           std::to_string(hi);
  return "";
}

// The first number of m (its path under `field`) that is not finite or past the limit.
std::string number_error(const float* data, Eigen::Index n, const std::string& field) {
  for (Eigen::Index i = 0; i < n; ++i)
    if (!(std::fabs(data[i]) <= kMaxHierarchyNumber))
      return idx(field, static_cast<size_t>(i)) + ": is " + format_float(data[i]) +
             ", must be a finite number within ±" + format_float(kMaxHierarchyNumber);
  return "";
}

// A list of labels: none, or `expected` of them, each at most kMaxTokenBytes; its Chinese none
// or as many.
std::string labels_error(const std::string& field, const std::vector<std::string>& en,
                         const std::vector<std::string>& zh, size_t expected, const char* one_per) {
  if (en.empty()) return "";
  if (en.size() != expected)
    return field + ": has " + std::to_string(en.size()) + " labels, expected " +
           std::to_string(expected) + " (one per " + one_per + ")";
  if (!zh.empty() && zh.size() != en.size())
    return field + ": has " + std::to_string(zh.size()) + " Chinese labels, expected " +
           std::to_string(en.size());
  for (const std::vector<std::string>* list : {&en, &zh})
    for (size_t i = 0; i < list->size(); ++i)
      if ((*list)[i].size() > static_cast<size_t>(kMaxTokenBytes))
        return idx(field, i) + ": is " + std::to_string((*list)[i].size()) +
               " bytes long, more than the limit " + std::to_string(kMaxTokenBytes);
  return "";
}

std::vector<std::string> numbered(const char* prefix, int n) {
  std::vector<std::string> out;
  for (int i = 1; i <= n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

}  // namespace

std::string validate_hierarchy(const Hierarchy& h) {
  const std::string sentences = kField + ".sentences";
  if (std::string e =
          count_error(sentences, h.sentences.size(), 1, kMaxHierarchySentences, "sentences");
      !e.empty())
    return e;
  const Eigen::Index d = h.sentences[0].cols();
  if (d < 1 || d > kMaxHierarchyWidth)
    return idx(idx(sentences, 0), 0) + ": has " + std::to_string(d) + " numbers, expected 1 to " +
           std::to_string(kMaxHierarchyWidth);
  for (size_t k = 0; k < h.sentences.size(); ++k) {
    const attn::Matrix& m = h.sentences[k];
    const std::string f = idx(sentences, k);
    if (std::string e =
            count_error(f, static_cast<size_t>(m.rows()), 1, kMaxHierarchyWords, "words");
        !e.empty())
      return e;
    if (m.cols() != d)
      return idx(f, 0) + ": has " + std::to_string(m.cols()) + " numbers, expected " +
             std::to_string(d) + " (d, from sentences[0][0])";
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      if (std::string e = number_error(m.row(r).data(), d, idx(f, static_cast<size_t>(r)));
          !e.empty())
        return e;
  }
  const std::string uw = kField + ".word_query";
  if (h.word_query.size() != d)
    return uw + ": has " + std::to_string(h.word_query.size()) + " numbers, expected " +
           std::to_string(d) + " (d, from sentences[0][0])";
  if (std::string e = number_error(h.word_query.data(), d, uw); !e.empty()) return e;
  const std::string qs = kField + ".questions";
  if (std::string e = count_error(qs, static_cast<size_t>(h.questions.rows()), 1,
                                  kMaxHierarchyQuestions, "questions");
      !e.empty())
    return e;
  if (h.questions.cols() != d)
    return idx(qs, 0) + ": has " + std::to_string(h.questions.cols()) + " numbers, expected " +
           std::to_string(d) + " (d, from sentences[0][0])";
  for (Eigen::Index r = 0; r < h.questions.rows(); ++r)
    if (std::string e = number_error(h.questions.row(r).data(), d, idx(qs, static_cast<size_t>(r)));
        !e.empty())
      return e;
  if (h.scoring != attn::Scoring::kDot && h.scoring != attn::Scoring::kScaledDot)
    return kField + ".scoring: " + json_util::quoted(attn::scoring_name(h.scoring)) +
           " is not supported here, expected \"dot\" or \"scaled_dot\"";
  // Labels.
  const std::string words = kField + ".words";
  if (!h.words.empty()) {
    if (h.words.size() != h.sentences.size())
      return words + ": has " + std::to_string(h.words.size()) + " sentences, expected " +
             std::to_string(h.sentences.size()) + " (one list per sentence)";
    if (!h.words_zh.empty() && h.words_zh.size() != h.words.size())
      return words + ": has " + std::to_string(h.words_zh.size()) +
             " lists of Chinese labels, expected " + std::to_string(h.words.size());
    for (size_t k = 0; k < h.words.size(); ++k) {
      static const std::vector<std::string> kNone;
      const size_t n = static_cast<size_t>(h.sentences[k].rows());
      if (h.words[k].empty())  // (labels_error takes an empty list for none)
        return idx(words, k) + ": has 0 labels, expected " + std::to_string(n) + " (one per word)";
      if (std::string e = labels_error(idx(words, k), h.words[k],
                                       h.words_zh.empty() ? kNone : h.words_zh[k], n, "word");
          !e.empty())
        return e;
    }
  }
  const struct {
    const char* name;
    const std::vector<std::string>&en, &zh;
    size_t expected;
    const char* one_per;
  } lists[] = {
      {"sentence_names", h.sentence_names, h.sentence_names_zh, h.sentences.size(), "sentence"},
      {"feature_names", h.feature_names, h.feature_names_zh, static_cast<size_t>(d), "column"},
      {"question_names", h.question_names, h.question_names_zh,
       static_cast<size_t>(h.questions.rows()), "question"},
  };
  for (const auto& l : lists)
    if (std::string e = labels_error(kField + "." + l.name, l.en, l.zh, l.expected, l.one_per);
        !e.empty())
      return e;
  return "";
}

std::string derive_hierarchy(Scenario* s) {
  Hierarchy& h = s->hierarchy;
  if (std::string e = validate_hierarchy(h); !e.empty()) return e;
  const int d = h.width();
  // The word level: each sentence is the one-query problem u_w over its words, on the core.
  attn::Problem word;
  word.scoring = h.scoring;
  word.queries = attn::Batch{attn::Matrix(h.word_query.transpose())};
  h.word_weights.clear();
  h.sentence_vectors = attn::Matrix(static_cast<Eigen::Index>(h.sentences.size()), d);
  for (size_t k = 0; k < h.sentences.size(); ++k) {
    word.keys = attn::Batch{h.sentences[k]};
    word.values = word.keys;
    const attn::Trace t = attn::run(word);
    h.word_weights.push_back(t.heads[0].weights[0].row(0).transpose());
    h.sentence_vectors.row(static_cast<Eigen::Index>(k)) = t.output[0].row(0);
  }
  if (!h.sentence_vectors.allFinite())
    return kField + ".sentences: values too large: the sentence vectors are not finite";

  // The sentence level: the scenario itself.
  s->self_attention = false;
  s->batch_of_one = true;
  s->scoring = h.scoring;
  s->temperature = 1.0f;
  s->heads = 1;
  s->queries = attn::Batch{h.questions};
  s->keys = attn::Batch{h.sentence_vectors};
  s->values = s->keys;
  s->W_q = attn::Matrix();
  s->W_k = attn::Matrix();
  s->W_v = attn::Matrix();
  s->W_o = attn::Matrix();
  s->W = attn::Matrix();
  s->w_v = attn::Vector();
  s->tokens_per_item = false;
  const int Q = static_cast<int>(h.questions.rows()), S = static_cast<int>(h.sentences.size());
  s->query_tokens = {h.question_names.empty() ? numbered("q", Q) : h.question_names};
  s->key_tokens = {h.sentence_names.empty() ? numbered("s", S) : h.sentence_names};
  s->query_tokens_zh.clear();
  s->key_tokens_zh.clear();
  if (!h.question_names_zh.empty()) s->query_tokens_zh = {h.question_names_zh};
  if (!h.sentence_names_zh.empty()) s->key_tokens_zh = {h.sentence_names_zh};
  const std::vector<std::string> names =
      h.feature_names.empty() ? numbered("d", d) : h.feature_names;
  s->feature_names = {names};
  s->value_names = {names};
  s->output_names = {names};
  s->key_feature_names.clear();
  s->key_feature_names_zh.clear();
  s->feature_names_zh.clear();
  s->value_names_zh.clear();
  s->output_names_zh.clear();
  if (!h.feature_names_zh.empty()) {
    s->feature_names_zh = {h.feature_names_zh};
    s->value_names_zh = {h.feature_names_zh};
    s->output_names_zh = {h.feature_names_zh};
  }
  return "";
}

}  // namespace scenario
