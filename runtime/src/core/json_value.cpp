// SPDX-License-Identifier: MIT
// A recursive-descent JSON reader (RFC 8259), bounded in depth by the
// caller; see json_value.h.
#include "core/json_value.h"

#include <cstdio>

namespace npu::rt {

const JsonValue *JsonValue::Find(const std::string &name) const {
    if (kind != kObject)
        return nullptr;
    auto it = members.find(name);
    return it == members.end() ? nullptr : &it->second;
}

namespace {

class Reader {
  public:
    Reader(std::string_view t, int max_depth) : t_(t), max_depth_(max_depth) {}

    bool Document(JsonValue *out, std::string *why) {
        Skip();
        if (i_ == t_.size()) {
            *out = JsonValue{};
            return true;
        }
        if (!Value(out, 0) || (Skip(), i_ != t_.size())) {
            if (why_.empty())
                Fail("trailing characters");
            *why = why_;
            return false;
        }
        return true;
    }

  private:
    bool Fail(const char *what) {
        char buf[96];
        std::snprintf(buf, sizeof(buf), "%s at offset %zu", what, i_);
        why_ = buf;
        return false;
    }

    void Skip() {
        while (i_ < t_.size() &&
               (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r'))
            i_++;
    }

    static void PutUtf8(unsigned cp, std::string *s) {
        if (cp < 0x80) {
            s->push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
            s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
            s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    bool String(std::string *s) {
        i_++;  // the opening quote
        while (i_ < t_.size()) {
            const char c = t_[i_++];
            if (c == '"')
                return true;
            if (static_cast<unsigned char>(c) < 0x20)
                return Fail("control character in a string");
            if (c != '\\') {
                s->push_back(c);
                continue;
            }
            if (i_ == t_.size())
                break;
            const char e = t_[i_++];
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    s->push_back(e);
                    break;
                case 'b':
                    s->push_back('\b');
                    break;
                case 'f':
                    s->push_back('\f');
                    break;
                case 'n':
                    s->push_back('\n');
                    break;
                case 'r':
                    s->push_back('\r');
                    break;
                case 't':
                    s->push_back('\t');
                    break;
                case 'u': {
                    if (t_.size() - i_ < 4)
                        return Fail("short \\u escape");
                    unsigned cp = 0;
                    for (int k = 0; k < 4; k++) {
                        const char h = t_[i_++];
                        cp <<= 4;
                        if (h >= '0' && h <= '9')
                            cp |= static_cast<unsigned>(h - '0');
                        else if (h >= 'a' && h <= 'f')
                            cp |= static_cast<unsigned>(h - 'a' + 10);
                        else if (h >= 'A' && h <= 'F')
                            cp |= static_cast<unsigned>(h - 'A' + 10);
                        else
                            return Fail("bad \\u escape");
                    }
                    PutUtf8(cp, s);
                    break;
                }
                default:
                    return Fail("bad escape");
            }
        }
        return Fail("unterminated string");
    }

    bool Scalar(JsonValue *out) {
        const size_t start = i_;
        while (i_ < t_.size() && t_[i_] != ',' && t_[i_] != '}' && t_[i_] != ']' && t_[i_] != ' ' &&
               t_[i_] != '\t' && t_[i_] != '\n' && t_[i_] != '\r')
            i_++;
        const std::string_view w = t_.substr(start, i_ - start);
        if (w.empty())
            return Fail("value expected");
        const bool word = w == "true" || w == "false" || w == "null";
        bool number = !word;
        for (char c : w)
            number = number && ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
                                c == 'e' || c == 'E');
        if (!word && !number)
            return Fail("bad literal");
        out->kind = w == "null" ? JsonValue::kNull : JsonValue::kScalar;
        out->text = std::string(w);
        return true;
    }

    bool Value(JsonValue *out, int depth) {
        Skip();
        if (i_ == t_.size())
            return Fail("value expected");
        const char c = t_[i_];
        if (c == '"') {
            out->kind = JsonValue::kString;
            return String(&out->text);
        }
        if (c != '{' && c != '[')
            return Scalar(out);
        if (depth + 1 > max_depth_)
            return Fail("nested too deep");
        const bool object = c == '{';
        const char close = object ? '}' : ']';
        out->kind = object ? JsonValue::kObject : JsonValue::kArray;
        i_++;
        Skip();
        if (i_ < t_.size() && t_[i_] == close) {
            i_++;
            return true;
        }
        for (;;) {
            Skip();
            std::string name;
            if (object) {
                if (i_ == t_.size() || t_[i_] != '"')
                    return Fail("member name expected");
                if (!String(&name))
                    return false;
                Skip();
                if (i_ == t_.size() || t_[i_] != ':')
                    return Fail("':' expected");
                i_++;
            }
            JsonValue v;
            if (!Value(&v, depth + 1))
                return false;
            if (object)
                out->members[name] = std::move(v);
            else
                out->items.push_back(std::move(v));
            Skip();
            if (i_ < t_.size() && t_[i_] == ',') {
                i_++;
                continue;
            }
            if (i_ < t_.size() && t_[i_] == close) {
                i_++;
                return true;
            }
            return Fail(object ? "',' or '}' expected" : "',' or ']' expected");
        }
    }

    std::string_view t_;
    size_t i_ = 0;
    const int max_depth_;
    std::string why_;
};

}  // namespace

bool ParseJson(std::string_view text, int max_depth, JsonValue *out, std::string *why) {
    Reader r(text, max_depth);
    return r.Document(out, why);
}

}  // namespace npu::rt
