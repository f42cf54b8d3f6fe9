// Course packages: the ZIP writer read back by an independent reader (the CRC-32 a bit at a
// time, npy_bytes.h; a deflated entry through the .npz reader's inflater), entries deflated from
// a file's gzip copy only when it is the file's, hostile gzip members refused, hostile entry
// names refused, the SCORM manifests' structure, escaping and launch address, and cmi5.xml read
// back by a small XML reader (elements, attributes, entities); the package as a platform hosts
// it is tests/web/lms_test.mjs's, and zlib's own gzip files go through tests/cli/cli_check.mjs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npy_bytes.h"
#include "scenario/npz.h"
#include "scenario/package.h"
#include "scenario/zip.h"

namespace {

uint32_t le(const std::string& s, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s[at + i]);
  return v;
}

struct ReadEntry {
  std::string name, bytes;
  int method = 0;      // 0 stored, 8 deflated
  std::string packed;  // the entry's data as the archive holds them
};

// The archive's entries through its central directory, every field checked against the local
// header (version needed 1.0 stored, 2.0 deflated; flags: UTF-8 names only), a deflated entry
// inflated to the size its headers give, the CRC-32 recomputed.
std::vector<ReadEntry> read_back(const std::string& zip) {
  REQUIRE(zip.size() >= 22);
  const size_t end = zip.size() - 22;
  REQUIRE(le(zip, end, 4) == 0x06054b50u);
  const uint32_t count = le(zip, end + 10, 2), size = le(zip, end + 12, 4),
                 at = le(zip, end + 16, 4);
  REQUIRE(at + size == end);
  std::vector<ReadEntry> out;
  size_t p = at;
  for (uint32_t k = 0; k < count; ++k) {
    REQUIRE(le(zip, p, 4) == 0x02014b50u);
    const uint32_t method = le(zip, p + 10, 2), crc = le(zip, p + 16, 4),
                   packed = le(zip, p + 20, 4), unpacked = le(zip, p + 24, 4),
                   n = le(zip, p + 28, 2);
    REQUIRE((method == 0 || method == 8));
    CHECK(le(zip, p + 6, 2) == (method == 8 ? 20u : 10u));
    CHECK(le(zip, p + 8, 2) == 1u << 11);
    if (method == 0) CHECK(unpacked == packed);
    const uint32_t local = le(zip, p + 42, 4);
    const std::string name = zip.substr(p + 46, n);
    REQUIRE(le(zip, local, 4) == 0x04034b50u);
    CHECK(le(zip, local + 4, 2) == le(zip, p + 6, 2));
    CHECK(le(zip, local + 6, 2) == le(zip, p + 8, 2));
    CHECK(le(zip, local + 8, 2) == method);
    CHECK(le(zip, local + 14, 4) == crc);
    CHECK(le(zip, local + 18, 4) == packed);
    CHECK(le(zip, local + 22, 4) == unpacked);
    CHECK(zip.substr(local + 30, le(zip, local + 26, 2)) == name);
    const std::string data = zip.substr(local + 30 + n + le(zip, local + 28, 2), packed);
    REQUIRE(data.size() == packed);
    std::string bytes = data, error;
    if (method == 8) {
      INFO(name);
      REQUIRE(scenario::inflate(reinterpret_cast<const unsigned char*>(data.data()), data.size(),
                                unpacked, &bytes, &error));
    }
    CHECK(bytes.size() == unpacked);
    CHECK(test::crc32_of(bytes) == crc);
    out.push_back({name, bytes, static_cast<int>(method), data});
    p += 46 + n + le(zip, p + 30, 2) + le(zip, p + 32, 2);
  }
  return out;
}

// Text that the fixed codes make smaller (runs and repeats), as a site's files are.
std::string compressible(size_t n) {
  std::string s;
  for (size_t i = 0; s.size() < n; ++i)
    s += "attention " + std::to_string(i) + std::string(24, ' ');
  return s.substr(0, n);
}

// A small XML reader for the cmi5 course structure: elements, attributes and text, the five
// predefined entities decoded; anything else (a stray '<' or '&', a mismatched end tag) fails
// the test. Enough to read back what package_manifest writes, and independent of it.
struct Element {
  std::string name, text;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<Element>> children;
  const Element* child(const std::string& n) const {
    for (const auto& c : children)
      if (c->name == n) return c.get();
    return nullptr;
  }
};

