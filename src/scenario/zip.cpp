// ZIP archives written with stored entries (APPNOTE 6.3: local headers, data, central
// directory, end record), and the CRC-32.
#include "scenario/zip.h"

#include <set>

namespace scenario {

namespace {

// Eight tables, so that eight bytes are taken at a time ("slicing by 8").
struct Crc32Tables {
  uint32_t t[8][256];
  Crc32Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (int k = 1; k < 8; ++k)
      for (int i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
};

uint32_t le32(const unsigned char* p) {
  return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24;
}

void put16(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>((v >> 8) & 0xff));
}
void put32(std::string* out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

std::string name_problem(const std::string& name) {
  if (name.empty()) return "an entry has no name";
  if (name.size() > 1024) return "is longer than 1024 bytes";
  if (name[0] == '/') return "is an absolute path";
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == 0x7f)
      return "has a backslash or a control character";
  for (size_t at = 0; at <= name.size();) {
    const size_t end = std::min(name.find('/', at), name.size());
    const std::string part = name.substr(at, end - at);
    if (part.empty() || part == "." || part == "..") return "has an empty, '.' or '..' part";
    at = end + 1;
  }
  return "";
}

}  // namespace

uint32_t crc32(const unsigned char* p, size_t size, uint32_t crc) {
  static const Crc32Tables tables;
  const auto& t = tables.t;
  crc = ~crc;
  for (; size >= 8; p += 8, size -= 8) {
    const uint32_t lo = crc ^ le32(p), hi = le32(p + 4);
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
          t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
  }
  for (; size; ++p, --size) crc = t[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
  return ~crc;
}

uint32_t crc32(const std::string& bytes) {
  return crc32(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

ZipResult write_zip(const std::vector<ZipEntry>& entries) {
  ZipResult r;
  if (entries.size() >= 0xffff) {
    r.error = "zip: " + std::to_string(entries.size()) + " entries, at most 65534";
    return r;
  }
  std::set<std::string> names;
  uint64_t total = 22;
  for (const ZipEntry& e : entries) {
    if (const std::string p = name_problem(e.name); !p.empty()) {
      r.error = (e.name.empty() ? "zip" : e.name.substr(0, 80)) + ": " + p;
      return r;
    }
    if (!names.insert(e.name).second) {
      r.error = e.name + ": is given twice";
      return r;
    }
    total += 30 + 46 + 2 * e.name.size() + e.bytes.size();
  }
  if (total >= 0xffffffffu) {
    r.error = "zip: the archive would be " + std::to_string(total) + " bytes, 4 GiB or more";
    return r;
  }
  std::string& out = r.bytes;
  out.reserve(static_cast<size_t>(total));
  std::string central;
  const uint32_t kUtf8 = 1u << 11, kDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, 00:00
  for (const ZipEntry& e : entries) {
    const uint32_t offset = static_cast<uint32_t>(out.size());
    const uint32_t crc = crc32(e.bytes), size = static_cast<uint32_t>(e.bytes.size());
    put32(&out, 0x04034b50);  // local file header
    put16(&out, 10);          // version needed: 1.0 (stored)
    put16(&out, kUtf8);
    put16(&out, 0);  // stored
    put16(&out, 0);  // time
    put16(&out, kDate);
    put32(&out, crc);
    put32(&out, size);
    put32(&out, size);
    put16(&out, static_cast<uint32_t>(e.name.size()));
    put16(&out, 0);  // no extra field
    out += e.name;
    out += e.bytes;
    put32(&central, 0x02014b50);  // central directory header
    put16(&central, 0x0314);      // made by: Unix, 2.0
    put16(&central, 10);
    put16(&central, kUtf8);
    put16(&central, 0);
    put16(&central, 0);
    put16(&central, kDate);
    put32(&central, crc);
    put32(&central, size);
    put32(&central, size);
    put16(&central, static_cast<uint32_t>(e.name.size()));
    put16(&central, 0);               // extra
    put16(&central, 0);               // comment
    put16(&central, 0);               // disk
    put16(&central, 0);               // internal attributes
    put32(&central, 0100644u << 16);  // external: a regular file, rw-r--r--
    put32(&central, offset);
    central += e.name;
  }
  const uint32_t directory_at = static_cast<uint32_t>(out.size());
  out += central;
  put32(&out, 0x06054b50);  // end of central directory
  put16(&out, 0);
  put16(&out, 0);
  put16(&out, static_cast<uint32_t>(entries.size()));
  put16(&out, static_cast<uint32_t>(entries.size()));
  put32(&out, static_cast<uint32_t>(central.size()));
  put32(&out, directory_at);
  put16(&out, 0);  // no comment
  return r;
}

}  // namespace scenario
