// SPDX-License-Identifier: MIT
#include "core/config_file.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace npu::rt {

Error ReadConfigFile(const char *path, std::string *content) {
    std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path, "rb"), &std::fclose);
    if (!f) {
        return Error::Format(ACL_ERROR_INVALID_FILE, "cannot open config file \"%s\": %s", path,
                             std::strerror(errno));
    }
    content->clear();
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f.get())) > 0)
        content->append(buf, n);
    if (std::ferror(f.get())) {
        return Error::Format(ACL_ERROR_INVALID_FILE, "cannot read config file \"%s\": %s", path,
                             std::strerror(errno));
    }
    return Error::Ok();
}

namespace {

// A recursive-descent JSON checker. It validates the grammar only; it
// builds nothing.
class JsonChecker {
  public:
    explicit JsonChecker(std::string_view text) : text_(text) {}

    bool Check(std::string *why) {
        SkipBlanks();
        if (pos_ == text_.size())
            return true;
        if (!Value(0))
            return Fail(why);
        SkipBlanks();
        if (pos_ != text_.size()) {
            error_ = "unexpected text after the top-level value";
            return Fail(why);
        }
        return true;
    }

  private:
    bool Fail(std::string *why) {
        *why = error_ + " at offset " + std::to_string(pos_);
        return false;
    }
    bool Reject(const char *what) {
        error_ = what;
        return false;
    }
    void SkipBlanks() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                       text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }
    bool Eat(char c) {
        SkipBlanks();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool Literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word)
            return Reject("invalid literal");
        pos_ += word.size();
        return true;
    }

    bool Value(int depth) {
        SkipBlanks();
        if (pos_ == text_.size())
            return Reject("unexpected end of text");
        switch (text_[pos_]) {
            case '{':
                return Container(depth + 1, '}', true);
            case '[':
                return Container(depth + 1, ']', false);
            case '"':
                return String();
            case 't':
                return Literal("true");
            case 'f':
                return Literal("false");
            case 'n':
                return Literal("null");
            default:
                return Number();
        }
    }

    // An object (with "key": value members) or an array.
    bool Container(int depth, char close, bool object) {
        if (depth > kMaxConfigNesting)
            return Reject("nesting deeper than 10");
        ++pos_;  // the opening brace or bracket
        if (Eat(close))
            return true;
        for (;;) {
            if (object) {
                SkipBlanks();
                if (pos_ == text_.size() || text_[pos_] != '"')
                    return Reject("expected a key");
                if (!String())
                    return false;
                if (!Eat(':'))
                    return Reject("expected ':'");
            }
            if (!Value(depth))
                return false;
            if (Eat(close))
                return true;
            if (!Eat(','))
                return Reject(object ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }

    bool String() {
        ++pos_;  // the opening quote
        while (pos_ < text_.size()) {
            unsigned char c = static_cast<unsigned char>(text_[pos_++]);
            if (c == '"')
                return true;
            if (c < 0x20)
                return Reject("control character in a string");
            if (c != '\\')
                continue;
            if (pos_ == text_.size())
                break;
            char e = text_[pos_++];
            if (e == 'u') {
                for (int i = 0; i < 4; ++i, ++pos_) {
                    if (pos_ == text_.size() ||
                        !std::isxdigit(static_cast<unsigned char>(text_[pos_])))
                        return Reject("bad \\u escape");
                }
            } else if (std::strchr("\"\\/bfnrt", e) == nullptr) {
                return Reject("bad escape in a string");
            }
        }
        return Reject("unterminated string");
    }

    bool Digits() {
        size_t start = pos_;
        while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
            ++pos_;
        return pos_ > start;
    }

    bool Number() {
        if (text_[pos_] == '-')
            ++pos_;
        if (!Digits())
            return Reject("unexpected character");
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            if (!Digits())
                return Reject("bad number");
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
                ++pos_;
            if (!Digits())
                return Reject("bad number");
        }
        return true;
    }

    std::string_view text_;
    size_t pos_ = 0;
    std::string error_;
};

}  // namespace

bool ValidateConfigJson(std::string_view text, std::string *why) {
    return JsonChecker(text).Check(why);
}

}  // namespace npu::rt