std::string decode(const std::string& s) {
  static const std::pair<const char*, char> entities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    REQUIRE(s[i] != '<');
    if (s[i] != '&') {
      out += s[i++];
      continue;
    }
    bool known = false;
    for (const auto& [e, c] : entities) {
      if (s.compare(i, std::string(e).size(), e) == 0) {
        out += c;
        i += std::string(e).size();
        known = true;
        break;
      }
    }
    INFO(s.substr(i, 10));
    REQUIRE(known);
  }
  return out;
}

std::unique_ptr<Element> parse_element(const std::string& x, size_t& p) {
  REQUIRE(x[p] == '<');
  auto e = std::make_unique<Element>();
  size_t q = x.find_first_of(" />", ++p);
  e->name = x.substr(p, q - p);
  p = q;
  for (;;) {
    while (x[p] == ' ' || x[p] == '\n') ++p;
    if (x.compare(p, 2, "/>") == 0) {
      p += 2;
      return e;
    }
    if (x[p] == '>') break;
    const size_t eq = x.find('=', p);
    const std::string name = x.substr(p, eq - p);
    REQUIRE(x[eq + 1] == '"');
    const size_t close = x.find('"', eq + 2);
    REQUIRE(close != std::string::npos);
    e->attributes[name] = decode(x.substr(eq + 2, close - eq - 2));
    p = close + 1;
  }
  ++p;
  for (;;) {
    const size_t lt = x.find('<', p);
    REQUIRE(lt != std::string::npos);
    e->text += decode(x.substr(p, lt - p));
    p = lt;
    if (x.compare(p, 2, "</") == 0) {
      REQUIRE(x.compare(p + 2, e->name.size() + 1, e->name + ">") == 0);
      p += e->name.size() + 3;
      return e;
    }
    e->children.push_back(parse_element(x, p));
  }
}

std::unique_ptr<Element> parse_xml(const std::string& x) {
  const std::string declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  REQUIRE(x.rfind(declaration, 0) == 0);
  size_t p = declaration.size();
  auto root = parse_element(x, p);
  CHECK(x.substr(p) == "\n");
  return root;
}

// The langstring inside a title or description element.
std::string langstring(const Element* e) {
  REQUIRE(e != nullptr);
  REQUIRE(e->children.size() == 1);
  CHECK(e->children[0]->name == "langstring");
  CHECK(e->children[0]->attributes.at("lang") == "en-US");
  return e->children[0]->text;
}

}  // namespace

TEST_CASE("a ZIP archive is read back entry for entry, the same files the same bytes", "[zip]") {
  const std::vector<scenario::ZipEntry> files = {{"index.html", "<!doctype html>"},
                                                 {"js/app.js", std::string(100000, 'x')},
                                                 {"empty.txt", ""},
                                                 {"fonts/中文.ttf", std::string("\0\1\2\3", 4)}};
  const scenario::ZipResult z = scenario::write_zip(files);
  REQUIRE(z.ok());
  const std::vector<ReadEntry> back = read_back(z.bytes);
  REQUIRE(back.size() == files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    CHECK(back[i].name == files[i].name);
    CHECK(back[i].bytes == files[i].bytes);
  }
  CHECK(scenario::write_zip(files).bytes == z.bytes);
  CHECK(read_back(scenario::write_zip({}).bytes).empty());
  CHECK(scenario::crc32(std::string("123456789")) == 0xCBF43926u);  // the standard check value
}

