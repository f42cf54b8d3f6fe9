// The result of a check or an action that can fail and gives nothing back: ok, or one line
// that names the field and the problem ("keys[0][2]: has 3 columns, expected 4"). Results
// that do give something back (scenario::ParseResult, scenario::LinkResult) carry the same
// `error` and `ok()`.
#pragma once

#include <string>
#include <utility>

namespace attn {

struct Status {
  std::string error;  // "" when ok
  bool ok() const { return error.empty(); }

  static Status success() { return Status{}; }
  static Status failure(std::string message) { return Status{std::move(message)}; }
};

}  // namespace attn
