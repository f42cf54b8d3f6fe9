// ZIP archives (APPNOTE 6.3: local headers, data, central directory, end record) whose entries
// are stored, or deflated from a file's gzip copy (RFC 1952) once it is read back as the file's,
// and the CRC-32.
#include "scenario/zip.h"

#include <cstring>
#include <set>

#include "scenario/npz_internal.h"

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

// Compares the bytes the inflater hands on with `want`, a part at a time, holding none of them.
class SameBytes : public detail::Output {
 public:
  explicit SameBytes(const std::string& want) : want_(want) {}
  void put(const unsigned char* p, size_t n) override {
    if (same_ && (n > want_.size() - at_ || std::memcmp(want_.data() + at_, p, n) != 0))
      same_ = false;
    at_ += n;
  }
  bool same() const { return same_ && at_ == want_.size(); }

 private:
  const std::string& want_;
  size_t at_ = 0;
  bool same_ = true;
};

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

GzipMember read_gzip_member(const std::string& gzip, const std::string& file) {
  GzipMember m;
  const auto fail = [&m](const std::string& why) {
    m.error = "gzip: " + why;
    return m;
  };
  const auto* g = reinterpret_cast<const unsigned char*>(gzip.data());
  const size_t size = gzip.size();
  // The header (RFC 1952 2.3): ID1 ID2 CM FLG, MTIME (4 bytes), XFL, OS, then what FLG names.
  constexpr unsigned kFhcrc = 2, kFextra = 4, kFname = 8, kFcomment = 16, kReserved = 0xe0;
  if (size < 2 || g[0] != 0x1f || g[1] != 0x8b)
    return fail("is not gzip (it does not begin with 1f 8b)");
  if (size < 10) return fail("its header runs past the end");
  if (g[2] != 8) return fail("its compression method is " + std::to_string(g[2]) + ", not deflate");
  const unsigned flags = g[3];
  if (flags & kReserved) return fail("has reserved flags set");
  size_t at = 10;
  if (flags & kFextra) {
    if (size - at < 2) return fail("its header runs past the end");
    const size_t length = g[at] | g[at + 1] << 8;
    at += 2;
    if (size - at < length) return fail("its extra field (FEXTRA) runs past the end");
    at += length;
  }
  for (const unsigned flag : {kFname, kFcomment}) {
    if (!(flags & flag)) continue;
    const void* end = std::memchr(g + at, 0, size - at);
    if (!end)
      return fail(flag == kFname ? "its file name (FNAME) runs past the end"
                                 : "its comment (FCOMMENT) runs past the end");
    at = static_cast<size_t>(static_cast<const unsigned char*>(end) - g) + 1;
  }
  if (flags & kFhcrc) {
    if (size - at < 2) return fail("its header runs past the end");
    if ((crc32(g, at) & 0xffff) != static_cast<uint32_t>(g[at] | g[at + 1] << 8))
      return fail("its header's CRC (FHCRC) does not match");
    at += 2;
  }
  if (size - at < 8) return fail("ends before its trailer");
  // The trailer first (a stale copy fails here, cheaply), then the data inflated against the
  // file: a member whose trailer lies, or one made of two streams, is not taken.
  const size_t trailer = size - 8;
  if (le32(g + trailer + 4) != static_cast<uint32_t>(file.size()))
    return fail("its size (ISIZE) is not the file's");
  const uint32_t crc = crc32(file);
  if (le32(g + trailer) != crc) return fail("its CRC-32 is not the file's");
  SameBytes same(file);
  size_t used = 0;
  const std::string problem =
      detail::inflate_into(g + at, trailer - at, file.size(), false, &same, nullptr, &used);
  if (!problem.empty()) return fail(problem);
  if (!same.same()) return fail("inflates to other bytes than the file's");
  if (used != trailer - at) return fail("has more data between its deflate stream and trailer");
  m.deflate_at = at;
  m.deflate_size = trailer - at;
  m.crc = crc;
  return m;
}

ZipResult write_zip(const std::vector<ZipEntry>& entries) {
  ZipResult r;
  if (entries.size() >= 0xffff) {
    r.error = "zip: " + std::to_string(entries.size()) + " entries, at most 65534";
    return r;
  }
  std::set<std::string> names;
  for (const ZipEntry& e : entries) {
    if (const std::string p = name_problem(e.name); !p.empty()) {
      r.error = (e.name.empty() ? "zip" : e.name.substr(0, 80)) + ": " + p;
      return r;
    }
    if (!names.insert(e.name).second) {
      r.error = e.name + ": is given twice";
      return r;
    }
  }
  // How each entry is written: its data (the file, or its gzip copy's deflate data), their CRC.
  struct Data {
    const char* bytes;
    size_t size;
    uint32_t crc;
    bool deflated;
  };
  std::vector<Data> data;
  data.reserve(entries.size());
  uint64_t total = 22;
  for (const ZipEntry& e : entries) {
    Data d{e.bytes.data(), e.bytes.size(), 0, false};
    if (!e.gzip.empty()) {
      const GzipMember m = read_gzip_member(e.gzip, e.bytes);
      if (m.ok() && m.deflate_size < e.bytes.size())
        d = {e.gzip.data() + m.deflate_at, m.deflate_size, m.crc, true};
    }
    if (!d.deflated) d.crc = crc32(e.bytes);
    data.push_back(d);
    total += 30 + 46 + 2 * e.name.size() + d.size;
  }
  if (total >= 0xffffffffu) {
    r.error = "zip: the archive would be " + std::to_string(total) + " bytes, 4 GiB or more";
    return r;
  }
  std::string& out = r.bytes;
  out.reserve(static_cast<size_t>(total));
  std::string central;
  // Flags: bit 11, names in UTF-8, and nothing else: no data descriptor (bit 3), and a deflated
  // entry's option bits 1 and 2 left at "normal" (readers do not need them to inflate it).
  const uint32_t kUtf8 = 1u << 11, kDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, 00:00
  for (size_t k = 0; k < entries.size(); ++k) {
    const ZipEntry& e = entries[k];
    const Data& d = data[k];
    const uint32_t offset = static_cast<uint32_t>(out.size());
    const uint32_t size = static_cast<uint32_t>(e.bytes.size());
    const uint32_t packed = static_cast<uint32_t>(d.size);
    const uint32_t needed = d.deflated ? 20 : 10;  // version needed: 2.0 (deflate), 1.0 (stored)
    const uint32_t method = d.deflated ? 8 : 0;
    put32(&out, 0x04034b50);  // local file header
    put16(&out, needed);
    put16(&out, kUtf8);
    put16(&out, method);
    put16(&out, 0);  // time
    put16(&out, kDate);
    put32(&out, d.crc);
    put32(&out, packed);
    put32(&out, size);
    put16(&out, static_cast<uint32_t>(e.name.size()));
    put16(&out, 0);  // no extra field
    out += e.name;
    out.append(d.bytes, d.size);
    put32(&central, 0x02014b50);  // central directory header
    put16(&central, 0x0314);      // made by: Unix, 2.0
    put16(&central, needed);
    put16(&central, kUtf8);
    put16(&central, method);
    put16(&central, 0);
    put16(&central, kDate);
    put32(&central, d.crc);
    put32(&central, packed);
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