TEST_CASE("a file with its gzip copy is deflated from it, and inflates back to the file",
          "[zip][gzip]") {
  const std::string js = compressible(20000), css = compressible(3000);
  // A member with every optional header field: FEXTRA, FNAME, FCOMMENT and FHCRC (its CRC).
  std::string fields = "\x04";  // FEXTRA: XLEN 4, then 4 bytes
  fields += std::string("\0AB\0", 4) + "app.css" + '\0' + "a comment" + '\0';
  std::string header = test::gzip_member("", 2 | 4 | 8 | 16, fields).substr(0, 10) + fields;
  const uint32_t hcrc = scenario::crc32(header) & 0xffff;
  fields += static_cast<char>(hcrc & 0xff);
  fields += static_cast<char>(hcrc >> 8);
  const std::string full = test::gzip_member(css, 2 | 4 | 8 | 16, fields);
  const std::vector<scenario::ZipEntry> files = {
      {"index.html", "<!doctype html>"},  // no copy: stored
      {"js/app.js", js, test::gzip_member(js)},
      {"app.css", css, full},
      {"noise.bin", "\x01\xfe\x7f\x80", test::gzip_member("\x01\xfe\x7f\x80")}};  // larger
  const scenario::ZipResult z = scenario::write_zip(files);
  REQUIRE(z.ok());
  const std::vector<ReadEntry> back = read_back(z.bytes);
  REQUIRE(back.size() == files.size());
  const int methods[] = {0, 8, 8, 0};
  for (size_t i = 0; i < files.size(); ++i) {
    INFO(files[i].name);
    CHECK(back[i].name == files[i].name);
    CHECK(back[i].bytes == files[i].bytes);
    CHECK(back[i].method == methods[i]);
  }
  // The deflate data are the copy's own, taken whole, not deflated again.
  const scenario::GzipMember m = scenario::read_gzip_member(full, css);
  REQUIRE(m.ok());
  CHECK(m.deflate_at == 10 + fields.size());
  CHECK(back[2].packed == full.substr(m.deflate_at, m.deflate_size));
  CHECK(m.deflate_size == full.size() - m.deflate_at - 8);
  CHECK(m.crc == scenario::crc32(css));
  CHECK(back[1].packed.size() < js.size() / 2);
  CHECK(scenario::write_zip(files).bytes == z.bytes);  // the same files, the same bytes
}

