// The centre's views (app/model/views.h): every view the registry lists says what it shows in
// the table view, in both languages, for every lesson that offers it; what a view holds back
// while a question waits is "?" there too; the tab bar's and the "view" control's views are
// the registry's.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>
#include "app/model/api.h"
#include "app/model/app_state.h"
#include "app/model/controls.h"
#include "app/model/edits.h"
#include "app/model/matrices.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"

namespace {

// A cell as the canvas prints a number ("0.25", "-1.00", "−0.27", "12.5", "3e5"), or "?" where it
// holds one back; the step's matrices add a word after it ("0.00 masked").
bool number_or_hidden(const std::string& cell) {
  static const std::regex number(R"((-|\xe2\x88\x92)?\d+(\.\d+)?(e-?\d+)?)");
  const std::string first = cell.substr(0, cell.find(' '));
  return first == "?" || std::regex_match(first, number);
}

}  // namespace

TEST_CASE("views: a view added without a description fails here", "[views]") {
  // The step by step view's description is the step's (api_accessible.cpp); every other view
  // describes itself.
  const std::set<std::string> by_steps = {"steps"};
  std::set<std::string> ids;
  for (const ui::ViewSpec& v : ui::view_registry()) {
    INFO(v.id);
    CHECK(ids.insert(v.id).second);  // each once
    if (!v.describe) CHECK(by_steps.count(v.id) == 1);
    CHECK(std::string(ui::T(ui::Lang::kZh, v.title)) != v.title);  // a title in Chinese too
  }
}

TEST_CASE(
    "views: every lesson's views are described in both languages, numbers held back as "
    "the canvas holds them",
    "[views]") {
  ui::AppState probe;
  std::map<std::string, int> described;  // view → lessons that offer it
  for (const auto& preset : probe.presets) {
    ui::AppState s;
    REQUIRE(ui::api::load_preset(s, preset.name));
    for (const ui::ViewSpec& v : ui::view_registry()) {
      if (!v.describe || !v.available(s)) continue;
      s.view_tab = v.id;
      for (const ui::Lang lang : {ui::Lang::kEn, ui::Lang::kZh}) {
        ui::set_language(lang);
        INFO(preset.name << " · " << v.id << (lang == ui::Lang::kZh ? " · zh" : " · en"));
        const nlohmann::json d = ui::describe_view(s, v.id);
        REQUIRE(d.is_object());
        CHECK(d["title"] == ui::T(v.title));
        REQUIRE(!d["sections"].empty());
        CHECK(!d["sections"][0]["text"].empty());
        int tables = 0;
        for (const nlohmann::json& sec : d["sections"]) {
          for (const nlohmann::json& line : sec["text"]) CHECK(!line.get<std::string>().empty());
          for (const nlohmann::json& t : sec["tables"]) {
            ++tables;
            CHECK(!t["caption"].get<std::string>().empty());
            REQUIRE(!t["rows"].empty());
            int numbers = 0;
            for (const nlohmann::json& r : t["rows"]) {
              CHECK(!r["label"].get<std::string>().empty());
              CHECK(r["cells"].size() == t["columns"].size());
              for (const nlohmann::json& c : r["cells"]) numbers += number_or_hidden(c);
            }
            CHECK(numbers > 0);  // every table holds the view's numbers
          }
        }
        // The 2-D view of vectors that are not 2-D says what it needs instead.
        if (v.id == std::string("plane") && !ui::plane_vectors(s).two_d) {
          CHECK(tables == 0);
          CHECK(d["sections"][0]["text"][0].get<std::string>().rfind(
                    lang == ui::Lang::kEn ? "The 2-D view needs" : "\xe4\xba\x8c", 0) == 0);
        } else {
          CHECK(tables > 0);
        }
        // What the canvas holds back is "?" here, and only that.
        const std::string id = v.id;
        const bool hidden = id == "picture"  ? ui::picture_hidden(s)
                            : id == "curve"  ? ui::curve_hidden(s)
                            : id == "layers" ? ui::layers_hidden(s)
                            : id == "plane"  ? ui::plane_hidden(s)
                            : id == "heads"
                                ? ui::answer_hidden(s, ui::step_matrix(ui::heads_step(s)))
                                : false;
        if (id == "plane" && d["sections"][0]["tables"].size() == 2) {
          const nlohmann::json& t = d["sections"][0]["tables"][1];  // the keys and their weights
          for (const nlohmann::json& r : t["rows"]) CHECK((r["cells"].back() == "?") == hidden);
        }
        if (id == "heads")
          for (size_t k = 1; k < d["sections"].size(); ++k)
            for (const nlohmann::json& t : d["sections"][k]["tables"])
              for (const nlohmann::json& r : t["rows"])
                for (const nlohmann::json& c : r["cells"])
                  CHECK((c.get<std::string>().rfind("?", 0) == 0) == hidden);
        if (v.id == std::string("picture") || v.id == std::string("curve")) {
          const nlohmann::json& t = d["sections"][0]["tables"][0];
          for (const nlohmann::json& r : t["rows"])
            CHECK((r["cells"].back() == "?") == hidden);  // the weight column
        }
        if (v.id == std::string("layers")) {
          const nlohmann::json& head = d["sections"][1]["tables"][0];  // layer 1, head 1
          for (const nlohmann::json& r : head["rows"])
            for (const nlohmann::json& c : r["cells"]) CHECK((c == "?") == hidden);
        }
      }
      ui::set_language(ui::Lang::kEn);
      ++described[v.id];
    }
  }
  // The lessons offer each view that describes itself.
  for (const ui::ViewSpec& v : ui::view_registry())
    if (v.describe) CHECK(described[v.id] > 0);
}

