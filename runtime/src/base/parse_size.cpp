// SPDX-License-Identifier: MIT
#include "base/parse_size.h"

#include <cerrno>
#include <cstdlib>

namespace npu::base {

bool ParseSize(const char *text, uint64_t *bytes) {
    if (text == nullptr || *text < '0' || *text > '9')
        return false;
    errno = 0;
    char *end = nullptr;
    unsigned long long v = std::strtoull(text, &end, 10);
    if (errno != 0)
        return false;
    unsigned int shift = 0;
    switch (*end) {
        case '\0':
            break;
        case 'k':
        case 'K':
            shift = 10;
            break;
        case 'm':
        case 'M':
            shift = 20;
            break;
        case 'g':
        case 'G':
            shift = 30;
            break;
        default:
            return false;
    }
    if (*end != '\0' && end[1] != '\0')
        return false;
    if (shift != 0 && v > (UINT64_MAX >> shift))
        return false;
    *bytes = static_cast<uint64_t>(v) << shift;
    return true;
}

}  // namespace npu::base
