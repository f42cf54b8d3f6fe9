// The playground's one state: the scenario being edited, its trace, and the view. Panels read
// and edit it; the trace is recomputed once per change, never per frame.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/model/transition.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "core/attention.h"
#include "core/gradient.h"
#include "core/seq2seq.h"
#include "core/stack.h"
#include "scenario/link.h"
#include "scenario/scenario.h"
#include "scenario/tasks.h"

namespace ui {

struct Preset {
  std::string name;  // file name without .json, e.g. "why_so_tall"
  scenario::Scenario scenario;
  // Its title in `lang`, or its name when it has none (a course's own lesson written by hand):
  // what the lesson panel, the lesson select and the top bar call it.
  std::string title(const std::string& lang) const {
    const std::string& t = scenario.title.in(lang);
    return t.empty() ? name : t;
  }
};

// The presets compiled into the app from assets/presets/ (generated file), in lesson order.
struct EmbeddedPreset {
  const char* name;
  const char* json;
};
extern const EmbeddedPreset kEmbeddedPresets[];
extern const int kEmbeddedPresetCount;

enum class Panel : int { kControls, kDetails, kHeads, kPositional, kPlane, kLesson, kCount };
const char* panel_id(Panel p);  // "controls", "details", "heads", "positional", "plane", "lesson"

// What the panels remember between frames, one struct per panel that needs it.

// The positional-encoding explorer (panel_positional.cpp): its own table, and the shuffle
// experiment's result for the scenario's revision it was run on.
struct PositionalPanel {
  int positions = 32, d = 0;
  int followed_d = -1;  // the scenario's d the table last followed
  attn::Matrix pe;
  float pe_base = 0.0f;
  uint64_t pe_revision = 0;  // +1 whenever the table is recomputed (for its texture)
  uint64_t shuffle_seed = 100;
  uint64_t experiment_revision = ~uint64_t{0};
  bool experiment_valid = false;
  std::vector<float> change_without, change_with;  // per token: max |Δ output row|
};

// The 2-D view (panel_plane.cpp).
struct PlanePanel {
  float view_extent = 1.5f;  // the plane shows [-extent, extent]², kept while dragging
  int drag_kind = 0;         // 1 = a query, 2 = a key
  int drag_index = -1;       // the arrow being dragged, -1 = none
};

// The controls column (panel_controls.cpp).
struct ControlsPanel {
  int randomize_seed = 1;                // the seed of the last Randomize or Shuffle
  uint64_t sections_for = ~uint64_t{0};  // the AppState::loads the folded sections were set for
  float mask_choices_w = 0.0f;           // the width of the mask-value choices as last drawn
};

// The computations in parts an AppState runs (attn::RunJob reads the state's problem, so a job
// belongs to one state). A copy of a state, or a moved state, starts without them: when the
// original was computing, the copy is marked edited and computes its trace again when asked
// (recompute_if_needed, recompute_in_parts), the same trace.
class AppStateJobs {
 protected:
  AppStateJobs() = default;
  AppStateJobs(const AppStateJobs& o) : dirty_(o.dirty_ || o.job_ != nullptr) {}
  AppStateJobs& operator=(const AppStateJobs& o) {
    if (this != &o) {
      job_.reset();
      head_job_.reset();
      job_ms_ = 0.0;
      head_job_h_ = head_job_b_ = -1;
      dirty_ = o.dirty_ || o.job_ != nullptr;
    }
    return *this;
  }
  ~AppStateJobs() = default;

  std::unique_ptr<attn::RunJob> job_;
  double job_ms_ = 0.0;  // the time spent in job_ so far
  // Lean: the focused head of the focused item in parts, when slice_ms > 0.
  std::unique_ptr<attn::RunJob> head_job_;
  int head_job_h_ = -1, head_job_b_ = -1;
  bool dirty_ = false;  // the scenario was edited: it is validated and computed when asked
};

struct AppState : AppStateJobs {
  AppState();

  // --- The scenario and what it computes -------------------------------------------------
  scenario::Scenario scenario;      // what the learner edits
  attn::Problem problem;            // the last scenario that validated, resolved for the core
  attn::Trace trace;                // its trace
  std::string error;                // why the current edit cannot run ("" when it can)
  std::optional<CellRef> overflow;  // the first number past float32 (first_overflow), if any
  uint64_t revision = 0;            // +1 on every recompute; textures follow it
  double recompute_ms = 0.0;        // duration of the last recompute