TEST_CASE("views: the view control offers the registry's available views, in its order",
          "[views]") {
  ui::AppState s;
  REQUIRE(ui::api::load_preset(s, "why_stack"));
  std::vector<std::string> want;
  for (const ui::ViewSpec& v : ui::view_registry())
    if (v.available(s)) want.push_back(v.id);
  const nlohmann::json controls = nlohmann::json::parse(ui::api::controls(s));
  std::vector<std::string> offered;
  for (const nlohmann::json& c : controls)
    if (c["id"] == "view")
      for (const nlohmann::json& o : c["options"]) offered.push_back(o["value"].get<std::string>());
  CHECK(offered == want);
  CHECK(std::find(want.begin(), want.end(), "layers") != want.end());
}

TEST_CASE(
    "views: what a view shows now is said in its description, and a change of it is an event "
    "the page announces",
    "[views]") {
  ui::set_language(ui::Lang::kEn);
  ui::AppState s;
  REQUIRE(ui::api::load_preset(s, "learned_bahdanau"));
  s.note_view_choice();
  CHECK(std::count(s.events.begin(), s.events.end(), "view") == 0);  // a load is not a change
  s.events.clear();
  REQUIRE(ui::api::set_control(s, "view", "\"decoder\"") == "");
  nlohmann::json d = ui::describe_view(s, "decoder");
  REQUIRE(d.contains("now"));
  CHECK(d["now"].get<std::string>().rfind("Word 1 of 7. ", 0) == 0);
  CHECK(d["now"].get<std::string>().find(ui::decoder_word_sentence(s, 1)) != std::string::npos);
  CHECK_FALSE(d["sections"][0].contains("now"));  // lifted out of the section
  s.events.clear();
  REQUIRE(ui::api::set_control(s, "decoder_step", "3") == "");
  s.note_view_choice();
  CHECK(std::count(s.events.begin(), s.events.end(), "view") == 1);
  d = ui::describe_view(s, "decoder");
  CHECK(d["now"].get<std::string>().rfind("Word 3 of 7. ", 0) == 0);
  // The query s₂ and the context c₃, with subscripts as the lesson writes them (was s_2, c_3),
  // once the questions that hold the rows back are answered.
  ui::AppState answered;
  REQUIRE(ui::api::load_preset(answered, "learned_bahdanau"));
  for (size_t q = 0; q < answered.quiz().size(); ++q)
    answered.show_quiz_answer(static_cast<int>(q));
  CHECK(ui::decoder_word_sentence(answered, 3).find("the query s\u2082 put") != std::string::npos);
  CHECK(ui::decoder_word_sentence(answered, 3).find("the context c\u2083 and") !=
        std::string::npos);
  CHECK(ui::decoder_word_sentence(answered, 1).find("the query s\u2080 put") != std::string::npos);
  // Nothing changed: no event.
  s.events.clear();
  s.note_view_choice();
  CHECK(s.events.empty());
  // A new scenario starts the word over: no "view" of its own (the load is announced).
  REQUIRE(ui::api::load_preset(s, "learned_bahdanau"));
  s.note_view_choice();
  CHECK(std::count(s.events.begin(), s.events.end(), "view") == 0);

  // In Chinese, one full stop "。" between the two sentences, no ". ".
  ui::set_language(ui::Lang::kZh);
  const std::string zh = ui::describe_view(s, "decoder")["now"].get<std::string>();
  CHECK(zh.find("\xe3\x80\x82") != std::string::npos);
  CHECK(zh.find(". ") == std::string::npos);
  ui::set_language(ui::Lang::kEn);

  // The Document's question, the Picture's, the Curve's and the 2-D view's query: "now" names
  // the choice.
  for (const auto& [lesson, view, control, value, starts] :
       std::vector<std::tuple<std::string, std::string, std::string, std::string, std::string>>{
           {"attention_over_attention", "document", "hierarchy_question", "2", "Question: "},
           {"where_the_eye_goes", "picture", "picture_query", "1", "Query: "},
           {"nadaraya_watson", "curve", "curve_query", "2", "query: "},
           {"toy_2d", "plane", "plane_query", "1", "Query: "}}) {
    INFO(lesson);
    ui::AppState v;
    REQUIRE(ui::api::load_preset(v, lesson));
    REQUIRE(ui::api::set_control(v, "view", "\"" + view + "\"") == "");
    v.note_view_choice();
    v.events.clear();
    const std::string before = ui::describe_view(v, view)["now"].get<std::string>();
    CHECK(before.rfind(starts, 0) == 0);
    REQUIRE(ui::api::set_control(v, control, value) == "");
    v.note_view_choice();
    CHECK(std::count(v.events.begin(), v.events.end(), "view") == 1);
    CHECK(ui::describe_view(v, view)["now"].get<std::string>() != before);
  }
}

