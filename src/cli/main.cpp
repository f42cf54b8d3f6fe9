// attention-cli: evaluates and validates Scenario JSON from files or standard input.
//
//   attention-cli eval FILE|- [--only heads|output] [--head H] [--matrices NAME,...]
//                                   prints the trace JSON (docs/contracts.md §2), or part of it
//   attention-cli validate FILE|-   prints "ok" if the scenario can run
//   attention-cli normalize FILE|-  prints the scenario in canonical compact JSON
//   ... --arrays DATA.npz|NAME.npy  any command: NumPy arrays as the scenario's matrix fields
//                                   (--npz is the same; with arrays, FILE may be left out)
//
// Exit 0 on success; on bad input exit 2 with one line on stderr: "error: <field>: <problem>";
// exit 1 when the output cannot be written (a full disk, a closed pipe: SIGPIPE is ignored, so
// that a closed pipe is an error to report like any other), with one line on stderr too.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cli/cli_files.h"
#include "core/attention.h"
#include "core/gradient.h"
#include "core/stack.h"
#include "scenario/link.h"
#include "scenario/npz.h"
#include "scenario/scenario.h"
#include "scenario/tasks.h"

namespace {
constexpr size_t kMaxInputBytes = size_t{96} << 20;  // bad input is refused in ~100 MB
}  // namespace

namespace cli {

Input read_input(const std::string& path) {
  Input in;
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    in.error = path + ": cannot open (" + std::strerror(errno) + ")";
    return in;
  }
  // One buffer of the limit's size, never copied to grow: its pages take memory only as
  // they are filled, so a text is refused with no more than the limit in memory.
  in.text.reserve(kMaxInputBytes);
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (in.text.size() + n > kMaxInputBytes) {
      in.error = path + ": larger than " + std::to_string(kMaxInputBytes >> 20) + " MB";
      break;
    }
    in.text.append(buf, n);
  }
  if (in.ok() && std::ferror(f)) in.error = path + ": read error";
  if (f != stdin) std::fclose(f);
  return in;
}

}  // namespace cli