  // Whether Train has something to learn toward: the scenario's target, or a token model's
  // next tokens.
  bool has_target() const {
    return layered() ? !whole.target.empty() || whole.token_model() : !scenario.target.empty();
  }
  // Call after editing `scenario` in place; the recompute happens once, before the next frame.
  void changed() {
    dirty_ = true;
    edited = true;
  }
  bool edited = false;  // the learner has changed the scenario since it was set or loaded
  uint64_t loads = 0;   // +1 whenever a scenario is set or a preset loaded (not on edits)
  // Validates and, when valid and within the memory budget, recomputes now; otherwise the
  // state is unchanged.
  attn::Status set_scenario(const scenario::Scenario& s);
  attn::Status set_scenario_json(const std::string& json);
  // A scenario already validated and resolved (scenario::ParseResult, LinkResult): only the
  // memory budget is checked.
  attn::Status set_parsed(scenario::Scenario s, attn::Problem p);
  // "" or the first control a lesson note names that the app does not have, named by its field.
  static std::string unknown_tour_control(const scenario::Scenario& s);
  // Recomputes an edited scenario, and finishes a recompute still running in parts: the
  // trace is the scenario's when it returns (a lean trace's focused head may still be
  // computing in parts: head_trace finishes it when asked).
  void recompute_if_needed();
  // > 0: a recompute runs in parts of about this many milliseconds (attn::RunJob), the first
  // when the scenario is set and one a frame after (recompute_in_parts), so that the page
  // keeps drawing while a large scenario computes; 0: at once. The app sets it.
  double slice_ms = 0.0;
  // The frame's part: starts the recompute of an edited scenario, or goes on with one.
  void recompute_in_parts(double budget_ms);
  // A recompute is running in parts (the trace is empty until it ends), or, when lean, the
  // focused head's matrices are (head_trace; after a recompute, set_head or set_batch).
  bool computing() const { return job_ != nullptr || head_job_ != nullptr; }
  double computing_progress() const;                              // from 0 to 1
  int computing_head() const { return job_ ? -1 : head_job_h_; }  // -1: the whole scenario
  // Frames to draw whatever else happens: a computation ended (perhaps in a call between two
  // frames, which would otherwise leave the progress on screen).
  int redraw = 0;
  // The scenario being edited is the one the trace was computed from (it validated).
  bool runs() const { return error.empty() && !dirty_; }
  // Head h's intermediates, valid for batch item b (and, unless lean, for every item). When
  // keeping every head's n_q × n_k matrices would pass kLeanBytes, the trace keeps only the
  // outputs, and one head of one batch item is recomputed on demand.
  const attn::HeadTrace& head_trace(int h, int b);
  static constexpr int64_t kLeanBytes = int64_t{64} << 20;
  bool lean = false;  // the trace holds outputs only (see head_trace)
  // Batch item b's mask, n_q × n_k bytes, row-major, 1 = masked (computed when asked).
  const std::vector<uint8_t>& mask(int b);

  // The memory a scenario may use: its trace, the view's one head and mask (lean), and the
  // copies of its inputs. A scenario above it is refused with its sizes, before anything of
  // that size is allocated: what is accepted can be drawn (the WASM heap stops at 1 GiB, and
  // an old trace and a new one are alive together for a moment).
  static constexpr int64_t kMemoryBudget = int64_t{384} << 20;
  // The bytes the playground needs for a scenario resolved to p, and whether they are within
  // the budget (the error names the sizes).
  static int64_t memory_needed(const attn::Problem& p);
  static attn::Status within_budget(const attn::Problem& p);

