// The playground's state: the Decoder tab's training of a seq2seq model on the toy language.
#include <chrono>
#include <cstdint>
#include <string>

#include "app/model/app_state.h"
#include "app/text/i18n.h"

namespace ui {

std::string AppState::decoder_untrainable() const {
  const scenario::Seq2Seq& m = scenario.seq2seq;
  if (m.empty()) return T("Only a GRU encoder-decoder trains here.");
  if (!m.toy_language())
    return T(
        "Training here learns from the toy language's sentence pairs: this model's words or "
        "sizes are not the toy language's.");
  return std::string();
}

bool AppState::decoder_random_start() {
  DecoderTraining& dt = decoder_training;
  dt.error = decoder_untrainable();
  if (!dt.error.empty()) return false;
  scenario::Seq2Seq& m = scenario.seq2seq;
  m.set_learned(attn::seq2seq::init_params(m.params.sizes, m.has_seed ? m.seed : 1));
  dt.trainer.reset();
  dt.playing = false;
  dt.losses.clear();
  dt.error = scenario::derive_seq2seq(&scenario);  // fresh weights are within its limits
  changed();
  set_decoder_step(decoder_words());
  emit("scenario");
  return dt.error.empty();
}

int AppState::train_decoder(int steps, double budget_ms) {
  DecoderTraining& dt = decoder_training;
  dt.error = decoder_untrainable();
  if (!dt.error.empty() || steps <= 0) return 0;
  scenario::Seq2Seq& m = scenario.seq2seq;
  if (!dt.trainer) dt.trainer.emplace(m.params, m.has_seed ? m.seed : 1, kDecoderBatch);
  const auto start = std::chrono::steady_clock::now();
  int taken = 0;
  while (taken < steps) {
    dt.losses.push_back(static_cast<float>(dt.trainer->step()));
    ++taken;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (ms >= budget_ms) break;
  }
  const attn::seq2seq::Params before = m.params;
  m.set_learned(dt.trainer->params);
  // The weights must stay within the model's limits (validate_seq2seq): Adam at 0.01 moves a
  // weight by at most 0.01 a step, so this holds, but a refusal keeps the weights shown.
  dt.error = scenario::derive_seq2seq(&scenario);
  if (!dt.error.empty()) {
    m.params = before;
    scenario::derive_seq2seq(&scenario);
    dt.playing = false;
  }
  changed();
  set_decoder_step(decoder_words());
  emit("training");
  return taken;
}

void AppState::play_decoder_training(double budget_ms) {
  DecoderTraining& dt = decoder_training;
  if (!dt.playing) return;
  const int done = dt.trainer ? dt.trainer->steps() : 0;
  const int to_pause = kDecoderTrainSteps - done % kDecoderTrainSteps;
  const int taken = train_decoder(to_pause, budget_ms);
  if (taken == 0 || taken == to_pause || !dt.error.empty()) dt.playing = false;
}

}  // namespace ui