namespace {

using cli::Input;
using cli::read_input;

// The most numbers all --arrays files together may hold: as many as one .npz may (npz.h), so
// that repeating the option cannot add up memory.
constexpr size_t kMaxArraysNumbers = 2 * scenario::kMaxArrayNumbers;

// The most numbers eval prints: about 300 MB of text. A trace above it is refused, with the
// options that print less.
constexpr int64_t kMaxOutputNumbers = int64_t{1} << 25;

const char kUsage[] =
    "usage: attention-cli eval FILE|- [OPTIONS]   print the trace JSON of a scenario\n"
    "       attention-cli validate FILE|-         check a scenario, print \"ok\"\n"
    "       attention-cli normalize FILE|-        print a scenario as canonical JSON\n"
    "       attention-cli grad FILE|-             print the loss mean((output - target)^2)\n"
    "                           and its gradient for every input and weight the scenario\n"
    "                           has or generates: {\"version\": 1, \"loss\", \"grads\": {...}}\n"
    "       attention-cli task NAME [--seed S]    print a toy task as a scenario to train:\n"
    "@TASKS@\n"
    "                           (see src/scenario/tasks.h); S is a whole number from 0 to\n"
    "                           @MAX_SEED@ (1 unless given)\n"
    "       attention-cli lesson RECIPE [--out FILE]  a lesson with learned weights: the\n"
    "                           recipe's task trained as it says, with the lesson's texts\n"
    "                           (assets/recipes/, see src/scenario/tasks.h)\n"
    "       attention-cli task --list             the tasks and their recipes, as JSON:\n"
    "                           [{\"name\", \"steps\", \"lr\", \"loss_below\", \"share_above\"}]\n"
    "       attention-cli train FILE|- --steps N [--optimizer sgd|adam] [--lr R]\n"
    "                           learn W_q, W_k, W_v, W_o, W, w_v, sigma (inputs stay fixed):\n"
    "                           a line {\"step\", \"loss\"} per step (the loss before it),\n"
    "                           then the trained scenario with its weights written out;\n"
    "                           sgd is w <- w - R * dL/dw, R = 0.1 unless given; it stops,\n"
    "                           exit 2, at a step that takes the numbers past float32;\n"
    "                           a GRU encoder-decoder of the toy language (\"seq2seq\")\n"
    "                           trains as the page's Decoder tab does: Adam at 0.01 on 16\n"
    "                           of the toy's sentence pairs a step, every weight learned\n"
    "       attention-cli package --site DIR --out FILE.zip [--format scorm2004|scorm12|cmi5]\n"
    "                           [--lessons A,B] [--title TEXT] [--pass P]  the staged site\n"
    "                           (build/wasm/site: the files its site-files.json lists, but\n"
    "                           the threaded builds, deflated from their .gz copies) as a\n"
    "                           SCORM or cmi5 package for a course platform: the lessons\n"
    "                           (all unless given) reported to its gradebook, passed at P\n"
    "                           percent (80 unless given); --add MINE.json: a scenario file\n"
    "                           (at most 1 MB) as a lesson of the course's own\n"
    "                           (course/MINE.json), where --lessons names it or after them\n"
    "FILE is Scenario JSON v1; - reads standard input. Every command takes\n"
    "  --arrays DATA.npz|NAME.npy  NumPy arrays as matrix fields (x, queries, keys, values,\n"
    "                           W_q, W_k, W_v, W_o, W, w_v, embed, unembed, and a layer's\n"
    "                           layers.0.W_q ...), named by entry or file name;\n"
    "                           the option may be repeated (all files together: at most\n"
    "                           @MAX_FILE_NUMBERS@ numbers); --npz is the same. With arrays,\n"
    "                           FILE may be left out: the arrays alone are the scenario\n"
    "eval prints everything, or only:\n"
    "  --only heads|output      the heads' matrices, or the final output\n"
    "  --head H                 head H (0-based) of the heads, with \"head\": H in it\n"
    "  --matrices NAME,...      of scores, scaled, masked, weights, output (each head's)\n"
    "and refuses to print more than @MAX_OUTPUT@ numbers. A scenario with \"layers\" (stacked\n"
    "attention layers over x) prints {\"version\", \"layers\": [{\"heads\", \"output\"}, ...],\n"
    "\"output\"} (each layer's output is what it adds to the stream; --head is refused), and\n"
    "grad prints {\"version\", \"loss\", \"grads\": {\"x\", \"layers\": [{\"W_q\", ...}, ...]}}.\n"
    "A token model (\"tokens\" with \"layers\") adds \"logits\" and \"probabilities\" to eval, "
    "and\n"
    "grad gives \"embed\" and \"unembed\" in place of \"x\" (the loss: next's cross-entropy).\n"
    "Bad input exits with 2 and one line \"error: <field>: <problem>\" on standard error; an\n"
    "output that cannot be written with 1.\n";

// kUsage with its limits and the task names filled in from where they are defined.
std::string usage() {
  // The task names, wrapped at 80 columns under the commands' descriptions.
  const std::string indent(27, ' ');
  std::string tasks = indent, line = indent;
  const std::vector<scenario::TaskInfo>& list = scenario::task_list();
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string word = list[i].name + (i + 2 < list.size()    ? ","
                                             : i + 2 == list.size() ? " or"
                                                                    : "");
    if (line.size() > indent.size() && line.size() + 1 + word.size() > 80) {
      tasks += "\n" + indent;
      line = indent;
    }
    if (line.size() > indent.size()) tasks += " ", line += " ";
    tasks += word;
    line += word;
  }
  const std::pair<const char*, std::string> fills[] = {
      {"@TASKS@", tasks},
      {"@MAX_SEED@", std::to_string(scenario::kMaxTaskSeed)},
      {"@MAX_FILE_NUMBERS@", std::to_string(kMaxArraysNumbers)},
      {"@MAX_OUTPUT@", std::to_string(kMaxOutputNumbers)},
  };
  std::string text = kUsage;
  for (const auto& [mark, value] : fills) text.replace(text.find(mark), std::strlen(mark), value);
  return text;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

// Standard output, checked: the errno of the first write that failed (0: none yet).
int g_write_errno = 0;

void out(const char* data, size_t size) {
  if (std::fwrite(data, 1, size, stdout) != size && g_write_errno == 0)
    g_write_errno = errno ? errno : EIO;
}
void out(const std::string& text) {
  out(text.data(), text.size());
}
void out_line(const std::string& text) {
  out(text + "\n");
}
bool output_failed() {
  return g_write_errno != 0 || std::ferror(stdout);
}

// The exit status once everything is written: `status`, or 1 with a line on stderr when any of
// standard output could not be written (a full disk, a closed pipe), which every command checks.
int finish(int status) {
  errno = 0;
  if (std::fflush(stdout) != 0 && g_write_errno == 0) g_write_errno = errno ? errno : EIO;
  if (output_failed()) {
    std::fprintf(stderr, "error: output: cannot be written (%s)\n",
                 std::strerror(g_write_errno ? g_write_errno : EIO));
    return 1;
  }
  return status;
}

// What eval prints.
struct EvalOptions {
  bool heads = true, output = true;
  int head = -1;                      // -1: every head
  std::vector<std::string> matrices;  // empty: all five
  std::vector<std::string> arrays;    // --arrays files, in order
  // train: --steps N, --optimizer sgd|adam, --lr R
  int steps = -1;
  std::string optimizer = "sgd";
  double lr = 0.1;
  bool optimizer_given = false, lr_given = false;
};

// Reads the options from argv[first] on (eval's own only for eval); "" or
// "<option>: <problem>".
std::string read_options(int argc, char** argv, int first, bool eval, EvalOptions* o,
                         bool train = false) {
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    const bool arrays = a == "--arrays" || a == "--npz";
    const bool train_option = a == "--steps" || a == "--optimizer" || a == "--lr";
    if (train_option && !train) return "option: " + a + " is for train only";
    if (!arrays && !eval && !train_option) return "option: " + a + " is for eval only";
    if (i + 1 >= argc) return a + ": needs a value";
    const std::string v = argv[++i];
    if (arrays) {
      o->arrays.push_back(v);
    } else if (a == "--steps") {
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 0 || n > 1000000)
        return "--steps: is \"" + v + "\", expected a whole number from 0 to 1000000";
      o->steps = static_cast<int>(n);
    } else if (a == "--optimizer") {
      if (!scenario::is_optimizer(v)) return "--optimizer: is \"" + v + "\", expected sgd or adam";
      o->optimizer = v;
      o->optimizer_given = true;
    } else if (a == "--lr") {
      char* end = nullptr;
      const double r = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(r > 0.0 && r <= 100.0))
        return "--lr: is \"" + v + "\", expected a number above 0 and at most 100";
      o->lr = r;
      o->lr_given = true;
    } else if (a == "--only") {
      if (v != "heads" && v != "output")
        return "--only: is \"" + v + "\", expected heads or output";
      o->heads = v == "heads";
      o->output = v == "output";
    } else if (a == "--head") {
      char* end = nullptr;
      const long h = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || h < 0 || h > 1 << 20) return "--head: is \"" + v + "\", not a head";
      o->head = static_cast<int>(h);
    } else if (a == "--matrices") {
      std::stringstream names(v);
      std::string name;
      while (std::getline(names, name, ',')) {
        const auto& known = attn::kHeadMatrixNames;
        if (std::find(std::begin(known), std::end(known), name) == std::end(known)) {
          std::string expected;
          const size_t n = std::size(known);
          for (size_t i = 0; i < n; ++i)
            expected += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + known[i];
          return "--matrices: unknown \"" + name + "\", expected " + expected;
        }
        o->matrices.push_back(name);
      }
      if (o->matrices.empty()) return "--matrices: names no matrix";
    } else {
      return "option: unknown " + a;
    }
  }
  return "";
}

