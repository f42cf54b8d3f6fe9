// What opening (or refusing) a NumPy file costs natively: the time ui::api::open_arrays
// takes, as "Open a file…" and loadArrays call it, and the memory it takes on top of the
// file's own bytes: a refused file must cost little (a 64 MB .npy, a 131 KB .npz "bomb" that
// would inflate to far more).
//
//   npz_bench FILE [--lesson NAME | --json SCENARIO] [--after FILE0] [--read] [--repeat N]
//
// FILE is read into memory first (as the page holds it), then a lesson is loaded (toy_2d
// unless told; --json: a scenario's text instead; --after: then FILE0 opened in it, not
// timed); then, N times (1 by default; a file that is opened changes the lesson, so give
// N > 1 to refusals only), open_arrays(FILE), or with --read scenario::read_arrays alone.
// Each call prints one line:
//
//   T ms, peak +P MB over the R MB resident before (F MB of it the file): ok | the error
//
// "peak" is the process's high-water mark of resident memory (VmHWM, reset through
// /proc/self/clear_refs just before the call) minus its resident memory before the call.
//
// The files: `tests/scenario/npz_check.py --bench DIR` writes these and more
// (a Fortran-order 4096 × 4096 float32 keys.npy, a 4096 × 4096 float64 .npz of
// zeros, accepted C- and Fortran-order x.npy of 2^24 numbers, ...). Not part of the tests
// or of bench/run.sh; built by hand against a native build tree, e.g. build/native:
//
//   B=build/native
//   c++ -O2 -std=c++17 -DEIGEN_MPL2_ONLY -Isrc -isystem $B/thirdparty/include
//       bench/npz_bench.cpp $B/src/app/libap_ui_model.a $B/libap_scenario.a
//       $B/src/core/libap_core.a -lpthread -o build/npz_bench        (one line)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "app/model/api.h"
#include "app/model/app_state.h"
#include "scenario/npz.h"

namespace {

// A field of /proc/self/status in kB ("VmRSS", "VmHWM"), -1 when not there.
long status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return std::strtol(line.c_str() + n + 1, nullptr, 10);
  return -1;
}

// Resets VmHWM to the resident memory now (Linux 4.0 and later).
void reset_peak() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

bool read_file(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    std::fprintf(stderr, "npz_bench: cannot open %s\n", path.c_str());
    return false;
  }
  bytes->assign(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  return true;
}

double mb(double kb) {
  return kb / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: npz_bench FILE [--lesson NAME | --json SCENARIO] [--read] [--repeat N]\n");
    return 2;
  }
  const std::string path = argv[1];
  std::string lesson = "toy_2d", json, after;
  bool read_only = false;
  int repeat = 1;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lesson" && i + 1 < argc) {
      lesson = argv[++i];
    } else if (a == "--json" && i + 1 < argc) {
      json = argv[++i];
    } else if (a == "--after" && i + 1 < argc) {
      after = argv[++i];
    } else if (a == "--read") {
      read_only = true;
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "npz_bench: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  std::string bytes;
  if (!read_file(path, &bytes)) return 2;
  const std::string name = path.substr(path.find_last_of('/') + 1);

  ui::AppState s;
  const std::string loaded = json.empty()
                                 ? (ui::api::load_preset(s, lesson) ? "" : "no lesson " + lesson)
                                 : ui::api::set_scenario(s, json);
  if (!loaded.empty()) {
    std::fprintf(stderr, "npz_bench: %s\n", loaded.c_str());
    return 2;
  }
  if (!after.empty()) {
    std::string first;
    if (!read_file(after, &first)) return 2;
    const std::string e = ui::api::open_arrays(s, first, after.substr(after.find_last_of('/') + 1));
    if (!e.empty()) {
      std::fprintf(stderr, "npz_bench: %s\n", e.c_str());
      return 2;
    }
  }
  s.recompute_if_needed();

  for (int k = 0; k < repeat; ++k) {
#if defined(__GLIBC__)
    malloc_trim(0);  // what the last call freed leaves the resident memory
#endif
    reset_peak();
    const long before = status_kb("VmRSS");
    const auto t0 = std::chrono::steady_clock::now();
    std::string error;
    if (read_only) {
      error = scenario::read_arrays(bytes, name).error;
    } else {
      error = ui::api::open_arrays(s, bytes, name);
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const long peak = status_kb("VmHWM");
    std::printf(
        "%.2f ms, peak +%.1f MB over the %.1f MB resident before (%.1f MB of it the file): %s\n",
        ms, mb(static_cast<double>(peak - before)), mb(static_cast<double>(before)),
        static_cast<double>(bytes.size()) / (1 << 20), error.empty() ? "ok" : error.c_str());
  }
  return 0;
}
