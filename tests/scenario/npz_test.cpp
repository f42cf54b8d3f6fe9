// NumPy's .npy and .npz files as scenario data: every dtype and order the reader takes, the
// ZIP container (stored entries, and deflated ones of the fixed codes; np.savez_compressed's
// dynamic codes are checked against NumPy itself by npz_check.py), each entry's CRC-32, the
// headers read alone (nothing inflated past them), inflate on streams of each block type,
// and one error per problem.
//
// [SECTION] Helpers
// [SECTION] .npy
// [SECTION] .npz
// [SECTION] Headers first
// [SECTION] Inflate and CRC-32
// [SECTION] Arrays as scenario fields
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "npy_bytes.h"
#include "scenario/npz.h"
#include "scenario/scenario.h"
#include "scenario/zip.h"

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

// Where a ZIP's first central directory entry is, and its first local header (0).
size_t directory_at(const std::string& zip) {
  const size_t at = zip.find("PK\x01\x02");
  REQUIRE(at != std::string::npos);
  return at;
}

// The numbers 0, 1, 2, ... of `shape`, row-major, and the same stored in Fortran order.
std::vector<float> counting(const std::vector<size_t>& shape) {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 100003);
  return v;
}

template <typename T>
std::vector<T> fortran_of(const std::vector<float>& c_order, const std::vector<size_t>& shape) {
  std::vector<T> f(c_order.size());
  std::vector<size_t> index(shape.size(), 0);
  for (size_t i = 0; i < c_order.size(); ++i) {  // i in C order; its place in Fortran order
    size_t at = 0, stride = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      at += index[d] * stride;
      stride *= shape[d];
    }
    f[at] = static_cast<T>(c_order[i]);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return f;
}