// Prints the trace asked for, one head at a time: at most one head's matrices in memory.
// `members`: the model's own parts of the trace, written last ({"seq2seq": ...},
// {"hierarchy": ...}), JSON text each.
using TraceMembers = std::vector<std::pair<const char*, std::string>>;
int eval(const attn::Problem& p, const EvalOptions& o, const TraceMembers& members = {}) {
  const int64_t B = static_cast<int64_t>(p.queries.size()), H = p.heads;
  const int64_t n_q = attn::batch_rows(p.queries), n_k = attn::batch_rows(p.keys);
  const attn::HeadShape hs = attn::head_shape(p);
  if (o.head >= H)
    return fail("--head: is " + std::to_string(o.head) + ", but the scenario has " +
                std::to_string(H) + (H == 1 ? " head" : " heads"));
  // How much would be printed.
  int64_t per_head = 0;
  for (const char* m : attn::kHeadMatrixNames)
    if (o.matrices.empty() ||
        std::find(o.matrices.begin(), o.matrices.end(), m) != o.matrices.end())
      per_head += B * n_q * (std::string(m) == "output" ? hs.dv : n_k);
  const int64_t d_out = p.weights.W_o.size() ? p.weights.W_o.cols() : hs.dv * H;
  const int64_t numbers =
      (o.heads ? per_head * (o.head >= 0 ? 1 : H) : 0) + (o.output ? B * n_q * d_out : 0);
  if (numbers > kMaxOutputNumbers)
    return fail("output: the trace has " + std::to_string(numbers) + " numbers (batch " +
                std::to_string(B) + " × " + std::to_string(n_q) + " queries × " +
                std::to_string(n_k) + " keys × " + std::to_string(H) +
                (H == 1 ? " head), more than " : " heads), more than ") +
                std::to_string(kMaxOutputNumbers) +
                "; print less with --only output, --head H or --matrices NAME,...");

  static char buffer[1 << 20];
  std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
  scenario::TraceJsonWriter w([](const std::string& piece) { out(piece); });
  // Every head is computed as run() computes it, and the output from the heads' outputs, so
  // that each part printed alone is that part of the whole trace to the last bit.
  std::vector<attn::Batch> outputs;
  for (int h = 0; h < H; ++h) {
    if (output_failed()) return 0;  // a closed pipe: no one reads the rest (finish says so)
    const bool printed = o.heads && (o.head < 0 || h == o.head);
    if (!printed && !o.output) continue;
    attn::HeadTrace ht = attn::run_head(p, h);
    if (printed) w.head(ht, o.matrices, o.head);
    outputs.push_back(std::move(ht.output));
  }
  if (o.output) {
    std::vector<const attn::Batch*> parts;
    for (const attn::Batch& b : outputs) parts.push_back(&b);
    w.output(attn::output_of(p, attn::concat_heads(parts)));
  }
  for (const auto& [name, text] : members) w.json_member(name, text);
  w.finish();
  out("\n");
  return 0;
}