TEST_CASE(
    "training: a seq2seq model's one trainer is the decoder's, reported and stepped as "
    "the weights' is",
    "[views][training]") {
  ui::AppState s;
  REQUIRE(ui::api::load_preset(s, "learned_bahdanau"));
  nlohmann::json t = nlohmann::json::parse(ui::api::training(s));
  CHECK(t["trainer"] == "decoder");
  CHECK(t["step"] == 0);
  CHECK(t["playing"] == false);
  CHECK(t["loss"].is_null());
  CHECK(t["optimizer"] == "adam");
  REQUIRE(s.decoder_random_start());
  nlohmann::json slice = nlohmann::json::parse(ui::api::train_slice(s, 5, 1e9, 0));
  CHECK(slice["error"] == "");
  CHECK(slice["taken"] == 5);
  CHECK(slice["step"] == 5);
  t = nlohmann::json::parse(ui::api::training(s));
  CHECK(t["step"] == 5);
  REQUIRE(t["loss"].is_number());
  CHECK(t["loss"].get<double>() == Approx(s.decoder_training.losses.back()));
  CHECK(ui::decoder_training_status(s).rfind("Step 5, loss ", 0) == 0);  // as the canvas says
  // A slice from a stale count, or while its Train plays, is refused.
  CHECK(nlohmann::json::parse(ui::api::train_slice(s, 5, 1e9, 3))["error"].get<std::string>().rfind(
            "train: stopped", 0) == 0);
  s.decoder_training.playing = true;
  CHECK(nlohmann::json::parse(ui::api::training(s))["playing"] == true);
  CHECK(nlohmann::json::parse(ui::api::train_slice(s, 5, 1e9, 5))["error"] ==
        "train: the decoder is training (its Train); pause it first");
  CHECK(s.decoder_training.losses.size() == 5);

  // Any other scenario: the Train section's weights.
  ui::AppState w;
  REQUIRE(ui::api::load_preset(w, "why_stack"));
  CHECK(nlohmann::json::parse(ui::api::training(w))["trainer"] == "weights");
}

