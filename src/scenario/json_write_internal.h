// What the JSON writers share (json_write_values.cpp): the pieces of text scenario JSON is made
// of, appended to a string. Numbers are written so that they read back exactly (non-finite
// ones as strings), weights as rows (w_v as one row), texts and tokens as read: a string, or
// {"en": ..., "zh": ...} where the Chinese differs. Internal to src/scenario.
#pragma once

#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace scenario::json_write_internal {

void append_number(std::string* out, float v);
void append_matrix(std::string* out, const attn::Matrix& m);
void append_weight(std::string* out, const attn::Matrix& m);
void append_weight(std::string* out, const attn::Vector& v);
// A batch; a 2-D matrix when `two_d` and the batch has one item.
void append_batch(std::string* out, const attn::Batch& b, bool two_d);
// "key": in an object (the comma when it is not the first).
void append_key(std::string* out, const char* key);
void append_string(std::string* out, const std::string& s);
void append_strings(std::string* out, const std::vector<std::string>& v);
void append_text(std::string* out, const LocalText& t);
// One list of tokens, or one per batch item (per_item); zh empty when none has a Chinese.
void append_tokens(std::string* out, const std::vector<std::vector<std::string>>& t,
                   const std::vector<std::vector<std::string>>& zh, bool per_item);

}  // namespace scenario::json_write_internal