// eval of a stack of layers: {"version":1,"layers":[{"heads":[...],"output":ADDED},...],
// "output":h_L}, one head at a time as eval() computes it (so that each part printed alone is
// that part of the whole to the last bit, and of attn::run(stack)). --only heads prints the
// layers' heads alone, --only output the stream's last state alone; --head is refused.
int eval_layers(const attn::Stack& st, const EvalOptions& o) {
  if (o.head >= 0) return fail("--head: not with layers yet");
  const attn::Batch& x = st.base.queries;
  const int64_t B = static_cast<int64_t>(x.size()), n = attn::batch_rows(x);
  const int64_t d = attn::batch_cols(x);
  const int L = static_cast<int>(st.layers.size());
  int64_t numbers = o.output ? B * n * d : 0, most_heads = 0;
  for (int l = 0; l < L; ++l) {
    const attn::Problem p = attn::layer_problem(st, l, x);
    const attn::HeadShape hs = attn::head_shape(p);
    most_heads = std::max<int64_t>(most_heads, p.heads);
    if (!o.heads) continue;
    for (const char* m : attn::kHeadMatrixNames)
      if (o.matrices.empty() ||
          std::find(o.matrices.begin(), o.matrices.end(), m) != o.matrices.end())
        numbers += p.heads * B * n * (std::string(m) == "output" ? hs.dv : n);
    if (o.output) numbers += B * n * d;  // what the layer adds
  }
  if (numbers > kMaxOutputNumbers)
    return fail("output: the trace has " + std::to_string(numbers) + " numbers (" +
                std::to_string(L) + " layers of batch " + std::to_string(B) + " × " +
                std::to_string(n) + " tokens, up to " + std::to_string(most_heads) +
                " heads), more than " + std::to_string(kMaxOutputNumbers) +
                "; print less with --only output or --matrices NAME,...");

  static char buffer[1 << 20];
  std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
  scenario::TraceJsonWriter w([](const std::string& piece) { out(piece); });
  attn::Batch h = attn::stack_input(st);
  for (int l = 0; l < L; ++l) {
    if (output_failed()) return 0;  // a closed pipe: no one reads the rest (finish says so)
    const attn::Problem p = attn::layer_problem(st, l, h);
    if (o.heads) w.begin_layer();
    std::vector<attn::Batch> outputs;
    for (int k = 0; k < p.heads; ++k) {
      attn::HeadTrace ht = attn::run_head(p, k);
      if (o.heads) w.head(ht, o.matrices);
      outputs.push_back(std::move(ht.output));
    }
    std::vector<const attn::Batch*> parts;
    for (const attn::Batch& b : outputs) parts.push_back(&b);
    const attn::Batch added = attn::output_of(p, attn::concat_heads(parts));
    if (o.heads) {
      if (o.output) w.layer_output(added);
      w.end_layer();
    }
    attn::Batch next(h.size());
    for (size_t b = 0; b < h.size(); ++b) next.mut(b) = h[b] + added[b];
    h = std::move(next);
  }
  if (o.output) {
    w.output(h);
    if (st.token_model()) {  // the logits h_L · unembed, and each position's next-token odds
      attn::Batch logits, probabilities;
      for (const attn::Matrix& m : h) {
        logits.push_back(m * st.tokens.unembed);
        probabilities.push_back(attn::next_token_probabilities(logits.back()));
      }
      w.batch_member("logits", logits);
      w.batch_member("probabilities", probabilities);
    }
  }
  w.finish();
  out("\n");
  return 0;
}