TEST_CASE(
    "i18n: every sentence with placeholders takes the same arguments in both languages and "
    "formats whole at its longest arguments",
    "[views][i18n]") {
  // The conversions of a printf format, in order ("%d", "%.3g", "%s"; "%%" is none).
  const auto conversions = [](const std::string& f) {
    std::vector<std::string> out;
    for (size_t i = 0; i < f.size(); ++i) {
      if (f[i] != '%') continue;
      if (i + 1 < f.size() && f[i + 1] == '%') {
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < f.size() && std::string(".0123456789").find(f[j]) != std::string::npos) ++j;
      if (j < f.size()) out.push_back(f.substr(i, j - i + 1));
      i = j;
    }
    return out;
  };
  // A token name at its limit (scenario::kMaxTokenBytes: 21 Chinese characters, 63 bytes).
  std::string longest;
  for (int k = 0; k < 21; ++k) longest += "\xe8\xaf\x8d";  // 词
  int formats = 0;
  for (const auto& [en, zh] : ui::translations()) {
    const std::vector<std::string> want = conversions(en);
    if (want.empty()) continue;
    INFO(en << " | " << zh);
    REQUIRE(conversions(zh) == want);  // the same arguments, in the same order
    for (const char* format : {en, zh}) {
      // Formatted a conversion at a time (each with the text before it), each argument at its
      // longest: the name, the most negative int, a double with the longest exponent.
      const std::string name = longest;
      std::string text, rest = format;
      for (const std::string& c : want) {
        const size_t at = rest.find(c);
        REQUIRE(at != std::string::npos);
        const std::string piece = rest.substr(0, at + c.size());
        rest = rest.substr(at + c.size());
        text += c == "%s"   ? ui::printf_text(piece.c_str(), name.c_str())
                : c == "%d" ? ui::printf_text(piece.c_str(), std::numeric_limits<int>::min())
                            : ui::printf_text(piece.c_str(), -1.2345678e-300);
      }
      text += ui::printf_text(rest.c_str());
      // Whole: every argument in full, and the sentence's last words after them.
      for (const std::string& c : want) {
        if (c == "%s") CHECK(text.find(longest) != std::string::npos);
        if (c == "%d") CHECK(text.find("-2147483648") != std::string::npos);
      }
      std::string tail = format;
      const size_t last = tail.rfind(want.back());
      tail = tail.substr(last + want.back().size());
      if (tail.find('%') == std::string::npos) CHECK(text.size() >= tail.size());
      if (tail.find('%') == std::string::npos)
        CHECK(text.compare(text.size() - tail.size(), tail.size(), tail) == 0);
      ++formats;
    }
  }
  CHECK(formats > 100);
}