TEST_CASE("a gzip copy that is not the file's own is refused, and the file is stored",
          "[zip][gzip][bad]") {
  const std::string file = compressible(5000);
  const std::string good = test::gzip_member(file);
  REQUIRE(scenario::read_gzip_member(good, file).ok());
  const auto problem = [&file](const std::string& gzip) {
    const scenario::GzipMember m = scenario::read_gzip_member(gzip, file);
    CHECK(m.deflate_size == 0);
    // Whatever the copy, the archive holds the file: stored.
    const std::vector<ReadEntry> back = read_back(scenario::write_zip({{"f", file, gzip}}).bytes);
    REQUIRE(back.size() == 1);
    CHECK(back[0].method == 0);
    CHECK(back[0].bytes == file);
    return m.error;
  };
  // Not gzip at all, or another method.
  CHECK(problem("PK\3\4 a zip") == "gzip: is not gzip (it does not begin with 1f 8b)");
  CHECK(problem("\x1f") == "gzip: is not gzip (it does not begin with 1f 8b)");
  CHECK(problem(std::string("\x1f\x8b\x07\0", 4) + good.substr(4)) ==
        "gzip: its compression method is 7, not deflate");
  std::string reserved = good;
  reserved[3] = '\x20';
  CHECK(problem(reserved) == "gzip: has reserved flags set");
  // Cut short anywhere: refused, never read past its end.
  for (size_t n = 0; n < good.size(); n += (n < 40 ? 1 : 97)) {
    INFO("the first " << n << " bytes");
    CHECK(!problem(good.substr(0, n)).empty());
  }
  CHECK(problem(good.substr(0, 9)) == "gzip: its header runs past the end");
  CHECK(problem(good.substr(0, 17)) == "gzip: ends before its trailer");
  CHECK(problem(good.substr(0, good.size() - 1)) == "gzip: its size (ISIZE) is not the file's");
  // Header fields that run past the end: FEXTRA's length, FNAME and FCOMMENT without their 0.
  const std::string head = good.substr(0, 10);
  const auto with_flags = [&](unsigned flags, const std::string& rest) {
    std::string g = head + rest;
    g[3] = static_cast<char>(flags);
    return g;
  };
  CHECK(problem(with_flags(4, "\xff\xff" + std::string(100, 'x'))) ==
        "gzip: its extra field (FEXTRA) runs past the end");
  CHECK(problem(with_flags(4, "\x05")) == "gzip: its header runs past the end");
  CHECK(problem(with_flags(8, "name without its end")) ==
        "gzip: its file name (FNAME) runs past the end");
  CHECK(problem(with_flags(16, "comment")) == "gzip: its comment (FCOMMENT) runs past the end");
  CHECK(problem(with_flags(2, "\x01")) == "gzip: its header runs past the end");
  std::string bad_hcrc = test::gzip_member(file, 2, std::string("\0\0", 2));
  CHECK(problem(bad_hcrc) == "gzip: its header's CRC (FHCRC) does not match");
  // A trailer that is not the file's: a stale copy, or one that lies.
  std::string crc = good;
  crc[crc.size() - 8] ^= 1;
  CHECK(problem(crc) == "gzip: its CRC-32 is not the file's");
  CHECK(problem(test::gzip_member(file + "x")) == "gzip: its size (ISIZE) is not the file's");
  // Its trailer the file's, its data another's of the same size.
  std::string other = test::gzip_member(compressible(5001).substr(1));
  other.replace(other.size() - 8, 4, good.substr(good.size() - 8, 4));
  CHECK(problem(other) == "gzip: inflates to other bytes than the file's");
  // Data that inflate past the file's size (a bomb), or are no deflate stream.
  std::string bomb = test::gzip_member(std::string(1 << 20, '\0'));
  bomb.replace(bomb.size() - 8, 8, good.substr(good.size() - 8));
  CHECK(problem(bomb) == "gzip: inflates to more than the limit");
  std::string garbage = head + std::string(40, '\xff') + good.substr(good.size() - 8);
  CHECK(problem(garbage).rfind("gzip: ", 0) == 0);
  // Two members, or anything between the deflate stream and the trailer.
  const std::string half = file.substr(0, 2500);
  std::string two = test::gzip_member(half);
  two = two.substr(0, two.size() - 8) + test::gzip_member(file.substr(2500));
  CHECK(!problem(two).empty());
  std::string padded = good;
  padded.insert(padded.size() - 8, std::string(3, '\0'));
  CHECK(problem(padded) == "gzip: has more data between its deflate stream and trailer");
  // An empty file: its copy is never smaller, but it is read as the file's.
  CHECK(scenario::read_gzip_member(test::gzip_member(""), "").ok());
}

TEST_CASE("hostile entry names are refused, naming the entry", "[zip][bad]") {
  const std::pair<std::string, std::string> cases[] = {
      {"", "zip: an entry has no name"},
      {"/etc/passwd", "/etc/passwd: is an absolute path"},
      {"../outside", "../outside: has an empty, '.' or '..' part"},
      {"a/../../b", "a/../../b: has an empty, '.' or '..' part"},
      {"a//b", "a//b: has an empty, '.' or '..' part"},
      {"dir/", "dir/: has an empty, '.' or '..' part"},
      {"a\\b", "a\\b: has a backslash or a control character"},
      {std::string("a\nb"), "a\nb: has a backslash or a control character"},
  };
  for (const auto& [name, error] : cases) {
    INFO(name);
    CHECK(scenario::write_zip({{name, "x"}}).error == error);
  }
  CHECK(scenario::write_zip({{"a", "1"}, {"a", "2"}}).error == "a: is given twice");
  CHECK(scenario::write_zip({{std::string(2000, 'n'), "x"}}).error ==
        std::string(80, 'n') + ": is longer than 1024 bytes");
}

