// What the Scenario JSON v1 reader's files share: the readers of its values (matrices,
// batches, tokens: json_read_values.cpp) and of its model blocks (json_read_models.cpp), which
// read_scenario (json_read.cpp) calls. Internal to src/scenario.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/json_util.h"
#include "scenario/scenario.h"

namespace scenario::json_read_internal {

// The typed-field readers of json_util that the reader's files use.
using json_util::check_keys;
using json_util::fail;
using json_util::idx;
using json_util::read_array;
using json_util::read_float_at;
using json_util::read_int;
using json_util::read_string;
using json_util::type_name;
using nlohmann::json;

// The float arrays of the scenario being read, for "buffer" fields: json_util::parse_value
// sets them while it reads.
extern thread_local const std::vector<FloatArray>* t_arrays;

// json_read_values.cpp: a matrix, a weight (a matrix, or w_v's vector), a batch (*two_d: given
// as one 2-D array), a list of tokens or names, and the tokens of every batch item.
attn::Matrix read_matrix(const json& v, const std::string& field);
void read_weight(const json& v, const std::string& field, attn::Matrix* m);
void read_weight(const json& v, const std::string& field, attn::Vector* w);
attn::Batch read_batch(const json& v, const std::string& field, bool* two_d);
std::vector<std::string> read_token_list(const json& v, const std::string& field,
                                         std::vector<std::string>* zh, bool* any_zh);
std::vector<std::vector<std::string>> read_tokens(const json& v, const std::string& field,
                                                  bool* per_item,
                                                  std::vector<std::vector<std::string>>* zh);

// json_read_models.cpp: "layers", a token model's ids, "image", "seq2seq" and "hierarchy".
std::vector<LayerSpec> read_layers(const json& v);
std::vector<std::vector<int>> read_ids(const json& v, const std::string& field, int lowest,
                                       bool* two_d);
Image read_image(const json& v, const std::string& field);
Seq2Seq read_seq2seq(const json& v);
Hierarchy read_hierarchy(const json& v);

}  // namespace scenario::json_read_internal