TEST_CASE(
    "views: all heads, positional encoding and the 2-D view describe the numbers they draw, "
    "and hold the weights back as the canvas does",
    "[views]") {
  ui::set_language(ui::Lang::kEn);
  // A lesson's numbers without its questions (nothing held back).
  const auto without_questions = [](ui::AppState& s, const std::string& preset) {
    REQUIRE(ui::api::load_preset(s, preset));
    nlohmann::json j = nlohmann::json::parse(ui::api::get_scenario(s));
    j.erase("quiz");
    REQUIRE(ui::api::set_scenario(s, j.dump()) == "");
  };

  SECTION("all heads: each head's table is its matrix of the step, cell by cell") {
    ui::AppState s;
    without_questions(s, "multi_head");
    ui::api::set_step(s, static_cast<int>(ui::Step::kWeights));
    ui::api::focus_head(s, 1);
    const nlohmann::json d = ui::describe_view(s, "heads");
    const int H = static_cast<int>(s.trace.heads.size());
    REQUIRE(H >= 2);
    REQUIRE(d["sections"].size() == static_cast<size_t>(H) + 1);
    CHECK(d["now"] == "Each head's Weights. Head 2 is focused: the step by step view shows it.");
    for (int h = 0; h < H; ++h) {
      INFO("head " << h + 1);
      const attn::Matrix* m = ui::matrix_of(s, ui::MatrixKind::kWeights, h, 0);
      REQUIRE(m);
      const nlohmann::json& t = d["sections"][h + 1]["tables"][0];
      CHECK(t["caption"] == "Head " + std::to_string(h + 1) + ": Weights");
      REQUIRE(t["rows"].size() == static_cast<size_t>(m->rows()));
      for (int i = 0; i < m->rows(); ++i)
        for (int c = 0; c < m->cols(); ++c)
          CHECK(t["rows"][i]["cells"][c].get<std::string>().rfind(ui::cell_number((*m)(i, c)), 0) ==
                0);
    }
    // Steps without a matrix of scores show the weights, as the canvas does.
    ui::api::set_step(s, static_cast<int>(ui::Step::kInputs));
    CHECK(ui::heads_step(s) == ui::Step::kWeights);
  }

  SECTION("positional encoding: the explorer's table, its plotted columns and its experiment") {
    ui::AppState s;
    without_questions(s, "self_attention");
    REQUIRE(ui::view_available(s, "positional"));
    const nlohmann::json d = ui::describe_view(s, "positional");
    const ui::PositionalPanel& e = s.positional;
    const attn::Matrix pe = attn::positional_encoding(e.positions, e.d, s.scenario.pe_base);
    const nlohmann::json& t = d["sections"][0]["tables"][0];
    REQUIRE(t["rows"].size() ==
            static_cast<size_t>(std::min(e.positions, ui::api::kAccessibleRows)));
    REQUIRE(t["columns"].size() == static_cast<size_t>(std::min(e.d, ui::api::kAccessibleCols)));
    for (size_t p = 0; p < t["rows"].size(); ++p)
      for (size_t c = 0; c < t["columns"].size(); ++c)
        CHECK(t["rows"][p]["cells"][c] == ui::printf_text("%.2f", pe(p, c)));
    CHECK(d["sections"][1]["text"][0].get<std::string>().rfind(
              "Plotted over the positions: column 0, column 1, column 2, ", 0) == 0);
    // The experiment's numbers are the largest changes it measured; shuffling moves outputs
    // only with positions (this lesson has no mask that belongs to positions).
    REQUIRE(e.experiment_valid);
    const nlohmann::json& lines = d["sections"][2]["text"];
    REQUIRE(lines.size() == 4);
    const float without = *std::max_element(e.change_without.begin(), e.change_without.end());
    const float with = *std::max_element(e.change_with.begin(), e.change_with.end());
    CHECK(lines[1] ==
          ui::printf_text("without positional encoding, the largest change is %.4f", without));
    CHECK(lines[2] ==
          ui::printf_text("with positional encoding, the largest change is %.4f", with));
    CHECK(without < 1e-5f);
    CHECK(with > 1e-3f);
    CHECK(lines[3] == ui::positional_conclusion(s.scenario));
  }

  SECTION("2-D: the arrows' coordinates and the chosen query's weights") {
    ui::AppState s;
    without_questions(s, "toy_2d");
    REQUIRE(ui::view_available(s, "plane"));
    s.plane_query = 1;
    nlohmann::json d = ui::describe_view(s, "plane");
    const attn::HeadTrace& ht = s.head_trace(0, 0);
    const nlohmann::json& queries = d["sections"][0]["tables"][0];
    const nlohmann::json& keys = d["sections"][0]["tables"][1];
    REQUIRE(queries["rows"].size() == static_cast<size_t>(ht.q[0].rows()));
    REQUIRE(keys["rows"].size() == static_cast<size_t>(ht.k[0].rows()));
    int best = 0;
    for (int j = 0; j < ht.k[0].rows(); ++j) {
      CHECK(keys["rows"][j]["cells"][0] == ui::printf_text("%.2f", ht.k[0](j, 0)));
      CHECK(keys["rows"][j]["cells"][1] == ui::printf_text("%.2f", ht.k[0](j, 1)));
      CHECK(keys["rows"][j]["cells"][2] == ui::printf_text("%.3f", ht.weights[0](1, j)));
      if (ht.weights[0](1, j) > ht.weights[0](1, best)) best = j;
    }
    for (int i = 0; i < ht.q[0].rows(); ++i)
      CHECK(queries["rows"][i]["cells"][1] == ui::printf_text("%.2f", ht.q[0](i, 1)));
    const std::vector<std::string> kl = ui::key_labels(s.scenario, 0);
    CHECK(d["now"].get<std::string>() == "Query: q2. q2 gives the most weight to " + kl[best] +
                                             ui::printf_text(" (%.3f).", ht.weights[0](1, best)));
    // A stale or hostile query index is clamped, not read past the matrix.
    s.plane_query = 99;
    d = ui::describe_view(s, "plane");
    CHECK(s.plane_query == ht.q[0].rows() - 1);
    CHECK(d["now"].get<std::string>().rfind("Query: q" + std::to_string(ht.q[0].rows()), 0) == 0);

    // The lesson asks which key q2 attends to most: until it is answered the weights and the
    // output are "?", as on the canvas.
    ui::AppState asked;
    REQUIRE(ui::api::load_preset(asked, "toy_2d"));
    REQUIRE(ui::plane_hidden(asked));
    d = ui::describe_view(asked, "plane");
    for (const nlohmann::json& r : d["sections"][0]["tables"][1]["rows"])
      CHECK(r["cells"][2] == "?");
    CHECK(d["now"].get<std::string>().find("gives the most weight") == std::string::npos);
    ui::set_language(ui::Lang::kZh);
    CHECK(ui::describe_view(asked, "plane")["title"] == ui::T("2-D view"));
    ui::set_language(ui::Lang::kEn);
  }
}

