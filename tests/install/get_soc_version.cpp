// SPDX-License-Identifier: MIT
// What CANN's sample environment script compiles and runs to find
// SOC_VERSION (conventions 3.4): aclrtGetSocName() alone, before aclInit
// and without a device. Prints the name and exits 0, or exits 1 when there
// is none.
#include <cstdio>

#include "acl/acl.h"

int main()
{
    const char *name = aclrtGetSocName();
    if (name == nullptr || name[0] == '\0') {
        std::fprintf(stderr, "aclrtGetSocName returned no SoC name\n");
        return 1;
    }
    std::printf("%s\n", name);
    return 0;
}
