// The Decoder tab of a seq2seq model (scenario/seq2seq_form.h): the decoder writing its
// translation one word at a time. For word t its query, the state s_{t−1}, attends over the
// encoder's states of the source words (row t of the alignment α); the context c_t and the word
// written before go into the decoder's GRU, whose probabilities choose word t. The alignment is
// drawn whole, m × n, with the rows after t left blank, so that it grows a row per word.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/widgets/item_log.h"

namespace ui {

namespace {

// Words in a row of boxes that wraps at the panel's edge, the one at `highlight` (or none, −1)
// in the accent colour; each recorded as a text item "<id><k>" (1-based) for the tests.
void word_row(const char* label, const char* id, const std::vector<std::string>& words,
              int highlight) {
  ImGui::TextUnformatted(label);
  const ImVec2 pad(6.0f, 2.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  char item_id[48];
  for (size_t k = 0; k < words.size(); ++k) {
    const ImVec2 t = ImGui::CalcTextSize(words[k].c_str());
    const ImVec2 size(t.x + 2.0f * pad.x, t.y + 2.0f * pad.y);
    same_line_if_fits(size.x);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::Dummy(size);
    const bool on = static_cast<int>(k) == highlight;
    dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y),
                      on ? IM_COL32(41, 92, 199, 255) : IM_COL32(230, 234, 242, 255), 4.0f);
    dl->AddText(ImVec2(p0.x + pad.x, p0.y + pad.y),
                on ? IM_COL32(255, 255, 255, 255) : ImGui::GetColorU32(ImGuiCol_Text),
                words[k].c_str());
    std::snprintf(item_id, sizeof item_id, "%s%d", id, static_cast<int>(k) + 1);
    item_text(item_id, words[k]);
  }
}

// Random start and Train (AppState::DecoderTraining), with where training is; or why this
// model does not train here. True when Random start was clicked: the caller starts it once
// the frame has drawn the model it read (a new model may have more words).
bool train_row(AppState& s) {
  if (s.control_hidden("train")) return false;  // the page hides training
  const std::string untrainable = s.decoder_untrainable();
  if (!untrainable.empty()) {
    text_wrapped(untrainable, true);
    return false;
  }
  AppState::DecoderTraining& dt = s.decoder_training;
  const std::string random = std::string(T("Random start")) + "###decoder_random";
  const bool random_start = ImGui::Button(random.c_str());
  const char* train_word = dt.playing ? T("Pause training") : T("Train");
  const std::string train = std::string(train_word) + "###decoder_train";
  same_line_if_fits(std::max(button_width(T("Pause training")), button_width(T("Train"))));
  if (ImGui::Button(train.c_str())) {
    dt.playing = !dt.playing;
    if (dt.playing) s.decoder_playing = false;
  }
  const std::string status = decoder_training_status(s);  // as the table view says it
  same_line_if_fits(ImGui::CalcTextSize(status.c_str()).x);
  ImGui::AlignTextToFramePadding();
  if (dt.error.empty())
    ImGui::TextUnformatted(status.c_str());
  else
    ImGui::TextColored(ImVec4(0.75f, 0.1f, 0.1f, 1.0f), "%s", status.c_str());
  item_text("decoder.training", status);
  return random_start;
}

}  // namespace

