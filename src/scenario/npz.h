// NumPy's files as scenario data: .npy (one array) and .npz (a ZIP of them, stored or
// deflated, as np.savez and np.savez_compressed write it), read without third-party code, so
// that a course can bring the Q, K and V of a real model (docs/cli.md: "Bring your own data").
//
// Formats: NumPy's NEP 1 (.npy versions 1 to 3: little- or big-endian floats and integers,
// C or Fortran order) and PKWARE's APPNOTE (ZIP without ZIP64 or encryption; deflate is RFC
// 1951; each entry's CRC-32 is checked). Errors name the file or entry and the problem, in
// one line.
//
// Reading is in two parts, so that a file can be refused for its names and shapes before any
// number is converted or inflated: read_array_headers reads every array's name, dtype, shape
// and order (for an .npz from its central directory and the first bytes of each entry: only
// the .npy header is inflated), and read_arrays_data then reads the numbers of the arrays
// wanted, straight into their float32 vectors (a deflated entry is inflated through a 128 KB
// window, never whole).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace scenario {

// The most numbers one array may hold (64 MB as float32), and an .npz in all: the scenario's
// own limits are checked when the array becomes a field (or before its numbers are read, by
// check_array_field).
constexpr size_t kMaxArrayNumbers = size_t{1} << 24;
constexpr size_t kMaxFileNumbers = 2 * kMaxArrayNumbers;
// The longest .npy header read (NumPy itself reads at most 10000 bytes unless told more).
constexpr size_t kMaxNpyHeaderBytes = 65536;

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

// One array as its .npy header describes it, and where its bytes are in the file.
struct ArrayHeader {
  std::string name;           // as NamedArray::name
  std::vector<size_t> shape;  // as NumPy gives it
  size_t count = 0;           // numbers: the product of the shape
  char kind = 'f';            // 'f', 'i', 'u' or 'b'
  int item_bytes = 4;         // 1, 2, 4 or 8
  bool big_endian = false;
  bool fortran = false;  // stored column-major (the first index varies fastest)

  // Where it is. A lone .npy: method -1, the file itself. An .npz entry: method 0 (stored)
  // or 8 (deflate), its bytes at [at, at + stored_bytes) and its CRC-32.
  std::string entry;  // the .npz entry's name as errors show it ("keys.npy"); "" for a .npy
  int method = -1;
  size_t at = 0, stored_bytes = 0;
  size_t npy_bytes = 0;  // the whole .npy, header and data (inflated)
  size_t data_at = 0;    // where the numbers start within the .npy
  uint32_t crc32 = 0;
};

struct HeadersResult {
  std::vector<ArrayHeader> arrays;
  std::string error;  // as ArraysResult's
  bool ok() const { return error.empty(); }
};

// (a) The headers only: names, dtypes, shapes, orders and where the numbers are. Every check
// that needs no number is made here: the dtype, the limits above, and that the data is as
// long as the shape says (an .npz entry: by the sizes its ZIP headers give). Nothing of the
// size of the data is allocated.
//
// One .npy file's bytes, as the array `name`; errors are "<problem>".
HeadersResult read_npy_header(const std::string& bytes, const std::string& name);
// An .npz file's bytes: every .npy entry, in the archive's order; errors are "<problem>" or
// "<entry>: <problem>".
HeadersResult read_npz_headers(const std::string& bytes);
// The bytes of the .npy or .npz file `file_name` (told apart by their first bytes; a path
// is fine). A lone .npy array is named by the file: "dir/keys.npy" is "keys". Errors are
// "<file name>: <problem>" or "<file name>: <entry>: <problem>".
HeadersResult read_array_headers(const std::string& bytes, const std::string& file_name);

// (b) The numbers of the array h of the file `bytes` (as its headers were read), into *out
// (resized to h.count), row-major; "" or the problem ("<entry>: <problem>" in an .npz:
// "keys.npy: damaged (CRC-32 does not match)").
std::string read_array_data(const std::string& bytes, const ArrayHeader& h,
                            std::vector<float>* out);
// The numbers of every array of `headers`; errors are "<file name>: ..." as above.
ArraysResult read_arrays_data(const std::string& bytes, const HeadersResult& headers,
                              const std::string& file_name);

// Both parts at once.
ArraysResult read_npy(const std::string& bytes, const std::string& name);
ArraysResult read_npz(const std::string& bytes);
ArraysResult read_arrays(const std::string& bytes, const std::string& file_name);

// The scenario JSON with each array set as the field of its name (x, queries, keys, values,
// W_q, W_k, W_v, W_o, W, w_v, a token model's embed and unembed, and a stack's layer weights
// "layers.L.W_q" … as PyTorch's state dicts name them), read and validated as parse() does.
// An array named "x" replaces queries, keys and values, and the other way round. Layer
// weights go into the scenario's "layers" (L one of them: "layers.2.W_q: the scenario has 2
// layers (layers.0 to layers.1)"), or, when it has none, into layers made for them, numbered
// from 0 without a gap ("layers.1: no array is named for this layer …").
ParseResult parse_with_arrays(const std::string& json, const std::vector<NamedArray>& arrays);
// The same for arrays whose numbers are elsewhere: numbers[k] (row-major float32) for
// headers[k]. Zeros of each array's size stand in for its numbers to try its shapes in a
// scenario before they are read (open_arrays).
ParseResult parse_with_arrays(const std::string& json, const std::vector<ArrayHeader>& headers,
                              const std::vector<FloatArray>& numbers);
// What parse_with_arrays would say of the array `name` of `shape` in any scenario, from its
// name and shape alone: "W_x: is not a matrix field (x, queries, ...)", or a shape no field of
// that name may have ("keys.shape[1]: is 4096, must be at most 1024": its number of
// dimensions, or a size past kMaxBatch, kMaxRows, kMaxCols); "" when it may fit.
std::string check_array_field(const std::string& name, const std::vector<size_t>& shape);

// RFC 1951 raw deflate data, inflated; false with *error set when it is not valid or would
// pass `max_bytes`.
bool inflate(const unsigned char* in, size_t size, size_t max_bytes, std::string* out,
             std::string* error);

}  // namespace scenario
