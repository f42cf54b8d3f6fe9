// ZIP archives written (stored, for course packages) and the CRC-32 that ZIP, gzip, PNG and
// the link's checksum share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace scenario {

// The CRC-32 of ZIP (and gzip, PNG): polynomial 0xEDB88320, reflected; `crc` carries on
// from a previous part (0 to start).
uint32_t crc32(const unsigned char* p, size_t size, uint32_t crc = 0);
uint32_t crc32(const std::string& bytes);

struct ZipEntry {
  std::string name;   // a relative path with '/' ("js/app.js"), UTF-8
  std::string bytes;  // the file's contents
};

struct ZipResult {
  std::string bytes;  // the archive
  std::string error;  // "" or "<entry name>: <problem>" / "zip: <problem>"
  bool ok() const { return error.empty(); }
};

// The entries as one ZIP archive, each stored (not compressed), in the order given, with the
// same time stamp (1980-01-01) so that the same files give the same bytes. Refused: an empty
// name, one that is absolute, has "..", "\\" or a control character, or is given twice, and an
// archive of 4 GiB or 65535 entries or more (no ZIP64).
ZipResult write_zip(const std::vector<ZipEntry>& entries);

}  // namespace scenario