void draw_decoder(AppState& s, Heatmaps& h) {
  const scenario::Seq2Seq& model = s.scenario.seq2seq;
  const attn::seq2seq::Forward& f = model.forward;
  const int m = s.decoder_words(), n = static_cast<int>(model.source.size());
  if (model.empty() || m == 0 || f.weights.rows() != m || f.weights.cols() != n ||
      f.probs.rows() != m)
    return;
  s.set_decoder_step(s.decoder_step);
  const int t = s.decoder_step;  // 1..m
  std::vector<std::string> source, written;
  for (int id : model.source) source.push_back(model.source_word(id));
  for (int id : model.produced) written.push_back(model.target_word(id));

  text_wrapped(
      T("The decoder writes the translation one word at a time: the query of each word attends "
        "over the source words (a new row of the alignment), then its GRU writes the word."));

  // Previous word, Next word, Play; where it is.
  ImGui::BeginDisabled(t <= 1);
  const std::string prev = std::string(T("Previous word")) + "###decoder_prev";
  if (ImGui::Button(prev.c_str())) {
    s.decoder_playing = false;
    s.set_decoder_step(t - 1);
  }
  ImGui::EndDisabled();
  const std::string next = std::string(T("Next word")) + "###decoder_next";
  same_line_if_fits(button_width(T("Next word")));
  ImGui::BeginDisabled(t >= m);
  if (ImGui::Button(next.c_str())) {
    s.decoder_playing = false;
    s.set_decoder_step(t + 1);
  }
  ImGui::EndDisabled();
  const char* play_word = s.decoder_playing ? T("Pause") : T("Play");
  const std::string play = std::string(play_word) + "###decoder_play";
  same_line_if_fits(std::max(button_width(T("Pause")), button_width(T("Play"))));
  if (ImGui::Button(play.c_str()))
    control_apply(s, "decoder_play", !s.decoder_playing);  // as the table view's checkbox
  const std::string place = printf_text(T("Word %d of %d"), s.decoder_step, m);
  same_line_if_fits(ImGui::CalcTextSize(place.c_str()).x);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(place.c_str());
  item_text("decoder.place", place);
  const bool random_start = train_row(s);
  const int step = s.decoder_step;  // after the buttons: this frame draws the word chosen

  // Rows from `allowed` on would answer a question still open: not filled, not described.
  const int allowed = decoder_rows_allowed(s, m);
  const int filled = std::min(step, allowed);
  const bool shown = step - 1 < allowed;
  int best = 0;
  for (int j = 1; j < n; ++j)
    if (f.weights(step - 1, j) > f.weights(step - 1, best)) best = j;

  word_row(T("Source sentence:"), "decoder.source", source, shown ? best : -1);
  const std::vector<std::string> so_far(written.begin(), written.begin() + step);
  word_row(T("Written so far:"), "decoder.written", so_far, step - 1);

  // What happened at word t, in words.
  const std::string text = decoder_word_sentence(s, step);  // as the table view says it
  text_wrapped(text);
  item_text("decoder.sentence", text);

  // The alignment, m × n, its rows after the word shown (and any a question waits on) blank.
  attn::Matrix values = f.weights;
  for (int i = filled; i < m; ++i) values.row(i).setZero();
  std::vector<std::string> rows(static_cast<size_t>(m), "\xe2\x80\xa6");  // "…"
  for (int i = 0; i < step; ++i) rows[i] = written[i];
  HeatmapSpec sp;
  sp.id = "decoder";
  sp.values = &values;
  sp.layout_values = &f.weights;
  sp.row_labels = &rows;
  sp.col_labels = &source;
  sp.row_axis = T("written");
  sp.col_axis = T("source");
  sp.fixed_range = true;
  sp.lo = 0.0f;
  sp.hi = 1.0f;
  // The loss curve once the page has trained: beside the alignment where there is room for
  // both (the loss falls as the rows sharpen), else under it.
  const std::vector<float>& losses = s.decoder_training.losses;
  const float avail_x = ImGui::GetContentRegionAvail().x;
  const bool beside = !losses.empty() && avail_x >= 460.0f;
  const float chart_w = beside ? std::min(avail_x * 0.42f, 360.0f) : 0.0f;
  const float chart_y = losses.empty() || beside
                            ? 0.0f
                            : ImGui::GetFontSize() * 3.0f + ImGui::GetTextLineHeight() * 4.0f;
  const float avail_y = ImGui::GetContentRegionAvail().y - chart_y;
  const float want_y = static_cast<float>(m) * 26.0f + ImGui::GetFontSize() * 6.0f;
  sp.size = ImVec2(std::min(avail_x - chart_w, 640.0f), std::max(avail_y, want_y));
  const ImVec2 at = ImGui::GetCursorScreenPos();
  sp.max_cell_px = 48.0f;
  sp.numbers = s.show_numbers;
  sp.exportable = false;  // blank rows are not numbers
  sp.highlight_row = step - 1;
  sp.revision = (s.revision << 8) ^ static_cast<uint64_t>(filled);
  h.draw(sp);
  // Blank cells over the rows not filled: an empty table, the size it will be.
  const auto found = h.last_grids().find("decoder");
  if (found != h.last_grids().end()) {
    const GridInfo& g = found->second;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(ImVec2(g.x0, g.y0), ImVec2(g.x1, g.y1), true);
    const float cw = g.cell_w > 0.0f ? g.cell_w : g.cell;
    for (int i = filled; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const ImVec2 a(g.x0 + (j - g.first_col) * cw, g.y0 + (i - g.first_row) * g.cell);
        const ImVec2 b(a.x + cw, a.y + g.cell);
        dl->AddRectFilled(a, b, IM_COL32(255, 255, 255, 255));
        dl->AddRect(a, b, IM_COL32(214, 219, 228, 255));
      }
    dl->PopClipRect();
  }
  if (beside) {
    const ImVec2 below = ImGui::GetCursorScreenPos();
    ImGui::SetCursorScreenPos(ImVec2(at.x + sp.size.x + ImGui::GetStyle().ItemSpacing.x, at.y));
    ImGui::BeginGroup();
    loss_chart(losses, 4.0f, false);
    ImGui::EndGroup();
    const float chart_bottom = ImGui::GetItemRectMax().y;
    ImGui::SetCursorScreenPos(ImVec2(below.x, std::max(below.y, chart_bottom)));
    ImGui::Dummy(ImVec2(0.0f, 0.0f));
  } else if (!losses.empty()) {
    loss_chart(losses, 3.0f, false);
  }
  if (random_start) s.decoder_random_start();
}

}  // namespace ui
