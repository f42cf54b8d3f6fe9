// The JavaScript API's limits, scenarios in and out, NumPy files, the trace, links and exports.
#include "app/model/api.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "app/model/api_internal.h"
#include "app/model/matrices.h"
#include "app/text/explain.h"
#include "scenario/json_util.h"
#include "scenario/link.h"
#include "scenario/npz.h"
#include "scenario/tasks.h"

namespace ui::api {

namespace detail {

std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace detail

using detail::dump;

std::string limits() {
  nlohmann::json j;
  j["max_step"] = scenario::kStepCount - 1;
  j["max_batch"] = scenario::kMaxBatch;
  j["max_rows"] = scenario::kMaxRows;
  j["max_cols"] = scenario::kMaxCols;
  j["memory_budget_bytes"] = AppState::kMemoryBudget;
  // A scenario's JSON text is held to a link's length.
  j["max_scenario_chars"] = scenario::kMaxLinkChars;
  // A .npy/.npz: kMaxArrayNumbers float32 numbers, and room for headers.
  j["max_file_bytes"] = scenario::kMaxArrayNumbers * sizeof(float) + (size_t{1} << 20);
  j["max_task_seed"] = scenario::kMaxTaskSeed;
  j["max_train_steps"] = scenario::kMaxViewTrainSteps;
  j["max_learning_rate"] = scenario::kMaxLearningRate;
  j["optimizers"] = nlohmann::json::array();
  for (const char* o : scenario::kOptimizerNames) j["optimizers"].push_back(o);
  // The fields that may come as typed arrays, and a head's matrices in getTrace's order.
  j["array_fields"] = nlohmann::json::array();
  for (const char* f : scenario::kInputNames) j["array_fields"].push_back(f);
  for (const char* f : attn::kWeightNames) j["array_fields"].push_back(f);
  j["head_matrices"] = nlohmann::json::array();
  for (const char* m : attn::kHeadMatrixNames) j["head_matrices"].push_back(m);
  // The steps in order, by their English names (step_name).
  j["steps"] = nlohmann::json::array();
  for (int s = 0; s < scenario::kStepCount; ++s)
    j["steps"].push_back(step_name(static_cast<Step>(s)));
  return j.dump();
}

std::string get_scenario(const AppState& s) {
  return scenario::to_json(s.document());
}

std::string set_scenario(AppState& s, const std::string& json) {
  return s.set_scenario_json(json).error;
}

std::string set_scenario(AppState& s, const std::string& json,
                         const std::vector<scenario::FloatArray>& arrays) {
  scenario::ParseResult r = scenario::parse(json, arrays);
  if (!r.ok()) return r.error;
  return s.set_parsed(std::move(r.scenario), std::move(r.problem)).error;
}

namespace {

// The lesson on screen as JSON for open_arrays' attempts, but for the fields the arrays
// replace (written as one number: the attempts drop them), so that the inputs of a large
// lesson are not written out as text only to be thrown away.
nlohmann::json lesson_json(const scenario::Scenario& lesson,
                           const std::vector<scenario::ArrayHeader>& arrays) {
  scenario::Scenario light = lesson;  // its batches are shared, not copied
  const attn::Matrix one = attn::Matrix::Zero(1, 1);
  for (const scenario::ArrayHeader& a : arrays) {
    const std::string& f = a.name;
    const bool input = f == "queries" || f == "keys" || f == "values";
    if (f == "x" || (input && light.self_attention)) {  // x is written for all three
      light.queries = light.keys = light.values = attn::Batch{one};
    } else if (input) {
      (f == "queries" ? light.queries : f == "keys" ? light.keys : light.values) = attn::Batch{one};
    } else {
      attn::for_each_weight(light, [&f](const char* name, auto& m) {
        if (f == name) m.setZero(1, 1);  // a matrix 1 × 1; w_v one number
      });
    }
  }
  return nlohmann::json::parse(scenario::to_json(light));
}

// The arrays' part of the memory AppState::memory_needed counts, whatever the scenario around
// them: their numbers twice (the scenario's inputs and the problem's), and each batch item's
// mask and the view's scores, weights and the like (4 matrices of queries × keys). When x
// (or queries and keys or values) alone need more than the budget, every scenario with them
// does, and the error says so; "" otherwise.
std::string least_memory_error(const std::vector<scenario::ArrayHeader>& arrays) {
  const scenario::ArrayHeader *x = nullptr, *q = nullptr, *k = nullptr, *v = nullptr;
  for (const scenario::ArrayHeader& a : arrays) {  // in order, as parse_with_arrays sets them
    if (a.name == "x") x = &a, q = k = v = nullptr;
    if (a.name == "queries") q = &a, x = nullptr;
    if (a.name == "keys") k = &a, x = nullptr;
    if (a.name == "values") v = &a, x = nullptr;
  }
  const scenario::ArrayHeader* rows_q = x ? x : q;
  const scenario::ArrayHeader* rows_k = x ? x : k ? k : v;
  if (!rows_q || !rows_k) return "";  // the lesson's own, a few
  auto rows = [](const scenario::ArrayHeader* a) {
    return static_cast<int64_t>(a->shape[a->shape.size() - 2]);
  };
  const int64_t n_q = rows(rows_q), n_k = rows(rows_k);
  const int64_t batch = rows_q->shape.size() == 3 ? static_cast<int64_t>(rows_q->shape[0]) : 1;
  int64_t inputs = 0;
  for (const scenario::ArrayHeader* a : {x, q, k, v})
    if (a) inputs += static_cast<int64_t>(a->count);
  const int64_t bytes = 2 * inputs * static_cast<int64_t>(sizeof(float)) + n_q * n_k +
                        4 * n_q * n_k * static_cast<int64_t>(sizeof(float));
  if (bytes <= AppState::kMemoryBudget) return "";
  auto mb = [](int64_t b) { return std::to_string((b + (1 << 20) - 1) >> 20) + " MB"; };
  return "scenario: batch " + std::to_string(batch) + " × " + std::to_string(n_q) + " queries × " +
         std::to_string(n_k) + " keys needs at least " + mb(bytes) + ", more than the " +
         mb(AppState::kMemoryBudget) + " the playground may use";
}

}  // namespace

std::string open_arrays(AppState& s, const std::string& bytes, const std::string& file_name) {
  // (a) The headers: every array's name, dtype and shape, not its numbers.
  const scenario::HeadersResult headers = scenario::read_array_headers(bytes, file_name);
  if (!headers.ok()) return headers.error;
  const std::string name =
      scenario::json_util::one_line(file_name.substr(file_name.find_last_of("/\\") + 1), 60);
  // What names and shapes decide is decided before a number is converted or inflated: a
  // field an array cannot be, a shape no scenario takes, the memory the arrays need at least.
  for (const scenario::ArrayHeader& a : headers.arrays)
    if (const std::string e = scenario::check_array_field(a.name, a.shape); !e.empty())
      return name + ": " + e;
  if (const std::string e = least_memory_error(headers.arrays); !e.empty()) return name + ": " + e;
  std::string sizes;
  for (const scenario::ArrayHeader& a : headers.arrays) {
    sizes += (sizes.empty() ? "" : ", ") + a.name + " ";
    for (size_t d = 0; d < a.shape.size(); ++d)
      sizes += (d ? "×" : "") + std::to_string(a.shape[d]);  // "6×8"
  }
  // The arrays in the scenario before, as far as it fits them: first whole (but for its
  // tour, which speaks of its own numbers); then without what counts tokens (labels,
  // lengths, masked cells); then only its settings that do not count anything; then alone.
  const nlohmann::json before = lesson_json(s.document(), headers.arrays);
  // Its title and description in both languages (the table's texts, i18n.cpp), the sentence
  // `rest` says what it kept of the lesson before.
  auto titled = [&](nlohmann::json j, const char* rest) {
    for (const Lang lang : {Lang::kEn, Lang::kZh}) {
      const char* code = lang == Lang::kZh ? "zh" : "en";
      j["title"][code] = printf_text(T(lang, N_("Your data: %s")), name.c_str());
      j["description"][code] =
          printf_text(T(lang, N_("Read from %s: %s.")), name.c_str(), sizes.c_str()) +
          (*rest ? T(lang, rest) : "");
    }
    j.erase("tour");
    return j;
  };
  std::vector<nlohmann::json> attempts;
  attempts.push_back(titled(before, N_(" The rest is as in the lesson before.")));
  attempts.push_back(titled(before, N_(" The rest is as in the lesson before, but for its token "
                                       "labels, lengths and masked cells, which do not fit.")));
  for (const char* key : {"query_tokens", "key_tokens", "valid_lens", "masked_cells"})
    attempts.back().erase(key);
  nlohmann::json settings = {{"version", 1}};
  for (const char* key : {"scoring", "temperature", "causal", "window", "mask_value", "hard"})
    if (before.contains(key)) settings[key] = before[key];
  attempts.push_back(
      titled(settings, N_(" The scoring, temperature and masks are as in the lesson before.")));
  attempts.push_back(titled({{"version", 1}}, ""));
  const int count = static_cast<int>(attempts.size());

  // The attempts with zeros standing in for the numbers: the first whose shapes fit is the
  // first that can take the file (numbers only ever fail more: not finite, too large). A file
  // that fits nowhere is explained as it meets the lesson (the second attempt): which field
  // does not match which. One over the memory budget is refused unless a later attempt fits
  // within it.
  std::string error, over_budget;
  int first = -1;
  {
    size_t largest = 1;
    for (const scenario::ArrayHeader& a : headers.arrays) largest = std::max(largest, a.count);
    const std::unique_ptr<float, decltype(&std::free)> zeros(
        static_cast<float*>(std::calloc(largest, sizeof(float))), &std::free);
    if (!zeros) return name + ": too large for the memory available";
    std::vector<scenario::FloatArray> stand_ins;
    for (const scenario::ArrayHeader& a : headers.arrays)
      stand_ins.push_back({zeros.get(), a.count});
    for (int k = 0; k < count; ++k) {
      const scenario::ParseResult r =
          scenario::parse_with_arrays(attempts[k].dump(), headers.arrays, stand_ins);
      if (!r.ok()) {
        if (k == 1) error = r.error;
        continue;
      }
      const attn::Status fits = AppState::within_budget(r.problem);
      if (first < 0) first = k;
      if (fits.ok()) {
        over_budget.clear();
        break;
      }
      if (k == first) over_budget = fits.error;
    }
  }
  if (first < 0) return name + ": " + error;
  if (!over_budget.empty()) return name + ": " + over_budget;

  // (b) The numbers, and the attempts again with them, from the first that fits.
  scenario::ArraysResult read = scenario::read_arrays_data(bytes, headers, file_name);
  if (!read.ok()) return read.error;
  for (int k = first; k < count; ++k) {
    scenario::ParseResult r = scenario::parse_with_arrays(attempts[k].dump(), read.arrays);
    if (!r.ok()) {
      if (k == 1) error = r.error;
      continue;
    }
    read = scenario::ArraysResult{};  // the scenario has its numbers: they go before the trace
    const attn::Status applied = s.set_parsed(std::move(r.scenario), std::move(r.problem));
    return applied.ok() ? "" : name + ": " + applied.error;
  }
  // None takes the numbers (not finite, say): what the second attempt says of them, as the
  // numbers may be its first complaint.
  if (first > 1)
    if (const scenario::ParseResult r =
            scenario::parse_with_arrays(attempts[1].dump(), read.arrays);
        !r.ok())
      error = r.error;
  return name + ": " + error;
}

std::string get_trace(AppState& s) {
  s.recompute_if_needed();
  if (s.layered()) return s.runs() ? s.stack_trace_json() : scenario::trace_to_json(attn::Trace{});
  std::string text = scenario::trace_to_json(s.trace);
  // A lean trace keeps each head's output only: say so, rather than hand over empty arrays as
  // if they were the matrices.
  if (s.lean) text.insert(text.size() - 1, ",\"lean\":true");
  // A GRU encoder–decoder's sentence, its decoded words and their loss, as eval prints them.
  if (!s.scenario.seq2seq.empty())
    text.insert(text.size() - 1, ",\"seq2seq\":" + scenario::seq2seq_trace_json(s.scenario));
  // Attention over attention: each sentence's word weights and the vectors they pool.
  if (!s.scenario.hierarchy.empty())
    text.insert(text.size() - 1, ",\"hierarchy\":" + scenario::hierarchy_trace_json(s.scenario));
  return text;
}

std::string counts(const AppState& s) {
  return "{\"heads\":" + std::to_string(s.scenario.heads) +
         ",\"batch\":" + std::to_string(s.scenario.batch()) +
         ",\"layers\":" + std::to_string(s.layer_count()) + "}";
}

std::string trace_shape(AppState& s) {
  s.recompute_if_needed();
  const attn::Trace& t = s.trace;
  nlohmann::json j;
  j["heads"] = t.heads.size();
  j["batch"] = t.output.size();
  j["queries"] = attn::batch_rows(t.queries);
  j["keys"] = attn::batch_rows(t.keys);
  j["head_columns"] = t.heads.empty() ? 0 : attn::batch_cols(t.heads[0].output);
  j["output_columns"] = attn::batch_cols(t.output);
  j["lean"] = s.lean;
  return dump(j);
}

TraceItem trace_item(AppState& s, int head, int batch) {
  s.recompute_if_needed();
  if (head < 0 || head >= static_cast<int>(s.trace.heads.size()) || batch < 0 ||
      batch >= static_cast<int>(s.trace.output.size()))
    return {};
  TraceItem out{};
  size_t i = 0;
  attn::for_each_head_matrix(s.head_trace(head, batch), [&](const char*, const attn::Batch& m) {
    out[i++] = m[batch].data();
  });
  return out;
}

const float* trace_output(AppState& s, int batch) {
  s.recompute_if_needed();
  if (batch < 0 || batch >= static_cast<int>(s.trace.output.size())) return nullptr;
  return s.trace.output[batch].data();
}

std::string get_link(const AppState& s) {
  const scenario::ViewState v = s.view();
  const scenario::Scenario& sc = s.document();
  if (!s.runs() || !scenario::validate_view(v, sc).ok()) return "";
  int64_t cells = 0;  // the numbers the link would spell out
  for (const attn::Batch* x : {&sc.queries, &sc.keys, &sc.values})
    if (!sc.self_attention || x == &sc.queries) cells += attn::batch_cells(*x);
  attn::for_each_weight(sc, [&cells](const char*, const auto& w) { cells += w.size(); });
  for (const scenario::LayerSpec& l : sc.layers)
    attn::for_each_weight(l, [&cells](const char*, const auto& w) { cells += w.size(); });
  cells += sc.embed.size() + sc.unembed.size();
  if (cells > kMaxLinkCells) return "";
  return scenario::encode_link(sc, v);
}

std::string open_link(AppState& s, const std::string& fragment) {
  scenario::LinkResult r = scenario::decode_link(fragment);
  if (!r.ok()) return r.error;
  const attn::Status applied = s.set_parsed(std::move(r.scenario), std::move(r.problem));
  if (applied.ok()) s.apply_view(r.view);
  return applied.error;
}

std::string export_json(AppState& s, const std::string& what, const std::string& format, int head,
                        int batch) {
  if (const int64_t n = export_numbers(s, what, head, batch); n > kMaxExportNumbers)
    return dump({{"ok", false},
                 {"error", what + ": " + std::to_string(n) +
                               " numbers are too many to export at once; exportFile() writes "
                               "them in parts without holding up the page"}});
  const Export e = make_export(s, what, format, head, batch);
  nlohmann::json j;
  if (e.ok())
    j = {{"ok", true},
         {"error", nullptr},
         {"filename", e.filename},
         {"mime", e.mime},
         {"data", e.data}};
  else
    j = {{"ok", false}, {"error", e.error}};
  return dump(j);
}

std::string export_start(AppState& s, ExportJob* job, const std::string& what,
                         const std::string& format, int head, int batch) {
  *job = start_export(s, what, format, head, batch);
  if (!job->file.ok()) return dump({{"ok", false}, {"error", job->file.error}});
  return dump({{"ok", true},
               {"error", nullptr},
               {"filename", job->file.filename},
               {"mime", job->file.mime},
               {"rows", job->rows()}});
}

std::string package_formats() {
  nlohmann::json out = nlohmann::json::array();
  for (const char* f : scenario::kPackageFormats) {
    const std::string v = f;
    const std::string label = v == "scorm2004" ? "SCORM 2004"
                              : v == "scorm12" ? "SCORM 1.2"
                              : v == "cmi5"    ? "cmi5 (xAPI)"
                                               : v;
    out.push_back({{"value", v}, {"label", label}});
  }
  return out.dump();
}

std::string package_start(const AppState& s, PackageJob* job, const std::string& spec_json) {
  *job = PackageJob{};
  const nlohmann::json j = nlohmann::json::parse(spec_json, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return "package: must be {\"format\", \"title\", \"lessons\", \"pass\"}";
  scenario::PackageSpec spec;
  for (const auto& [key, v] : j.items()) {
    if (key == "format") {
      if (!v.is_string()) return "format: must be a string";
      spec.format = v.get<std::string>();
    } else if (key == "title") {
      if (!v.is_string()) return "title: must be a string";
      spec.title = v.get<std::string>();
    } else if (key == "lessons") {
      if (!v.is_array()) return "lessons: must be an array of lesson names";
      if (v.size() > s.presets.size())
        return "lessons: must name at most " + std::to_string(s.presets.size()) + " lessons";
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string()) return "lessons[" + std::to_string(i) + "]: must be a string";
        spec.lessons.push_back(v[i].get<std::string>());
      }
    } else if (key == "pass") {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 100)
        return "pass: must be a whole percent from 0 to 100";
      spec.pass = static_cast<int>(v.get<int64_t>());
    } else if (key == "shown") {
      // The scenario shown, as edited (a link's too), as a lesson of the course's own.
      if (!v.is_string()) return "shown: must be the name of the lesson of your own";
      if (std::string e = scenario::lesson_name_problem(v.get<std::string>()); !e.empty())
        return "shown: " + e;
      spec.own.push_back({v.get<std::string>(), get_scenario(s)});
    } else {
      return "package: unknown field \"" + key.substr(0, 40) + "\"";
    }
  }
  // The lesson of its own goes after the lessons chosen (the whole path: all of the playground's).
  if (!spec.own.empty()) {
    if (spec.lessons.empty())
      for (int i = 0; i < kEmbeddedPresetCount && i < static_cast<int>(s.presets.size()); ++i)
        spec.lessons.push_back(s.presets[i].name);
    if (std::find(spec.lessons.begin(), spec.lessons.end(), spec.own[0].name) == spec.lessons.end())
      spec.lessons.push_back(spec.own[0].name);
  }
  if (std::string e = scenario::check_package(spec); !e.empty())
    return e.rfind("own[0]", 0) == 0 ? "shown" + e.substr(6) : e;
  for (size_t i = 0; i < spec.lessons.size(); ++i) {
    const bool own = !spec.own.empty() && spec.own[0].name == spec.lessons[i];
    const auto builtin_end =
        s.presets.begin() + std::min<ptrdiff_t>(kEmbeddedPresetCount, s.presets.size());
    const bool found = std::any_of(s.presets.begin(), builtin_end,
                                   [&](const Preset& p) { return p.name == spec.lessons[i]; });
    if (own && found)
      return "shown: \"" + spec.lessons[i] +
             "\" is a lesson of this playground already; give yours another name";
    if (!own && !found)
      return "lessons[" + std::to_string(i) + "]: \"" + spec.lessons[i] +
             "\" is not a lesson of this playground";
  }
  job->spec = std::move(spec);
  job->open = true;
  return "";
}

std::string package_add(PackageJob* job, const std::string& name, std::string bytes,
                        std::string gzip) {
  if (!job->open) return "package: no package is being written";
  std::string error;
  if (job->files.size() >= kMaxPackageFiles)
    error = "package: more than " + std::to_string(kMaxPackageFiles) + " files";
  else if (bytes.size() > kMaxPackageBytes - job->bytes ||
           gzip.size() > kMaxPackageBytes - job->bytes - bytes.size())
    error = "package: more than " + std::to_string(kMaxPackageBytes >> 20) + " MiB of files";
  if (!error.empty()) {
    *job = PackageJob{};
    return error;
  }
  if (!scenario::package_ships(name)) return "";
  job->bytes += bytes.size() + gzip.size();
  job->files.push_back({name, std::move(bytes), std::move(gzip)});
  return "";
}

scenario::ZipResult package_finish(PackageJob* job) {
  if (!job->open) return {"", "package: no package is being written"};
  scenario::ZipResult zip = scenario::write_package(job->spec, job->files);
  *job = PackageJob{};
  return zip;
}

}  // namespace ui::api
