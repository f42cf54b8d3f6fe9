// Scenario JSON v1 read: the scenario's fields (matrices, batches, tokens, texts, lessons)
// with JSON-path errors, on the typed-field readers of json_util.
//
// [SECTION] Reading: matrices, batches, tokens and texts
// [SECTION] Reading: the scenario
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "scenario/json_util.h"
#include "scenario/lesson_json.h"
#include "scenario/scenario.h"
#include "scenario/tasks.h"

namespace scenario {

using json_util::check_keys;
using json_util::fail;
using json_util::FieldError;
using json_util::idx;
using json_util::JsonError;
using json_util::read_array;
using json_util::read_bool;
using json_util::read_float;
using json_util::read_float_at;
using json_util::read_int;
using json_util::read_string;
using json_util::type_name;
using lesson_json::read_quiz;
using lesson_json::read_reading;
using lesson_json::read_text;
using lesson_json::read_tour;
using nlohmann::json;

//-----------------------------------------------------------------------------
// [SECTION] Reading: matrices, batches, tokens and texts
//-----------------------------------------------------------------------------

namespace {

// The float arrays of the scenario being read (parse with arrays), for "buffer" fields.
thread_local const std::vector<FloatArray>* t_arrays = nullptr;

// A matrix field given as {"shape": [...], "buffer": k}: its shape (`dims` numbers, each
// within its limit) and numbers, checked as an array of numbers would be.
std::vector<size_t> read_shape(const json& v, const std::string& field, size_t dims_lo,
                               size_t dims_hi) {
  const json& shape = v["shape"];
  const std::string where = field + ".shape";
  if (!shape.is_array() || shape.size() < dims_lo || shape.size() > dims_hi)
    fail(where, dims_lo == dims_hi
                    ? "must be [" + std::string(dims_lo == 1 ? "n" : "rows, cols") + "]"
                    : "must be [rows, cols] or [batch, rows, cols]");
  std::vector<size_t> out;
  const size_t n = shape.size();
  for (size_t i = 0; i < n; ++i) {
    // The last dimension is columns, the one before rows, the one before that the batch.
    const int64_t limit = i + 1 == n ? kMaxCols : i + 2 == n ? kMaxRows : kMaxBatch;
    out.push_back(static_cast<size_t>(read_int(shape[i], idx(where, i), 1, limit)));
  }
  return out;
}

const float* read_buffer(const json& v, const std::string& field, size_t expected) {
  check_keys(v, field, {"shape", "buffer"});
  if (!v.contains("buffer")) fail(field + ".buffer", "missing");
  const size_t count = t_arrays ? t_arrays->size() : 0;
  const int64_t k = read_int(v["buffer"], field + ".buffer", 0, 1 << 20);
  if (static_cast<size_t>(k) >= count)
    fail(field + ".buffer",
         "there is no array " + std::to_string(k) + " (" + std::to_string(count) + " given)");
  const FloatArray& a = (*t_arrays)[static_cast<size_t>(k)];
  if (a.size != expected)
    fail(field + ".buffer", "has " + std::to_string(a.size) + " numbers, expected " +
                                std::to_string(expected) + " (the product of the shape)");
  return a.data;
}

bool is_binary(const json& v) {
  return v.is_object() && v.contains("shape");
}

// Rows × cols numbers, row-major, into a matrix; a non-finite one is named by its indices.
attn::Matrix binary_matrix(const float* data, size_t rows, size_t cols, const std::string& field) {
  attn::Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const float x = data[r * cols + c];
      if (!std::isfinite(x)) fail(idx(idx(field, r), c), "is not a finite number");
      m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = x;
    }
  return m;
}

// A 2-D array of numbers, rows × cols, all rows the same length.
attn::Matrix read_matrix(const json& v, const std::string& field) {
  if (is_binary(v)) {
    const std::vector<size_t> shape = read_shape(v, field, 2, 2);
    return binary_matrix(read_buffer(v, field, shape[0] * shape[1]), shape[0], shape[1], field);
  }
  read_array(v, field, kMaxRows, "rows");
  const json& first = v[0];
  read_array(first, idx(field, 0), kMaxCols, "numbers");
  const size_t cols = first.size();
  attn::Matrix m(static_cast<Eigen::Index>(v.size()), static_cast<Eigen::Index>(cols));
  for (size_t r = 0; r < v.size(); ++r) {
    const std::string row_field = idx(field, r);
    const json& row = v[r];
    if (!row.is_array()) fail(row_field, "must be an array of numbers, got " + type_name(row));
    if (row.size() != cols)
      fail(row_field,
           "has " + std::to_string(row.size()) + " columns, expected " + std::to_string(cols));
    for (size_t c = 0; c < cols; ++c) m(r, c) = read_float_at(row[c], row_field, c);
  }
  return m;
}

attn::Vector read_vector(const json& v, const std::string& field) {
  if (is_binary(v)) {
    const size_t n = read_shape(v, field, 1, 1)[0];
    return binary_matrix(read_buffer(v, field, n), 1, n, field).row(0).transpose();
  }
  read_array(v, field, kMaxCols, "numbers");
  attn::Vector out(static_cast<Eigen::Index>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) out(i) = read_float_at(v[i], field, i);
  return out;
}

// A weight as scenario JSON gives it: a matrix, or w_v's vector.
void read_weight(const json& v, const std::string& field, attn::Matrix* m) {
  *m = read_matrix(v, field);
}
void read_weight(const json& v, const std::string& field, attn::Vector* w) {
  *w = read_vector(v, field);
}

// A 3-D [batch][rows][cols] array, or a 2-D [rows][cols] one meaning batch 1.
attn::Batch read_batch(const json& v, const std::string& field, bool* two_d) {
  if (is_binary(v)) {
    const std::vector<size_t> shape = read_shape(v, field, 2, 3);
    *two_d = shape.size() == 2;
    const size_t batch = *two_d ? 1 : shape[0], rows = shape[shape.size() - 2], cols = shape.back();
    const float* data = read_buffer(v, field, batch * rows * cols);
    attn::Batch out;
    for (size_t b = 0; b < batch; ++b)
      out.push_back(
          binary_matrix(data + b * rows * cols, rows, cols, *two_d ? field : idx(field, b)));
    return out;
  }
  if (!v.is_array())
    fail(field, "must be a 2-D [rows][cols] or 3-D [batch][rows][cols] array of numbers, got " +
                    type_name(v));
  if (v.empty()) fail(field, "is empty");
  const bool nested = v[0].is_array() && !v[0].empty() && v[0][0].is_array();
  *two_d = !nested;
  if (!nested) return attn::Batch{read_matrix(v, field)};
  read_array(v, field, kMaxBatch, "batch items");
  attn::Batch out;
  for (size_t b = 0; b < v.size(); ++b) {
    const std::string item = idx(field, b);
    if (!v[b].is_array() || v[b].empty() || !v[b][0].is_array())
      fail(item, "must be a 2-D array [rows][cols] like " + field + "[0]");
    out.push_back(read_matrix(v[b], item));
    if (out[b].rows() != out[0].rows())
      fail(item, "has " + std::to_string(out[b].rows()) + " rows, expected " +
                     std::to_string(out[0].rows()) + " like " + field + "[0]");
    if (out[b].cols() != out[0].cols())
      fail(idx(item, 0), "has " + std::to_string(out[b].cols()) + " columns, expected " +
                             std::to_string(out[0].cols()) + " like " + field + "[0]");
  }
  return out;
}

// A token: a string, or {"en": ..., "zh": ...} ("zh" optional). The Chinese goes to *zh (the
// English when there is none), and *any_zh says whether some token had one.
std::vector<std::string> read_token_list(const json& v, const std::string& field,
                                         std::vector<std::string>* zh, bool* any_zh) {
  read_array(v, field, kMaxRows, "tokens");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string f = idx(field, i);
    if (v[i].is_object()) {
      check_keys(v[i], f, {"en", "zh"});
      if (!v[i].contains("en"))
        fail(f + ".en", "missing (a token is \"the\" or {\"en\": \"the\", \"zh\": ...})");
      out.push_back(read_string(v[i]["en"], f + ".en", kMaxTokenBytes));
      zh->push_back(v[i].contains("zh") ? read_string(v[i]["zh"], f + ".zh", kMaxTokenBytes)
                                        : out.back());
      *any_zh = *any_zh || v[i].contains("zh");
    } else {
      if (!v[i].is_string())
        fail(f, "must be a string or {\"en\": ..., \"zh\": ...}, got " + type_name(v[i]));
      out.push_back(read_string(v[i], f, kMaxTokenBytes));
      zh->push_back(out.back());
    }
  }
  return out;
}

