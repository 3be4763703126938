// opgen Ascend C simulator: GlobalTensor (device memory), LocalTensor (unified buffer), TPipe, TQue and TBuf.
//
// Rules enforced here (ascend.md §5):
//  - all buffers of a core together fit the product's UB ("ub-overflow");
//  - every UB buffer starts on a 32-byte boundary (InitBuffer rounds sizes up; operations check operands);
//  - the queue protocol: AllocTensor → (EnQue → DeQue) → FreeTensor.  DeQue of an empty queue, a double free,
//    using a tensor after FreeTensor or after EnQue, AllocTensor with every buffer taken, and a tensor never
//    freed by the end of the kernel are errors ("queue").
#pragma once
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "state.h"

namespace AscendC {

enum class TPosition { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM, TSCM, MAX };
using QuePosition = TPosition;

namespace sim {

enum class BufState { FREE, ALLOCATED, ENQUEUED, DEQUEUED, CALC };

struct BufferRec {
    uint32_t addr;      // byte offset in UB
    uint32_t bytes;
    BufState state;
    uint32_t gen;       // bumped on every FreeTensor: stale LocalTensors are detected
    std::string owner;  // "TQue#1(VECIN)" — for messages
};

inline std::vector<BufferRec>& Buffers() {
    static std::vector<BufferRec> b;
    return b;
}

inline const char* PosName(TPosition p) {
    switch (p) {
        case TPosition::VECIN: return "VECIN";
        case TPosition::VECOUT: return "VECOUT";
        case TPosition::VECCALC: return "VECCALC";
        default: return "other";
    }
}

inline uint32_t AllocUb(uint32_t bytes, const std::string& what) {
    State& s = S();
    const uint32_t size = (bytes + 31) / 32 * 32;
    const uint64_t end = uint64_t(s.ubTop) + size;
    if (end > Product().ubBytes)
        Fail("ub-overflow", what + ": " + Str(size) + " bytes do not fit: " + Str(s.ubTop) + " of the " +
                                Str(Product().ubBytes) + "-byte UB of " + Product().soc + " are already in use");
    const uint32_t addr = s.ubTop;
    s.ubTop = uint32_t(end);
    if (s.ubTop > s.ubPeak) s.ubPeak = s.ubTop;
    return addr;
}

}  // namespace sim

template <typename T>
class GlobalTensor;

template <typename T>
class LocalTensor {
public:
    LocalTensor() = default;
    LocalTensor(int buf, uint32_t gen, uint32_t addr, uint32_t bytes) : buf_(buf), gen_(gen), addr_(addr), bytes_(bytes) {}

    // A view starting `offset` elements further (its address must still be 32-byte aligned to be used).
    LocalTensor operator[](uint32_t offset) const {
        if (uint64_t(offset) * sizeof(T) > bytes_)
            sim::Fail("ub-bounds", "LocalTensor[" + sim::Str(offset) + "] is past the end of its " + sim::Str(bytes_) + "-byte buffer");
        return LocalTensor(buf_, gen_, addr_ + offset * uint32_t(sizeof(T)), bytes_ - offset * uint32_t(sizeof(T)));
    }

    template <typename U>
    LocalTensor<U> ReinterpretCast() const { return LocalTensor<U>(buf_, gen_, addr_, bytes_); }

    uint32_t GetSize() const { return bytes_ / uint32_t(sizeof(T)); }
    uint64_t GetPhyAddr() const { return addr_; }

    T GetValue(uint32_t i) const {
        Use("LocalTensor::GetValue", (uint64_t(i) + 1) * sizeof(T), false);
        T v;
        std::memcpy(&v, sim::S().ub.data() + addr_ + i * sizeof(T), sizeof(T));
        return v;
    }
    void SetValue(uint32_t i, T v) const {
        Use("LocalTensor::SetValue", (uint64_t(i) + 1) * sizeof(T), false);
        std::memcpy(sim::S().ub.data() + addr_ + i * sizeof(T), &v, sizeof(T));
    }