TEST_CASE("a package's spec is checked field by field", "[package][bad]") {
  scenario::PackageSpec ok{"scorm2004", "Attention", {"why_so_tall", "padded_batch"}, 70, {}};
  CHECK(scenario::check_package(ok).empty());
  auto with = [&](auto change) {
    scenario::PackageSpec s = ok;
    change(s);
    return scenario::check_package(s);
  };
  CHECK(with([](auto& s) { s.format = "cmi5x"; }) ==
        "format: must be scorm2004, scorm12 or cmi5, not \"cmi5x\"");
  CHECK(with([](auto& s) { s.format = "cmi5"; }).empty());
  CHECK(with([](auto& s) { s.title = ""; }) == "title: must be 1 to 200 characters");
  CHECK(with([](auto& s) { s.title = std::string(201, 't'); }) ==
        "title: must be 1 to 200 characters");
  CHECK(with([](auto& s) { s.title = "two\nlines"; }) ==
        "title: must be one line, without control characters");
  CHECK(with([](auto& s) {
          s.lessons = {"why_so_tall", "../x"};
        }) == "lessons[1]: \"../x\" is not a lesson name (1 to 32 of a-z, 0-9 and _)");
  CHECK(with([](auto& s) { s.lessons = {"a", "a"}; }) == "lessons[1]: \"a\" is listed twice");
  CHECK(with([](auto& s) { s.lessons.assign(65, "a"); }) ==
        "lessons: must name at most 64 lessons");
  CHECK(with([](auto& s) { s.pass = 101; }) == "pass: must be a whole percent from 0 to 100");
  CHECK(with([](auto& s) { s.lessons.clear(); }).empty());  // the whole path
}

TEST_CASE("the manifests: SCORM 2004 and 1.2, the launch address, every file, escaped text",
          "[package]") {
  scenario::PackageSpec spec{
      "scorm2004", "<Attention> & \"you\"", {"why_so_tall", "padded_batch"}, 70, {}};
  CHECK(scenario::package_launch(spec) ==
        "index.html?lms=scorm2004&lessons=why_so_tall,padded_batch&pass=70&offline=off&threads=1");
  const std::string m = scenario::package_manifest(spec, {"index.html", "a&b.js"});
  CHECK(m.find("<schemaversion>2004 4th Edition</schemaversion>") != std::string::npos);
  CHECK(m.find("xmlns=\"http://www.imsglobal.org/xsd/imscp_v1p1\"") != std::string::npos);
  CHECK(m.find("<title>&lt;Attention&gt; &amp; &quot;you&quot;</title>") != std::string::npos);
  CHECK(m.find("adlcp:scormType=\"sco\" href=\"index.html?lms=scorm2004&amp;lessons=why_so_tall,"
               "padded_batch&amp;pass=70&amp;offline=off&amp;threads=1\"") != std::string::npos);
  CHECK(m.find("<file href=\"a&amp;b.js\"/>") != std::string::npos);
  CHECK(m.find("<Attention>") == std::string::npos);
  // 2004 declares the passing score: the primary objective satisfied by a scaled score of 0.7.
  CHECK(
      m.find("<imsss:primaryObjective objectiveID=\"course_passed\" satisfiedByMeasure=\"true\">\n"
             "              <imsss:minNormalizedMeasure>0.7</imsss:minNormalizedMeasure>") !=
      std::string::npos);
  for (const auto& [pass, measure] : std::vector<std::pair<int, std::string>>{
           {0, "0.0"}, {5, "0.05"}, {75, "0.75"}, {80, "0.8"}, {100, "1.0"}}) {
    scenario::PackageSpec p = spec;
    p.pass = pass;
    CHECK(scenario::package_manifest(p, {}).find("<imsss:minNormalizedMeasure>" + measure + "<") !=
          std::string::npos);
  }
  spec.format = "scorm12";
  spec.lessons.clear();
  const std::string m12 = scenario::package_manifest(spec, {"index.html"});
  CHECK(m12.find("<schemaversion>1.2</schemaversion>") != std::string::npos);
  CHECK(m12.find("xmlns=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2\"") != std::string::npos);
  // No mastery score for 1.2: a platform would fail a learner who left halfway by it.
  CHECK(m12.find("masteryscore") == std::string::npos);
  CHECK(m12.find("imsss") == std::string::npos);
  CHECK(m12.find("adlcp:scormtype=\"sco\" "
                 "href=\"index.html?lms=scorm12&amp;pass=70&amp;offline=off&amp;threads=1\"") !=
        std::string::npos);
}