// [n] tokens shared by every batch item, or [batch][n]; their Chinese in *zh (empty when no
// token has any).
std::vector<std::vector<std::string>> read_tokens(const json& v, const std::string& field,
                                                  bool* per_item,
                                                  std::vector<std::vector<std::string>>* zh) {
  read_array(v, field, kMaxRows, "tokens");
  *per_item = v[0].is_array();
  bool any_zh = false;
  std::vector<std::vector<std::string>> out;
  zh->clear();
  if (!*per_item) {
    zh->emplace_back();
    out.push_back(read_token_list(v, field, &zh->back(), &any_zh));
  } else {
    read_array(v, field, kMaxBatch, "token lists");
    for (size_t b = 0; b < v.size(); ++b) {
      zh->emplace_back();
      out.push_back(read_token_list(v[b], idx(field, b), &zh->back(), &any_zh));
    }
  }
  if (!any_zh) zh->clear();
  return out;
}

//-----------------------------------------------------------------------------
// [SECTION] Reading: the scenario
//-----------------------------------------------------------------------------

attn::Scoring read_scoring(const json& v) {
  const std::string name = read_string(v, "scoring", 64);
  std::string names;
  for (attn::Scoring s : attn::kScorings) {
    if (name == attn::scoring_name(s)) return s;
    names += (names.empty() ? "" : ", ") + std::string(attn::scoring_name(s));
  }
  fail("scoring", "unknown scoring " + v.dump() + ", expected one of " + names);
}