// Its questions keep their places, one that cannot be asked says why, and progress is kept.
TEST_CASE("learned_bahdanau stays whole through Random start and Train",
          "[views][training][quiz]") {
  ui::set_language(ui::Lang::kEn);
  ui::AppState s;
  REQUIRE(ui::api::load_preset(s, "learned_bahdanau"));
  REQUIRE(s.quiz().size() == 2);
  const int last_row = s.quiz()[1].answer.row;  // <eos>, the 7th word
  REQUIRE(last_row == 6);
  // The second question answered first (at its step): its mark is the second of two.
  s.set_step(s.quiz()[1].step);
  REQUIRE(s.answer_quiz(1, s.quiz_truth_key(1), 0.0f));
  CHECK(s.progress["learned_bahdanau"] == "-r");

  REQUIRE(s.decoder_random_start());
  CHECK(s.quiz().size() == 2);
  // On the way (seed 2), the decoder writes fewer than 7 words for a while (it has learned to
  // end early before it has learned the whole translation): row 7 is gone then.
  int words = s.scenario.n_queries();
  while (words > last_row && s.decoder_training.losses.size() < 1500) {
    s.train_decoder(10, 1e9);
    s.recompute_if_needed();  // as the next frame does
    words = s.scenario.n_queries();
  }
  INFO("steps " << s.decoder_training.losses.size());
  REQUIRE(words <= last_row);
  CHECK(s.quiz().size() == 2);  // still the lesson's two questions, in their places
  CHECK(s.quiz_fits(0));
  CHECK_FALSE(s.quiz_fits(1));
  CHECK(s.scenario.quiz.size() == 1);  // the scenario (link, exports) holds what fits
  const std::string why = s.quiz_unfit_text(1);
  CHECK(why.find("row 7") != std::string::npos);
  CHECK(why.find("has " + std::to_string(words) + " words") != std::string::npos);
  CHECK(why.find("Train on") != std::string::npos);
  CHECK_FALSE(s.answer_quiz(1, 0, 0.0f));  // nothing to answer with
  const nlohmann::json refused = nlohmann::json::parse(ui::api::answer_quiz(s, 1, "{\"key\": 0}"));
  CHECK(refused["error"].get<std::string>().find("cannot be answered on the numbers shown now") !=
        std::string::npos);
  const nlohmann::json listed = nlohmann::json::parse(ui::api::quiz(s));
  CHECK(listed[0]["fits"] == true);
  CHECK(listed[1]["fits"] == false);
  CHECK(listed[1]["unfit"] == why);
  // The table view asks it and says why, with nothing to press; the step's note still waits.
  s.replies[1] = ui::AppState::QuizReply{};  // as "Ask me again" leaves it
  s.set_step(s.quiz()[1].step);
  CHECK(s.question_waiting());
  CHECK(s.open_question() == -1);
  const nlohmann::json view = nlohmann::json::parse(ui::api::accessible(s, std::nullopt));
  REQUIRE(view["quiz"].size() == 1);
  CHECK(view["quiz"][0]["question"] == 1);
  CHECK(view["quiz"][0]["unfit"] == why);
  CHECK_FALSE(view["quiz"][0].contains("keys"));
  CHECK(view["note"] == "");

  // The first question, answered now, takes the first mark; the second's stays.
  s.set_step(s.quiz()[0].step);
  REQUIRE(s.answer_quiz(0, 0, 0.0f));
  CHECK(s.progress["learned_bahdanau"].size() == 2);
  CHECK(s.progress["learned_bahdanau"][1] == 'r');
  CHECK(s.lesson_done("learned_bahdanau"));

  // Train as the lesson's recipe does: the decoder writes 7 words again and the question is
  // back, answerable.
  for (int k = 0; k < 30 && s.decoder_training.losses.size() < 1500; ++k)
    s.train_decoder(1500 - static_cast<int>(s.decoder_training.losses.size()), 1e9);
  REQUIRE(s.decoder_training.losses.size() == 1500);
  s.recompute_if_needed();
  CHECK(s.scenario.n_queries() == 7);
  CHECK(s.quiz_fits(1));
  CHECK(s.scenario.quiz.size() == 2);
  s.set_step(s.quiz()[1].step);
  CHECK(s.open_question() == 1);
  CHECK(s.answer_quiz(1, s.quiz_truth_key(1), 0.0f));
  CHECK(s.replies[1].correct);
}