TEST_CASE("a package is the manifest and the files in one archive", "[package]") {
  const scenario::PackageSpec spec{"scorm12", "Course", {}, 80, {}};
  const scenario::ZipResult z =
      scenario::write_package(spec, {{"index.html", "page"}, {"js/a.js", "js"}});
  REQUIRE(z.ok());
  const std::vector<ReadEntry> back = read_back(z.bytes);
  REQUIRE(back.size() == 3);
  CHECK(back[0].name == "imsmanifest.xml");
  CHECK(back[0].bytes == scenario::package_manifest(spec, {"index.html", "js/a.js"}));
  CHECK(back[2].bytes == "js");
  CHECK(scenario::write_package(spec, {{"imsmanifest.xml", "mine"}}).error ==
        "imsmanifest.xml: the package writes its own");
  CHECK(
      scenario::write_package({"scorm3000", "Course", {}, 80, {}}, {}).error.rfind("format: ", 0) ==
      0);
}

TEST_CASE("a package holds the builds a platform runs, deflated from their gzip copies",
          "[package][gzip]") {
  // The single-thread builds go in; the threaded ones (a platform's page is not cross-origin
  // isolated) are passed over, and the manifest does not list them.
  const std::string wasm = compressible(30000);
  const std::string page = "<meta content=\"connect-src 'self'\">" + compressible(2000);
  std::vector<scenario::ZipEntry> site = {{"index.html", page, test::gzip_member(page)}};
  for (const char* stem :
       {"attention-playground", "attention-playground-relaxed", "attention-playground-threads",
        "attention-playground-threads-relaxed"}) {
    for (const char* ext : {".js", ".wasm", ".worker.js"}) {
      if (std::string(ext) == ".worker.js" &&
          std::string(stem).find("threads") == std::string::npos)
        continue;
      site.push_back({stem + std::string(ext), wasm, test::gzip_member(wasm)});
    }
  }
  REQUIRE(site.size() == 11);
  const std::vector<std::string> shipped = {
      "index.html", "attention-playground.js", "attention-playground.wasm",
      "attention-playground-relaxed.js", "attention-playground-relaxed.wasm"};
  for (const scenario::ZipEntry& f : site) {
    INFO(f.name);
    CHECK(scenario::package_ships(f.name) ==
          (std::find(shipped.begin(), shipped.end(), f.name) != shipped.end()));
  }
  for (const char* format : {"scorm2004", "scorm12", "cmi5"}) {
    INFO(format);
    const scenario::PackageSpec spec{format, "Course", {}, 80, {}};
    const scenario::ZipResult z = scenario::write_package(spec, site);
    REQUIRE(z.ok());
    const std::vector<ReadEntry> back = read_back(z.bytes);
    REQUIRE(back.size() == shipped.size() + 1);
    CHECK(back[0].bytes == scenario::package_manifest(spec, shipped));
    CHECK(back[0].method == 0);
    for (size_t i = 0; i < shipped.size(); ++i) {
      CHECK(back[i + 1].name == shipped[i]);
      if (i > 0) CHECK(back[i + 1].bytes == wasm);
      if (i > 0) CHECK(back[i + 1].method == 8);
    }
    // cmi5's index.html is the site's with its policy widened: its copy is no longer its own,
    // so it is stored; SCORM's is the site's, deflated.
    CHECK(back[1].method == (spec.format == "cmi5" ? 0 : 8));
    CHECK((back[1].bytes == page) == (spec.format != "cmi5"));
    CHECK(z.bytes.size() < 4 * wasm.size());
  }
}