void read_valid_lens(const json& v, Scenario* s) {
  const std::string field = "valid_lens";
  if (v.is_number()) {
    s->valid_lens_form = ValidLensForm::kAll;
    s->valid_lens = {{static_cast<int>(read_int(v, field, 0, kMaxRows))}};
    return;
  }
  if (!v.is_array())
    fail(field,
         "must be an integer, an array [batch] or an array [batch][queries], got " + type_name(v));
  read_array(v, field, kMaxBatch, "lengths");
  const bool per_query = v[0].is_array();
  s->valid_lens_form = per_query ? ValidLensForm::kPerQuery : ValidLensForm::kPerSequence;
  for (size_t b = 0; b < v.size(); ++b) {
    const std::string item = idx(field, b);
    if (per_query) {
      if (!v[b].is_array())
        fail(item, "must be an array of lengths like valid_lens[0], got " + type_name(v[b]));
      read_array(v[b], item, kMaxRows, "lengths");
      std::vector<int> lens;
      for (size_t i = 0; i < v[b].size(); ++i)
        lens.push_back(static_cast<int>(read_int(v[b][i], idx(item, i), 0, kMaxRows)));
      s->valid_lens.push_back(lens);
    } else {
      s->valid_lens.push_back({static_cast<int>(read_int(v[b], item, 0, kMaxRows))});
    }
  }
}

void read_masked_cells(const json& v, Scenario* s) {
  if (!v.is_array()) fail("masked_cells", "must be an array of [batch, query, key] triples");
  if (v.size() > static_cast<size_t>(kMaxMaskedCells))
    fail("masked_cells", "has " + std::to_string(v.size()) + " cells, more than the limit " +
                             std::to_string(kMaxMaskedCells));
  for (size_t c = 0; c < v.size(); ++c) {
    const std::string item = idx("masked_cells", c);
    if (!v[c].is_array() || v[c].size() != 3) fail(item, "must be a [batch, query, key] triple");
    std::array<int, 3> cell{};
    for (size_t k = 0; k < 3; ++k)
      cell[k] = static_cast<int>(read_int(v[c][k], idx(item, k), 0, kMaxRows));
    s->masked_cells.push_back(cell);
  }
}

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

