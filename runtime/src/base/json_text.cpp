// SPDX-License-Identifier: MIT
#include "base/json_text.h"

#include <cstdio>

namespace npu::base {

std::string JsonEscaped(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof(esc), "\\u%04x", c);
            out += esc;
        } else {
            out += ch;
        }
    }
    return out;
}

void AppendJsonString(std::string *out, std::string_view s) {
    *out += '"';
    *out += JsonEscaped(s);
    *out += '"';
}

}  // namespace npu::base