TEST_CASE("cmi5.xml: a course and one AU, ids from the title and lessons, every field escaped",
          "[package][cmi5]") {
  const std::string hostile = "</title><x>&\"'";
  const scenario::PackageSpec spec{"cmi5", hostile, {"why_so_tall", "padded_batch"}, 70, {}};
  CHECK(scenario::package_manifest_name(spec) == "cmi5.xml");
  CHECK(scenario::package_launch(spec) ==
        "index.html?lms=cmi5&lessons=why_so_tall,padded_batch&pass=70&offline=off&threads=1");
  const std::string id = scenario::package_course_id(spec);
  CHECK(id.rfind("https://attention-playground.invalid/course/", 0) == 0);
  CHECK(id.size() == std::string("https://attention-playground.invalid/course/").size() + 16);
  // The same title and lessons: the same id; another title, other lessons, or their order:
  // another; the passing score is not part of it.
  CHECK(scenario::package_course_id({"cmi5", hostile, {"why_so_tall", "padded_batch"}, 90, {}}) ==
        id);
  CHECK(scenario::package_course_id({"cmi5", "Other", {"why_so_tall", "padded_batch"}, 70, {}}) !=
        id);
  CHECK(scenario::package_course_id({"cmi5", hostile, {"padded_batch", "why_so_tall"}, 70, {}}) !=
        id);

  const std::string m = scenario::package_manifest(spec, {"index.html"});
  CHECK(m.find("<x>") == std::string::npos);
  const auto root = parse_xml(m);
  CHECK(root->name == "courseStructure");
  CHECK(root->attributes.at("xmlns") ==
        "https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd");
  REQUIRE(root->children.size() == 2);
  const Element* course = root->child("course");
  REQUIRE(course != nullptr);
  CHECK(course->attributes.at("id") == id);
  CHECK(langstring(course->child("title")) == hostile);
  CHECK(langstring(course->child("description")).find("why_so_tall, padded_batch") !=
        std::string::npos);
  const Element* au = root->child("au");
  REQUIRE(au != nullptr);
  CHECK(au->attributes == std::map<std::string, std::string>{{"id", id + "/au"},
                                                             {"moveOn", "CompletedAndPassed"},
                                                             {"masteryScore", "0.7"},
                                                             {"launchMethod", "AnyWindow"}});
  // The schema's order: title, description, url.
  REQUIRE(au->children.size() == 3);
  CHECK(au->children[0]->name == "title");
  CHECK(langstring(au->children[0].get()) == hostile);
  CHECK(au->children[1]->name == "description");
  CHECK(au->children[2]->name == "url");
  CHECK(au->children[2]->text == scenario::package_launch(spec));

  // The mastery score is pass/100 written as a decimal.
  const std::pair<int, std::string> scores[] = {{0, "0"}, {5, "0.05"}, {80, "0.8"}, {100, "1"}};
  for (const auto& [pass, written] : scores) {
    const auto r = parse_xml(scenario::package_manifest({"cmi5", "C", {}, pass, {}}, {}));
    CHECK(r->child("au")->attributes.at("masteryScore") == written);
    CHECK(r->child("au")->child("url")->text ==
          "index.html?lms=cmi5&pass=" + std::to_string(pass) + "&offline=off&threads=1");
  }
}

TEST_CASE("a cmi5 package: cmi5.xml, the site, and index.html's connect-src widened for the LRS",
          "[package][cmi5]") {
  const scenario::PackageSpec spec{"cmi5", "Course", {"why_so_tall"}, 80, {}};
  const std::string page =
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; "
      "connect-src 'self'; object-src 'none'\">";
  const scenario::ZipResult z =
      scenario::write_package(spec, {{"index.html", page}, {"js/a.js", "connect-src 'self'"}});
  REQUIRE(z.ok());
  const std::vector<ReadEntry> back = read_back(z.bytes);
  REQUIRE(back.size() == 3);
  CHECK(back[0].name == "cmi5.xml");
  CHECK(back[0].bytes == scenario::package_manifest(spec, {}));
  CHECK(back[1].name == "index.html");
  CHECK(back[1].bytes ==
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; "
        "connect-src 'self' https: http://127.0.0.1:* http://localhost:*; object-src 'none'\">");
  CHECK(back[2].bytes == "connect-src 'self'");  // only the launched page changes
  // A SCORM package's page keeps its policy.
  const scenario::ZipResult scorm =
      scenario::write_package({"scorm2004", "Course", {}, 80, {}}, {{"index.html", page}});
  REQUIRE(scorm.ok());
  CHECK(read_back(scorm.bytes)[1].bytes == page);
  for (const char* name : {"cmi5.xml", "imsmanifest.xml"}) {
    for (const char* format : {"cmi5", "scorm12"}) {
      INFO(name << " in a " << format << " package");
      CHECK(scenario::write_package({format, "Course", {}, 80, {}}, {{name, "mine"}}).error ==
            std::string(name) + ": the package writes its own");
    }
  }
}