  // --- Stacked layers ("layers"): the page shows one layer at a time -----------------------
  // With layers, `whole` is the scenario as it was set (its layers, tokens and shared
  // settings), `stack` the core's stack and `stack_trace` its run; `scenario`, `problem` and
  // `trace` are then the shown layer `layer` seen as one self-attention layer over the stream
  // it reads, h_layer (layer_view), so that every panel draws it as it draws any scenario. An
  // edit of the shown layer's weights and heads, or of the settings the layers share, goes back
  // into `whole`, which runs again (recompute_edited); what a layer view cannot change (its
  // inputs, which the layers below wrote; the sizes) is not offered, or undone with a notice.
  // Without layers `whole` is empty and `layer` 0.
  scenario::Scenario whole;
  attn::Stack stack;
  attn::StackTrace stack_trace;
  // A token model's next-token probabilities (softmax of stack_trace.logits), once per run.
  attn::Batch next_probabilities;
  void set_stack_trace(attn::StackTrace t);
  int layer = 0;
  // An image scenario's Picture tab: the query whose weights it draws over the picture.
  int picture_query = 0;
  // The Curve tab, for a regression (each value one number, no W_v or W_o, one head, at least
  // three keys, as Nadaraya–Watson's): the query whose weights it draws.
  int curve_query = 0;
  // The 2-D view (panel_plane.cpp): the query whose weights it draws.
  int plane_query = 0;
  // A hierarchy scenario's Document tab (panel_hierarchy.cpp): the question whose two levels it
  // draws, 1 to the questions (the sentence level's queries). A new scenario starts at 1.
  int hierarchy_question = 1;
  // A seq2seq model's Decoder tab (panel_decoder.cpp): the word it shows being written, t from 1
  // to the words produced (decoder_words), and its Play, one word every kDecoderPlaySeconds,
  // which stops at the last word. A new scenario starts again at word 1, paused.
  int decoder_step = 1;
  bool decoder_playing = false;
  double decoder_clock = 0.0;
  std::array<int, 5> view_choice_seen = {1, 1, 0, 0, 0};  // note_view_choice's last
  static constexpr double kDecoderPlaySeconds = 0.8;
  int decoder_words() const { return static_cast<int>(scenario.seq2seq.produced.size()); }
  // Shows word t (clamped to 1..decoder_words()).
  void set_decoder_step(int t);
  // Once a frame: a change of what a view shows (the Decoder's word, the Document's question,
  // the Picture's or the Curve's query), by a button, a control or Play, emits "view", which
  // the page announces ("now" in describe_view). Not for a new scenario (which starts them
  // over) or while the decoder trains (its training is announced instead).
  void note_view_choice();
  // Play's clock: advances dt seconds and a word when one is due; stops at the last word.
  void play_decoder(double dt);
  // The Decoder tab's training of a model of the toy language (decoder_untrainable says when
  // not): Random start sets the weights init_params(sizes, seed) gives, the seed the model's
  // (1 without one); Train takes steps of attn::seq2seq::ToyTrainer from the weights it starts
  // on, kDecoderBatch pairs each, as many as fit in a frame's budget, then writes the weights
  // into the model, which decodes its sentence again (the alignment and translation follow the
  // training live). Play pauses at every kDecoderTrainSteps steps (the lesson's recipe).
  // Training makes the scenario edited; a new scenario starts without a trainer.
  struct DecoderTraining {
    std::optional<attn::seq2seq::ToyTrainer> trainer;
    bool playing = false;
    std::vector<float> losses;  // each step's minibatch loss, since Random start or the load
    std::string error;          // why the last step could not be taken
  } decoder_training;
  static constexpr int kDecoderBatch = attn::seq2seq::kToyBatch, kDecoderTrainSteps = 1500;
  // A scenario has one trainer: a seq2seq model's is the decoder's, every other's is
  // `training` (api::training reports whichever it is).
  bool decoder_trains() const { return !scenario.seq2seq.empty(); }
  // "" when the model's vocabularies and sizes are the toy language's (the only pairs the page
  // has to train on), else why not, in the UI's language.
  std::string decoder_untrainable() const;
  // Random start: false (decoder_training.error set) when the model cannot train.
  bool decoder_random_start();
  // Up to `steps` steps, fewer when budget_ms has passed; returns the steps taken (0 with
  // decoder_training.error set when it cannot train).
  int train_decoder(int steps, double budget_ms);
  // Play: a frame's steps, pausing at a multiple of kDecoderTrainSteps or on an error.
  void play_decoder_training(double budget_ms);
  bool has_curve() const {
    const scenario::Scenario& sc = scenario;
    return !layered() && sc.image.empty() && !sc.values.empty() &&
           attn::batch_cols(sc.values) == 1 && !sc.W_v.size() && !sc.W_o.size() &&
           sc.n_keys() >= 3 && sc.heads == 1;
  }
  bool layered() const { return !whole.layers.empty(); }
  int layer_count() const { return layered() ? static_cast<int>(whole.layers.size()) : 1; }
  // Shows layer l (clamped) and emits "view".
  void set_layer(int l);
  // The scenario the learner has: `whole` when layered, else `scenario`. Exports, links and
  // getScenario give it.
  const scenario::Scenario& document() const { return layered() ? whole : scenario; }
  // The stack's trace JSON, as attention-cli eval writes it: every layer's heads and what it
  // adds, the output, and a token model's logits and probabilities.
  std::string stack_trace_json() const;
  // The composition of layer l ≥ 1, whose keys read what the layers below wrote: head `head`'s
  // scaled scores of batch item b split by where each key came from. A key is h_l·W_k and
  // h_l = h_0 + what the layers below added, so with dot-product scoring each score is
  // q·(h_0·W_k) + q·((h_l − h_0)·W_k), times the scoring's scale: `from_input` and
  // `from_layers`, whose sum is the layer's `scaled` (tests/app/layers_test.cpp). False, the
  // matrices untouched, for a first layer and for additive, general and cosine scoring.
  static bool key_split(const attn::Stack& st, const attn::StackTrace& t, int l, int head, int b,
                        attn::Matrix* from_input, attn::Matrix* from_layers);
  // Layer l of a stack seen as one layer: self-attention over the stream state h_l (x = h_l,
  // no positional encoding: h_0 has it already), the layer's weights written out and its
  // heads, the shared settings (dropout's seed + l), the stack's titles and notes, the token
  // names (a token model's vocabulary), no target.
  static scenario::Scenario layer_view(const scenario::Scenario& whole, const attn::Stack& st,
                                       const attn::StackTrace& t, int l);

