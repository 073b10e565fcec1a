// SPDX-License-Identifier: MIT
#include "core/config_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/json_value.h"

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

bool ValidateConfigJson(std::string_view text, std::string *why) {
    // The same reader that later looks the settings up (core/dump.cpp), so
    // that what aclInit accepts is what they read.
    JsonValue doc;
    return ParseJson(text, kMaxConfigNesting, &doc, why);
}

}  // namespace npu::rt
