// .npy and ZIP bytes made by hand for the tests (NumPy's own files are checked by
// npz_check.py): a version-1 .npy as NumPy writes it, and a ZIP of stored entries as np.savez
// writes it.
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

// A ZIP archive of stored (uncompressed) entries, as np.savez writes it (CRCs left zero: the
// reader does not check them, as the sizes and the .npy header already frame the data).
inline std::string zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out, directory;
  for (const auto& [name, data] : entries) {
    const size_t local = out.size();
    put_le(&out, 0x04034b50, 4);
    put_le(&out, 20, 2);  // version needed
    put_le(&out, 0, 2);   // flags
    put_le(&out, 0, 2);   // method: stored
    put_le(&out, 0, 4);   // time, date
    put_le(&out, 0, 4);   // crc
    put_le(&out, data.size(), 4);
    put_le(&out, data.size(), 4);
    put_le(&out, name.size(), 2);
    put_le(&out, 0, 2);
    out += name + data;
    put_le(&directory, 0x02014b50, 4);
    put_le(&directory, 20, 2);
    put_le(&directory, 20, 2);
    put_le(&directory, 0, 2);
    put_le(&directory, 0, 2);
    put_le(&directory, 0, 4);
    put_le(&directory, 0, 4);
    put_le(&directory, data.size(), 4);
    put_le(&directory, data.size(), 4);
    put_le(&directory, name.size(), 2);
    put_le(&directory, 0, 2);  // extra
    put_le(&directory, 0, 2);  // comment
    put_le(&directory, 0, 2);  // disk
    put_le(&directory, 0, 2);  // internal attributes
    put_le(&directory, 0, 4);  // external attributes
    put_le(&directory, local, 4);
    directory += name;
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

}  // namespace test