  // --- Presets ---------------------------------------------------------------------------------
  std::vector<Preset> presets;
  int preset = -1;  // the preset last loaded, -1 after edits from elsewhere
  void load_preset(int index);
  // The lessons a course walks, in its order (preset indices; api::set_path): "Lesson k of N",
  // Previous and Next follow it. Empty: every lesson, in the presets' order.
  std::vector<int> path;
  int path_count() const {
    return path.empty() ? static_cast<int>(presets.size()) : static_cast<int>(path.size());
  }
  int path_preset(int k) const { return path.empty() ? k : path[k]; }  // k in [0, path_count())
  // Where the loaded lesson is on the path, -1 when it is not on it.
  int path_position() const {
    if (preset < 0) return -1;
    if (path.empty()) return preset < static_cast<int>(presets.size()) ? preset : -1;
    for (int k = 0; k < static_cast<int>(path.size()); ++k)
      if (path[k] == preset) return k;
    return -1;
  }

  // --- The view --------------------------------------------------------------------------------
  Step step = Step::kScores;
  int head = 0;
  int batch = 0;
  bool playing = false;
  // Step changes animate (one step forward, scores to weighted values) unless this is off:
  // the "Animate step changes" setting, off under the page's prefers-reduced-motion.
  bool animate = true;
  Transition transition;  // the step change being drawn, if any
  double play_clock = 0.0;
  bool show[static_cast<int>(Panel::kCount)] = {true, true, true, true, true, true};
  // The centre's tab on screen ("steps", "picture", "curve", "layers", "heads", "positional",
  // "plane"; app.cpp sets it as it draws), and the one the "view" control asked for, selected
  // by the next frame.
  std::string view_tab = "steps";
  std::string view_tab_wanted;
  std::set<std::string> hidden;  // controls hidden by an embedding page
  bool embed = false;            // chrome-less view for iframes
  bool in_page = false;        // in the web page: it picks files, and writes long exports in parts
  bool mask_by_click = false;  // clicking a score or weight cell toggles its mask
  // Each matrix coloured by its own values, not on the scale it shares with the matrices it
  // is compared with (matrix_range).
  bool scale_alone = false;
  bool show_numbers = true;  // the values written in the cells (where they fit)
  // The step view draws every matrix transposed (tokens along the columns) and its formulas
  // in the column convention (S = KᵀQ, O = V·A); the numbers, the trace and the exports stay
  // in the row convention.
  bool transpose = false;
  std::optional<CellRef> hover;       // the cell under the mouse this frame
  std::optional<CellRef> prev_hover;  // last frame's, for highlights drawn before the hover
  float hover_cell[4] = {};           // the hovered cell's screen rectangle: x0, y0, x1, y1
  float tooltip_rect[4] = {};         // the cell's arithmetic beside it (narrow screens), or 0s
  // The height the window would need for nothing to scroll and the matrices to get the cells
  // their width allows (an embedding page sizes its iframe from it), and the centre panel's
  // scroll range this frame (0: it all fits).
  float preferred_height = 0.0f;
  float center_scroll_max = 0.0f;
  std::vector<std::string> exports_due;  // whole-scenario exports asked for ("trace", "link"…),
                                         // delivered by the next frame (export_menu's)
  std::string notice;                    // a message shown once (e.g. a broken link)
  std::string toast;                     // a short confirmation ("Copied"), fades by itself
  double toast_seconds = 0.0;            // how long the toast still shows

