// Bahdanau attention in a GRU encoder–decoder (core/seq2seq.h): the float32 forward against a
// float64 forward of its own (below, plain loops), every gradient against central differences of
// that float64 loss, the seeded initialisation, greedy decoding, the toy task, and training it.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/random.h"
#include "core/seq2seq.h"

namespace {

namespace s2s = attn::seq2seq;
using Vec = std::vector<double>;
using Mat = std::vector<Vec>;

// [SECTION] The float64 reference: the header's equations, one number at a time.

// x·W for a row x.
Vec times(const Vec& x, const attn::Matrix& W) {
  Vec y(static_cast<size_t>(W.cols()), 0.0);
  for (size_t i = 0; i < x.size(); ++i)
    for (int j = 0; j < W.cols(); ++j) y[j] += x[i] * static_cast<double>(W(i, j));
  return y;
}

double sigmoid(double a) {
  return 1.0 / (1.0 + std::exp(-a));
}

Vec gru(const s2s::Gru& g, const Vec& x, const Vec& h) {
  const Vec xz = times(x, g.W_xz), xr = times(x, g.W_xr), xh = times(x, g.W_xh);
  const Vec hz = times(h, g.W_hz), hr = times(h, g.W_hr), hh = times(h, g.W_hh);
  Vec out(h.size());
  for (size_t j = 0; j < h.size(); ++j) {
    const double z = sigmoid(xz[j] + hz[j] + g.b_z(0, j));
    const double r = sigmoid(xr[j] + hr[j] + g.b_r(0, j));
    const double c = std::tanh(xh[j] + r * hh[j] + g.b_h(0, j));
    out[j] = z * h[j] + (1.0 - z) * c;
  }
  return out;
}

struct RefForward {
  Mat enc_states, queries, scores, weights, contexts, dec_states, logits, probs;
  double loss = 0.0;
};

RefForward reference_forward(const s2s::Params& p, const std::vector<int>& src,
                             const std::vector<int>& tgt) {
  const int h = p.sizes.hidden, a = p.sizes.attention, e = p.sizes.embed;
  const int V = p.sizes.tgt_vocab;
  RefForward f;
  Vec state(h, 0.0);
  for (int x : src) {
    Vec emb(e);
    for (int j = 0; j < e; ++j) emb[j] = p.embed_src(x, j);
    state = gru(p.encoder, emb, state);
    f.enc_states.push_back(state);
  }
  Mat keys;
  for (const Vec& hi : f.enc_states) keys.push_back(times(hi, p.W_k));
  Vec s = f.enc_states.back();
  for (size_t t = 0; t < tgt.size(); ++t) {
    f.queries.push_back(s);
    const Vec qp = times(s, p.W_q);
    Vec scores;
    for (const Vec& k : keys) {
      double score = 0.0;
      for (int u = 0; u < a; ++u) score += std::tanh(qp[u] + k[u]) * p.w_v(u, 0);
      scores.push_back(score);
    }
    double mx = scores[0], sum = 0.0;
    for (double v : scores) mx = std::max(mx, v);
    Vec alpha;
    for (double v : scores) sum += std::exp(v - mx);
    for (double v : scores) alpha.push_back(std::exp(v - mx) / sum);
    Vec c(h, 0.0);
    for (size_t i = 0; i < alpha.size(); ++i)
      for (int j = 0; j < h; ++j) c[j] += alpha[i] * f.enc_states[i][j];
    const int y = t == 0 ? s2s::kBos : tgt[t - 1];
    Vec in(e + h);
    for (int j = 0; j < e; ++j) in[j] = p.embed_tgt(y, j);
    for (int j = 0; j < h; ++j) in[e + j] = c[j];
    s = gru(p.decoder, in, s);
    Vec sc(s);
    sc.insert(sc.end(), c.begin(), c.end());
    Vec o = times(sc, p.W_out);
    for (int v = 0; v < V; ++v) o[v] += p.b_out(0, v);
    double omax = o[0], z = 0.0;
    for (double v : o) omax = std::max(omax, v);
    for (double v : o) z += std::exp(v - omax);
    Vec pr;
    for (double v : o) pr.push_back(std::exp(v - omax) / z);
    f.loss += std::log(z) + omax - o[tgt[t]];
    f.scores.push_back(scores);
    f.weights.push_back(alpha);
    f.contexts.push_back(c);
    f.dec_states.push_back(s);
    f.logits.push_back(o);
    f.probs.push_back(pr);
  }
  f.loss /= static_cast<double>(tgt.size());
  return f;
}

// [SECTION] Helpers

// float32 against float64, as in tests/core/compare.h: absolute up to 1, relative above.
constexpr double kForwardTolerance = 1e-5;

double max_scaled_diff(const attn::Matrix& got, const Mat& want, std::string* where) {
  REQUIRE(got.rows() == static_cast<int>(want.size()));
  double worst = 0.0;
  for (int i = 0; i < got.rows(); ++i) {
    REQUIRE(got.cols() == static_cast<int>(want[i].size()));
    for (int j = 0; j < got.cols(); ++j) {
      const double d = std::fabs(got(i, j) - want[i][j]) / std::max(1.0, std::fabs(want[i][j]));
      if (d >= worst) {
        worst = d;
        *where = "(" + std::to_string(i) + ", " + std::to_string(j) + ") got " +
                 std::to_string(got(i, j)) + " want " + std::to_string(want[i][j]);
      }
    }
  }
  return worst;
}

#define CHECK_CLOSE(got, want)                           \
  do {                                                   \
    std::string where;                                   \
    const double d = max_scaled_diff(got, want, &where); \
    INFO(#got << ": worst " << d << " at " << where);    \
    CHECK(d <= kForwardTolerance);                       \
  } while (0)

// Every weight, biases included, uniform in ±scale from the seed (init_params leaves biases 0).
s2s::Params random_params(const s2s::Sizes& sizes, uint64_t seed, double scale) {
  s2s::Params p = s2s::init_params(sizes, seed);
  uint64_t k = 0;
  s2s::for_each_param(p, [&](const char*, attn::Matrix& m) {
    for (int i = 0; i < m.size(); ++i)
      m.data()[i] = static_cast<float>(scale * (2.0 * attn::uniform01(seed * 977 + k, i) - 1.0));
    ++k;
  });
  return p;
}

std::vector<int> random_tokens(int n, int lo, int hi, uint64_t seed) {
  std::vector<int> t;
  for (int i = 0; i < n; ++i)
    t.push_back(lo + std::min(hi - lo - 1, static_cast<int>(attn::uniform01(seed, i) * (hi - lo))));
  return t;
}

}  // namespace

// [SECTION] Forward

TEST_CASE("seq2seq forward matches the float64 reference", "[seq2seq]") {
  struct Case {
    s2s::Sizes sizes;
    int n, m;
    double scale;
  };
  const Case cases[] = {
      {{10, 10, 8, 16, 16}, 6, 7, 0.0},    // init_params as trained
      {{10, 10, 8, 16, 16}, 12, 12, 1.0},  // the largest lengths, every weight ±1
      {{5, 7, 3, 4, 2}, 1, 1, 1.5},        // one source word, one target word
      {{16, 16, 16, 16, 16}, 9, 4, 0.7},   // the largest sizes
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    ++seed;
    const s2s::Params p =
        c.scale > 0 ? random_params(c.sizes, seed, c.scale) : s2s::init_params(c.sizes, seed);
    const std::vector<int> src = random_tokens(c.n, 0, c.sizes.src_vocab, seed * 3);
    const std::vector<int> tgt = random_tokens(c.m, 0, c.sizes.tgt_vocab, seed * 5);
    INFO("case n=" << c.n << " m=" << c.m << " hidden=" << c.sizes.hidden);
    const s2s::Forward f = s2s::forward(p, src, tgt);
    const RefForward r = reference_forward(p, src, tgt);
    CHECK_CLOSE(f.enc_states, r.enc_states);
    CHECK_CLOSE(f.queries, r.queries);
    CHECK_CLOSE(f.scores, r.scores);
    CHECK_CLOSE(f.weights, r.weights);
    CHECK_CLOSE(f.contexts, r.contexts);
    CHECK_CLOSE(f.dec_states, r.dec_states);
    CHECK_CLOSE(f.logits, r.logits);
    CHECK_CLOSE(f.probs, r.probs);
    CHECK(std::fabs(f.loss - r.loss) <= kForwardTolerance * std::max(1.0, r.loss));
    for (int t = 0; t < c.m; ++t) CHECK(std::fabs(f.weights.row(t).sum() - 1.0f) <= 1e-6f);
  }
}

// [SECTION] Backward

TEST_CASE("seq2seq gradients match central differences of the float64 loss", "[seq2seq]") {
  struct Case {
    s2s::Sizes sizes;
    std::vector<int> src, tgt;
    double scale;
  };
  const Case cases[] = {
      {{5, 6, 3, 4, 3}, {2, 4, 3}, {3, 5, 2, s2s::kEos}, 0.8},
      {{4, 4, 2, 3, 2}, {3}, {2, 2, s2s::kEos}, 1.2},  // one source word: s_0 = h_1 = the key
      {{6, 5, 3, 4, 5}, {5, 2, 2, 4, 3}, {4, s2s::kEos}, 0.6},
  };
  uint64_t seed = 40;
  for (const Case& c : cases) {
    s2s::Params p = random_params(c.sizes, ++seed, c.scale);
    const s2s::Forward f = s2s::forward(p, c.src, c.tgt);
    const s2s::Params g = s2s::backward(p, f, c.src, c.tgt);
    std::vector<const attn::Matrix*> grads;
    s2s::for_each_param(g, [&](const char*, const attn::Matrix& m) { grads.push_back(&m); });
    size_t k = 0;
    int checked = 0;
    double worst = 0.0;
    s2s::for_each_param(p, [&](const char* name, attn::Matrix& w) {
      const attn::Matrix& gw = *grads[k++];
      REQUIRE(gw.rows() == w.rows());
      REQUIRE(gw.cols() == w.cols());
      for (int i = 0; i < w.rows(); ++i)
        for (int j = 0; j < w.cols(); ++j) {
          const float x = w(i, j), up = x + 1e-3f, down = x - 1e-3f;
          w(i, j) = up;
          const double l_up = reference_forward(p, c.src, c.tgt).loss;
          w(i, j) = down;
          const double l_down = reference_forward(p, c.src, c.tgt).loss;
          w(i, j) = x;
          const double fd = (l_up - l_down) / (static_cast<double>(up) - static_cast<double>(down));
          const double err = std::fabs(gw(i, j) - fd);
          worst = std::max(worst, err / (1e-4 + std::fabs(fd)));
          INFO(name << "(" << i << ", " << j << "): analytic " << gw(i, j)
                    << ", central difference " << fd);
          CHECK(err <= 1e-5 + 1e-3 * std::fabs(fd));
          ++checked;
        }
    });
    INFO("checked " << checked);
    CHECK(checked > 100);
    WARN("seq2seq gradient case " << seed << ": " << checked
                                  << " weights, worst |analytic − fd| / (1e-4 + |fd|) = " << worst);
  }
}

TEST_CASE("seq2seq backward accumulates scaled, and a row's weights sum to 1", "[seq2seq]") {
  const s2s::Sizes sizes{6, 6, 3, 4, 3};
  const s2s::Params p = random_params(sizes, 7, 0.9);
  const std::vector<int> src{2, 3, 4}, tgt{5, s2s::kEos};
  const s2s::Forward f = s2s::forward(p, src, tgt);
  const s2s::Params g = s2s::backward(p, f, src, tgt);
  s2s::Params acc = s2s::zeros_like(p);
  s2s::accumulate_gradients(p, f, src, tgt, 0.5f, &acc);
  s2s::accumulate_gradients(p, f, src, tgt, 0.5f, &acc);
  std::vector<const attn::Matrix*> a;
  s2s::for_each_param(acc, [&](const char*, const attn::Matrix& m) { a.push_back(&m); });
  size_t k = 0;
  s2s::for_each_param(g, [&](const char* name, const attn::Matrix& m) {
    INFO(name);
    CHECK((m - *a[k++]).cwiseAbs().maxCoeff() <= 1e-6f * std::max(1.0f, m.cwiseAbs().maxCoeff()));
  });
}

TEST_CASE("seq2seq Adam's first step moves each weight by lr against its gradient", "[seq2seq]") {
  // m̂ / √v̂ = g / |g| on the first step, whatever the clipping scaled g by.
  const s2s::Sizes sizes{6, 6, 3, 4, 3};
  const s2s::Params p0 = random_params(sizes, 9, 0.7);
  const std::vector<s2s::Pair> batch = {{{2, 3, 4}, {3, 2, s2s::kEos}, {}},
                                        {{5, 2}, {4, 5, s2s::kEos}, {}}};
  s2s::Params g = s2s::zeros_like(p0);
  double loss = 0.0;
  for (const s2s::Pair& pair : batch) {
    const s2s::Forward f = s2s::forward(p0, pair.src, pair.tgt);
    loss += f.loss / 2;
    s2s::accumulate_gradients(p0, f, pair.src, pair.tgt, 0.5f, &g);
  }
  s2s::Params p = p0;
  s2s::Adam adam;
  adam.lr = 0.01f;
  CHECK(std::fabs(s2s::train_step(&p, &adam, batch) - loss) <= 1e-6);
  CHECK(adam.steps == 1);
  std::vector<const attn::Matrix*> before, grad;
  s2s::for_each_param(p0, [&](const char*, const attn::Matrix& m) { before.push_back(&m); });
  s2s::for_each_param(g, [&](const char*, const attn::Matrix& m) { grad.push_back(&m); });
  size_t k = 0;
  int moved = 0;
  s2s::for_each_param(p, [&](const char* name, const attn::Matrix& m) {
    const attn::Matrix &w0 = *before[k], &gk = *grad[k];
    ++k;
    for (int i = 0; i < m.size(); ++i) {
      const float gi = gk.data()[i], step = m.data()[i] - w0.data()[i];
      if (std::fabs(gi) < 1e-5f) continue;  // ε = 1e-8 no longer negligible against |g|
      INFO(name << "[" << i << "]: gradient " << gi << ", step " << step);
      CHECK(std::fabs(step + 0.01f * (gi > 0 ? 1.0f : -1.0f)) <= 1e-5f);
      ++moved;
    }
  });
  CHECK(moved > 100);
  CHECK(s2s::train_step(&p, &adam, batch) < loss);
}

// [SECTION] Initialisation

TEST_CASE("seq2seq init_params is deterministic from the seed", "[seq2seq]") {
  const s2s::Sizes sizes;
  const s2s::Params a = s2s::init_params(sizes, 42), b = s2s::init_params(sizes, 42);
  const s2s::Params c = s2s::init_params(sizes, 43);
  std::vector<const attn::Matrix*> bs, cs;
  s2s::for_each_param(b, [&](const char*, const attn::Matrix& m) { bs.push_back(&m); });
  s2s::for_each_param(c, [&](const char*, const attn::Matrix& m) { cs.push_back(&m); });
  size_t k = 0;
  uint64_t hash = 0;
  int matrices = 0;
  s2s::for_each_param(a, [&](const char* name, const attn::Matrix& m) {
    INFO(name);
    const std::string n = name;
    CHECK(m == *bs[k]);
    const bool bias = n == "b_out" || n.find(".b_") != std::string::npos;
    if (bias) {
      CHECK(m.isZero());
    } else {
      CHECK(m != *cs[k]);
      const double limit = n.rfind("embed", 0) == 0 ? 1.0 : std::sqrt(6.0 / (m.rows() + m.cols()));
      CHECK(m.cwiseAbs().maxCoeff() <= limit);
      CHECK(m.cwiseAbs().maxCoeff() > 0.5 * limit);
    }
    for (int i = 0; i < m.size(); ++i) {
      uint32_t bits = 0;
      std::memcpy(&bits, m.data() + i, 4);
      hash = attn::splitmix64(hash ^ bits);
    }
    ++k, ++matrices;
  });
  CHECK(matrices == 25);
  CHECK(a.embed_src.rows() == 10);
  CHECK(a.decoder.W_xz.rows() == sizes.embed + sizes.hidden);
  CHECK(a.W_out.rows() == 2 * sizes.hidden);
  // The same bits on every platform: this suite runs natively and under node (WASM).
  CHECK(hash == UINT64_C(0x7cc90fdff7de2013));
}

// [SECTION] Greedy decoding and the toy task

TEST_CASE("seq2seq greedy decoding is the forward fed its own words", "[seq2seq]") {
  const s2s::Sizes sizes;
  const s2s::Params p = random_params(sizes, 11, 0.8);
  const std::vector<int> src{2, 5, 8, 6, 9};
  const s2s::Decoded d = s2s::greedy_decode(p, src, 12);
  REQUIRE(!d.tokens.empty());
  REQUIRE(d.tokens.size() <= 12);
  CHECK((d.tokens.back() == s2s::kEos || d.tokens.size() == 12));
  CHECK(d.alignment.rows() == static_cast<int>(d.tokens.size()));
  CHECK(d.alignment.cols() == static_cast<int>(src.size()));
  const s2s::Forward f = s2s::forward(p, src, d.tokens);
  CHECK(f.weights == d.alignment);
  CHECK(f.probs == d.probs);
  for (int t = 0; t < f.probs.rows(); ++t) {
    Eigen::Index best = 0;
    f.probs.row(t).maxCoeff(&best);
    CHECK(best == d.tokens[t]);
  }
  const s2s::Decoded one = s2s::greedy_decode(p, src, 1);
  CHECK(one.tokens.size() == 1);
  CHECK(one.alignment.row(0) == d.alignment.row(0));
}

TEST_CASE("seq2seq toy translation swaps each adjective and its noun", "[seq2seq]") {
  const std::vector<s2s::Pair> pairs = s2s::toy_translation(5, 300);
  REQUIRE(pairs.size() == 300);
  std::set<size_t> lengths;
  int swapped = 0;
  for (const s2s::Pair& pair : pairs) {
    REQUIRE(pair.tgt.size() == pair.src.size() + 1);
    REQUIRE(pair.aligned.size() == pair.tgt.size());
    CHECK(pair.tgt.back() == s2s::kEos);
    CHECK(pair.aligned.back() == -1);
    lengths.insert(pair.src.size());
    for (size_t t = 0; t + 1 < pair.tgt.size(); ++t) {
      CHECK(pair.src[pair.aligned[t]] == pair.tgt[t]);
      CHECK(pair.src[t] >= 2);
      if (pair.aligned[t] != static_cast<int>(t)) ++swapped;
    }
  }
  CHECK(lengths == std::set<size_t>{2, 3, 4, 5, 6});
  CHECK(swapped > 200);
  CHECK(std::string(s2s::toy_source_words()[6]) == "dog");
  CHECK(std::string(s2s::toy_target_words()[6]) == "hunto");
  CHECK(s2s::toy_translation(5, 300)[17].src == pairs[17].src);
}

// [SECTION] Training

namespace {

std::string sentence(const std::vector<int>& ids, const char* const* words) {
  std::string s;
  for (int id : ids) s += (s.empty() ? "" : " ") + std::string(words[id]);
  return s;
}

std::string alignment_text(const s2s::Pair& p, const attn::Matrix& weights) {
  std::string s;
  char cell[16];
  for (int t = 0; t < weights.rows(); ++t) {
    s += "\n  " + std::string(s2s::toy_target_words()[p.tgt[t]]) + ":";
    for (int i = 0; i < weights.cols(); ++i) {
      std::snprintf(cell, sizeof cell, " %.2f", weights(t, i));
      s += cell;
    }
  }
  return s;
}

}  // namespace

TEST_CASE("seq2seq learns the toy translation and its alignment", "[seq2seq][train]") {
  constexpr int kSteps = 1500, kBatch = 16;
  for (uint64_t seed : {1, 2, 3}) {
    const auto start = std::chrono::steady_clock::now();
    double loss = 0.0;
    const s2s::Params params = s2s::train_toy(seed, kSteps, kBatch, &loss);
    // Every held-out sentence of the pairs train_toy drew from, once.
    std::vector<s2s::Pair> held_out;
    std::set<std::vector<int>> held_out_seen;
    for (const s2s::Pair& p : s2s::toy_translation(seed * 1000, 2 * kSteps * kBatch))
      if (s2s::toy_held_out(p.src) && held_out_seen.insert(p.src).second) held_out.push_back(p);
    const double train_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int exact = 0, words = 0, aligned = 0, argmax = 0, read = 0;
    double mass = 0.0;
    for (const s2s::Pair& p : held_out) {
      const s2s::Decoded d = s2s::greedy_decode(params, p.src, 12);
      if (d.tokens == p.tgt) ++exact;
      // The alignment rows of the words the model decoded, where it decoded them right.
      for (size_t t = 0; t + 1 < p.tgt.size() && t < d.tokens.size(); ++t) {
        const float w = d.alignment(static_cast<int>(t), p.aligned[t]);
        Eigen::Index best = 0;
        d.alignment.row(static_cast<int>(t)).maxCoeff(&best);
        mass += w;
        aligned += w >= 0.5f;
        argmax += best == p.aligned[t];
        // h_i and h_{i+1} have both read word i (the encoder runs left to right).
        const int next = std::min(p.aligned[t] + 1, static_cast<int>(p.src.size()) - 1);
        read += w + (next != p.aligned[t] ? d.alignment(static_cast<int>(t), next) : 0.0f) >= 0.5f;
        ++words;
      }
    }
    const double accuracy = static_cast<double>(exact) / held_out.size();
    const double aligned_share = static_cast<double>(aligned) / words;
    const s2s::Pair* longest = &held_out[0];
    for (const s2s::Pair& p : held_out)
      if (p.src.size() > longest->src.size()) longest = &p;
    const s2s::Pair& example = *longest;
    WARN("seed " << seed << ": " << kSteps << " steps of " << kBatch << " in " << train_seconds
                 << " s, last loss " << loss << "; " << held_out.size()
                 << " held-out sentences: exact " << accuracy
                 << "; target words with weight >= 0.5 "
                 << "on their source word " << aligned_share << ", its weight the row's largest "
                 << static_cast<double>(argmax) / words << ", mean weight there " << mass / words
                 << "; >= 0.5 on it and the next state together "
                 << static_cast<double>(read) / words << "\ne.g. "
                 << sentence(example.src, s2s::toy_source_words()) << " → "
                 << sentence(s2s::greedy_decode(params, example.src, 12).tokens,
                             s2s::toy_target_words())
                 << alignment_text(example, s2s::greedy_decode(params, example.src, 12).alignment));
    // Measured (native and node, 1500 steps): exact 1.00 for each seed; weight >= 0.5 on the
    // source word for 0.64, 0.98, 0.90 of the target words (seeds 1, 2, 3), and on it and the
    // next state together for 1.00, 0.99, 1.00. Seed 1 attends to a noun through the verb after it
    // (h_{i+1} has read word i too): the floors leave room for that and for other platforms' libm.
    CHECK(held_out.size() >= 80);
    CHECK(accuracy >= 0.95);
    CHECK(aligned_share >= 0.55);
    CHECK(static_cast<double>(read) / words >= 0.9);
  }
}

TEST_CASE("the toy trainer a step at a time is train_toy, and never runs out of pairs",
          "[seq2seq][train]") {
  // The page takes a few steps a frame: three then two are train_toy's five, bit for bit.
  s2s::ToyTrainer trainer(s2s::init_params(s2s::Sizes{}, 7), 7, 4);
  for (int k = 0; k < 3; ++k) trainer.step();
  s2s::ToyTrainer copy = trainer;  // the page's state is copied with it
  for (int k = 0; k < 2; ++k) copy.step();
  double loss = 0.0;
  const s2s::Params whole = s2s::train_toy(7, 5, 4, &loss);
  CHECK(copy.steps() == 5);
  CHECK((copy.params.W_out == whole.W_out));
  CHECK((copy.params.encoder.W_hh == whole.encoder.W_hh));
  CHECK((copy.params.embed_src == whole.embed_src));
  // The pairs stream: toy_translation's k pairs are the stream's first k.
  s2s::ToyPairs stream(11);
  const std::vector<s2s::Pair> listed = s2s::toy_translation(11, 20);
  for (const s2s::Pair& p : listed) CHECK(stream.next().src == p.src);
  // A seed whose first two pairs are both held out: one step of one pair once divided by the
  // count of the pairs left (none). The stream draws on past them.
  uint64_t seed = 0;
  for (;; ++seed) {
    const std::vector<s2s::Pair> two = s2s::toy_translation(seed * 1000, 2);
    if (s2s::toy_held_out(two[0].src) && s2s::toy_held_out(two[1].src)) break;
  }
  double one = -1.0;
  s2s::train_toy(seed, 1, 1, &one);
  CHECK(std::isfinite(one));
  CHECK(one > 0.0);
}
