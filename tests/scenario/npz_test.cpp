// NumPy's .npy and .npz files as scenario data: every dtype and order the reader takes, the
// ZIP container (stored entries; np.savez_compressed's deflate is checked against NumPy itself
// by npz_check.py), inflate on streams of each block type, and one error per problem.
//
// [SECTION] Helpers
// [SECTION] .npy
// [SECTION] .npz
// [SECTION] Inflate
// [SECTION] Arrays as scenario fields
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "npy_bytes.h"
#include "scenario/npz.h"
#include "scenario/scenario.h"

namespace {

using test::bytes_of;
using test::f32;
using test::npy;
using test::put_le;
using test::zip;

//-----------------------------------------------------------------------------
// [SECTION] Helpers
//-----------------------------------------------------------------------------

scenario::NamedArray one(const scenario::ArraysResult& r) {
  REQUIRE(r.error == "");
  REQUIRE(r.arrays.size() == 1);
  return r.arrays[0];
}

std::string error_of(const std::string& bytes, const std::string& name = "a.npy") {
  const scenario::ArraysResult r = scenario::read_arrays(bytes, name);
  CHECK(r.arrays.empty());
  return r.error;
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] .npy
//-----------------------------------------------------------------------------

TEST_CASE("npy: float32 in C order is read as it is, named by its file") {
  const auto a = one(
      scenario::read_arrays(npy("<f4", "(2, 3)", f32({1, 2, 3, 4, 5, 6.5f})), "some/dir/keys.npy"));
  CHECK(a.name == "keys");
  CHECK(a.shape == std::vector<size_t>{2, 3});
  CHECK(a.data == std::vector<float>{1, 2, 3, 4, 5, 6.5f});
}

TEST_CASE("npy: Fortran order is put back in row-major order") {
  // The 2 × 3 matrix [[1 2 3] [4 5 6]] stored column by column.
  const auto a = one(scenario::read_npy(npy("<f4", "(2, 3)", f32({1, 4, 2, 5, 3, 6}), true), "x"));
  CHECK(a.data == std::vector<float>{1, 2, 3, 4, 5, 6});
  // And in three dimensions, (2, 2, 2): element [i][j][k] is at i + 2j + 4k.
  std::vector<float> stored(8);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) stored[i + 2 * j + 4 * k] = 100.0f * i + 10.0f * j + k;
  const auto b = one(scenario::read_npy(npy("<f4", "(2, 2, 2)", f32(stored), true), "x"));
  CHECK(b.data == std::vector<float>{0, 1, 10, 11, 100, 101, 110, 111});
}

TEST_CASE("npy: float64, float16, integers, booleans and big-endian become float32") {
  CHECK(one(scenario::read_npy(npy("<f8", "(3,)", bytes_of(std::vector<double>{0.1, -2, 1e300})),
                               "w_v"))
            .data == std::vector<float>{0.1f, -2.0f, INFINITY});
  // float16: 1.0 (0x3c00), -2.5 (0xc100), the smallest subnormal 2^-24 (0x0001), inf (0x7c00).
  CHECK(
      one(scenario::read_npy(
              npy("<f2", "(4,)", bytes_of(std::vector<uint16_t>{0x3c00, 0xc100, 1, 0x7c00})), "h"))
          .data == std::vector<float>{1.0f, -2.5f, 0x1p-24f, INFINITY});
  CHECK(one(scenario::read_npy(npy("<i2", "(3,)", bytes_of(std::vector<int16_t>{-7, 0, 300})), "i"))
            .data == std::vector<float>{-7, 0, 300});
  CHECK(one(scenario::read_npy(npy("|i1", "(2,)", bytes_of(std::vector<int8_t>{-128, 127})), "i"))
            .data == std::vector<float>{-128, 127});
  CHECK(one(scenario::read_npy(npy("<u4", "(2,)", bytes_of(std::vector<uint32_t>{4000000000u, 1})),
                               "u"))
            .data == std::vector<float>{4e9f, 1});
  CHECK(one(scenario::read_npy(npy("<i8", "(1,)", bytes_of(std::vector<int64_t>{-5})), "i")).data ==
        std::vector<float>{-5});
  CHECK(one(scenario::read_npy(npy("|b1", "(3,)", std::string("\1\0\1", 3)), "b")).data ==
        std::vector<float>{1, 0, 1});
  // Big-endian float32 1.5 is 3f c0 00 00; int32 -2 is ff ff ff fe.
  CHECK(one(scenario::read_npy(npy(">f4", "(1,)", std::string("\x3f\xc0\x00\x00", 4)), "f")).data ==
        std::vector<float>{1.5f});
  CHECK(one(scenario::read_npy(npy(">i4", "(1,)", std::string("\xff\xff\xff\xfe", 4)), "i")).data ==
        std::vector<float>{-2});
}

