// The JavaScript API's calls on the app state (web/app.js calls them through the ap_* C
// functions of web_api_state.cpp). GL-free and browser-free, so that the native tests and the
// fuzzer (tests/fuzz/fuzz_api.cpp) call exactly what the page calls, with any input.
//
// Texts in are anything (the page passes what a caller gave); texts out are JSON or one
// line "<field>: <problem>" ("" when the call was applied).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "app/model/app_state.h"
#include "app/model/matrices.h"
#include "scenario/package.h"

namespace ui::api {

// The limits every input is held to, for the page to check before it copies anything into
// the module (web/app.js reads them once at start; the JS API's limits()):
// {"max_batch", "max_rows", "max_cols", "memory_budget_bytes", "max_scenario_chars",
//  "max_file_bytes", "max_task_seed", "max_train_steps", "max_learning_rate", "optimizers",
//  "max_step", "steps", "array_fields", "head_matrices"} (the steps are 0 to max_step, named
//  in "steps"; "array_fields": the fields typed arrays may fill; "head_matrices": a head's
//  matrices in getTrace's order).
std::string limits();

std::string get_scenario(const AppState& s);                     // Scenario JSON
std::string set_scenario(AppState& s, const std::string& json);  // "" or the error
// With the typed arrays that the JSON's {"shape", "buffer": k} fields name.
std::string set_scenario(AppState& s, const std::string& json,
                         const std::vector<scenario::FloatArray>& arrays);
// A NumPy file's bytes (.npy or .npz, named `file_name`) as the scenario: its arrays are the
// matrix fields they are named after (x or queries, keys, values; W_q, W_k, W_v, W_o, W, w_v)
// in the scenario before, as far as it fits them (its token labels, lengths and masked cells,
// then all but its scoring, temperature and masks, give way when they do not), titled with
// the file's name. "" or "<file>: <problem>" / "<file>: <field>: <problem>" (the state
// unchanged).
std::string open_arrays(AppState& s, const std::string& bytes, const std::string& file_name);
std::string get_trace(AppState& s);     // Trace JSON; "lean": true when heads are outputs only
std::string counts(const AppState& s);  // {"heads": H, "batch": B, "layers": L}

// The trace as typed arrays (getTrace({typed: true})): its sizes, {"heads", "batch",
// "queries", "keys", "head_columns", "output_columns", "lean"}; then, one head of one batch
// item at a time, where its scores, scaled, masked, weights (queries × keys each) and output
// (queries × head_columns) are, row-major (computed on demand when the trace is lean, and
// valid until the next call); and where the final output of an item is.
std::string trace_shape(AppState& s);
using TraceItem = std::array<const float*, std::size(attn::kHeadMatrixNames)>;
TraceItem trace_item(AppState& s, int head, int batch);
const float* trace_output(AppState& s, int batch);
std::string view(const AppState& s);  // getView(): every field, "preset" = "lesson"

// The view: each clamps to what the scenario has and returns what it set.
int set_step(AppState& s, int step);
int focus_head(AppState& s, int head);
int set_batch(AppState& s, int batch);
int set_layer(AppState& s, int layer);  // a stack's layer shown (0 without layers)
void set_language(AppState& s, const std::string& code);  // "zh", or English
bool load_preset(AppState& s, const std::string& name);
// The lessons a course walks (?lessons=a,b): names of presets, comma-separated, each
// once, at most as many as there are; "" walks them all again. Returns "" or the error, naming
// the entry ("lessons[1]: \"nope\" is not a lesson"); an error changes nothing.
std::string set_path(AppState& s, const std::string& names);
// A lesson of a course's own (a package's course/NAME.json, which web/app.js fetches when
// ?lessons= names a lesson the playground does not have): added after the playground's lessons,
// at most scenario::kMaxOwnLessons of them, for set_path to walk. "" or the problem, naming the
// file and the field ("course/mine.json: x[0]: …"); a problem adds nothing.
std::string add_lesson(AppState& s, const std::string& name, const std::string& json);
std::string presets(
    const AppState& s);  // [{"name", "title", "title_zh"}], "own": true for add_lesson's

// The lessons' questions and this learner's progress (getProgress, answerQuiz). progress():
// {"lesson": id, "lessons": [{"id", "title", "questions", "answered", "correct", "done"}],
//  "marks": {id: "r-"}, "done": [ids]}. set_progress merges marks {id: "rw"} (localStorage,
// a course's records): "" or the error. answer_quiz answers question q (0-based) of the
// scenario shown with {"key": j} or {"value": v} (0-based like the JSON):
// {"correct": bool, "key"|"value": the core's answer} or {"error": ...}.
std::string progress(const AppState& s);
std::string set_progress(AppState& s, const std::string& json);
std::string answer_quiz(AppState& s, int question, const std::string& answer_json);
std::string quiz(const AppState& s);  // the shown scenario's questions, in the UI's language

// The canvas's controls (controls.h's table) for the table view's own form controls (keyboard
// and screen readers): [{"id", "label", "kind": "checkbox"|"select"|"number"|"button"|"menu",
// "value", "options": [{"value", "label"}], "min", "max", "step"}], the ones the page hides or
// this scenario lacks left out. set_control applies one as the canvas does (a button with
// true, a menu with an option's value), and "cell" an input cell: "" or the error naming the
// control.
std::string controls(const AppState& s);

// Training: training() is {"trainer" ("weights": the Train section's; "decoder": a seq2seq
// model's, the Decoder tab's Train), "task", "seed", "step", "loss", "lr", "optimizer",
// "playing", "check" (a task's: {"loss", "value", "passed", "text"}, see scenario::check_task),
// "share" (a keyed task's check value: head 1's weight where the task wants it), "error"}, of
// the scenario's one trainer; train_slice takes that trainer's steps. load_task and
// train_steps (the Train section's) answer "" or the error.
std::string training(AppState& s);
std::string load_task(AppState& s, const std::string& name, double seed);
std::string train_steps(AppState& s, int steps);
// The section's learning rate (above 0, at most 10; NaN: unchanged) and optimizer ("adam",
// "sgd"; "": unchanged): "" or the error naming the field.
std::string set_training(AppState& s, double lr, const std::string& optimizer,
                         const std::string& speed = "");
// One slice of the page's train(steps): at most `steps` steps in at most budget_ms, refused
// unless the training has taken `expect_step` steps (-1: any) and is not playing.
// {"taken", "step", "error"}.
std::string train_slice(AppState& s, int steps, double budget_ms, double expect_step);
std::string set_control(AppState& s, const std::string& id, const std::string& value_json);
void set_panels(AppState& s, const std::string& csv);  // the panels to show, by id
// Hides the controls named (hide=, controls.h's hide_ids); "" or an error naming the unknown
// ids, which are left out.
std::string hide_controls(AppState& s, const std::string& csv);

// The link ("v1.…", without '#'), or "" while the edited scenario does not run or is too big
// for a link (more than kMaxLinkCells numbers: the link would pass its 1 MiB); opening one
// returns "" when it was applied, else its error (the state unchanged).
constexpr int64_t kMaxLinkCells = int64_t{1} << 16;
std::string get_link(const AppState& s);
std::string open_link(AppState& s, const std::string& fragment);

// make_export as JSON: {"ok":true,"error":null,"filename","mime","data"} or
// {"ok":false,"error"}. A matrix of more than kMaxExportNumbers is refused (a 256 x 256
// matrix, some 1 MB of text and 50 ms in the page; 2^22 numbers held the page 3.5 s):
// exportFile writes it in parts between frames.
constexpr int64_t kMaxExportNumbers = int64_t{1} << 16;
std::string export_json(AppState& s, const std::string& what, const std::string& format, int head,
                        int batch);
// exportFile: starts *job (matrices.h: the matrix is copied now), answering as export_json
// does but with "rows" (the matrix's rows, for progress; 0 for a document) instead of "data".
// Its parts come from next_export_part.
std::string export_start(AppState& s, ExportJob* job, const std::string& what,
                         const std::string& format, int head, int batch);

// Course packages (Export → "Course package…", web/js/coursepack.js; the page's own, not
// postMessage's): the archive `attention-cli package` writes (scenario::write_package), from
// the site's files that the page fetches and hands over one at a time.
// package_formats(): [{"value": "scorm2004", "label": "SCORM 2004"}, …], scenario::
// kPackageFormats in its order.
std::string package_formats();
struct PackageJob {
  scenario::PackageSpec spec;
  std::vector<scenario::ZipEntry> files;
  size_t bytes = 0;   // of the files so far
  bool open = false;  // started with an accepted spec, not yet finished
};
// What one package may hold: the files and their gzip copies (the site's a package holds are
// some 12 MB with their copies, in about 50 files).
constexpr size_t kMaxPackageBytes = size_t{256} << 20;
constexpr size_t kMaxPackageFiles = 4096;
// Starts *job from {"format", "title", "lessons": [names, in order; none: the whole path],
// "pass", "shown"} (format and pass may be left out: scorm2004, 80; "shown": a name, for the
// scenario shown, as edited, as a lesson of the course's own after the lessons chosen, or after
// the whole path): "" or the problem naming the field
// (scenario::check_package's, or a lesson this playground does not have); on a problem no job
// is open.
std::string package_start(const AppState& s, PackageJob* job, const std::string& spec_json);
// One of the site's files (its path from the site's root, '/'-separated, and its bytes) and its
// gzip copy (FILE.gz, or "" when it has none), from which the entry is deflated when it is the
// file's (scenario::write_zip; else it is stored): "" or the problem, which ends the job. The
// files a package leaves out (scenario::package_ships) are answered "" and let go at once.
std::string package_add(PackageJob* job, const std::string& name, std::string bytes,
                        std::string gzip = {});
// The archive (or the problem, naming the entry); the job is ended and its files let go.
scenario::ZipResult package_finish(PackageJob* job);

// What the canvas shows, for assistive technology and the page's table view (getAccessible):
// {"lang", "lesson", "step" (1-based), "steps", "title", "formula", "explanation", "note",
//  "matrix": {"symbol", "name", "head" (1-based, 0 if not per head), "batch" (1-based),
//  "rows", "cols" (its size), "row_labels", "col_labels", "cells" ([[text]] as the cells
//  write them, "masked" for a masked cell), "truncated"}, "cell": {"row", "col" (1-based),
//  "name", "lines"} or null} — the step's matrix (at most kAccessibleRows × kAccessibleCols
//  of it) and the arithmetic behind `cell` (the hovered or keyboard-selected one), in the
//  UI's language.
constexpr int kAccessibleRows = 48, kAccessibleCols = 32;
std::string accessible(AppState& s, const std::optional<CellRef>& cell);

}  // namespace ui::api