  Lang lang = Lang::kEn;  // the UI's language; T() follows it (set_language)

  void set_step(int s);
  void set_head(int h);
  void set_batch(int b);
  void set_language(Lang l);
  bool visible(Panel p) const { return show[static_cast<int>(p)]; }
  bool control_hidden(const char* id) const { return hidden.count(id) > 0; }
  // A lesson note is shown unless it asks for a control the page hides.
  bool note_shown(const scenario::TourStop& stop) const {
    for (const std::string& id : stop.controls)
      if (hidden.count(id)) return false;
    return true;
  }

  // --- The lessons' questions (scenario.quiz) and this learner's answers -------------------
  // Marks by lesson id, one per question: '-' not yet, 'r' right, 'w' wrong (as
  // scenario::ViewState::progress). The page keeps them in localStorage and the link;
  // nothing sends them anywhere.
  std::map<std::string, std::string> progress;
  // The questions: the lesson's as it was set or loaded (a stack's name their layer,
  // answer.layer). Their indexes stay as edits and training change the numbers: a question
  // whose cell is gone now (the decoder of learned_bahdanau writing fewer words after Random
  // start, a token removed) stays in the lesson, out of the scenario's own "quiz" (which its
  // link and exports carry, and must fit), and comes back when the cell does.
  const std::vector<scenario::QuizQuestion>& quiz() const {
    return layered() ? whole.quiz : questions_;
  }
  // Question q can be asked on the numbers shown (its head, item, row and key exist now).
  bool quiz_fits(int q) const {
    return q >= 0 && static_cast<size_t>(q) < quiz().size() &&
           (static_cast<size_t>(q) >= question_unfit_.size() || question_unfit_[q].empty());
  }
  // Why question q cannot be asked now, in the learner's words (and what brings it back);
  // "" when it can.
  std::string quiz_unfit_text(int q) const;
  // The lesson the shown questions belong to: the loaded preset's id, or "" (then answers are
  // checked but not recorded).
  std::string lesson_id() const { return preset >= 0 ? presets[preset].name : std::string(); }
  // The title of the scenario shown in `lang`; a lesson without one is called by its name
  // (Preset::title).
  std::string lesson_title(const std::string& lang) const {
    const std::string& title = scenario.title.in(lang);
    return title.empty() && preset >= 0 ? presets[preset].title(lang) : title;
  }
  // What was answered on this screen, per question of scenario.quiz (reset when a scenario is
  // set or a lesson loaded).
  struct QuizReply {
    bool answered = false, correct = false;
    bool shown = false;  // the learner asked to see the answer ("Show me"): not right
    int key = -1;        // the key given (argmax questions)
    float value = 0.0f;  // the value given (value questions)
  };
  std::vector<QuizReply> replies;

 private:
  std::vector<scenario::QuizQuestion> questions_;  // quiz(), for a scenario without layers
  std::vector<std::string> question_unfit_;        // per question: "" or why it does not fit
  // Puts the questions that fit into scenario.quiz (fit_to_shapes) and notes the others.
  void fit_questions();

