// SPDX-License-Identifier: MIT
// Version and platform queries that need neither aclInit nor a device:
// aclrtGetVersion, aclsysGetVersionStr, aclsysGetVersionNum, aclrtGetRunMode
// and aclrtGetSocName. The version files are those of a CANN root (the
// README's "Installing and using the library": share/info/<pkg>/version.info).
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include <strings.h>

#include "acl/acl.h"
#include "api/api_boundary.h"

using npu::rt::Error;
using npu::rt::RunApi;

namespace {

// What aclrtGetSocName reports unless NPU_SOC_NAME names something else.
constexpr const char *kDefaultSocName = "Ascend910B2";

std::string Trim(const std::string &s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    size_t e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The value after "key=" in a key=value file, if the file has the key.
std::optional<std::string> ReadKey(const std::string &path, const char *key) {
    std::ifstream in(path);
    std::string line;
    size_t n = std::strlen(key);
    while (in && std::getline(in, line)) {
        line = Trim(line);
        if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == '=')
            return Trim(line.substr(n + 1));
    }
    return std::nullopt;
}

// The version.info of a package: driver and firmware are found through
// /etc/ascend_install.info, every other package under
// $ASCEND_HOME_PATH/share/info/<name>/.
std::optional<std::string> PackageVersion(const std::string &name) {
    std::string file;
    if (name == "driver" || name == "firmware") {
        auto dir = ReadKey("/etc/ascend_install.info", name == "driver"
                                                           ? "Driver_Install_Path_Param"
                                                           : "Firmware_Install_Path_Param");
        if (!dir)
            return std::nullopt;
        file = *dir + "/" + name + "/version.info";
    } else {
        const char *home = std::getenv("ASCEND_HOME_PATH");
        if (home == nullptr || *home == '\0')
            return std::nullopt;
        file = std::string(home) + "/share/info/" + name + "/version.info";
    }
    return ReadKey(file, "Version");
}

// PackageVersion, retried with '-' and '_' swapped in the name.
Error LookupVersion(const char *pkg, std::string *version) {
    std::string name(pkg);
    std::optional<std::string> v = PackageVersion(name);
    if (!v) {
        std::string other = name;
        for (char &c : other)
            c = c == '-' ? '_' : c == '_' ? '-' : c;
        if (other != name)
            v = PackageVersion(other);
    }
    if (!v || v->empty()) {
        return Error::Format(ACL_ERROR_INVALID_FILE,
                             "no version for package %s: no share/info/%s/version.info with a "
                             "Version= line under ASCEND_HOME_PATH (%s)",
                             pkg, pkg,
                             std::getenv("ASCEND_HOME_PATH") ? std::getenv("ASCEND_HOME_PATH")
                                                             : "unset");
    }
    *version = *v;
    return Error::Ok();
}

// Digits at *p as a number (at most 9 of them); false if there are none.
bool Number(const char **p, long *out) {
    const char *s = *p;
    long v = 0;
    int n = 0;
    while (std::isdigit(static_cast<unsigned char>(*s)) && n < 9) {
        v = v * 10 + (*s++ - '0');
        n++;
    }
    if (n == 0 || std::isdigit(static_cast<unsigned char>(*s)))
        return false;
    *p = s;
    *out = v;
    return true;
}

// "major.minor.patch" with an optional alpha/beta/rc pre-release, as a
// number that grows with the release; false for anything else.
bool VersionNumber(const std::string &text, int32_t *out) {
    static const struct {
        const char *word;
        long minus;
    } pre[] = {{"alpha", 300}, {"beta", 200}, {"rc", 100}};
    const char *p = text.c_str();
    long major, minor, patch, value, n = 0;
    if (!Number(&p, &major) || *p++ != '.' || !Number(&p, &minor) || *p++ != '.' ||
        !Number(&p, &patch) || major > 200 || minor > 99 || patch > 99)
        return false;
    value = major * 10000000 + minor * 100000 + patch * 1000;
    if (*p != '\0') {
        if (*p == '-' || *p == '.')
            p++;
        size_t i = 0;
        for (; i < sizeof(pre) / sizeof(pre[0]); i++) {
            size_t len = std::strlen(pre[i].word);
            if (strncasecmp(p, pre[i].word, len) == 0) {
                p += len;
                break;
            }
        }
        if (i == sizeof(pre) / sizeof(pre[0]))
            return false;
        if (*p == '.')
            p++;
        if (*p != '\0' && !Number(&p, &n))
            return false;
        if (*p != '\0' || n >= 100)
            return false;
        value = value - pre[i].minus + n;
    }
    *out = static_cast<int32_t>(value);
    return true;
}

// NPU_SOC_NAME if it is a name ([A-Za-z0-9_-], 1..63 characters), else the default.
std::string SocName() {
    const char *env = std::getenv("NPU_SOC_NAME");
    if (env == nullptr || *env == '\0')
        return kDefaultSocName;
    size_t n = std::strlen(env);
    bool ok = n < 64;
    for (size_t i = 0; ok && i < n; i++) {
        unsigned char c = static_cast<unsigned char>(env[i]);
        ok = std::isalnum(c) || c == '_' || c == '-';
    }
    if (!ok) {
        std::fprintf(stderr, "npu: ignoring NPU_SOC_NAME=%s (want [A-Za-z0-9_-], at most 63)\n",
                     env);
        return kDefaultSocName;
    }
    return env;
}

}  // namespace

aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion) {
    return RunApi("aclrtGetVersion", [&] {
        NPU_ACL_CHECK(majorVersion != nullptr, "majorVersion is NULL");
        NPU_ACL_CHECK(minorVersion != nullptr, "minorVersion is NULL");
        NPU_ACL_CHECK(patchVersion != nullptr, "patchVersion is NULL");
        *majorVersion = ACL_MAJOR_VERSION;
        *minorVersion = ACL_MINOR_VERSION;
        *patchVersion = ACL_PATCH_VERSION;
        return Error::Ok();
    });
}

aclError aclsysGetVersionStr(char *pkgName, char *versionStr) {
    return RunApi("aclsysGetVersionStr", [&] {
        NPU_ACL_CHECK(versionStr != nullptr, "versionStr is NULL");
        NPU_ACL_CHECK(pkgName != nullptr, "pkgName is NULL");
        std::string v;
        NPU_RETURN_IF_ERROR(LookupVersion(pkgName, &v));
        if (v.size() >= ACL_PKG_VERSION_MAX_SIZE) {
            return Error::Format(ACL_ERROR_INTERNAL_ERROR,
                                 "the version of %s is %zu characters, more than %d", pkgName,
                                 v.size(), ACL_PKG_VERSION_MAX_SIZE - 1);
        }
        std::memcpy(versionStr, v.c_str(), v.size() + 1);
        return Error::Ok();
    });
}

aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum) {
    return RunApi("aclsysGetVersionNum", [&] {
        NPU_ACL_CHECK(versionNum != nullptr, "versionNum is NULL");
        NPU_ACL_CHECK(pkgName != nullptr, "pkgName is NULL");
        std::string v;
        NPU_RETURN_IF_ERROR(LookupVersion(pkgName, &v));
        if (!VersionNumber(v, versionNum)) {
            return Error::Format(ACL_ERROR_INTERNAL_ERROR,
                                 "the version of %s, \"%s\", is not major.minor.patch with an "
                                 "optional alpha/beta/rc suffix",
                                 pkgName, v.c_str());
        }
        return Error::Ok();
    });
}

aclError aclrtGetRunMode(aclrtRunMode *runMode) {
    return RunApi("aclrtGetRunMode", [&] {
        NPU_ACL_CHECK(runMode != nullptr, "runMode is NULL");
        *runMode = ACL_HOST;
        return Error::Ok();
    });
}

const char *aclrtGetSocName() {
    try {
        static const std::string name = SocName();
        return name.c_str();
    } catch (...) {
        return nullptr;
    }
}
