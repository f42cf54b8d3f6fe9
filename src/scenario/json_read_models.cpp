// Scenario JSON v1 read, its model blocks: "layers" (a stack), a token model's ids, "image" (a
// picture whose patches are the keys), "seq2seq" (a GRU encoder-decoder) and "hierarchy"
// (attention over attention), with JSON-path errors.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "scenario/json_read_internal.h"
#include "scenario/json_util.h"
#include "scenario/scenario.h"

namespace scenario::json_read_internal {

// "layers": [{"W_q", "W_k", "W_v", "W_o", "W", "w_v", "heads"}, ...], 1 to kMaxLayers of them.
std::vector<LayerSpec> read_layers(const json& v) {
  if (!v.is_array())
    fail("layers",
         "must be an array of layers [{\"W_q\": ..., \"heads\": ...}, ...], got " + type_name(v));
  if (v.empty())
    fail("layers", "is empty, expected 1 to " + std::to_string(kMaxLayers) + " layers");
  if (v.size() > static_cast<size_t>(kMaxLayers))
    fail("layers", "has " + std::to_string(v.size()) + " layers, more than the limit " +
                       std::to_string(kMaxLayers));
  std::vector<LayerSpec> layers;
  for (size_t l = 0; l < v.size(); ++l) {
    const std::string f = idx("layers", l);
    const json& layer = v[l];
    if (!layer.is_object())
      fail(f,
           "must be an object {\"W_q\", \"W_k\", \"W_v\", \"W_o\", \"W\", \"w_v\", "
           "\"heads\"}, got " +
               type_name(layer));
    check_keys(layer, f, {"W_q", "W_k", "W_v", "W_o", "W", "w_v", "heads"});
    LayerSpec spec;
    if (layer.contains("heads"))
      spec.heads = static_cast<int>(read_int(layer["heads"], f + ".heads", 1, kMaxHeads));
    attn::for_each_weight(spec, [&](const char* name, auto& m) {
      if (layer.contains(name)) read_weight(layer[name], f + "." + name, &m);
    });
    layers.push_back(std::move(spec));
  }
  return layers;
}

// Token ids: [id, ...] (a batch of one: *two_d) or [[id, ...], ...], every sequence as long
// as the first, each id an integer from `lowest` (-1: none) to kMaxVocab − 1.
std::vector<std::vector<int>> read_ids(const json& v, const std::string& field, int lowest,
                                       bool* two_d) {
  if (!v.is_array() || v.empty())
    fail(field, "must be a non-empty array of token ids [..] or [[..], ...], got " + type_name(v));
  *two_d = !v[0].is_array();
  const auto row = [&](const json& r, const std::string& f) {
    read_array(r, f, kMaxRows, "tokens");
    if (r.empty()) fail(f, "is empty");
    std::vector<int> ids;
    for (size_t i = 0; i < r.size(); ++i)
      ids.push_back(static_cast<int>(read_int(r[i], idx(f, i), lowest, kMaxVocab - 1)));
    return ids;
  };
  if (*two_d) return {row(v, field)};
  read_array(v, field, kMaxBatch, "sequences");
  std::vector<std::vector<int>> out;
  for (size_t b = 0; b < v.size(); ++b) {
    out.push_back(row(v[b], idx(field, b)));
    if (out[b].size() != out[0].size())
      fail(idx(field, b), "has " + std::to_string(out[b].size()) + " tokens, expected " +
                              std::to_string(out[0].size()) + " like " + field + "[0]");
  }
  return out;
}

// "image": {"width", "height", "patch", "pixels": one string of 6 hex digits a pixel per row}.
Image read_image(const json& v, const std::string& field) {
  const json& o = json_util::read_object(v, field);
  check_keys(o, field, {"width", "height", "patch", "pixels"});
  for (const char* name : {"width", "height", "patch", "pixels"})
    if (!o.contains(name)) fail(field + "." + name, "missing");
  Image im;
  im.width = static_cast<int>(read_int(o["width"], field + ".width", kMinPatch, kMaxImageSide));
  im.height = static_cast<int>(read_int(o["height"], field + ".height", kMinPatch, kMaxImageSide));
  im.patch = static_cast<int>(read_int(o["patch"], field + ".patch", kMinPatch, kMaxPatch));
  if (im.width % im.patch || im.height % im.patch)
    fail(field + ".patch", std::to_string(im.patch) + " must divide the width (" +
                               std::to_string(im.width) + ") and the height (" +
                               std::to_string(im.height) + ")");
  if (im.patches() > kMaxPatches)
    fail(field + ".patch", "makes " + std::to_string(im.patches()) + " patches, at most " +
                               std::to_string(kMaxPatches) + " (make the patches larger)");
  const std::string rows = field + ".pixels";
  const json& p = read_array(o["pixels"], rows, kMaxImageSide, "rows");
  if (static_cast<int>(p.size()) != im.height)
    fail(rows, "has " + std::to_string(p.size()) + " rows, expected the height, " +
                   std::to_string(im.height));
  const size_t digits = 6 * static_cast<size_t>(im.width);
  im.rgb.reserve(3 * static_cast<size_t>(im.width) * im.height);
  const auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  for (size_t y = 0; y < p.size(); ++y) {
    const std::string r = read_string(p[y], idx(rows, y), digits + 1);
    if (r.size() != digits)
      fail(idx(rows, y), "has " + std::to_string(r.size()) + " characters, expected " +
                             std::to_string(digits) + " (6 hex digits, RRGGBB, for each of the " +
                             std::to_string(im.width) + " pixels)");
    for (size_t k = 0; k < digits; k += 2) {
      const int hi = hex(r[k]), lo = hex(r[k + 1]);
      if (hi < 0 || lo < 0)
        fail(idx(rows, y), "character " + std::to_string(k + (hi < 0 ? 0 : 1)) +
                               " is not a hex digit (0-9, a-f)");
      im.rgb.push_back(static_cast<uint8_t>(16 * hi + lo));
    }
  }
  return im;
}

namespace {

// The words of a vocabulary: 1 to kMaxSeq2SeqWords distinct strings, none "<bos>" or "<eos>".
std::vector<std::string> read_vocabulary(const json& v, const std::string& field) {
  read_array(v, field, kMaxSeq2SeqWords, "words");
  std::vector<std::string> words;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string w = read_string(v[i], idx(field, i), kMaxTokenBytes);
    if (w.empty()) fail(idx(field, i), "is empty");
    if (w == "<bos>" || w == "<eos>")
      fail(idx(field, i), w + " is always there (ids 0 and 1): leave it out");
    const auto same = std::find(words.begin(), words.end(), w);
    if (same != words.end())
      fail(idx(field, i), json_util::quoted(w) + " is already word " +
                              std::to_string(same - words.begin()) + " of the list");
    words.push_back(w);
  }
  return words;
}

// A sentence: 1 to kMaxSeq2SeqLength words of `words` (ids from 2), or "<eos>" (id 1) when
// eos_allowed.
std::vector<int> read_sentence(const json& v, const std::string& field,
                               const std::vector<std::string>& words, const char* which,
                               bool eos_allowed) {
  read_array(v, field, kMaxSeq2SeqLength, "words");
  std::vector<int> ids;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string w = read_string(v[i], idx(field, i), kMaxTokenBytes);
    if (eos_allowed && w == "<eos>") {
      ids.push_back(attn::seq2seq::kEos);
      continue;
    }
    const auto at = std::find(words.begin(), words.end(), w);
    if (at == words.end())
      fail(idx(field, i), json_util::quoted(w) + " is not a " + which + " word" +
                              (eos_allowed ? " (nor \"<eos>\")" : ""));
    ids.push_back(static_cast<int>(at - words.begin()) + 2);
  }
  return ids;
}

}  // namespace