// attention-cli grad: {"version": 1, "loss": L, "grads": {NAME: ARRAY, ...}}, one entry per
// input and weight, shaped like the field (x for self-attention, as written: 2-D for a batch
// of one).
int grad(const scenario::Scenario& s, const attn::Problem& p) {
  if (s.target.empty()) return fail("target: missing (the output the loss compares with)");
  attn::Gradients g;
  attn::Status st = attn::gradients(p, s.target, &g);
  if (st.ok()) st = attn::check_finite(g);  // nothing printed is inf or NaN
  if (!st.ok()) return fail(st.error);
  out_line(scenario::gradients_json(s, g));
  return 0;
}

// grad of a stack of layers: {"version":1,"loss":L,"grads":{"x":...,"layers":[{...},...]}}.
int grad_layers(const scenario::Scenario& s, const attn::Stack& st) {
  if (s.target.empty() && !st.token_model())
    return fail("target: missing (the output the loss compares with)");
  attn::StackGradients g;
  attn::Status status = attn::gradients(st, s.target, &g);
  if (status.ok()) status = attn::check_finite(g);  // nothing printed is inf or NaN
  if (!status.ok()) return fail(status.error);
  out_line(scenario::stack_gradients_json(s, g));
  return 0;
}

// What train checks and writes back, for one layer (a Problem) or a stack of them.
std::string too_large_for(const attn::Problem& p, const scenario::Scenario& s) {
  return scenario::check_magnitudes(p, s.self_attention);
}
std::string too_large_for(const attn::Stack& st, const scenario::Scenario&) {
  return scenario::check_magnitudes(st);
}
void write_back(scenario::Scenario* s, const attn::Problem& p) {
  scenario::set_weights(s, p.weights);
}
void write_back(scenario::Scenario* s, const attn::Stack& st) {
  scenario::set_weights(s, st);  // the weights; the scenario keeps its own tokens
}
// With "batches", step k trains on the task's batch k (scenario/tasks.h), not the tokens shown.
void next_batch(const scenario::Scenario&, int, attn::Problem*) {}
void next_batch(const scenario::Scenario& s, int step, attn::Stack* st) {
  if (s.batches_task.empty()) return;
  scenario::TaskBatch b = scenario::task_batch(s.batches_task, s.batches_seed, step);
  st->tokens.ids = std::move(b.ids);
  st->tokens.next = std::move(b.next);
}

