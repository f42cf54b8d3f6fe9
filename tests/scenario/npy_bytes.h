// .npy, ZIP and gzip bytes made by hand for the tests (NumPy's own files are checked by
// npz_check.py): a version-1 .npy as NumPy writes it, a ZIP of stored entries as np.savez
// writes it, or of deflated ones (the fixed codes: np.savez_compressed's zlib uses dynamic
// ones, which npz_check.py covers), and a gzip member (zlib's own are tests/cli/cli_check.mjs's).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace test {

inline void put_le(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A version-1 .npy file: the header dict as NumPy writes it, padded to 64 bytes, then data.
inline std::string npy(const std::string& descr, const std::string& shape, const std::string& data,
                       bool fortran = false) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out.push_back('\0');
  put_le(&out, header.size(), 2);
  return out + header + data;
}

template <typename T>
inline std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

inline std::string f32(const std::vector<float>& v) {
  return bytes_of(v);
}

// The CRC-32 of ZIP, a bit at a time (the reader's own is table-driven).
inline uint32_t crc32_of(const std::string& data) {
  uint32_t c = 0xffffffffu;
  for (unsigned char b : data) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
  }
  return ~c;
}

// Bits for a deflate stream: least significant first; Huffman codes most significant first.
struct BitWriter {
  std::string out;
  uint32_t buffer = 0;
  int count = 0;
  void bits(uint32_t v, int n) {
    for (int i = 0; i < n; ++i) {
      buffer |= ((v >> i) & 1) << count;
      if (++count == 8) {
        out.push_back(static_cast<char>(buffer));
        buffer = 0;
        count = 0;
      }
    }
  }
  void code(uint32_t c, int n) {
    for (int i = n - 1; i >= 0; --i) bits((c >> i) & 1, 1);
  }
  std::string done() {
    if (count) out.push_back(static_cast<char>(buffer));
    return out;
  }
};

// `data` as one deflate block of the fixed codes (RFC 1951 3.2.6): literals, and copies of
// the bytes 1, 2, 4 or 8 back (runs and repeated numbers) when 3 or more match.
inline std::string deflate_fixed(const std::string& data) {
  BitWriter w;
  w.bits(1, 1);  // the last block
  w.bits(1, 2);  // fixed codes
  auto symbol = [&](int s) {
    if (s < 144)
      w.code(0x30 + s, 8);
    else if (s < 256)
      w.code(0x190 + s - 144, 9);
    else if (s < 280)
      w.code(s - 256, 7);
    else
      w.code(0xc0 + s - 280, 8);
  };
  static const int kLengthBase[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const int kLengthExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                     2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  for (size_t i = 0; i < data.size();) {
    size_t best = 0, distance = 0;
    for (size_t d : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
      if (d > i) break;
      size_t n = 0;
      while (n < 258 && i + n < data.size() && data[i + n] == data[i + n - d]) ++n;
      if (n > best) best = n, distance = d;
    }
    if (best < 3) {
      symbol(static_cast<unsigned char>(data[i++]));
      continue;
    }
    int l = 28;
    while (kLengthBase[l] > static_cast<int>(best)) --l;
    symbol(257 + l);
    w.bits(static_cast<uint32_t>(best - kLengthBase[l]), kLengthExtra[l]);
    // Distance codes: 0 is 1, 1 is 2, 3 is 4, and 5 is 7 or 8 by one extra bit.
    w.code(distance == 1 ? 0 : distance == 2 ? 1 : distance == 4 ? 3 : 5, 5);
    if (distance == 8) w.bits(1, 1);
    i += best;
  }
  symbol(256);
  return w.done();
}

// One ZIP entry as written: its bytes (`method` 0: stored, 8: deflate), and what its headers
// say of it.
struct ZipEntry {
  std::string name, stored;
  int method = 0;
  uint32_t crc = 0;
  uint64_t size = 0;  // inflated
};

inline std::string zip_of(const std::vector<ZipEntry>& entries) {
  std::string out, directory;
  for (const ZipEntry& e : entries) {
    const size_t local = out.size();
    put_le(&out, 0x04034b50, 4);
    put_le(&out, 20, 2);  // version needed
    put_le(&out, 0, 2);   // flags
    put_le(&out, e.method, 2);
    put_le(&out, 0, 4);  // time, date
    put_le(&out, e.crc, 4);
    put_le(&out, e.stored.size(), 4);
    put_le(&out, e.size, 4);
    put_le(&out, e.name.size(), 2);
    put_le(&out, 0, 2);
    out += e.name + e.stored;
    put_le(&directory, 0x02014b50, 4);
    put_le(&directory, 20, 2);
    put_le(&directory, 20, 2);
    put_le(&directory, 0, 2);
    put_le(&directory, e.method, 2);
    put_le(&directory, 0, 4);
    put_le(&directory, e.crc, 4);
    put_le(&directory, e.stored.size(), 4);
    put_le(&directory, e.size, 4);
    put_le(&directory, e.name.size(), 2);
    put_le(&directory, 0, 2);  // extra
    put_le(&directory, 0, 2);  // comment
    put_le(&directory, 0, 2);  // disk
    put_le(&directory, 0, 2);  // internal attributes
    put_le(&directory, 0, 4);  // external attributes
    put_le(&directory, local, 4);
    directory += e.name;
  }
  const size_t at = out.size();
  out += directory;
  put_le(&out, 0x06054b50, 4);
  put_le(&out, 0, 4);
  put_le(&out, entries.size(), 2);
  put_le(&out, entries.size(), 2);
  put_le(&out, directory.size(), 4);
  put_le(&out, at, 4);
  put_le(&out, 0, 2);
  return out;
}

// A ZIP archive as np.savez writes it (entries stored) or np.savez_compressed (deflated,
// here with the fixed codes), each with its CRC-32.
inline std::string zip(const std::vector<std::pair<std::string, std::string>>& entries,
                       bool deflated = false) {
  std::vector<ZipEntry> z;
  for (const auto& [name, data] : entries)
    z.push_back({name, deflated ? deflate_fixed(data) : data, deflated ? 8 : 0, crc32_of(data),
                 data.size()});
  return zip_of(z);
}

// An entry whose headers say it inflates to `size` bytes, while its deflate data hold
// `data` only, then `padding` bytes that are not deflate (a file cut short, or lying): its
// .npy header reads, its numbers do not.
inline ZipEntry cut_entry(const std::string& name, const std::string& data, uint64_t size,
                          size_t padding) {
  return {name, deflate_fixed(data) + std::string(padding, '\0'), 8, 0, size};
}

// A gzip member (RFC 1952) of `data`: the 10 bytes of its header with `flags` (MTIME 0, OS 3,
// Unix), then `fields` (the bytes of what the flags name: FEXTRA, FNAME, FCOMMENT, FHCRC, which
// the caller writes), `data` in one deflate block of the fixed codes, its CRC-32 and its size.
inline std::string gzip_member(const std::string& data, unsigned flags = 0,
                               const std::string& fields = "") {
  std::string out = "\x1f\x8b\x08";
  out.push_back(static_cast<char>(flags));
  put_le(&out, 0, 4);   // MTIME
  out.push_back('\0');  // XFL
  out.push_back('\3');  // OS
  out += fields + deflate_fixed(data);
  put_le(&out, crc32_of(data), 4);
  put_le(&out, data.size(), 4);
  return out;
}

}  // namespace test
