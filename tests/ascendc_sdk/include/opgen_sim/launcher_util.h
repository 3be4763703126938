// The SDK gate's launcher support: the interface of the simulator's opgen_sim/launcher_util.h
// (codegen/backends/ascendc/simulator), implemented on CANN's own Ascend C headers in CPU-debug mode, so the
// generated launcher (sim/<op>_launcher.cpp) and kernel (op_kernel/<op>.cpp) compile unchanged against them.
//
// A launch runs every block index in turn (block_idx, block_num, g_tilingKey are the CPU-debug runtime's
// globals); the headers' own checks (ASCENDC_ASSERT, "not supported", value ranges) abort the process with their
// message on stderr, which the test reports.  Values are not computed (stub_fun.h): only acceptance is checked.
#pragma once
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_operator.h"

extern uint64_t g_tilingKey;

// The kernel side of tiling, which CANN's build generates: the struct REGISTER_TILING_DEFAULT names, copied.
#undef REGISTER_TILING_DEFAULT
#define REGISTER_TILING_DEFAULT(type) using OpgenGateTilingType = type
#undef GET_TILING_DATA
#define GET_TILING_DATA(var, tiling) \
    OpgenGateTilingType var;         \
    std::memcpy(&var, (const void*)(tiling), sizeof(var))

// CANN's CPU-debug launch macro (tikicpulib): one call per block index.
#define ICPU_RUN_KF(func, blockDim, ...)                   \
    do {                                                   \
        block_num = (blockDim);                            \
        for (int64_t b_ = 0; b_ < block_num; ++b_) {       \
            block_idx = b_;                                \
            func(__VA_ARGS__);                             \
        }                                                  \
    } while (0)

namespace opgen_sim {

struct GateError : std::runtime_error {
    std::string rule;
    GateError(const std::string& r, const std::string& m) : std::runtime_error(m), rule(r) {}
};

[[noreturn]] inline void Fail(const std::string& rule, const std::string& msg) { throw GateError(rule, msg); }

struct Target {
    uint64_t cores;
    uint64_t tilingUbBytes;
};

// The tiling's budget as CANN's headers state it for the compiled architecture: TMP_UB_OFFSET is where the API's
// scratch begins (kernel_utils_constants.h); vector cores per product as codegen/spec/products.py has them.
inline Target SetProduct(const std::string& soc) {
    static const std::map<std::string, uint64_t> cores = {
        {"ascend910", 32}, {"ascend310p", 8}, {"ascend910b", 40}, {"ascend910_93", 48}};
    auto it = cores.find(soc);
    if (it == cores.end()) Fail("request", "unknown product " + soc);
    return Target{it->second, AscendC::TMP_UB_OFFSET};
}

inline void SetTilingKey(uint64_t key) { g_tilingKey = key; }

inline GM_ADDR GmAlloc(uint64_t bytes) {
    static std::vector<std::unique_ptr<uint8_t[]>> owned;
    const uint64_t size = (bytes + 63) / 64 * 64 + 128;
    owned.emplace_back(new uint8_t[size + 64]());
    return reinterpret_cast<GM_ADDR>((reinterpret_cast<uintptr_t>(owned.back().get()) + 63) & ~uintptr_t(63));
}

struct Dtype {
    uint64_t bytes;
    uint32_t code;
};

inline Dtype DtypeOf(const std::string& name) {
    if (name == "FLOAT") return {4, 0};
    if (name == "FLOAT16") return {2, 1};
    if (name == "BFLOAT16") return {2, 2};
    Fail("request", "unknown dtype " + name);
}

// The same request file as the simulator's launcher reads (key value lines, input NAME FILE).
class Request {
public:
    explicit Request(const char* path) {
        std::ifstream f(path);
        if (!f) Fail("request", std::string("cannot read ") + path);
        std::string line;
        while (std::getline(f, line)) {
            std::istringstream s(line);
            std::string key, a, b;
            s >> key >> a;
            if (key == "input") {
                s >> b;
                inputs_[a] = b;
            } else if (!key.empty()) {
                kv_[key] = a;
            }
        }
    }
    std::string Str(const std::string& key) const {
        auto it = kv_.find(key);
        if (it == kv_.end()) Fail("request", "missing " + key);
        return it->second;
    }
    uint64_t Int(const std::string& key) const { return std::stoull(Str(key)); }
    int64_t Int64(const std::string& key) const { return std::stoll(Str(key)); }
    bool Bool(const std::string& key) const { return Int64(key) != 0; }
    float Float(const std::string& key) const { return std::strtof(Str(key).c_str(), nullptr); }
    GM_ADDR Input(const std::string& name, uint64_t bytes) const {
        return inputs_.count(name) ? GmAlloc(bytes) : nullptr;  // values do not matter: nothing is computed
    }
    void Output(GM_ADDR, uint64_t) const {}
    template <typename T>
    void Report(const char* key, T value) const { std::cout << key << " " << value << "\n"; }
    void ReportRun() const {}

private:
    std::map<std::string, std::string> kv_;
    std::map<std::string, std::string> inputs_;
};

template <typename F>
int Main(int argc, char** argv, F&& body) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " REQUEST_FILE\n";
        return 2;
    }
    try {
        Request rq(argv[1]);
        body(rq);
        return 0;
    } catch (const GateError& e) {
        std::cerr << "opgen-gate error [" << e.rule << "]: " << e.what() << "\n";
        return 3;
    }
}

}  // namespace opgen_sim