// attention-cli train: gradient steps on W_q, W_k, W_v and W_o (those the scenario has or
// generates; the inputs stay fixed; gaussian scoring's σ too, written back as "sigma"), of its one
// layer (attn::Problem) or of every layer of its stack (attn::Stack). Deterministic: the same
// scenario and options give the same lines.
template <class Model>
int train(scenario::Scenario s, Model p, const EvalOptions& o) {
  if (s.target.empty() && !s.token_model())  // a token model's loss is next's cross-entropy
    return fail("target: missing (the output the loss compares with)");
  attn::Optimizer opt;
  opt.kind = o.optimizer == "sgd" ? attn::Optimizer::Kind::kSgd : attn::Optimizer::Kind::kAdam;
  // The rate as a float, as the page keeps it (and a link carries it): the page's training
  // and this one take the same steps (bit for bit where the kernels are the same build).
  opt.lr = static_cast<float>(o.lr);
  char line[96];
  for (int step = 1; step <= o.steps; ++step) {
    double loss = 0.0;
    // Fails, saying why, when a step would take a weight past float32 (Optimizer::step) or
    // the forward pass overflows (attn::check_gradient): no loss printed is inf or NaN.
    next_batch(s, step, &p);  // a layered task's batch of this step
    const attn::Status st = opt.step(&p, s.target, &loss);
    if (!st.ok()) {
      // After the first step, a number past float32 is the training's doing: say so.
      if (step == 1 || st.error.rfind("train: ", 0) == 0 ||
          st.error.find("float32") == std::string::npos)
        return fail(st.error);
      std::snprintf(line, sizeof line, "%g", o.lr);
      return fail("train: the numbers overflowed float32 at step " + std::to_string(step) +
                  " (--lr " + line + " is too large): " + st.error);
    }
    std::snprintf(line, sizeof line, "{\"step\":%d,\"loss\":%.9g}", step, loss);
    out_line(line);
    if (output_failed()) return 0;
  }
  if (o.steps == 0) {  // still say when there is nothing to learn
    double loss = 0.0;
    Model probe = p;
    attn::Optimizer check;
    check.lr = 0.0;
    const attn::Status st = check.step(&probe, s.target, &loss);
    if (!st.ok()) return fail(st.error);
  }
  // The trained scenario must read back (validate): weights that the forward pass could
  // overflow with are refused there, so they are here, with the reason.
  const std::string too_large = too_large_for(p, s);
  if (!too_large.empty()) {
    std::snprintf(line, sizeof line, "%g", o.lr);
    return fail("train: the trained weights are too large for float32 (--lr " + std::string(line) +
                " may be too large): " + too_large);
  }
  write_back(&s, p);  // the trained scenario, its weights written out
  out_line(scenario::to_json(s));
  return 0;
}