// "seq2seq": {"sizes", "source_words", "target_words", "seed", "weights", "source", "target"}
// (scenario/seq2seq_form.h).
Seq2Seq read_seq2seq(const json& v) {
  const std::string f = "seq2seq";
  const json& o = json_util::read_object(v, f);
  check_keys(o, f,
             {"sizes", "source_words", "target_words", "seed", "weights", "source", "target"});
  for (const char* name : {"sizes", "source_words", "target_words", "source"})
    if (!o.contains(name)) fail(f + "." + name, "missing");
  Seq2Seq m;
  attn::seq2seq::Sizes z;
  const json& sizes = json_util::read_object(o["sizes"], f + ".sizes");
  check_keys(sizes, f + ".sizes", {"embed", "hidden", "attention"});
  for (const char* name : {"embed", "hidden", "attention"}) {
    const std::string field = f + ".sizes." + name;
    if (!sizes.contains(name)) fail(field, "missing");
    const int n = static_cast<int>(read_int(sizes[name], field, 1, kMaxSeq2SeqSize));
    (name[0] == 'e' ? z.embed : name[0] == 'h' ? z.hidden : z.attention) = n;
  }
  m.source_words = read_vocabulary(o["source_words"], f + ".source_words");
  m.target_words = read_vocabulary(o["target_words"], f + ".target_words");
  z.src_vocab = static_cast<int>(m.source_words.size()) + 2;
  z.tgt_vocab = static_cast<int>(m.target_words.size()) + 2;
  if (!o.contains("seed") && !o.contains("weights"))
    fail(f + ".seed", "missing: give a seed (a new model) or its weights (a trained one), or both");
  if (o.contains("seed")) {
    m.has_seed = true;
    m.seed = static_cast<uint64_t>(read_int(o["seed"], f + ".seed", 0, int64_t{1} << 53));
  }
  // Every weight of its shape (from the seed, or 0 until given): then the given ones over it.
  m.params = attn::seq2seq::init_params(z, m.seed);
  if (o.contains("weights")) {
    const json& w = json_util::read_object(o["weights"], f + ".weights");
    const std::vector<std::string> names = seq2seq_param_names();
    for (const auto& [key, value] : w.items())
      if (std::find(names.begin(), names.end(), key) == names.end())
        fail(f + ".weights." + json_util::key_name(key),
             "is not a weight of the model (embed_src, embed_tgt, encoder.W_xz, ..., "
             "decoder.b_h, W_q, W_k, w_v, W_out, b_out)");
    uint32_t k = 0;
    attn::seq2seq::for_each_param(m.params, [&](const char* name, attn::Matrix& dst) {
      const uint32_t bit = uint32_t{1} << k++;
      if (!w.contains(name)) return;
      const std::string field = f + ".weights." + name;
      const attn::Matrix given = read_matrix(w[name], field);
      if (given.rows() != dst.rows() || given.cols() != dst.cols())
        fail(field, "must be " + std::to_string(dst.rows()) + " × " + std::to_string(dst.cols()) +
                        ", got " + std::to_string(given.rows()) + " × " +
                        std::to_string(given.cols()));
      dst = given;
      m.given |= bit;
    });
  }
  const uint32_t all = (uint32_t{1} << seq2seq_param_names().size()) - 1;
  if (!m.has_seed && m.given != all) {
    uint32_t k = 0;
    std::string missing;
    attn::seq2seq::for_each_param(m.params, [&](const char* name, const attn::Matrix&) {
      if (missing.empty() && !(m.given & (uint32_t{1} << k))) missing = name;
      ++k;
    });
    fail(f + ".weights." + missing,
         "missing (give every weight of the model, or a \"seed\" to generate the rest)");
  }
  m.source = read_sentence(o["source"], f + ".source", m.source_words, "source", false);
  if (o.contains("target"))
    m.target = read_sentence(o["target"], f + ".target", m.target_words, "target", true);
  return m;
}