 public:
  // Checks an answer to question q against the core's numbers (the key with the largest weight
  // of the row, or the cell within the question's tolerance), shows it, records the first
  // answer of each question in `progress` and emits "quiz|q|1" (or 0). False: no question q.
  bool answer_quiz(int q, int key, float value);
  // "Show me": the learner gives up on question q; recorded as not right first time, then as
  // answer_quiz.
  bool show_quiz_answer(int q);
  // The first question on the current step not answered yet, or -1. While one is open, what
  // would answer it (its matrix's numbers and colours, the step's note) is not shown.
  int open_question() const;
  // A question of the current step waits for its answer, on any layer of a stack: the step's
  // note, which may speak of every layer's numbers, waits with it.
  bool question_waiting() const;
  // The core's answer to question q of the current scenario: the key, or the cell's value.
  int quiz_truth_key(int q);
  float quiz_truth_value(int q);
  // After an answer: what the core says ("The largest weight is on "cat" (0.66).") and whether
  // the lesson's own explanation still fits these numbers (not after edits that change them).
  std::string quiz_verdict(int q);
  // The answer buttons of key question q: the key tokens, each with its position ("A (position
  // 2)") when a token repeats, so that the first A and the second are told apart.
  std::vector<std::string> quiz_key_labels(int q) const;
  bool quiz_key_holds(int q);
  // Every question of lesson `id` answered (a lesson without questions is never done).
  bool lesson_done(const std::string& id) const;
  // Merges marks (from localStorage or a link): a question's answer, once given, stays.
  void merge_progress(const std::map<std::string, std::string>& marks);

  // --- Training: gradient steps on the scenario's weights toward its target ----------------
  struct Training {
    bool playing = false;
    std::string task;  // the toy task loaded (scenario/tasks.h), or "" (the scenario's target)
    uint64_t seed = 1;
    float lr = 0.05f;
    bool adam = true;
    attn::Optimizer optimizer;
    std::vector<float> losses;  // the loss before each step taken
    // Where the loss of a task with a phase change (TaskInfo::phase_change) stayed high and
    // fell, read from `losses` after each call of train(); -1s otherwise.
    scenario::PhaseChange phase;
    std::string error;          // why the last step could not be taken
    scenario::TaskCheck check;  // a task's check, for the scenario's revision check_revision
    uint64_t check_revision = ~uint64_t{0};
    // While playing: steps a second (kSlowSteps, kSteadySteps), or 0: as many as fit in 8 ms
    // of each frame. Steady by default, so that a recipe's 400 steps take about 7 seconds to
    // watch rather than one frame.
    int speed = kSteadySteps;
    double clock = 0.0;      // seconds of play not turned into steps yet
    bool converged = false;  // play paused itself: the loss fell below kConvergedLoss
    bool finished = false;   // play paused itself at the lesson's steps (training_goal)
  } training;
  // The loss plot drawn across the middle of the screen, 14 lines high, instead of in the Train
  // section (the "large loss plot" control): its steps and the drop can be read off, or shown
  // to a class.
  bool large_loss_plot = false;
  static constexpr int kSlowSteps = 10, kSteadySteps = 60;
  // Below this loss the weights are trained: play pauses (Adam at a task's rate only wanders
  // off such weights, and at the translate task's 0.2 it throws them away after ~2000 steps).
  static constexpr double kConvergedLoss = 1e-6;
  // Advances playing training by dt seconds of the frame: speed·dt steps (at most budget_ms
  // of them), or at full speed as many as fit in budget_ms. Pauses, setting
  // training.converged, when the loss crosses below kConvergedLoss (not when it starts there:
  // Train goes on).
  void play_training(double dt, double budget_ms = 8.0);
  // The steps a learned lesson's weights were trained for (its task's recipe, scenario/tasks.h),
  // while the training is of that lesson's task; else 0. Play that reaches them pauses by
  // itself (training.finished), as the lesson says it will; Train goes on from there.
  int training_goal() const;
  // "slow", "steady" or "fast" (training.speed), and back ("" when the name is none of them).
  static const char* speed_name(int speed);
  static bool speed_from_name(const std::string& name, int* speed);
  // Loads toy task `name` from `seed` (its scenario, with a fresh optimizer).
  attn::Status load_task(const std::string& name, uint64_t seed);
  // Reset of a learned lesson (scenario.trained_from_task): its task's random start, with the
  // lesson's place, texts and questions kept. False: not such a lesson.
  bool reset_lesson_weights();
  // Takes up to `steps` steps, stopping early after `budget_ms`; writes the weights into the
  // scenario once and recomputes. Returns the steps taken (0 with training.error set when the
  // scenario cannot train: no target, no weights, a refused feature).
  // With stop_when_converged (play), it also stops after the step whose loss crosses below
  // kConvergedLoss, setting training.converged.
  int train(int steps, double budget_ms, bool stop_when_converged = false);
  // Loads task t.task from its seed and takes t.steps steps at its rate and optimizer, which
  // gives exactly the weights and curve of the moment a link was made. Keeps the shown
  // scenario if it differs from that (it was edited after training).
  void replay_training(const scenario::TrainState& t);
  // A fresh optimizer and loss curve (a loaded task is generated again from its seed).
  void reset_training();
  // A loaded task's check (scenario::check_task) on the current weights, or nullptr (no task,
  // or the scenario does not run).
  const scenario::TaskCheck* task_check();
  // ∂L/∂(cell) for the loss mean((output − target)²) at the current weights, for a cell of
  // the inputs, W_q, W_k, W_v, W_o, the scores, scaled and masked scores, the weights, a
  // head's output or the output: false when the scenario has no target, the
  // gradient cannot be taken (hard attention, a row fully masked under −∞) or the cell is of
  // another matrix. "Behind this cell" shows it.
  bool cell_gradient(const CellRef& c, double* out);
  bool step_gradient(const CellRef& c, double* out);  // cell_gradient of a step's matrix