TEST_CASE("npy: versions 2 and 3 have a four-byte header length") {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  std::string v2 = "\x93NUMPY\x02";
  v2.push_back('\0');
  put_le(&v2, header.size(), 4);
  v2 += header + f32({42});
  CHECK(one(scenario::read_npy(v2, "x")).data == std::vector<float>{42});
}

TEST_CASE("npy: each problem gets its own error, with the file's name") {
  CHECK(error_of("hello world", "a.npy") == "a.npy: not a ZIP file (no end of central directory)");
  CHECK(error_of(std::string("\x93NUMPY\x09\0", 8) + "xx") == "a.npy: version 9 is unknown");
  CHECK(error_of(npy("<c8", "(1,)", std::string(8, '\0'))) ==
        "a.npy: dtype \"<c8\" is not a number type (float16/32/64, int, uint or bool)");
  CHECK(error_of(npy("<U3", "(1,)", std::string(12, '\0'))).find("is not a number type") !=
        std::string::npos);
  CHECK(error_of(npy("<f4", "(2, 3)", f32({1, 2, 3}))) ==
        "a.npy: holds 3 numbers, its shape (2, 3) says 6");
  CHECK(error_of(npy("<f4", "(100000, 100000)", "")) == "a.npy: has more than 16777216 numbers");
  CHECK(error_of(npy("<f4", "(-1,)", "")) == "a.npy: the shape (-1,) is not sizes");
  std::string cut = npy("<f4", "(1,)", f32({1}));
  CHECK(error_of(cut.substr(0, 20)) == "a.npy: the header ends early");
}

TEST_CASE("npy: a header without a dtype, or with a strange one, is refused, not guessed") {
  std::string header = "{'fortran_order': False, 'shape': (1,), }";
  std::string b = "\x93NUMPY\x01";
  b.push_back('\0');
  put_le(&b, header.size(), 2);
  b += header + f32({1});
  CHECK(error_of(b) == "a.npy: the header has no dtype ('descr')");
}

//-----------------------------------------------------------------------------
// [SECTION] .npz
//-----------------------------------------------------------------------------

TEST_CASE("npz: every .npy entry of a stored archive, in order; other entries are skipped") {
  const std::string z =
      zip({{"queries.npy", npy("<f4", "(1, 2)", f32({1, 2}))},
           {"README.txt", "not an array"},
           {"keys.npy", npy("<f8", "(1, 2)", bytes_of(std::vector<double>{3, 4}))}});
  const scenario::ArraysResult r = scenario::read_arrays(z, "data.npz");
  REQUIRE(r.error == "");
  REQUIRE(r.arrays.size() == 2);
  CHECK(r.arrays[0].name == "queries");
  CHECK(r.arrays[0].data == std::vector<float>{1, 2});
  CHECK(r.arrays[1].name == "keys");
  CHECK(r.arrays[1].data == std::vector<float>{3, 4});
}