// "hierarchy": {"sentences", "words", "sentence_names", "feature_names", "word_query",
// "questions", "question_names", "scoring"} (scenario/hierarchy_form.h). The shapes are read
// here; the numbers' range and the labels' counts are validate_hierarchy's (derive_hierarchy).
Hierarchy read_hierarchy(const json& v) {
  const std::string f = "hierarchy";
  const json& o = json_util::read_object(v, f);
  check_keys(o, f,
             {"sentences", "words", "sentence_names", "feature_names", "word_query", "questions",
              "question_names", "scoring"});
  for (const char* name : {"sentences", "word_query", "questions"})
    if (!o.contains(name)) fail(f + "." + name, "missing");
  Hierarchy h;
  size_t d = 0;  // from sentences[0][0]
  // A vector of d numbers into out.
  const auto row = [&d](const json& r, const std::string& field, float* out) {
    read_array(r, field, kMaxHierarchyWidth, "numbers");
    if (r.size() != d)
      fail(field, "has " + std::to_string(r.size()) + " numbers, expected " + std::to_string(d) +
                      " (d, from sentences[0][0])");
    for (size_t c = 0; c < d; ++c) out[c] = read_float_at(r[c], field, c);
  };
  const std::string sf = f + ".sentences";
  const json& sentences = read_array(o["sentences"], sf, kMaxHierarchySentences, "sentences");
  for (size_t k = 0; k < sentences.size(); ++k) {
    const std::string sk = idx(sf, k);
    const json& words = read_array(sentences[k], sk, kMaxHierarchyWords, "words");
    if (k == 0) {  // d, before the first matrix is allocated
      read_array(words[0], idx(sk, 0), kMaxHierarchyWidth, "numbers");
      d = words[0].size();
    }
    attn::Matrix m(static_cast<Eigen::Index>(words.size()), static_cast<Eigen::Index>(d));
    for (size_t i = 0; i < words.size(); ++i)
      row(words[i], idx(sk, i), m.row(static_cast<Eigen::Index>(i)).data());
    h.sentences.push_back(std::move(m));
  }
  h.word_query = attn::Vector(static_cast<Eigen::Index>(d));
  row(o["word_query"], f + ".word_query", h.word_query.data());
  const std::string qf = f + ".questions";
  const json& questions = read_array(o["questions"], qf, kMaxHierarchyQuestions, "questions");
  h.questions =
      attn::Matrix(static_cast<Eigen::Index>(questions.size()), static_cast<Eigen::Index>(d));
  for (size_t q = 0; q < questions.size(); ++q)
    row(questions[q], idx(qf, q), h.questions.row(static_cast<Eigen::Index>(q)).data());
  if (o.contains("scoring")) {
    const std::string name = read_string(o["scoring"], f + ".scoring", 64);
    if (name == "dot")
      h.scoring = attn::Scoring::kDot;
    else if (name == "scaled_dot")
      h.scoring = attn::Scoring::kScaledDot;
    else
      fail(f + ".scoring",
           "unknown scoring " + json_util::quoted(name) + ", expected \"dot\" or \"scaled_dot\"");
  }
  // Labels, as tokens are read: a string or {"en": ..., "zh": ...}.
  if (o.contains("words")) {
    const std::string wf = f + ".words";
    const json& lists = read_array(o["words"], wf, kMaxHierarchySentences, "lists of labels");
    bool any_zh = false;
    for (size_t k = 0; k < lists.size(); ++k) {
      h.words_zh.emplace_back();
      h.words.push_back(read_token_list(lists[k], idx(wf, k), &h.words_zh.back(), &any_zh));
    }
    if (!any_zh) h.words_zh.clear();
  }
  const struct {
    const char* name;
    std::vector<std::string>*en, *zh;
  } names[] = {{"sentence_names", &h.sentence_names, &h.sentence_names_zh},
               {"feature_names", &h.feature_names, &h.feature_names_zh},
               {"question_names", &h.question_names, &h.question_names_zh}};
  for (const auto& n : names) {
    if (!o.contains(n.name)) continue;
    bool any_zh = false;
    *n.en = read_token_list(o[n.name], f + "." + n.name, n.zh, &any_zh);
    if (!any_zh) n.zh->clear();
  }
  return h;
}

}  // namespace scenario::json_read_internal