    // Simulator internals: check that `bytes` from the start may be used by `op` now, and return the data.
    T* Use(const char* op, uint64_t bytes, bool aligned = true) const {
        if (buf_ < 0) sim::Fail("queue", std::string(op) + ": the LocalTensor was never allocated (AllocTensor/DeQue/Get)");
        const sim::BufferRec& r = sim::Buffers().at(buf_);
        if (r.gen != gen_ || r.state == sim::BufState::FREE)
            sim::Fail("queue", std::string(op) + ": uses a tensor of " + r.owner + " after FreeTensor");
        if (r.state == sim::BufState::ENQUEUED)
            sim::Fail("queue", std::string(op) + ": uses a tensor of " + r.owner + " after EnQue (DeQue it first)");
        if (aligned && addr_ % 32 != 0)
            sim::Fail("ub-align", std::string(op) + ": UB address " + sim::Str(addr_) + " of a " + r.owner +
                                      " tensor is not 32-byte aligned");
        if (bytes > bytes_)
            sim::Fail("ub-bounds", std::string(op) + ": needs " + sim::Str(bytes) + " bytes but the " + r.owner +
                                       " tensor has " + sim::Str(bytes_));
        return reinterpret_cast<T*>(sim::S().ub.data() + addr_);
    }

    int buf_ = -1;
    uint32_t gen_ = 0, addr_ = 0, bytes_ = 0;
};

template <typename T>
class GlobalTensor {
public:
    void SetGlobalBuffer(T* p, uint64_t size = 0) { ptr_ = p; size_ = size; }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor g;
        g.ptr_ = ptr_ + offset;
        g.size_ = size_ > offset ? size_ - offset : 0;
        return g;
    }
    T GetValue(uint64_t i) const {
        sim::GmCheck(ptr_ + i, sizeof(T), "GlobalTensor::GetValue");
        T v;
        std::memcpy(&v, ptr_ + i, sizeof(T));
        return v;
    }
    // Not const, as in CANN (a `const GlobalTensor&` cannot be written through).  A scalar store goes through
    // the core's data cache: it must be flushed with DataCacheCleanAndInvalid before the kernel ends (checked).
    void SetValue(uint64_t i, T v) {
        sim::GmCheck(ptr_ + i, sizeof(T), "GlobalTensor::SetValue");
        std::memcpy(ptr_ + i, &v, sizeof(T));
        const uintptr_t line = reinterpret_cast<uintptr_t>(ptr_ + i) / 64;
        if (sim::Product().aicore != 100) sim::S().dirtyLines.insert(line);  // dav-c100: nothing to flush with
        sim::S().scalarLines.insert(line);
        sim::S().lineWriters[line].insert(sim::S().blockIdx);
    }
    T* GetPhyAddr() const { return ptr_; }
    uint64_t GetSize() const { return size_; }

    T* ptr_ = nullptr;
    uint64_t size_ = 0;
};

class TPipe;

class QueBase {
public:
    QueBase(TPosition pos, int depth) : pos_(pos), depth_(depth) {
        static int counter = 0;
        id_ = ++counter;
    }
    QueBase(const QueBase&) = delete;
    ~QueBase() {
        // Runs when the kernel returns: every tensor must have been freed by then.
        if (sim::S().blockIdx < 0) return;
        for (int b : bufs_) {
            const sim::BufferRec& r = sim::Buffers().at(b);
            if (r.state == sim::BufState::ENQUEUED)
                sim::S().leaks.push_back(Name() + ": a tensor was EnQue'd but never DeQue'd");
            else if (r.state != sim::BufState::FREE)
                sim::S().leaks.push_back(Name() + ": a tensor was never freed (AllocTensor/DeQue without FreeTensor)");
        }
    }

    template <typename T>
    LocalTensor<T> AllocTensor() {
        Inited("AllocTensor");
        for (int b : bufs_) {
            sim::BufferRec& r = sim::Buffers().at(b);
            if (r.state == sim::BufState::FREE) {
                r.state = sim::BufState::ALLOCATED;
                return LocalTensor<T>(b, r.gen, r.addr, r.bytes);
            }
        }
        sim::Fail("queue", Name() + ": AllocTensor with all " + sim::Str(bufs_.size()) +
                               " buffers in use (a FreeTensor is missing; the hardware would wait forever)");
    }

    template <typename T>
    bool EnQue(const LocalTensor<T>& t) {
        Inited("EnQue");
        sim::BufferRec& r = Mine(t.buf_, "EnQue");
        if (r.gen != t.gen_ || r.state != sim::BufState::ALLOCATED)
            sim::Fail("queue", Name() + ": EnQue of a tensor that is not freshly allocated by AllocTensor");
        if (int(fifo_.size()) >= depth_)
            sim::Fail("queue", Name() + ": EnQue into a full queue of depth " + sim::Str(depth_));
        r.state = sim::BufState::ENQUEUED;
        fifo_.push_back(t.buf_);
        return true;
    }