// attention-cli train of a GRU encoder–decoder of the toy language: what the page's Train on
// its Decoder tab does (attn::seq2seq::ToyTrainer from the model's weights and seed, kToyBatch
// pairs a step, Adam at 0.01, clipping at 1), a line per step, then the model with every weight
// written out. From a Random start's weights (init_params of the seed) and 1500 steps it is the
// learned_bahdanau lesson's model, bit for bit.
int train_seq2seq(scenario::Scenario s, const EvalOptions& o) {
  scenario::Seq2Seq& m = s.seq2seq;
  if (o.optimizer_given || o.lr_given)
    return fail(std::string(o.optimizer_given ? "--optimizer" : "--lr") +
                ": a seq2seq model trains as the page's Decoder tab does, with Adam at 0.01 "
                "on 16 of the toy language's sentence pairs a step; leave it out");
  if (!m.toy_language())
    return fail(
        "seq2seq: train learns from the toy language's sentence pairs, and this model's "
        "source_words, target_words or sizes are not the toy language's (attention-cli lesson "
        "assets/recipes/learned_bahdanau.json writes a model of it)");
  attn::seq2seq::ToyTrainer trainer(m.params, m.has_seed ? m.seed : 1, attn::seq2seq::kToyBatch);
  char line[96];
  for (int step = 1; step <= o.steps; ++step) {
    const double loss = trainer.step();
    std::snprintf(line, sizeof line, "{\"step\":%d,\"loss\":%.9g}", step, loss);
    out_line(line);
    if (output_failed()) return 0;
  }
  m.set_learned(trainer.params);
  // Adam at 0.01 moves a weight by at most 0.01 a step: past the model's limit only after
  // about 10⁶ steps. Refused by name all the same.
  const std::string e = scenario::derive_seq2seq(&s);
  if (!e.empty()) return fail("train: " + e);
  out_line(scenario::to_json(s));
  return 0;
}

// --seed S of `task`: a whole number from 0 to kMaxViewTrainSeed, the seeds a task takes
// everywhere else (a link's view.train.seed, a recipe's train.seed, trained_from.seed).
std::string read_seed(const char* text, uint64_t* seed) {
  const std::string v = text;
  const std::string expected =
      "\", expected a whole number from 0 to " + std::to_string(scenario::kMaxViewTrainSeed);
  if (v.empty() || v.size() > 7 || v.find_first_not_of("0123456789") != std::string::npos)
    return "--seed: is \"" + v + expected;
  const unsigned long n = std::stoul(v);
  if (n > static_cast<unsigned long>(scenario::kMaxViewTrainSeed))
    return "--seed: is \"" + v + expected;
  *seed = n;
  return "";
}

}  // namespace