std::string shape_text(const std::vector<size_t>& shape) {
  std::string t = "(";
  for (size_t d : shape) t += std::to_string(d) + ", ";
  return t + ")";
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

TEST_CASE("npy: Fortran order of large arrays, of every width, comes back in row-major order") {
  // Through the reader's panels of 32 columns (500 is 15 of them and 20), in 3 and 4
  // dimensions, with sizes of 1 (one size past 1 is either order), and with columns so long
  // (2^20 + 1 numbers: 4 MB) that they go straight to their places.
  for (const std::vector<size_t>& shape :
       std::vector<std::vector<size_t>>{{300, 500},
                                        {3, 70, 90},
                                        {4, 5, 6, 7},
                                        {1, 5, 1, 3},
                                        {7, 1},
                                        {1, 1},
                                        {(size_t{1} << 20) + 1, 2}}) {
    const std::vector<float> want = counting(shape);
    const std::string text = shape_text(shape);
    CHECK(one(scenario::read_npy(npy("<f4", text, bytes_of(fortran_of<float>(want, shape)), true),
                                 "x"))
              .data == want);
    CHECK(one(scenario::read_npy(npy("<f8", text, bytes_of(fortran_of<double>(want, shape)), true),
                                 "x"))
              .data == want);
    if (want.size() < 40000) {
      const std::vector<float> small(want.begin(), want.end());
      std::vector<float> i16(small.size());
      for (size_t i = 0; i < i16.size(); ++i) i16[i] = static_cast<float>(i % 30000);
      CHECK(one(scenario::read_npy(
                    npy("<i2", text, bytes_of(fortran_of<int16_t>(i16, shape)), true), "x"))
                .data == i16);
    }
  }
}

TEST_CASE("npy: Fortran order of no numbers, or of thousands of sizes 1") {
  CHECK(one(scenario::read_npy(npy("<f4", "(2, 0, 3)", "", true), "x")).data.empty());
  std::vector<size_t> shape(20000, 1);  // a 60 KB header
  shape.front() = 2;
  shape.back() = 3;
  const std::vector<float> want = counting(shape);
  const scenario::NamedArray a = one(scenario::read_npy(
      npy("<f4", shape_text(shape), bytes_of(fortran_of<float>(want, shape)), true), "x"));
  CHECK(a.shape == shape);
  CHECK(a.data == want);
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

TEST_CASE("npy: a long header is read, and one past 64 KiB refused") {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  header.resize(5000, ' ');
  std::string v1 = "\x93NUMPY\x01";
  v1.push_back('\0');
  put_le(&v1, header.size(), 2);
  v1 += header + f32({1, 2});
  CHECK(one(scenario::read_npy(v1, "x")).data == std::vector<float>{1, 2});
  // And in a deflated .npz entry: the header is inflated in two steps (its first 1024 bytes,
  // then the rest).
  CHECK(one(scenario::read_npz(zip({{"x.npy", v1}}, true))).data == std::vector<float>{1, 2});
  header.resize(70000, ' ');
  std::string v2 = "\x93NUMPY\x02";
  v2.push_back('\0');
  put_le(&v2, header.size(), 4);
  v2 += header + f32({1, 2});
  CHECK(error_of(v2) == "a.npy: the header is longer than 65536 bytes");
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

TEST_CASE("npz: every .npy entry of a stored archive, in order, and no other entry") {
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

TEST_CASE("npz: deflated entries, long and in either order, read as the stored ones") {
  const std::vector<size_t> shape{70, 90, 3};       // 75 KB as float32, 150 KB as float64:
  const std::vector<float> want = counting(shape);  // more than inflate's 128 KB window
  const std::string text = shape_text(shape);
  const std::vector<std::pair<std::string, std::string>> entries = {
      {"queries.npy", npy("<f4", text, f32(want))},
      {"keys.npy", npy("<f8", text, bytes_of(fortran_of<double>(want, shape)), true)},
      {"values.npy", npy(">f8", text, std::string(want.size() * 8, '\0'))},
      {"w_v.npy", npy("<f2", "(3,)", bytes_of(std::vector<uint16_t>{0x3c00, 0xc100, 1}))}};
  const scenario::ArraysResult deflated = scenario::read_arrays(zip(entries, true), "d.npz");
  const scenario::ArraysResult stored = scenario::read_arrays(zip(entries), "d.npz");
  REQUIRE(deflated.error == "");
  REQUIRE(stored.error == "");
  REQUIRE(deflated.arrays.size() == 4);
  CHECK(deflated.arrays[0].data == want);
  CHECK(deflated.arrays[1].data == want);
  CHECK(deflated.arrays[2].data == std::vector<float>(want.size(), 0.0f));
  CHECK(deflated.arrays[3].data == std::vector<float>{1.0f, -2.5f, 0x1p-24f});
  for (size_t k = 0; k < 4; ++k) {
    CHECK(deflated.arrays[k].shape == stored.arrays[k].shape);
    CHECK(deflated.arrays[k].data == stored.arrays[k].data);
  }
}

TEST_CASE("npz: a flipped bit is refused by the entry's CRC-32, stored or deflated") {
  const std::string keys = npy("<f4", "(2, 2)", f32({1, 2, 3, 4.5f}));
  const std::string z =
      zip({{"queries.npy", npy("<f4", "(1, 2)", f32({1, 2}))}, {"keys.npy", keys}});
  REQUIRE(scenario::read_arrays(z, "d.npz").error == "");
  // One bit of the last number (4.5 becomes 4.5 + 2^-21, or another float): NumPy refuses it.
  std::string flipped = z;
  const size_t last = z.find(keys) + keys.size() - 1;
  flipped[last - 2] ^= 1;
  CHECK(error_of(flipped, "d.npz") == "d.npz: keys.npy: damaged (CRC-32 does not match)");
  // The CRC-32 the central directory gives, wrong.
  std::string crc = z;
  crc[directory_at(z) + 16] ^= 0x40;
  CHECK(error_of(crc, "d.npz") == "d.npz: queries.npy: damaged (CRC-32 does not match)");
  // Deflated: any one bit of the entry's data flipped is refused (the deflate codes, the
  // size, or else the CRC-32), never read as other numbers; but for the bits after the end
  // code, in the last byte, which are not data.
  const std::string d = zip({{"keys.npy", keys}}, true);
  const size_t data_at = 30 + std::string("keys.npy").size(), end = directory_at(d);
  int by_crc = 0;
  for (size_t at = data_at; at < end; ++at)
    for (int bit = 0; bit < 8; ++bit) {
      std::string changed = d;
      changed[at] ^= static_cast<char>(1 << bit);
      const scenario::ArraysResult r = scenario::read_arrays(changed, "d.npz");
      if (r.ok()) {
        CHECK(at == end - 1);
        CHECK(r.arrays[0].data == std::vector<float>{1, 2, 3, 4.5f});
        continue;
      }
      CHECK(r.error.rfind("d.npz: keys.npy: ", 0) == 0);
      by_crc += r.error == "d.npz: keys.npy: damaged (CRC-32 does not match)";
    }
  CHECK(by_crc > 0);
}

TEST_CASE("npz: an encrypted entry, or a size deflate cannot reach, is refused") {
  std::string z = zip({{"x.npy", npy("<f4", "(1,)", f32({1}))}});
  std::string encrypted = z;
  encrypted[directory_at(z) + 8] = 1;
  CHECK(error_of(encrypted, "d.npz") ==
        "d.npz: x.npy: is encrypted, which this reader does not read");
  // 1 GB said to come from a few bytes of deflate (at most 1032 bytes a byte).
  CHECK(
      error_of(test::zip_of({test::cut_entry("x.npy", npy("<f4", "(1,)", f32({1})), 1u << 30, 0)}),
               "d.npz") == "d.npz: x.npy: inflates to a size its header does not give");
}

//-----------------------------------------------------------------------------
// [SECTION] Headers first
//-----------------------------------------------------------------------------

TEST_CASE("headers: names, dtypes, shapes and orders, without the numbers") {
  const std::string x = npy(">f8", "(2, 3)", std::string(48, '\0'), true);
  const scenario::HeadersResult one_npy = scenario::read_array_headers(x, "in/x.npy");
  REQUIRE(one_npy.error == "");
  REQUIRE(one_npy.arrays.size() == 1);
  const scenario::ArrayHeader& h = one_npy.arrays[0];
  CHECK(h.name == "x");
  CHECK(h.shape == std::vector<size_t>{2, 3});
  CHECK(h.count == 6);
  CHECK(h.kind == 'f');
  CHECK(h.item_bytes == 8);
  CHECK(h.big_endian);
  CHECK(h.fortran);
  CHECK(h.method == -1);
  CHECK(h.data_at == 128);
  const scenario::ArraysResult data = scenario::read_arrays_data(x, one_npy, "in/x.npy");
  REQUIRE(data.error == "");
  CHECK(data.arrays[0].data == std::vector<float>(6, 0.0f));

  const std::string z =
      zip({{"keys.npy", npy("|u1", "(4, 2)", std::string(8, '\1'))}, {"notes.txt", "hi"}}, true);
  const scenario::HeadersResult npz = scenario::read_array_headers(z, "d.npz");
  REQUIRE(npz.error == "");
  REQUIRE(npz.arrays.size() == 1);
  CHECK(npz.arrays[0].name == "keys");
  CHECK(npz.arrays[0].entry == "keys.npy");
  CHECK(npz.arrays[0].method == 8);
  CHECK(npz.arrays[0].shape == std::vector<size_t>{4, 2});
  CHECK(npz.arrays[0].kind == 'u');
}

TEST_CASE("headers: a huge entry is judged from its header, with nothing past it inflated") {
  // A 4096 × 4096 float64 entry (128 MB) whose deflate data hold its .npy header and 2 KB of
  // zeros, then 140 KB that are not deflate (as many as a real one's 131 KB): its headers
  // read, its numbers do not.
  const std::string header = npy("<f8", "(4096, 4096)", std::string(2048, '\0'));  // 128 + 2048
  const uint64_t size = 128 + (uint64_t{1} << 27);
  const std::string z = test::zip_of({test::cut_entry("keys.npy", header, size, 140000)});
  const scenario::HeadersResult h = scenario::read_array_headers(z, "bomb.npz");
  REQUIRE(h.error == "");
  CHECK(h.arrays[0].shape == std::vector<size_t>{4096, 4096});
  CHECK(h.arrays[0].count == size_t{1} << 24);
  CHECK(h.arrays[0].npy_bytes == size);
  CHECK(scenario::check_array_field(h.arrays[0].name, h.arrays[0].shape) ==
        "keys.shape[1]: is 4096, must be at most 1024");
  CHECK(scenario::read_arrays_data(z, h, "bomb.npz").error ==
        "bomb.npz: keys.npy: inflates to a size its header does not give");
  // Three entries of 2^24 numbers are more than a file may hold: refused from the headers.
  const std::string bytes = npy("|u1", "(4096, 4096)", std::string(2048, '\0'));
  std::vector<test::ZipEntry> three;
  for (const char* name : {"a.npy", "b.npy", "c.npy"})
    three.push_back(test::cut_entry(name, bytes, 128 + (uint64_t{1} << 24), 17000));
  CHECK(scenario::read_array_headers(test::zip_of(three), "d.npz").error ==
        "d.npz: holds more than 33554432 numbers");
  // An entry said to be shorter than its shape: refused from the sizes, not inflated.
  CHECK(scenario::read_array_headers(test::zip_of({test::cut_entry("k.npy", header, 2048, 0)}),
                                     "d.npz")
            .error == "d.npz: k.npy: holds 240 numbers, its shape (4096, 4096) says 16777216");
}

//-----------------------------------------------------------------------------
// [SECTION] Inflate and CRC-32
//-----------------------------------------------------------------------------

TEST_CASE("crc32: the standard check value, in parts as at once") {
  const std::string nine = "123456789";
  const auto* p = reinterpret_cast<const unsigned char*>(nine.data());
  CHECK(scenario::crc32(p, 9) == 0xcbf43926u);
  CHECK(scenario::crc32(p + 4, 5, scenario::crc32(p, 4)) == 0xcbf43926u);
  std::string text;
  uint32_t x = 7;
  for (int i = 0; i < 1000; ++i) {
    x = x * 1103515245u + 12345u;
    text.push_back(static_cast<char>(x >> 16));
    const auto* t = reinterpret_cast<const unsigned char*>(text.data());
    if (i % 37 == 0 || i > 990)
      CHECK(scenario::crc32(t + 1, text.size() - 1) == test::crc32_of(text.substr(1)));
  }
}

TEST_CASE("inflate: streams longer than the window, stored and with the fixed codes") {
  std::string data;
  uint32_t x = 3;
  for (int i = 0; i < 300000; ++i) {  // runs, repeats 2, 4 and 8 back, and noise
    x = x * 1103515245u + 12345u;
    const int kind = (x >> 28) & 3;
    data.push_back(kind == 0          ? static_cast<char>(x >> 16)
                   : data.size() >= 8 ? data[data.size() - (size_t{1} << kind)]
                                      : 'a');
  }
  std::string out, error;
  const std::string fixed = test::deflate_fixed(data);
  REQUIRE(scenario::inflate(reinterpret_cast<const unsigned char*>(fixed.data()), fixed.size(),
                            data.size(), &out, &error));
  CHECK(out == data);
  std::string stored;  // stored blocks of up to 65535 bytes
  for (size_t at = 0; at < data.size(); at += 65535) {
    const size_t n = std::min<size_t>(65535, data.size() - at);
    stored.push_back(at + n == data.size() ? 1 : 0);
    put_le(&stored, n, 2);
    put_le(&stored, ~n & 0xffff, 2);
    stored += data.substr(at, n);
  }
  REQUIRE(scenario::inflate(reinterpret_cast<const unsigned char*>(stored.data()), stored.size(),
                            data.size(), &out, &error));
  CHECK(out == data);
  CHECK_FALSE(scenario::inflate(reinterpret_cast<const unsigned char*>(stored.data()),
                                stored.size(), data.size() - 1, &out, &error));
  CHECK(error == "inflates to more than the limit");
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
        "W_x: is not a matrix field (x, queries, keys, values, W_q, W_k, W_v, W_o, W, w_v, "
        "embed, unembed, and layers.0.W_q … for a layer's weights)");
  const std::string wrong = scenario::parse_with_arrays(json, {{"keys", {2}, {1, 2}}}).error;
  CHECK(wrong.rfind("keys", 0) == 0);
  CHECK(scenario::parse_with_arrays("{nope", {}).error.rfind("json: ", 0) == 0);
  CHECK(scenario::parse_with_arrays("[1]", {}).error != "");
}

TEST_CASE("arrays: what the name and shape alone refuse is what the scenario says of them") {
  const std::string json = R"({"version":1,"queries":[[0,0]],"keys":[[0,0]],"values":[[0,0]]})";
  struct Case {
    std::string name;
    std::vector<size_t> shape;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {"W_x",
            {1, 2},
            "W_x: is not a matrix field (x, queries, keys, values, W_q, W_k, W_v, "
            "W_o, W, w_v, embed, unembed, and layers.0.W_q … for a layer's weights)"},
           {"layers.16.W_q",
            {2, 2},
            "layers.16.W_q: names layer 16, past the limit of 16 layers "
            "(layers.0 to layers.15)"},
           {"layers.0.W_q", {2, 2, 2}, "layers.0.W_q.shape: must be [rows, cols]"},
           {"layers.3.w_v", {2, 1}, "layers.3.w_v.shape: must be [n]"},
           {"embed", {2}, "embed.shape: must be [rows, cols]"},
           {"keys", {2}, "keys.shape: must be [rows, cols] or [batch, rows, cols]"},
           {"keys", {1, 1, 1, 2}, "keys.shape: must be [rows, cols] or [batch, rows, cols]"},
           {"keys", {0, 2}, "keys.shape[0]: is 0, must be at least 1"},
           {"keys", {1, 1025}, "keys.shape[1]: is 1025, must be at most 1024"},
           {"x", {4097, 1}, "x.shape[0]: is 4097, must be at most 4096"},
           {"values", {65, 1, 1}, "values.shape[0]: is 65, must be at most 64"},
           {"W_q", {2, 2, 2}, "W_q.shape: must be [rows, cols]"},
           {"w_v", {2, 1}, "w_v.shape: must be [n]"},
           {"w_v", {1025}, "w_v.shape[0]: is 1025, must be at most 1024"}}) {
    CHECK(scenario::check_array_field(c.name, c.shape) == c.error);
    size_t n = 1;
    for (size_t d : c.shape) n *= d;
    const scenario::NamedArray a{c.name, c.shape, std::vector<float>(n, 0.0f)};
    CHECK(scenario::parse_with_arrays(json, {a}).error == c.error);
  }
  CHECK(scenario::check_array_field("keys", {4096, 1024}) == "");
  CHECK(scenario::check_array_field("W_o", {1, 1}) == "");
  CHECK(scenario::check_array_field("w_v", {7}) == "");
}

TEST_CASE("arrays: stand-ins for the numbers give the scenario the same shapes") {
  const std::string json = R"({"version":1,"queries":[[0,0]],"keys":[[0,0]],"values":[[7,7]]})";
  scenario::ArrayHeader k;
  k.name = "keys";
  k.shape = {3, 2};
  k.count = 6;
  const std::vector<float> zeros(6, 0.0f);
  const scenario::ParseResult stand_in =
      scenario::parse_with_arrays(json, {k}, {{zeros.data(), 6}});
  CHECK(stand_in.error == "values: has 1 rows, expected 3 (one value per key)");
  CHECK(scenario::parse_with_arrays(json, {{"keys", {3, 2}, {1, 2, 3, 4, 5, 6}}}).error ==
        stand_in.error);
  k.shape = {1, 2};
  k.count = 2;
  const scenario::ParseResult fits = scenario::parse_with_arrays(json, {k}, {{zeros.data(), 2}});
  REQUIRE(fits.error == "");
  CHECK(fits.scenario.keys[0].rows() == 1);
  CHECK(scenario::parse_with_arrays(json, {k}, {}).error != "");  // a count that does not match
}

TEST_CASE(
    "arrays: a stack's layer weights by their state-dict names, into its layers or new ones") {
  // Two layers over x (3 × 2), the second with two heads; the arrays give layer 0's W_q and
  // layer 1's W_o, the JSON the rest.
  const std::string json = R"({"version":1,"x":[[1,0],[0,1],[1,1]],"layers":[
    {"W_q":[[0,0],[0,0]]},{"heads":2,"W_v":[[1,0],[0,1]]}]})";
  const scenario::NamedArray q0{"layers.0.W_q", {2, 2}, {1, 2, 3, 4}};
  const scenario::NamedArray o1{"layers.1.W_o", {2, 2}, {0, 1, 1, 0}};
  const scenario::ParseResult r = scenario::parse_with_arrays(json, {q0, o1});
  REQUIRE(r.error == "");
  REQUIRE(r.scenario.layers.size() == 2);
  CHECK(r.scenario.layers[0].W_q(1, 0) == 3);
  CHECK(r.scenario.layers[1].W_o(0, 1) == 1);
  CHECK(r.scenario.layers[1].W_v(1, 1) == 1);  // from the JSON
  CHECK(r.scenario.layers[1].heads == 2);

  // A layer the scenario does not have; a name that is not one (leading zeros, no weight).
  CHECK(scenario::parse_with_arrays(json, {{"layers.2.W_q", {2, 2}, {1, 2, 3, 4}}}).error ==
        "layers.2.W_q: the scenario has 2 layers (layers.0 to layers.1)");
  for (const char* odd : {"layers.01.W_q", "layers..W_q", "layers.0.W_z", "layers.0",
                          "layers.-1.W_q", "layers.0.W_q.x", "layers.9999999.W_q"})
    CHECK(scenario::parse_with_arrays(json, {{odd, {2, 2}, {1, 2, 3, 4}}})
              .error.find(": is not a matrix field (") != std::string::npos);
  // Checked as a whole, as parse() does: a layer's W_q of the wrong height.
  CHECK(
      scenario::parse_with_arrays(json, {{"layers.0.W_q", {3, 2}, std::vector<float>(6)}}).error ==
      "layers[0].W_q: has 3 rows, expected 2 (the columns of queries)");
  // "layers" that is not a list, or a layer that is not an object: what parse() says of it.
  CHECK(scenario::parse_with_arrays(R"({"version":1,"x":[[1,0]],"layers":3})", {q0}).error ==
        scenario::parse(R"({"version":1,"x":[[1,0]],"layers":3})").error);
  CHECK(scenario::parse_with_arrays(R"({"version":1,"x":[[1,0]],"layers":[]})", {q0}).error ==
        "layers: is empty, expected 1 to 16 layers");
  const std::string not_object = R"({"version":1,"x":[[1,0]],"layers":[{},7]})";
  CHECK(scenario::parse_with_arrays(not_object, {o1}).error == scenario::parse(not_object).error);

  // Without "layers" in the JSON the arrays make them, layer by layer from 0; a gap is named.
  const scenario::NamedArray x{"x", {3, 2}, {1, 0, 0, 1, 1, 1}};
  const scenario::ParseResult made = scenario::parse_with_arrays(R"({"version":1})", {x, o1, q0});
  REQUIRE(made.error == "");
  REQUIRE(made.scenario.layers.size() == 2);
  CHECK(made.scenario.layers[0].W_q(0, 1) == 2);
  CHECK(made.scenario.layers[1].W_o(1, 0) == 1);
  CHECK(scenario::parse_with_arrays(R"({"version":1})",
                                    {x, {"layers.2.W_o", {2, 2}, {1, 0, 0, 1}}, q0})
            .error ==
        "layers.1: no array is named for this layer (layers.2.W_o is): a stack's "
        "layers are numbered from 0 without a gap");
}

TEST_CASE("arrays: a token model's embed and unembed") {
  const std::string json = R"({"version":1,"tokens":[0,1,1],"layers":[{}],
    "embed":[[0,0],[0,0]],"unembed":[[0,0],[0,0]]})";
  const scenario::ParseResult r =
      scenario::parse_with_arrays(json, {{"embed", {2, 2}, {1, 2, 3, 4}}});
  REQUIRE(r.error == "");
  CHECK(r.scenario.embed(1, 0) == 3);
  CHECK(scenario::parse_with_arrays(json, {{"unembed", {3, 2}, std::vector<float>(6)}})
            .error.rfind("unembed", 0) == 0);
}
