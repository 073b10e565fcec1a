// SPDX-License-Identifier: MIT
// Version and platform queries that need neither aclInit nor a device:
// aclrtGetVersion, aclsysGetVersionStr, aclsysGetVersionNum,
// aclsysGetCANNVersion, aclGetCannAttributeList, aclGetCannAttribute,
// aclrtGetRunMode and aclrtGetSocName. The version files are those of a CANN root (the
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
        auto dir =
            ReadKey("/etc/ascend_install.info",
                    name == "driver" ? "Driver_Install_Path_Param" : "Firmware_Install_Path_Param");
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
        return Error::Format(
            ACL_ERROR_INVALID_FILE,
            "no version for package %s: no share/info/%s/version.info with a "
            "Version= line under ASCEND_HOME_PATH (%s)",
            pkg, pkg, std::getenv("ASCEND_HOME_PATH") ? std::getenv("ASCEND_HOME_PATH") : "unset");
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

// The package directory of aclsysGetCANNVersion's name, nullptr for a
// value that is not an aclCANNPackageName.
const char *CannPackageDir(int32_t name) {
    switch (name) {
        case ACL_PKG_NAME_CANN:
        case ACL_PKG_NAME_RUNTIME:
            return "runtime";
        case ACL_PKG_NAME_COMPILER:
            return "bisheng-compiler";
        case ACL_PKG_NAME_HCCL:
            return "hccl";
        case ACL_PKG_NAME_TOOLKIT:
            return "oam-tools";
        case ACL_PKG_NAME_OPP:
        case ACL_PKG_NAME_OPP_KERNEL:
            return "ops-legacy";
        case ACL_PKG_NAME_DRIVER:
            return "driver";
        default:
            return nullptr;
    }
}

// Copies text into a field of n bytes; false when it does not fit.
bool CopyField(char *field, size_t n, const std::string &text) {
    if (text.size() >= n)
        return false;
    std::memcpy(field, text.c_str(), text.size() + 1);
    return true;
}

// The attributes of CANN this runtime reports available: those of its
// Ascend910B2 SoC (bf16 and Inf/NaN arithmetic). No operator compiler
// comes with it, so ACL_CANN_ATTR_JIT_COMPILE is not.
const aclCannAttr kCannAttrs[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16};

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

aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version) {
    return RunApi("aclsysGetCANNVersion", [&] {
        NPU_ACL_CHECK(version != nullptr, "version is NULL");
        int32_t n = npu::rt::EnumValue(name);
        const char *dir = CannPackageDir(n);
        NPU_ACL_CHECK(dir != nullptr, "name %d is not an aclCANNPackageName (0..7)", n);
        std::string v;
        NPU_RETURN_IF_ERROR(LookupVersion(dir, &v));
        // "8.5.0-rc.1" -> "8.5.0.rc1": the suffix after '-' loses its dots.
        size_t dash = v.find('-');
        if (dash != std::string::npos) {
            std::string suffix = v.substr(dash + 1);
            std::erase(suffix, '.');
            v = v.substr(0, dash) + "." + suffix;
        }
        std::string parts[4] = {"0", "0", "0", "0"};
        size_t count = 0, start = 0;
        while (count < 4) {
            size_t dot = v.find('.', start);
            parts[count++] = v.substr(start, dot == std::string::npos ? dot : dot - start);
            if (dot == std::string::npos)
                break;
            start = dot + 1;
        }
        if (count < 2) {
            return Error::Format(ACL_ERROR_INVALID_FILE,
                                 "the version of %s, \"%s\", has fewer than two parts", dir,
                                 v.c_str());
        }
        aclCANNPackageVersion out;
        std::memset(&out, 0, sizeof(out));
        bool ok = CopyField(out.version, sizeof(out.version), v) &&
                  CopyField(out.majorVersion, sizeof(out.majorVersion), parts[0]) &&
                  CopyField(out.minorVersion, sizeof(out.minorVersion), parts[1]) &&
                  CopyField(out.releaseVersion, sizeof(out.releaseVersion), parts[2]) &&
                  CopyField(out.patchVersion, sizeof(out.patchVersion), parts[3]);
        if (!ok) {
            return Error::Format(ACL_ERROR_INTERNAL_ERROR,
                                 "the version of %s, \"%.64s\", does not fit aclCANNPackageVersion",
                                 dir, v.c_str());
        }
        *version = out;
        return Error::Ok();
    });
}

aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num) {
    return RunApi("aclGetCannAttributeList", [&] {
        NPU_ACL_CHECK(cannAttrList != nullptr, "cannAttrList is NULL");
        NPU_ACL_CHECK(num != nullptr, "num is NULL");
        *cannAttrList = kCannAttrs;
        *num = sizeof(kCannAttrs) / sizeof(kCannAttrs[0]);
        return Error::Ok();
    });
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value) {
    return RunApi("aclGetCannAttribute", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        int32_t a = npu::rt::EnumValue(cannAttr);
        NPU_ACL_CHECK(a >= ACL_CANN_ATTR_INF_NAN && a <= ACL_CANN_ATTR_JIT_COMPILE,
                      "cannAttr %d is not an aclCannAttr (0..2)", a);
        *value = 0;
        for (aclCannAttr have : kCannAttrs) {
            if (have == a)
                *value = 1;
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
