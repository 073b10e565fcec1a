// SPDX-License-Identifier: MIT
// A JSON value read from text (the aclInit and aclmdlSetDump files): just
// enough of a document model to look settings up. Numbers, true, false and
// null are kept as their text; strings are unescaped (\uXXXX as UTF-8).
#ifndef NPU_RT_CORE_JSON_VALUE_H
#define NPU_RT_CORE_JSON_VALUE_H

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace npu::rt {

struct JsonValue {
    enum Kind { kNull, kScalar, kString, kArray, kObject };
    Kind kind = kNull;
    std::string text;                          // kScalar: its text; kString: the string
    std::vector<JsonValue> items;              // kArray
    std::map<std::string, JsonValue> members;  // kObject (the last of a repeated name)

    // The member called name of an object, or nullptr.
    const JsonValue *Find(const std::string &name) const;
};

// Parses text (one value, nested at most max_depth deep). Empty text is
// null. False with *why on malformed text.
bool ParseJson(std::string_view text, int max_depth, JsonValue *out, std::string *why);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_JSON_VALUE_H