TEST_CASE(
    "the Picture tab gives the verdict of the question a click there answered, and says "
    "which question keeps its weights back",
    "[views][quiz]") {
  ui::set_language(ui::Lang::kEn);
  ui::AppState s;
  REQUIRE(ui::api::load_preset(s, "where_the_eye_goes"));
  REQUIRE(ui::api::set_control(s, "view", "\"picture\"") == "");
  s.set_step(s.quiz()[0].step);
  s.recompute_if_needed();
  REQUIRE(ui::picture_hidden(s));
  // Before an answer: which question the weights wait for, by its step and words.
  const std::string waits = ui::waiting_question(s);
  CHECK(waits.rfind("It waits for the question on step 3: Before you look: which patch", 0) == 0);
  nlohmann::json d = ui::describe_view(s, "picture");
  CHECK(d.dump().find("It waits for the question on step 3: Before you look") != std::string::npos);
  CHECK(ui::step_verdicts(s).empty());
  // A wrong patch for the first question: its verdict on the tab, and the second question
  // now named as the one the weights wait for.
  REQUIRE(s.answer_quiz(0, 0, 0.0f));
  const std::vector<std::string> verdicts = ui::step_verdicts(s);
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].rfind("Not quite. ", 0) == 0);
  CHECK(verdicts[0].find(s.quiz_verdict(0)) != std::string::npos);
  CHECK(ui::waiting_question(s).rfind("It waits for the question on step 3: And \"just red\"", 0) ==
        0);
  d = ui::describe_view(s, "picture");
  CHECK(d.dump().find("And \\\"just red\\\"") != std::string::npos);
  // In Chinese too.
  ui::set_language(ui::Lang::kZh);
  CHECK(ui::waiting_question(s).rfind("它在等第 3 步的问题：", 0) == 0);
  ui::set_language(ui::Lang::kEn);
}

