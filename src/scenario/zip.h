// ZIP archives written (for course packages: stored, or deflated from a file's gzip copy) and the
// CRC-32 that ZIP, gzip, PNG and the link's checksum share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace scenario {

// The CRC-32 of ZIP (and gzip, PNG): polynomial 0xEDB88320, reflected; `crc` carries on
// from a previous part (0 to start).
uint32_t crc32(const unsigned char* p, size_t size, uint32_t crc = 0);
uint32_t crc32(const std::string& bytes);

struct ZipEntry {
  std::string name;   // a relative path with '/' ("js/app.js"), UTF-8
  std::string bytes;  // the file's contents
  // The file's gzip copy (FILE.gz, as scripts/precompress.mjs writes it beside the file), or "":
  // the entry is deflated from it when read_gzip_member takes it as the file's (write_zip).
  std::string gzip;

  ZipEntry() = default;
  ZipEntry(std::string name_, std::string bytes_, std::string gzip_ = {})
      : name(std::move(name_)), bytes(std::move(bytes_)), gzip(std::move(gzip_)) {}
};

struct ZipResult {
  std::string bytes;  // the archive
  std::string error;  // "" or "<entry name>: <problem>" / "zip: <problem>"
  bool ok() const { return error.empty(); }
};

// A gzip file (RFC 1952) read as the copy of `file`: where its raw deflate data are, or why it is
// not the file's copy ("gzip: …"). It is when it is one member: a header without reserved flags
// (its FEXTRA, FNAME and FCOMMENT inside the file, its FHCRC, when it has one, matching), raw
// deflate data that inflate (scenario's own inflater) to exactly `file`'s bytes and end where the
// trailer begins, and a trailer whose CRC-32 and size are the file's. `gzip` is never trusted:
// a member cut short, lying in its trailer or holding other bytes is refused, never read past.
struct GzipMember {
  size_t deflate_at = 0, deflate_size = 0;  // the raw deflate data: gzip.substr(at, size)
  uint32_t crc = 0;                         // the file's CRC-32, which the trailer gives
  std::string error;                        // "" when it is the file's copy
  bool ok() const { return error.empty(); }
};
GzipMember read_gzip_member(const std::string& gzip, const std::string& file);

// The entries as one ZIP archive, in the order given, with the same time stamp (1980-01-01) so
// that the same files give the same bytes. An entry is deflated (method 8) from its gzip copy's
// deflate data when read_gzip_member takes the copy and the data are smaller than the file;
// else (no copy, a copy that is not the file's, or nothing saved) it is stored. Refused: an
// empty name, one that is absolute, has "..", "\\" or a control character, or is given twice,
// and an archive of 4 GiB or 65535 entries or more (no ZIP64).
ZipResult write_zip(const std::vector<ZipEntry>& entries);

}  // namespace scenario