// A scenario made from a model ("seq2seq", "hierarchy") takes its attention from it: beside the
// block only the lesson's texts may stand. A field the model derives is refused with
// `derived_why`, any other with `other_why`, the other model's block as a second model.
void refuse_beside_model(const json& j, const std::string& model,
                         const std::set<std::string>& derived, const std::string& derived_why,
                         const std::string& other_why) {
  static const std::set<std::string> kLesson = {"version", "title", "description",
                                                "tour",    "quiz",  "read"};
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (kLesson.count(key) || key == model) continue;
    const std::string beside = "not with \"" + model + "\": ";
    if (key == "seq2seq" || key == "hierarchy")
      fail(key, beside + "a scenario is one model or the other");
    fail(json_util::key_name(key), beside + (derived.count(key) ? derived_why : other_why));
  }
}

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

Scenario read_scenario(const json& j) {
  if (!j.is_object()) fail("scenario", "must be a JSON object, got " + type_name(j));
  // clang-format off
  check_keys(j, "",
             {"version",       "title",       "description",  "x",           "queries",
              "keys",          "values",      "query_tokens", "key_tokens",  "scoring",
              "temperature",   "heads",       "valid_lens",   "causal",      "window",
              "masked_cells",  "mask_value",  "W_q",          "W_k",         "W_v",
              "W_o",           "W",           "w_v",          "init",        "positional_encoding",
              "hard",          "dropout",     "tour",         "quiz",        "read",
              "feature_names", "key_feature_names",           "value_names", "output_names",
              "target",        "trained_from",                "layers",      "tokens",
              "next",          "embed",       "unembed",      "vocab",       "batches",
              "image",         "sigma",       "seq2seq",      "hierarchy"});
  // clang-format on
  if (!j.contains("version")) fail("version", "missing; expected 1");
  if (read_int(j["version"], "version", 0, 1 << 30) != 1)
    fail("version", j["version"].dump() + " is not supported; this build reads version 1");
  // Attention over attention (scenario/hierarchy_form.h): the sentence level, its inputs,
  // scoring and names all come from the hierarchy; a lesson's texts may go with it.
  const bool hierarchy = j.contains("hierarchy");
  if (hierarchy)
    refuse_beside_model(j, "hierarchy",
                        {"queries", "keys", "values", "scoring", "query_tokens", "key_tokens",
                         "feature_names", "value_names", "output_names"},
                        "the sentence-level attention takes it from the hierarchy (the "
                        "questions as queries, the sentence vectors as keys and values, its "
                        "scoring, the question and sentence names as tokens)",
                        "not supported with it (the sentence-level attention has no weights, "
                        "one head, temperature 1 and no masks)");
  // A GRU encoder–decoder (scenario/seq2seq_form.h): the decoder's attention, its inputs and
  // weights all come from the model; a lesson's texts may go with it.
  const bool seq2seq = j.contains("seq2seq");
  if (seq2seq)
    refuse_beside_model(
        j, "seq2seq",
        {"queries", "keys", "values", "scoring", "query_tokens", "key_tokens", "feature_names",
         "value_names", "output_names", "init", "W_q", "W_k", "w_v", "W_v", "W_o", "W"},
        "the decoder's attention takes it from the model (its queries "
        "s_{t-1}, the encoder's states as keys and values, the model's "
        "W_q, W_k and w_v, additive scoring, the words as tokens)",
        "the model is a GRU encoder-decoder with its own inputs, "
        "weights and settings (temperature 1, no masks, one head)");
  // Stacked layers: self-attention over the stream, each layer with its own weights and heads.
  const bool layered = j.contains("layers");
  if (layered) {
    if (!j.contains("x") && !j.contains("tokens"))
      fail("layers", "need \"x\" or \"tokens\": each layer attends over the stream");
    for (const char* name : attn::kWeightNames)
      if (j.contains(name))
        fail(name,
             std::string("not with \"layers\" (each layer has its own: layers[0].") + name + ")");
    if (j.contains("heads"))
      fail("heads", "not with \"layers\" (each layer has its own: layers[0].heads)");
  }

  Scenario s;
  if (j.contains("title")) s.title = read_text(j["title"], "title");
  if (j.contains("description")) s.description = read_text(j["description"], "description");
  if (j.contains("tour")) s.tour = read_tour(j["tour"]);
  if (j.contains("quiz")) s.quiz = read_quiz(j["quiz"]);
  if (j.contains("read")) read_reading(j["read"], &s);
  if (j.contains("trained_from")) {
    const json& t = j["trained_from"];
    if (!t.is_object())
      fail("trained_from", "must be an object {\"task\": ..., \"seed\": ...}, got " + type_name(t));
    check_keys(t, "trained_from", {"task", "seed"});
    if (!t.contains("task") || !t["task"].is_string() || !find_task(t["task"].get<std::string>()))
      fail("trained_from.task", "must name a toy task (attention-cli task --list)");
    if (!t.contains("seed")) fail("trained_from.seed", "missing");
    s.trained_from_task = t["task"].get<std::string>();
    s.trained_from_seed =
        static_cast<uint64_t>(read_int(t["seed"], "trained_from.seed", 0, kMaxTaskSeed));
  }

  if (hierarchy) {
    s.hierarchy = read_hierarchy(j["hierarchy"]);
    const std::string e = derive_hierarchy(&s);
    if (!e.empty()) throw FieldError{e};
    return s;
  }
  if (seq2seq) {
    s.seq2seq = read_seq2seq(j["seq2seq"]);
    const std::string e = derive_seq2seq(&s);
    if (!e.empty()) throw FieldError{e};
    return s;
  }

  // A token model: tokens in place of x, and the cross-entropy of next in place of a target.
  const bool tokens = j.contains("tokens");
  if (tokens) {
    if (!layered) fail("tokens", "needs \"layers\" (a token model is a stack of layers)");
    for (const char* other : {"x", "queries", "keys", "values"})
      if (j.contains(other)) fail(other, "give either tokens (a token model) or x");
    if (j.contains("target"))
      fail("target", "not with tokens (the loss is the cross-entropy of next)");
  } else {
    for (const char* name : {"next", "embed", "unembed", "vocab", "batches"})
      if (j.contains(name)) fail(name, "only with \"tokens\" (a token model)");
  }

  // A picture: its patches are the keys and values (scenario/image.h), the queries say what to
  // look for.
  const bool image = j.contains("image");
  if (image) {
    for (const char* other : {"x", "tokens", "layers"})
      if (j.contains(other))
        fail("image",
             std::string("not with \"") + other +
                 "\": the picture's patches are the keys, and queries say what to look for");
  }

  bool two_d = false;
  if (image) {
    s.image = read_image(j["image"], "image");
    if (!j.contains("queries"))
      fail("queries",
           "missing; the picture's patches are the keys, the queries say what to look for");
    s.queries = read_batch(j["queries"], "queries", &two_d);
    if (s.queries.size() != 1) fail("queries", "must be one batch item: there is one picture");
    // Keys and values are the patches' numbers; given, they must have a row for each patch (a
    // learner's edit written out).
    const attn::Matrix patches = image_features(s.image);
    for (const char* name : {"keys", "values"}) {
      attn::Batch& b = name[0] == 'k' ? s.keys : s.values;
      if (!j.contains(name)) {
        b = attn::Batch{patches};
        continue;
      }
      bool b2 = false;
      b = read_batch(j[name], name, &b2);
      if (b.size() != 1 || b[0].rows() != patches.rows())
        fail(name, "must have one row for each of the picture's " + std::to_string(patches.rows()) +
                       " patches (or be left out)");
    }
    s.batch_of_one = two_d;
  } else if (tokens) {
    s.self_attention = true;
    s.token_ids = read_ids(j["tokens"], "tokens", 0, &two_d);
    s.batch_of_one = two_d;
    if (j.contains("next")) {
      bool next_2d = false;
      s.next_tokens = read_ids(j["next"], "next", -1, &next_2d);
    }
    if (j.contains("embed")) read_weight(j["embed"], "embed", &s.embed);
    if (j.contains("unembed")) read_weight(j["unembed"], "unembed", &s.unembed);
    if (j.contains("batches")) {  // training's batches, drawn from a layered task
      const json& t = j["batches"];
      if (!t.is_object())
        fail("batches", "must be an object {\"task\": ..., \"seed\": ...}, got " + type_name(t));
      check_keys(t, "batches", {"task", "seed"});
      const TaskInfo* task = t.contains("task") && t["task"].is_string()
                                 ? find_task(t["task"].get<std::string>())
                                 : nullptr;
      if (!task || !task->layered)
        fail("batches.task", "must name a toy task of token sequences (induction)");
      if (!t.contains("seed")) fail("batches.seed", "missing");
      s.batches_task = task->name;
      s.batches_seed = static_cast<uint64_t>(read_int(t["seed"], "batches.seed", 0, kMaxTaskSeed));
    }
    if (j.contains("vocab")) {
      const json& v = j["vocab"];
      read_array(v, "vocab", kMaxVocab, "tokens");
      for (size_t i = 0; i < v.size(); ++i)
        s.vocab.push_back(read_string(v[i], idx("vocab", i), kMaxTokenBytes));
    }
  } else if (j.contains("x")) {
    for (const char* other : {"queries", "keys", "values"})
      if (j.contains(other)) fail(other, "give either x (self-attention) or queries/keys/values");
    s.self_attention = true;
    s.queries = read_batch(j["x"], "x", &two_d);
    s.keys = s.queries;
    s.values = s.queries;
    s.batch_of_one = two_d;
  } else {
    for (const char* name : {"queries", "keys", "values"})
      if (!j.contains(name))
        fail(name, "missing; give x (self-attention), or queries, keys and values");
    bool q2, k2, v2;
    s.queries = read_batch(j["queries"], "queries", &q2);
    s.keys = read_batch(j["keys"], "keys", &k2);
    s.values = read_batch(j["values"], "values", &v2);
    s.batch_of_one = q2 && k2 && v2;
  }
  bool q_per_item = false, k_per_item = false;
  if (j.contains("query_tokens"))
    s.query_tokens =
        read_tokens(j["query_tokens"], "query_tokens", &q_per_item, &s.query_tokens_zh);
  if (j.contains("key_tokens"))
    s.key_tokens = read_tokens(j["key_tokens"], "key_tokens", &k_per_item, &s.key_tokens_zh);
  if (j.contains("query_tokens") && j.contains("key_tokens") && q_per_item != k_per_item)
    fail("key_tokens", "must be [n] like query_tokens, or [batch][n] like query_tokens");
  s.tokens_per_item = q_per_item || k_per_item;
  if (j.contains("target")) {
    bool two_d = false;
    s.target = read_batch(j["target"], "target", &two_d);
  }
  using Names = std::vector<std::vector<std::string>>;
  const struct {
    const char* field;
    Names *en, *zh;
  } name_fields[] = {{"feature_names", &s.feature_names, &s.feature_names_zh},
                     {"key_feature_names", &s.key_feature_names, &s.key_feature_names_zh},
                     {"value_names", &s.value_names, &s.value_names_zh},
                     {"output_names", &s.output_names, &s.output_names_zh}};
  for (const auto& names : name_fields) {
    const char* field = names.field;
    if (!j.contains(field)) continue;
    const json& v = j[field];
    if (v.is_array() && !v.empty() && v[0].is_array())
      fail(field, "must be one list of names, one per column");
    bool per_item = false;
    *names.en = read_tokens(v, field, &per_item, names.zh);
  }

  if (j.contains("scoring")) s.scoring = read_scoring(j["scoring"]);
  if (j.contains("temperature")) s.temperature = read_float(j["temperature"], "temperature");
  if (j.contains("sigma")) {  // gaussian scoring's kernel width σ
    if (s.scoring != attn::Scoring::kGaussian) fail("sigma", "only with \"scoring\": \"gaussian\"");
    s.sigma = read_float(j["sigma"], "sigma");
    if (!(s.sigma > 0.0f && s.sigma <= attn::kMaxSigma))
      fail("sigma", "must be a number > 0 and at most 1000");
  }
  if (j.contains("heads")) s.heads = static_cast<int>(read_int(j["heads"], "heads", 1, kMaxHeads));

  if (j.contains("valid_lens") && !j["valid_lens"].is_null()) read_valid_lens(j["valid_lens"], &s);
  if (j.contains("causal")) s.causal = read_bool(j["causal"], "causal");
  if (j.contains("window") && !j["window"].is_null())
    s.window = static_cast<int>(read_int(j["window"], "window", 0, kMaxRows));
  if (j.contains("masked_cells")) read_masked_cells(j["masked_cells"], &s);
  if (j.contains("mask_value")) {
    const json& mv = j["mask_value"];
    if (mv.is_string()) {
      if (mv.get<std::string>() != "-inf")
        fail("mask_value", "must be a negative number or the string \"-inf\", got " + mv.dump());
      s.mask_value = -std::numeric_limits<float>::infinity();
    } else {
      s.mask_value = read_float(mv, "mask_value");
    }
  }

  attn::for_each_weight(s, [&j](const char* name, auto& m) {
    if (j.contains(name)) read_weight(j[name], name, &m);
  });
  if (layered) s.layers = read_layers(j["layers"]);
  if (j.contains("init")) {
    const json& init = j["init"];
    if (!init.is_object()) fail("init", "must be an object {\"seed\": 42, \"d_model\": 8}");
    check_keys(init, "init", {"seed", "d_model"});
    if (!init.contains("seed")) fail("init.seed", "missing");
    if (!init.contains("d_model")) fail("init.d_model", "missing");
    s.has_init = true;
    s.init_seed = static_cast<uint64_t>(read_int(init["seed"], "init.seed", 0, int64_t{1} << 53));
    s.init_d_model = static_cast<int>(read_int(init["d_model"], "init.d_model", 1, kMaxCols));
  }

  if (j.contains("positional_encoding")) {
    const json& pe = j["positional_encoding"];
    if (pe.is_boolean()) {
      s.positional_encoding = pe.get<bool>();
    } else if (pe.is_object()) {
      check_keys(pe, "positional_encoding", {"kind", "base"});
      if (pe.contains("kind") &&
          read_string(pe["kind"], "positional_encoding.kind", 64) != "sinusoidal")
        fail("positional_encoding.kind",
             "unknown kind " + pe["kind"].dump() + ", expected \"sinusoidal\"");
      s.positional_encoding = true;
      if (pe.contains("base")) s.pe_base = read_float(pe["base"], "positional_encoding.base");
    } else if (!pe.is_null()) {
      fail("positional_encoding",
           "must be {\"kind\": \"sinusoidal\", \"base\": 10000} or a "
           "boolean, got " +
               type_name(pe));
    }
  }
  if (j.contains("hard")) {
    const json& hard = j["hard"];
    if (hard.is_boolean()) {
      s.hard = hard.get<bool>();
    } else if (hard.is_object()) {  // hard attention with an estimator of its gradient
      check_keys(hard, "hard", {"estimator", "tau", "seed", "soft"});
      if (!hard.contains("estimator"))
        fail("hard.estimator", "missing (\"straight_through\" or \"gumbel\")");
      const std::string estimator = read_string(hard["estimator"], "hard.estimator", 64);
      s.hard = true;
      if (estimator == "straight_through") {
        s.hard_gradient = attn::HardGradient::kStraightThrough;
        for (const char* key : {"tau", "seed", "soft"})
          if (hard.contains(key))
            fail(std::string("hard.") + key,
                 "unknown field for \"straight_through\" (tau, seed and soft are \"gumbel\"'s)");
      } else if (estimator == "gumbel") {
        s.hard_gradient = attn::HardGradient::kGumbel;
        if (hard.contains("tau")) {
          const json& t = hard["tau"];
          const std::string expected = "must be a number > 0 and at most 100, got ";
          if (!t.is_number()) fail("hard.tau", expected + type_name(t));
          const double d = t.get<double>();
          // Positive once in float32 (1e-50 is not), and finite (NaN fails both tests).
          if (!(d > 0.0 && d <= 100.0 && static_cast<float>(d) > 0.0f))
            fail("hard.tau", expected + t.dump());
          s.gumbel_tau = static_cast<float>(d);
        }
        if (hard.contains("seed"))
          s.gumbel_seed =
              static_cast<uint64_t>(read_int(hard["seed"], "hard.seed", 0, int64_t{1} << 53));
        if (hard.contains("soft")) s.gumbel_soft = read_bool(hard["soft"], "hard.soft");
      } else {
        fail("hard.estimator", "unknown estimator " + json_util::quoted(estimator) +
                                   ", expected \"straight_through\" or \"gumbel\"");
      }
    } else {
      fail("hard",
           "must be true, false, {\"estimator\": \"straight_through\"} or {\"estimator\": "
           "\"gumbel\", \"tau\": 1, \"seed\": 0, \"soft\": false}, got " +
               type_name(hard));
    }
  }
  if (s.token_model()) {
    // Each token's row of embed (given, or generated from init and vocab) is its x.
    if (!s.embed.size() && !(s.has_init && !s.vocab.empty()))
      fail("embed", "missing (V × d: give it, or \"init\" and \"vocab\" to generate it)");
    const int V =
        s.embed.size() ? static_cast<int>(s.embed.rows()) : static_cast<int>(s.vocab.size());
    if (!s.vocab.empty() && static_cast<int>(s.vocab.size()) != V)
      fail("vocab", "has " + std::to_string(s.vocab.size()) + " names, expected " +
                        std::to_string(V) + " (the rows of embed)");
    for (size_t b = 0; b < s.token_ids.size(); ++b)
      for (size_t i = 0; i < s.token_ids[b].size(); ++i)
        if (s.token_ids[b][i] >= V)
          fail(s.batch_of_one ? idx("tokens", i) : idx(idx("tokens", b), i),
               "is " + std::to_string(s.token_ids[b][i]) + ", expected a token in [0, " +
                   std::to_string(V) + ") (the rows of embed)");
    fill_token_inputs(&s);
  }
  if (j.contains("dropout") && !j["dropout"].is_null()) {
    const json& d = j["dropout"];
    if (!d.is_object()) fail("dropout", "must be an object {\"p\": 0.1, \"seed\": 1}");
    check_keys(d, "dropout", {"p", "seed"});
    if (!d.contains("p")) fail("dropout.p", "missing");
    s.has_dropout = true;
    s.dropout_p = read_float(d["p"], "dropout.p");
    if (d.contains("seed"))
      s.dropout_seed =
          static_cast<uint64_t>(read_int(d["seed"], "dropout.seed", 0, int64_t{1} << 53));
  }
  return s;
}

}  // namespace

ParseResult json_util::parse_value(const json& j, const std::vector<FloatArray>& arrays) {
  ParseResult r;
  t_arrays = &arrays;
  try {
    r.scenario = read_scenario(j);
  } catch (const FieldError& e) {
    t_arrays = nullptr;
    r.error = e.message;
    return r;
  }
  t_arrays = nullptr;
  Resolved resolved = resolve(r.scenario);
  r.problem = std::move(resolved.problem);
  r.stack = std::move(resolved.stack);
  r.error = std::move(resolved.error);
  return r;
}

ParseResult parse(const std::string& json_text) {
  return parse(json_text, {});
}

ParseResult parse(const std::string& json_text, const std::vector<FloatArray>& arrays) {
  json j;
  const JsonError e = json_util::read_json(json_text, &j);
  ParseResult r;
  switch (e.kind) {
    case JsonError::Kind::kNone:
      return json_util::parse_value(j, arrays);
    case JsonError::Kind::kValue:
      r.error = (e.path.empty() ? "scenario" : e.path) + ": " + e.message;
      break;
    default:
      r.error = "json: " + e.message;
      break;
  }
  return r;
}

}  // namespace scenario