    template <typename T>
    LocalTensor<T> DeQue() {
        Inited("DeQue");
        if (fifo_.empty()) sim::Fail("queue", Name() + ": DeQue of an empty queue (no EnQue before it)");
        const int b = fifo_.front();
        fifo_.pop_front();
        sim::BufferRec& r = sim::Buffers().at(b);
        r.state = sim::BufState::DEQUEUED;
        return LocalTensor<T>(b, r.gen, r.addr, r.bytes);
    }

    template <typename T>
    void FreeTensor(const LocalTensor<T>& t) {
        Inited("FreeTensor");
        sim::BufferRec& r = Mine(t.buf_, "FreeTensor");
        if (r.gen != t.gen_ || r.state == sim::BufState::FREE)
            sim::Fail("queue", Name() + ": double free (FreeTensor of a tensor already freed)");
        if (r.state == sim::BufState::ENQUEUED)
            sim::Fail("queue", Name() + ": FreeTensor of a tensor still in the queue (DeQue it first)");
        r.state = sim::BufState::FREE;
        ++r.gen;
    }

    std::string Name() const { return "TQue#" + sim::Str(id_) + "(" + sim::PosName(pos_) + ")"; }

private:
    friend class TPipe;
    void Inited(const char* op) const {
        if (bufs_.empty()) sim::Fail("queue", Name() + ": " + op + " before TPipe::InitBuffer");
    }
    sim::BufferRec& Mine(int b, const char* op) {
        for (int x : bufs_)
            if (x == b) return sim::Buffers().at(b);
        sim::Fail("queue", Name() + ": " + op + " of a tensor that belongs to another queue");
    }

    TPosition pos_;
    int depth_;
    int id_;
    std::vector<int> bufs_;
    std::deque<int> fifo_;
};

template <TPosition pos, int32_t depth>
class TQue : public QueBase {
public:
    TQue() : QueBase(pos, depth) {}
};

template <TPosition pos>
class TBuf {
public:
    template <typename T>
    LocalTensor<T> Get() const {
        if (buf_ < 0) sim::Fail("queue", "TBuf::Get before TPipe::InitBuffer");
        const sim::BufferRec& r = sim::Buffers().at(buf_);
        return LocalTensor<T>(buf_, r.gen, r.addr, r.bytes);
    }
    template <typename T>
    LocalTensor<T> Get(uint32_t len) const {
        LocalTensor<T> t = Get<T>();
        if (uint64_t(len) * sizeof(T) > t.bytes_) sim::Fail("ub-bounds", "TBuf::Get(" + sim::Str(len) + ") exceeds the buffer");
        t.bytes_ = len * uint32_t(sizeof(T));
        return t;
    }
    int buf_ = -1;
};

class TPipe {
public:
    TPipe() {
        if (++sim::S().pipes > 1) sim::Fail("pipe", "a second TPipe on one core");
    }
    ~TPipe() { --sim::S().pipes; }
    TPipe(const TPipe&) = delete;

    template <class Q>
    bool InitBuffer(Q& que, uint8_t num, uint32_t len) {
        QueBase& q = que;
        if (!q.bufs_.empty()) sim::Fail("queue", q.Name() + ": InitBuffer twice");
        if (num == 0 || len == 0) sim::Fail("queue", q.Name() + ": InitBuffer of zero buffers or zero bytes");
        for (uint8_t i = 0; i < num; ++i) {
            const uint32_t addr = sim::AllocUb(len, "TPipe::InitBuffer(" + q.Name() + ", " + sim::Str(num) + ", " + sim::Str(len) + ")");
            sim::Buffers().push_back({addr, (len + 31) / 32 * 32, sim::BufState::FREE, 0, q.Name()});
            q.bufs_.push_back(int(sim::Buffers().size()) - 1);
        }
        return true;
    }

    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
        if (buf.buf_ >= 0) sim::Fail("queue", "TBuf: InitBuffer twice");
        const uint32_t addr = sim::AllocUb(len, "TPipe::InitBuffer(TBuf, " + sim::Str(len) + ")");
        sim::Buffers().push_back({addr, (len + 31) / 32 * 32, sim::BufState::CALC, 0, "TBuf"});
        buf.buf_ = int(sim::Buffers().size()) - 1;
        return true;
    }
};

}  // namespace AscendC