TEST_CASE("a lesson of the course's own is course/NAME.json in the package, listed and walked",
          "[package][own]") {
  const std::string mine = R"({"version": 1, "title": "Ours", "x": [[1, 0], [0, 1]]})";
  scenario::PackageSpec spec{"scorm2004", "Course", {"why_so_tall", "ours"}, 80, {{"ours", mine}}};
  CHECK(scenario::check_package(spec).empty());
  CHECK(scenario::own_lesson_path("ours") == "course/ours.json");
  CHECK(scenario::package_launch(spec) ==
        "index.html?lms=scorm2004&lessons=why_so_tall,ours&own=ours&pass=80&offline=off&threads=1");
  const scenario::ZipResult z = scenario::write_package(
      spec, {{"index.html", "page"}, {"assets/presets/why_so_tall.json", "{}"}});
  REQUIRE(z.ok());
  const std::vector<ReadEntry> back = read_back(z.bytes);
  REQUIRE(back.size() == 4);
  CHECK(back[3].name == "course/ours.json");
  CHECK(back[3].bytes == mine);
  CHECK(back[0].bytes.find("<file href=\"course/ours.json\"/>") != std::string::npos);
  // cmi5 lists no files, but holds the lesson all the same.
  spec.format = "cmi5";
  const scenario::ZipResult c = scenario::write_package(spec, {{"index.html", "page"}});
  REQUIRE(c.ok());
  CHECK(read_back(c.bytes).back().name == "course/ours.json");
}

TEST_CASE("a lesson of the course's own that is no lesson is refused, naming it and the field",
          "[package][own][bad]") {
  const std::string good = R"({"version": 1, "x": [[1, 0], [0, 1]]})";
  const scenario::PackageSpec ok{
      "scorm12", "Course", {"why_so_tall", "ours"}, 80, {{"ours", good}}};
  auto with = [&](auto change) {
    scenario::PackageSpec s = ok;
    change(s);
    return scenario::check_package(s);
  };
  CHECK(with([](auto& s) { s.own[0].name = "../ours"; }) ==
        "own[0]: \"../ours\" is not a lesson name (1 to 32 of a-z, 0-9 and _)");
  CHECK(with([](auto& s) { s.own[0].name = std::string(33, 'a'); }).rfind("own[0]: \"aaa", 0) == 0);
  CHECK(with([](auto& s) { s.own[0].name = "theirs"; }) ==
        "own[0]: \"theirs\" is not one of lessons (name it there, in its place)");
  CHECK(with([&](auto& s) {
          s.own.push_back({"ours", good});
        }) == "own[1]: \"ours\" is given twice");
  CHECK(with([](auto& s) { s.own[0].json = R"({"version": 1, "x": [[1, "a"], [0, 1]]})"; }) ==
        "own[0] (\"ours\"): x[0][1]: must be a number, got a string");
  CHECK(with([](auto& s) {
          s.own[0].json = R"({"version": 1, "x": [[1, 0], [0, 1]])";
        }).rfind("own[0] (\"ours\"): json: parse error", 0) == 0);
  CHECK(with([](auto& s) { s.own[0].json = std::string(2 << 20, ' '); }) ==
        "own[0] (\"ours\"): is larger than 1 MB");
  CHECK(with([](auto& s) {
          s.own[0].json = std::string(100000, '[') + "1";
        }).rfind("own[0] (\"ours\"): ", 0) == 0);
  CHECK(with([&](auto& s) {
          s.lessons.clear();
          s.own.clear();
          for (int i = 0; i < 17; ++i) {
            s.lessons.push_back("l" + std::to_string(i));
            s.own.push_back({"l" + std::to_string(i), good});
          }
        }) == "own: at most 16 lessons of the course's own");
  // Named as one of the site's lessons, or as a file the site has: refused, nothing written.
  const scenario::ZipResult same =
      scenario::write_package(ok, {{"index.html", "page"}, {"assets/presets/ours.json", "{}"}});
  CHECK(same.error ==
        "own[0]: \"ours\" is a lesson of the playground already; give yours another name");
  CHECK(same.bytes.empty());
  CHECK(scenario::write_package(ok, {{"course/ours.json", "{}"}}).error ==
        "own[0]: \"ours\" is in the site already (course/ours.json)");
}
