// Edits the playground makes to a scenario (sizes, tokens, scoring, masks, shuffles). Each
// keeps the scenario consistent so that it still validates whenever that is possible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "scenario/scenario.h"

namespace ui {

// Rows of the inputs: n_q queries and n_k keys (self-attention uses n_q for both). New rows
// get seeded values in [-1, 1]; tokens, valid lengths and masked cells follow.
void resize_tokens(scenario::Scenario* s, int n_q, int n_k);

// Columns of the queries and keys (and of the values in self-attention). Explicit weights no
// longer fit and are replaced by `init` weights of the same d_model.
void resize_features(scenario::Scenario* s, int d);

// The projection width. Switches explicit weights to seeded `init` weights.
void set_d_model(scenario::Scenario* s, int d_model);
// Learned projections on (seeded W_q, W_k, W_v, W_o of d_model = the input width, at least 2)
// or off (the inputs used as they are).
void set_projections(scenario::Scenario* s, bool on);
bool has_projections(const scenario::Scenario& s);  // what the "learned projections" box shows
int d_model(const scenario::Scenario& s);           // the width the heads split

// Switching scoring keeps the scenario runnable: additive uses one head and needs its weights,
// dot-product scoring needs equal query and key sizes (init weights provide both).
void set_scoring(scenario::Scenario* s, attn::Scoring scoring);

// Heads must divide d_model; when they do not, the scenario is left as it was and the error
// says why (the one scenario::validate gives).
attn::Status set_heads(scenario::Scenario* s, int heads);

// New seeded inputs in [-1, 1] (rounded to 0.1) and a new init seed.
void randomize(scenario::Scenario* s, uint64_t seed);

// Permutes the tokens (rows of x, or of keys and values together in cross-attention) with a
// seeded shuffle; tokens follow their rows. Masks stay where they are.
void shuffle_tokens(scenario::Scenario* s, uint64_t seed);

void toggle_masked_cell(scenario::Scenario* s, int b, int i, int j);

// Valid length of batch item b (switches to the per-sequence form); len < 0 removes them.
void set_valid_len(scenario::Scenario* s, int b, int len);
// One valid length per query (the 2-D form, as a masked softmax takes it) or one per batch
// item. Turning it on gives every query its item's length (all keys when there were none);
// turning it off keeps, for each item, the longest of its queries' lengths.
void set_valid_lens_per_query(scenario::Scenario* s, bool per_query);
// The valid length of query i of batch item b (switches to the per-query form).
void set_query_valid_len(scenario::Scenario* s, int b, int i, int len);

// Sets one input cell; `which` is 'q', 'k', 'v' (or 'x' in self-attention).
void set_input(scenario::Scenario* s, char which, int b, int i, int j, float v);

// A number typed as a question's answer, the whole text: spaces around it, "." or "," as the
// decimal point, "-", "+" or "−" before it, digits with an optional exponent ("0.25", "-1e-3",
// "0,5", "−2"); nullopt for anything else ("0.20.9986", "", "1e", "0x10", "inf", "2 3") or a
// number beyond float's range, never the number a prefix of the text makes.
std::optional<float> typed_number(std::string_view text);

// Token labels, generated when the scenario has none: "q1".."qn" / "k1".."kn", or the
// query labels for keys in self-attention.
std::vector<std::string> query_labels(const scenario::Scenario& s, int b);
std::vector<std::string> key_labels(const scenario::Scenario& s, int b);

}  // namespace ui