TEST_CASE("npz: a broken archive is named, with its entry when it is the entry's fault") {
  CHECK(error_of(zip({}), "d.npz") == "d.npz: holds no .npy array");
  CHECK(error_of(zip({{"x.npy", npy("<c16", "(1,)", std::string(16, '\0'))}}), "d.npz") ==
        "d.npz: x.npy: dtype \"<c16\" is not a number type (float16/32/64, int, uint or bool)");
  std::string z = zip({{"x.npy", npy("<f4", "(1,)", f32({1}))}});
  CHECK(error_of(z.substr(0, z.size() - 30), "d.npz") ==
        "d.npz: not a ZIP file (no end of central directory)");
  std::string bad_method = z;
  bad_method[8] = 12;  // bzip2, in the local header: the central directory's copy still says 0
  bad_method[z.find("PK\x01\x02") + 10] = 12;
  CHECK(error_of(bad_method, "d.npz") ==
        "d.npz: x.npy: compression method 12 is not stored or deflate");
  std::string moved = z;
  moved[z.size() - 3] = '\x7f';  // the central directory's offset, far out of the file
  CHECK(error_of(moved, "d.npz") == "d.npz: the central directory is out of the file");
}

//-----------------------------------------------------------------------------
// [SECTION] Inflate
//-----------------------------------------------------------------------------

TEST_CASE("inflate: stored, fixed-code and dynamic-code blocks") {
  std::string out, error;
  // zlib.compressobj(9, DEFLATED, -15) of "abcabcabcabcabcabc hello hello hello": fixed codes.
  const unsigned char fixed[] = {75, 76, 74, 78, 68, 69, 10, 25, 169, 57, 57, 249, 200, 36, 0};
  REQUIRE(scenario::inflate(fixed, sizeof fixed, 1000, &out, &error));
  CHECK(out == "abcabcabcabcabcabc hello hello hello");
  // One final stored block of 3 bytes.
  const unsigned char stored[] = {1, 3, 0, 0xfc, 0xff, 'a', 'b', 'c'};
  REQUIRE(scenario::inflate(stored, sizeof stored, 1000, &out, &error));
  CHECK(out == "abc");
  // Dynamic codes: zlib (level 9, raw) of 300 letters and spaces from the LCG below.
  const unsigned char dynamic[] = {
      21,  144, 209, 17,  0,   32,  8,   66,  87,  97,  53,  81,  196, 253, 39,  136, 234, 163,
      206, 195, 7,   10,  207, 96,  113, 101, 156, 176, 60,  174, 228, 188, 226, 180, 122, 186,
      177, 34,  108, 236, 156, 135, 165, 129, 88,  168, 189, 193, 176, 11,  62,  88,  101, 171,
      181, 236, 41,  134, 132, 175, 153, 211, 76,  231, 223, 212, 214, 154, 18,  252, 21,  168,
      120, 149, 3,   64,  144, 83,  57,  155, 90,  239, 68,  143, 111, 126, 27,  184, 134, 188,
      216, 90,  233, 116, 144, 115, 184, 6,   146, 203, 9,   19,  40,  184, 125, 81,  57,  90,
      212, 69,  236, 185, 18,  187, 165, 93,  5,   225, 166, 73,  182, 144, 155, 1,   131, 83,
      37,  89,  163, 190, 123, 92,  205, 20,  145, 166, 76,  147, 88,  202, 100, 78,  156, 31,
      14,  197, 40,  179, 1,   94,  103, 45,  247, 0};
  CHECK(((dynamic[0] >> 1) & 3) == 2);  // the first block's type: dynamic
  std::string want;
  uint32_t x = 1;
  for (int i = 0; i < 300; ++i) {
    x = x * 1103515245u + 12345u;
    want += "abcdefgh  "[(x >> 16) % 10];
  }
  REQUIRE(scenario::inflate(dynamic, sizeof dynamic, 1000, &out, &error));
  CHECK(out == want);
}

