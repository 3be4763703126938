// opgen simulator: what every generated launcher shares — the request it reads, device memory for its tensors,
// the report it prints, and turning simulator errors into a message and an exit code (never a crash).
// The SDK gate (tests/ascendc_sdk/include/opgen_sim/launcher_util.h) provides the same interface on top of
// CANN's CPU-debug headers, so one generated launcher builds with either.
//
// Request (a text file, argv[1]): one "key value" per line.
//   product <soc>  variant <n>  in_dtype <FLOAT|FLOAT16|BFLOAT16>  out_dtype <...>  total <elements>
//   row <row length>  <scalar/attribute name> <value (hex float or integer)>
//   input <tensor name> <file of raw elements>   (absent optional tensors have no line)
//   output <file to write>
// Report (stdout): "key value" lines.  Errors: "opgen-sim error [rule]: message" on stderr, exit code 3.
//
// `launcher --serve` runs many requests, one a line of stdin (the request file's path): each in a child forked
// from the idle server, so every request starts from the same pristine simulator state, exactly as a launcher
// process of its own would.  The child's stdout and stderr go to <request>.out and <request>.err; the server
// answers "done <exit code>" (minus the signal number when the child was killed).  It spares each call the
// exec of a fresh process (codegen/backends/ascendc/binding.py keeps one server per launcher).
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "kernel_operator.h"

namespace opgen_sim {

[[noreturn]] inline void Fail(const std::string& rule, const std::string& msg) { AscendC::sim::Fail(rule, msg); }

// What the tiling of a launch reads off the product.
struct Target {
    uint64_t cores;          // vector cores
    uint64_t tilingUbBytes;  // UB the kernel's buffers may fill: up to TMP_UB_OFFSET (the API's scratch above)
};

inline Target SetProduct(const std::string& soc) {
    AscendC::sim::SetProduct(soc);
    const AscendC::sim::ProductInfo& p = AscendC::sim::Product();
    return Target{p.cores, p.tmpUbOffset};
}

inline void SetTilingKey(uint64_t key) { AscendC::sim::SetTilingKey(key); }
inline GM_ADDR GmAlloc(uint64_t bytes) { return AscendC::GmAlloc(bytes); }

struct Dtype {
    uint64_t bytes;
    uint32_t code;  // tiling-key code: FLOAT 0, FLOAT16 1, BFLOAT16 2
};

inline Dtype DtypeOf(const std::string& name) {
    if (name == "FLOAT") return {4, 0};
    if (name == "FLOAT16") return {2, 1};
    if (name == "BFLOAT16") return {2, 2};
    AscendC::sim::Fail("request", "unknown dtype " + name);
}

class Request {
public:
    explicit Request(const char* path) {
        std::ifstream f(path);
        if (!f) AscendC::sim::Fail("request", std::string("cannot read ") + path);
        std::string line;
        while (std::getline(f, line)) {
            std::istringstream s(line);
            std::string key, a, b;
            s >> key >> a;
            if (key.empty()) continue;
            if (key == "input") {
                s >> b;
                inputs_[a] = b;
            } else {
                kv_[key] = a;
            }
        }
    }

    std::string Str(const std::string& key) const {
        auto it = kv_.find(key);
        if (it == kv_.end()) AscendC::sim::Fail("request", "missing " + key);
        return it->second;
    }
    uint64_t Int(const std::string& key) const { return std::stoull(Str(key)); }
    int64_t Int64(const std::string& key) const { return std::stoll(Str(key)); }
    bool Bool(const std::string& key) const { return Int64(key) != 0; }
    float Float(const std::string& key) const { return std::strtof(Str(key).c_str(), nullptr); }

    // Device memory holding an input's raw elements, or nullptr for an absent optional tensor.
    GM_ADDR Input(const std::string& name, uint64_t bytes) const {
        auto it = inputs_.find(name);
        if (it == inputs_.end()) return nullptr;
        GM_ADDR gm = AscendC::GmAlloc(bytes);
        std::ifstream f(it->second, std::ios::binary);
        if (!f.read(reinterpret_cast<char*>(gm), std::streamsize(bytes)))
            AscendC::sim::Fail("request", "input " + name + " has fewer than " + std::to_string(bytes) + " bytes");
        return gm;
    }

    void Output(GM_ADDR gm, uint64_t bytes) const {
        std::ofstream f(Str("output"), std::ios::binary);
        f.write(reinterpret_cast<const char*>(gm), std::streamsize(bytes));
        if (!f) AscendC::sim::Fail("request", "cannot write the output");
    }

    template <typename T>
    void Report(const char* key, T value) const { std::cout << key << " " << value << "\n"; }

    // What the simulator measured of the run: the UB the kernel's buffers took, the blocks that completed.
    void ReportRun() const {
        Report("ubPeak", AscendC::sim::S().ubPeak);
        Report("blocksRun", AscendC::sim::S().blocksRun.size());
    }

private:
    std::map<std::string, std::string> kv_;
    std::map<std::string, std::string> inputs_;
};

template <typename F>
int RunRequest(const char* path, F&& body) {
    try {
        Request rq(path);
        body(rq);
        std::cout.flush();
        return 0;
    } catch (const AscendC::sim::Error& e) {
        std::cerr << "opgen-sim error [" << e.rule << "]: " << e.what() << "\n";
        return 3;
    } catch (const std::exception& e) {
        std::cerr << "opgen-sim error [internal]: " << e.what() << "\n";
        return 4;
    }
}

template <typename F>
int Serve(F&& body) {
    std::string path;
    while (std::getline(std::cin, path)) {
        std::cout.flush();
        const pid_t pid = fork();
        if (pid < 0) {
            std::cout << "done " << 5 << std::endl;  // no child: the caller raises, the server goes on
            continue;
        }
        if (pid == 0) {
            if (!std::freopen((path + ".out").c_str(), "w", stdout) ||
                !std::freopen((path + ".err").c_str(), "w", stderr))
                _exit(6);
            const int code = RunRequest(path.c_str(), body);
            std::cout.flush();
            std::fflush(nullptr);
            _exit(code);
        }
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
        std::cout << "done " << code << std::endl;
    }
    return 0;
}

template <typename F>
int Main(int argc, char** argv, F&& body) {
    if (argc == 2 && std::string(argv[1]) == "--serve") return Serve(body);
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " REQUEST_FILE | --serve\n";
        return 2;
    }
    return RunRequest(argv[1], body);
}

}  // namespace opgen_sim