TEST_CASE(
    "the Curve's error follows σ as the lesson's note says, and its estimate over every x "
    "is the core's Nadaraya-Watson average of all the points",
    "[views][curve]") {
  ui::set_language(ui::Lang::kEn);
  ui::AppState s;
  REQUIRE(ui::api::load_preset(s, "nadaraya_watson"));
  // The note of step 8: "the mean squared error over the 20 points is 0.668 … at 0.3 the error
  // is 0.477 …; at 2 it is 0.943".
  for (const auto& [sigma, error] :
       std::vector<std::pair<double, double>>{{1.0, 0.668}, {0.3, 0.477}, {2.0, 0.943}}) {
    INFO("sigma " << sigma);
    REQUIRE(ui::api::set_control(s, "sigma", std::to_string(sigma)) == "");
    s.recompute_if_needed();
    CHECK(ui::curve_error(s) == Approx(error).margin(0.0005));
  }
  REQUIRE(ui::api::set_control(s, "sigma", "1") == "");
  s.recompute_if_needed();
  // The estimate at 0, 2.5 and 5, against the average computed here in double.
  const std::vector<float> ys = ui::curve_estimate(s, 0.0f, 5.0f, 3);
  REQUIRE(ys.size() == 3);
  const attn::Matrix& xk = s.scenario.keys[0];
  const attn::Matrix& yk = s.scenario.values[0];
  for (int i = 0; i < 3; ++i) {
    const double x = 2.5 * i;
    double num = 0.0, den = 0.0;
    for (Eigen::Index j = 0; j < xk.rows(); ++j) {
      const double d = x - xk(j, 0);
      const double e = std::exp(-d * d / 2.0);
      num += e * yk(j, 0);
      den += e;
    }
    CHECK(ys[i] == Approx(num / den).epsilon(1e-5));
  }
  // The true function the points were drawn from, 2 sin x + x^0.8, is the lesson's.
  const attn::Matrix& truth = s.scenario.true_curve;
  REQUIRE(truth.rows() == 101);
  CHECK(truth(30, 0) == Approx(1.5));
  CHECK(truth(30, 1) == Approx(2.0 * std::sin(1.5) + std::pow(1.5, 0.8)).epsilon(1e-4));
  // The table view says the error with the summary, once the questions are answered.
  for (size_t q = 0; q < s.quiz().size(); ++q) s.show_quiz_answer(static_cast<int>(q));
  CHECK(ui::curve_summary(s).find(
            "The mean squared error of the 20 predictions is 0.668 (σ = 1).") != std::string::npos);
}

TEST_CASE(
    "with transpose on, a lesson's notes and questions say the setting they were written "
    "for, and hard attention's column formula takes no softmax",
    "[views][transpose]") {
  ui::set_language(ui::Lang::kEn);
  ui::AppState s;
  REQUIRE(ui::api::load_preset(s, "why_so_tall"));
  // A step with a note, its questions answered so that the note shows.
  for (size_t q = 0; q < s.quiz().size(); ++q) s.show_quiz_answer(static_cast<int>(q));
  // Step 4's note speaks of "the first row"; step 6's (after the softmax) of no row.
  s.set_step(5);
  REQUIRE(ui::api::set_control(s, "transpose", "true") == "");
  const std::string rowless =
      nlohmann::json::parse(ui::api::accessible(s, std::nullopt))["note"].get<std::string>();
  REQUIRE(rowless.rfind("After the softmax", 0) == 0);
  CHECK(rowless.find("untransposed") == std::string::npos);
  REQUIRE(ui::api::set_control(s, "transpose", "false") == "");
  const int noted = 3;
  s.set_step(noted);
  const std::string plain =
      nlohmann::json::parse(ui::api::accessible(s, std::nullopt))["note"].get<std::string>();
  REQUIRE(!plain.empty());
  CHECK(plain.find("untransposed") == std::string::npos);
  REQUIRE(ui::api::set_control(s, "transpose", "true") == "");
  const std::string turned =
      nlohmann::json::parse(ui::api::accessible(s, std::nullopt))["note"].get<std::string>();
  CHECK(turned == plain + " (Written for untransposed matrices: its rows are the columns here.)");
  ui::set_language(ui::Lang::kZh);
  CHECK(ui::lesson_text_shown(s, "第一行").find("未转置") != std::string::npos);
  CHECK(ui::lesson_text_shown(s, "权重") == "权重");
  ui::set_language(ui::Lang::kEn);
  // Hard attention in the column convention: one 1 in each column, no softmax.
  attn::Problem p = s.problem;
  p.hard = true;
  const std::string hard = ui::step_formula(ui::Step::kWeights, p, true);
  CHECK(hard.find("one-hot") != std::string::npos);
  CHECK(hard.find("softmax") == std::string::npos);
  p.hard = false;
  CHECK(ui::step_formula(ui::Step::kWeights, p, true).find("softmax over each column") !=
        std::string::npos);
}