  // The view as the link and the JS API carry it (scenario::ViewState), and back. apply_view
  // clamps the head and batch item to the scenario and emits "view".
  scenario::ViewState view() const;
  void apply_view(const scenario::ViewState& v);

  // --- What panels remember between frames -----------------------------------------------
  // The shared colour scales of one head and batch item (matrix_range), for one revision.
  struct SharedRanges {
    uint64_t revision = ~uint64_t{0};
    int head = -1, batch = -1;
    // The largest |value| of each group: the scores; the queries, keys, Q and K (compared);
    // the values, V and the outputs (activations).
    float scores = 0.0f, activations = 0.0f, compared = 0.0f;
  } shared_ranges;
  PositionalPanel positional;
  PlanePanel plane;
  ControlsPanel controls;

  // Events for the JavaScript API ("scenario", "step", "head", "view", "language",
  // "copy_link", "training": steps were taken), drained by the bridge.
  std::vector<std::string> events;
  void emit(const char* event);

 private:
  const attn::HeadTrace& quiz_head(const scenario::QuizAnswer& a);
  const attn::Batch& quiz_output(const scenario::QuizAnswer& a) const;
  void recompute(attn::Problem p, double budget_ms);
  void recompute_edited(double budget_ms);
  // Layered: runs `whole` and shows layer `layer` of it (an error when it does not run).
  attn::Status run_whole();
  // Layered: what an edit of the layer view changed, written into `whole`; false (and a
  // notice) when the edit is one a layer view cannot make.
  bool merge_layer_edit();
  // Up to `steps` calls of `step` (one optimizer step, its loss before it), as train()
  // describes: the losses recorded, stopping after budget_ms or, when asked, at convergence.
  int take_steps(int steps, double budget_ms, bool stop_when_converged,
                 const std::function<attn::Status(double*)>& step);
  // After training a stack: its weights written into `whole`, which runs again.
  void show_trained_stack(const attn::Stack& st);
  void go_on_computing(double budget_ms);
  void start_head_job();
  attn::HeadTrace on_demand_;  // the one head of one batch item computed on demand when lean
  attn::Gradients grads_;      // for revision grads_revision_, when grads_ok_
  uint64_t grads_revision_ = ~uint64_t{0};
  bool grads_ok_ = false;
  attn::StepGradients steps_;  // of head steps_head_, batch item steps_batch_, when steps_ok_
  uint64_t steps_revision_ = ~uint64_t{0};
  int steps_head_ = -1, steps_batch_ = -1;
  bool steps_ok_ = false;
  int on_demand_head_ = -1, on_demand_item_ = -1;
  std::vector<uint8_t> mask_;  // the mask of batch item mask_item_
  int mask_item_ = -1;
};

}  // namespace ui