TEST_CASE("inflate: corrupt and oversized streams are refused, never read past") {
  std::string out, error;
  const unsigned char fixed[] = {75, 76, 74, 78, 68, 69, 10, 25, 169, 57, 57, 249, 200, 36, 0};
  CHECK_FALSE(scenario::inflate(fixed, 6, 1000, &out, &error));
  CHECK(error == "the deflate data ends early");
  CHECK_FALSE(scenario::inflate(fixed, sizeof fixed, 10, &out, &error));
  CHECK(error == "inflates to more than the limit");
  const unsigned char reserved[] = {7};  // final block of type 3
  CHECK_FALSE(scenario::inflate(reserved, 1, 1000, &out, &error));
  CHECK(error == "a block has the reserved type 3");
  const unsigned char bad_stored[] = {1, 3, 0, 0, 0, 'a', 'b', 'c'};
  CHECK_FALSE(scenario::inflate(bad_stored, sizeof bad_stored, 1000, &out, &error));
  CHECK(error == "a stored block's length is corrupt");
  // Every truncation and every single-byte change of a valid stream: an answer, no crash.
  const std::string text = "abcabcabcabcabcabc hello hello hello";
  for (size_t cut = 0; cut < sizeof fixed; ++cut) {
    if (scenario::inflate(fixed, cut, 1000, &out, &error)) CHECK(out.size() <= text.size());
  }
  unsigned char changed[sizeof fixed];
  for (size_t at = 0; at < sizeof fixed; ++at)
    for (int bit = 0; bit < 8; ++bit) {
      std::memcpy(changed, fixed, sizeof fixed);
      changed[at] ^= static_cast<unsigned char>(1 << bit);
      if (!scenario::inflate(changed, sizeof fixed, 1000, &out, &error)) CHECK(error != "");
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Arrays as scenario fields
//-----------------------------------------------------------------------------

TEST_CASE("arrays: each becomes the field of its name, and x replaces queries, keys, values") {
  const std::string json =
      R"({"version":1,"queries":[[0,0]],"keys":[[0,0]],"values":[[7,7],[8,8]]})";
  scenario::NamedArray q{"queries", {1, 2}, {1, 0}};
  scenario::NamedArray k{"keys", {2, 2}, {1, 0, 0, 1}};
  const scenario::ParseResult r = scenario::parse_with_arrays(json, {q, k});
  REQUIRE(r.error == "");
  CHECK(r.scenario.queries[0](0, 0) == 1);
  CHECK(r.scenario.keys[0].rows() == 2);
  CHECK(r.scenario.values[0](1, 0) == 8);  // from the JSON
  // Checked as a whole, as parse() does: one key left with two values.
  CHECK(scenario::parse_with_arrays(json, {{"keys", {1, 2}, {1, 0}}}).error ==
        "values: has 2 rows, expected 1 (one value per key)");

  scenario::NamedArray x{"x", {1, 3, 2}, {1, 2, 3, 4, 5, 6}};
  const scenario::ParseResult rx = scenario::parse_with_arrays(
      R"({"version":1,"queries":[[0,0]],"keys":[[0,0]],"values":[[0,0]],"heads":1})", {x});
  REQUIRE(rx.error == "");
  CHECK(rx.scenario.queries[0].rows() == 3);
  CHECK(rx.scenario.keys[0](2, 1) == 6);
}

TEST_CASE("arrays: a field it cannot be, or a wrong shape, is named") {
  const std::string json = R"({"version":1,"queries":[[0,0]],"keys":[[0,0]],"values":[[0,0]]})";
  CHECK(scenario::parse_with_arrays(json, {{"W_x", {1, 2}, {1, 2}}}).error ==
        "W_x: is not a matrix field (x, queries, keys, values, W_q, W_k, W_v, W_o, W, w_v)");
  const std::string wrong = scenario::parse_with_arrays(json, {{"keys", {2}, {1, 2}}}).error;
  CHECK(wrong.rfind("keys", 0) == 0);
  CHECK(scenario::parse_with_arrays("{nope", {}).error.rfind("json: ", 0) == 0);
  CHECK(scenario::parse_with_arrays("[1]", {}).error != "");
}
