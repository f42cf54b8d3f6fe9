// NumPy's files as scenario data: .npy (one array) and .npz (a ZIP of them, stored or
// deflated, as np.savez and np.savez_compressed write it), read without third-party code, so
// that a course can bring the Q, K and V of a real model (README: "Bring your own data").
//
// Formats: NumPy's NEP 1 (.npy versions 1 to 3: little- or big-endian floats and integers,
// C or Fortran order) and PKWARE's APPNOTE (ZIP without ZIP64 or encryption; deflate is RFC
// 1951). Errors name the file or entry and the problem, in one line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace scenario {

// The most numbers one array may hold (64 MB as float32): the scenario's own limits are
// checked after, when the array becomes a field.
constexpr size_t kMaxArrayNumbers = size_t{1} << 24;

struct NamedArray {
  std::string name;           // the entry's name without ".npy": "x", "W_q", ...
  std::vector<size_t> shape;  // as NumPy gives it
  std::vector<float> data;    // row-major (C order), converted to float32
};

struct ArraysResult {
  std::vector<NamedArray> arrays;
  std::string error;  // "" on success, else the problem (see each reader)
  bool ok() const { return error.empty(); }
};

// One .npy file's bytes, as the array `name`; errors are "<problem>".
ArraysResult read_npy(const std::string& bytes, const std::string& name);
// An .npz file's bytes: every .npy entry, in the archive's order; errors are "<problem>" or
// "<entry>: <problem>".
ArraysResult read_npz(const std::string& bytes);
// The bytes of the .npy or .npz file `file_name` (told apart by their first bytes; a path
// is fine). A lone .npy array is named by the file: "dir/keys.npy" is "keys". Errors are
// "<file name>: <problem>" or "<file name>: <entry>: <problem>".
ArraysResult read_arrays(const std::string& bytes, const std::string& file_name);

// The scenario JSON with each array set as the field of its name (x, queries, keys, values,
// W_q, W_k, W_v, W_o, W, w_v), read and validated as parse() does. An array named "x"
// replaces queries, keys and values, and the other way round.
ParseResult parse_with_arrays(const std::string& json, const std::vector<NamedArray>& arrays);

// RFC 1951 raw deflate data, inflated; false with *error set when it is not valid or would
// pass `max_bytes`.
bool inflate(const unsigned char* in, size_t size, size_t max_bytes, std::string* out,
             std::string* error);

}  // namespace scenario