int main(int argc, char** argv) {
#ifdef SIGPIPE
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error (EPIPE): exit 1, said so
#endif
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    const std::string text = usage();
    out(text.data(), text.size());
    return finish(0);
  }
  if (argc < 3) {
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  const std::string command = argv[1];
  if (command == "package") return cli::package_command(argc - 2, argv + 2);
  if (command == "lesson") {
    if (!(argc == 3 || (argc == 5 && std::strcmp(argv[3], "--out") == 0)))
      return fail("lesson: usage: attention-cli lesson RECIPE [--out FILE]");
    const Input recipe = read_input(argv[2]);
    if (!recipe.ok()) return fail(recipe.error);
    const scenario::LessonResult lesson = scenario::build_lesson(recipe.text);
    if (!lesson.ok()) return fail(lesson.error);
    const std::string text = scenario::to_json(lesson.scenario) + "\n";
    if (argc == 3) {
      out(text);
      return finish(0);
    }
    if (const std::string e = cli::write_file(argv[4], text); !e.empty()) return fail(e);
    return 0;
  }
  if (command == "task" && argc == 3 && std::strcmp(argv[2], "--list") == 0) {
    std::string list = "[";
    for (const scenario::TaskInfo& t : scenario::task_list()) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "%s\n {\"name\": \"%s\", \"steps\": %d, \"lr\": %g, \"loss_below\": %g, "
                    "\"share_above\": ",
                    list.size() > 1 ? "," : "", t.name.c_str(), t.steps, t.lr, t.loss_below);
      list += line;
      if (t.keyed) {
        std::snprintf(line, sizeof line, "%g}", t.share_above);
        list += line;
      } else {
        list += "null}";
      }
    }
    out_line(list + "\n]");
    return finish(0);
  }
  if (command == "task") {
    uint64_t seed = 1;
    if (argc == 5 && std::strcmp(argv[3], "--seed") == 0) {
      const std::string bad_seed = read_seed(argv[4], &seed);
      if (!bad_seed.empty()) return fail(bad_seed);
    } else if (argc != 3) {
      return fail("task: usage: attention-cli task NAME [--seed S]");
    }
    const scenario::TaskResult t = scenario::make_task(argv[2], seed);
    if (!t.ok()) return fail(t.error);
    out_line(scenario::to_json(t.scenario));
    return finish(0);
  }
  if (command != "eval" && command != "validate" && command != "normalize" && command != "grad" &&
      command != "train")
    return fail("command: unknown command \"" + command +
                "\" (expected eval, validate, normalize, grad, train, task, lesson or package)");
  // FILE, or straight to the options: the arrays alone are then the whole scenario.
  const bool has_file = std::strncmp(argv[2], "--", 2) != 0;
  EvalOptions options;
  const std::string bad_option =
      read_options(argc, argv, has_file ? 3 : 2, command == "eval", &options, command == "train");
  if (!bad_option.empty()) return fail(bad_option);
  if (!has_file && options.arrays.empty())
    return fail("FILE: missing (a scenario file, - for standard input, or --arrays FILE)");

  Input input;
  if (has_file) {
    input = read_input(argv[2]);
    if (!input.ok()) return fail(input.error);
  } else {
    input.text = "{\"version\": 1}";
  }
  std::vector<scenario::NamedArray> arrays;
  size_t numbers = 0;  // of every --arrays file so far: one budget for them all
  for (const std::string& path : options.arrays) {
    scenario::ArraysResult read;
    {
      const Input data = read_input(path);  // freed before the next file is read
      if (!data.ok()) return fail(data.error);
      read = scenario::read_arrays(data.text, path);  // keys.npy: keys
    }
    if (!read.ok()) return fail(read.error);
    for (scenario::NamedArray& a : read.arrays) {
      numbers += a.data.size();
      if (numbers > kMaxArraysNumbers)
        return fail("--arrays: the files hold more than " + std::to_string(kMaxArraysNumbers) +
                    " numbers in all (as many as one .npz may), at " + path + ": " + a.name);
      arrays.push_back(std::move(a));
    }
  }
  const scenario::ParseResult parsed = arrays.empty()
                                           ? scenario::parse(input.text)
                                           : scenario::parse_with_arrays(input.text, arrays);
  if (!parsed.ok()) return fail(parsed.error);

  // A seq2seq model's scenario is its decoder's attention, derived: training it trains the
  // encoder and decoder (train_seq2seq). (grad refuses for want of a target, as the exported
  // programs' --grad does.)
  int status = 0;
  const bool layered = !parsed.stack.layers.empty();
  if (command == "validate") {
    out_line("ok");
  } else if (command == "normalize") {
    out_line(scenario::to_json(parsed.scenario));
  } else if (command == "grad") {
    status = layered ? grad_layers(parsed.scenario, parsed.stack)
                     : grad(parsed.scenario, parsed.problem);
  } else if (command == "train") {
    if (options.steps < 0) return fail("--steps: missing (how many steps to train)");
    if (!parsed.scenario.seq2seq.empty()) return finish(train_seq2seq(parsed.scenario, options));
    status = layered ? train(parsed.scenario, parsed.stack, options)
                     : train(parsed.scenario, parsed.problem, options);
  } else {
    TraceMembers members;
    if (!parsed.scenario.seq2seq.empty())
      members.emplace_back("seq2seq", scenario::seq2seq_trace_json(parsed.scenario));
    if (!parsed.scenario.hierarchy.empty())
      members.emplace_back("hierarchy", scenario::hierarchy_trace_json(parsed.scenario));
    status = layered ? eval_layers(parsed.stack, options) : eval(parsed.problem, options, members);
  }
  // A full disk or a closed pipe: the output is not all there, and the exit status says so.
  return finish(status);
}
