// The link codec: a scenario and the view of it, packed into the part of a URL after '#'.
//
// Format, version 1:   v1.<payload>.<checksum>
//   payload  = base64url without padding (RFC 4648 §5) of the compact JSON
//              {"scenario": <Scenario JSON v1, as scenario::to_json writes it>,
//               "view": {"step": 3, "head": 1, "lang": "zh", ...}}
//   checksum = the CRC-32 (IEEE 802.3, as zlib's crc32) of the characters before its '.'
//              ("v1." and the payload), as 6 base64url characters, most significant bits
//              first (the first character holds 2 bits: A to D).
//   "view" and each of its fields are written only when they differ from ViewState's
//   defaults. A reader refuses a version newer than its own with a message that says so.
//   The checksum makes a damaged link say so: CRC-32 catches every change of up to 32
//   consecutive bits, so any one character changed (or two next to each other) is refused
//   as "damaged", never opened as another state. A link without it (as links were written
//   before, "v1.<payload>") opens as it always did; a reader tells the two apart by the last
//   '.', which base64url never writes: a link ending in '.' and 6 characters has a checksum,
//   and it is checked before anything else, the version too.
//
// [SECTION] Limits
// [SECTION] The view
// [SECTION] Encoding and decoding
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "scenario/tasks.h"

namespace scenario {

//-----------------------------------------------------------------------------
// [SECTION] Limits: checked before the payload is decoded.
//-----------------------------------------------------------------------------

constexpr int kLinkVersion = 1;
constexpr size_t kMaxLinkChars = size_t{1} << 20;  // the fragment, without '#'
constexpr int kMaxViewStep = 15;
constexpr int kMaxViewIndex = 63;     // head and batch item
constexpr size_t kMaxViewNames = 64;  // entries of panels and hidden
constexpr size_t kMaxViewNameChars = 32;
constexpr size_t kMaxProgressMarks = 8;  // = kMaxQuizQuestions

// Whether `marks` is a progress entry: 1 to kMaxProgressMarks of '-', 'r', 'w'.
bool is_progress_marks(const std::string& marks);

//-----------------------------------------------------------------------------
// [SECTION] The view: what the page shows of the scenario.
//-----------------------------------------------------------------------------

// The Train section: a toy task (scenario/tasks.h) and how far it was trained. A
// reader generates the task from its seed and takes the same steps again, which is
// deterministic, so that a link shows that moment's weights, loss curve and optimizer.
// JSON: "train": {"task": "previous_token", "seed": 3, "steps": 300, "lr": 0.05,
// "optimizer": "adam"}; written when task is not "".
constexpr int kMaxViewTrainSteps = 3000;  // about 1.5 s to train again in a browser
constexpr int kMaxViewTrainSeed = kMaxTaskSeed;
struct TrainState {
  std::string task;  // "" = none
  int seed = 1;      // 0..kMaxViewTrainSeed
  int steps = 0;     // 0..kMaxViewTrainSteps
  float lr = 0.05f;  // (0, 10]
  bool adam = true;  // else SGD
  bool operator==(const TrainState& o) const {
    return task == o.task && seed == o.seed && steps == o.steps && lr == o.lr && adam == o.adam;
  }
  bool operator!=(const TrainState& o) const { return !(*this == o); }
};

struct ViewState {
  int step = 0;                     // pipeline step, 0..kMaxViewStep
  int head = 0;                     // focused head, below the scenario's heads
  int batch = 0;                    // shown batch item, below the scenario's batch
  int layer = 0;                    // shown layer of a stack ("layers"), below their count
  std::string lang = "en";          // "en" or "zh"
  std::vector<std::string> panels;  // visible panels; empty = the app's default
  std::vector<std::string> hidden;  // hidden controls
  bool embed = false;               // embedded in a course page (compact chrome)
  std::string lesson;               // lesson id; "" = none
  // What this learner has answered: lesson id → one mark per quiz question, '-' not yet,
  // 'r' right, 'w' wrong (e.g. {"cross_attention": "r-"}). Travels with the link so that a
  // learner can carry it to another device; it is never sent anywhere.
  std::map<std::string, std::string> progress;
  TrainState train;  // the Train section's task, if one is loaded

  bool operator==(const ViewState& o) const {
    return step == o.step && head == o.head && batch == o.batch && layer == o.layer &&
           lang == o.lang && panels == o.panels && hidden == o.hidden && embed == o.embed &&
           lesson == o.lesson && progress == o.progress && train == o.train;
  }
  bool operator!=(const ViewState& o) const { return !(*this == o); }
};

// Whether the view can be shown with scenario s; the error is "view.<field>: <problem>". Names in
// panels, hidden and lesson are identifiers [a-z0-9_]{1,32}, so they never carry markup.
attn::Status validate_view(const ViewState& v, const Scenario& s);

//-----------------------------------------------------------------------------
// [SECTION] Encoding and decoding
//-----------------------------------------------------------------------------

// "v1." + base64url(JSON) + "." + checksum. Precondition: validate(s) and
// validate_view(v, s) are ok. A link longer than kMaxLinkChars (a scenario of roughly 750 KB
// of JSON) will not decode.
std::string encode_link(const Scenario& s, const ViewState& v);
constexpr size_t kLinkChecksumChars = 6;

struct LinkResult {
  Scenario scenario;
  attn::Problem problem;  // the scenario resolved for the core (see ParseResult)
  ViewState view;
  std::string error;  // "" on success, else one line "link[.<field>]: <problem>"
  bool ok() const { return error.empty(); }
};

// Reads a fragment, with or without its leading '#'. Never throws; on any input gives either
// a runnable scenario with a valid view, or one error line naming the part and the problem:
//   link: is empty
//   link: damaged (its checksum does not match: a character is changed, missing or extra)
//   link: version "v9" is newer than this playground (v1)
//   link: invalid base64url character '%' at position 17   (0-based, after any '#')
//   link: truncated (the JSON ends early: ...)
//   link.view.step: is 99, must be at most 15
//   link.scenario.keys[0][2]: has 3 columns, expected 4     (scenario::parse's errors)
LinkResult decode_link(const std::string& fragment);

// RFC 4648 §5 base64url without padding, exposed for tests and other codecs.
std::string base64url_encode(const std::string& bytes);

}  // namespace scenario
