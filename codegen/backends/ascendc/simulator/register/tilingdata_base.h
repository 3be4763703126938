// opgen simulator: the host-side tiling-struct macros of CANN's register/tilingdata_base.h.
// A field is a plain struct member with set_/get_ accessors, so the same struct is what the kernel reads.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, field) \
    type field = 0;                        \
    void set_##field(type v) { field = v; } \
    type get_##field() const { return field; }
#define END_TILING_DATA_DEF                                                               \
    size_t GetDataSize() const { return sizeof(*this); }                                  \
    void SaveToBuffer(void* buf, size_t cap) const { std::memcpy(buf, this, cap < sizeof(*this) ? cap : sizeof(*this)); } \
    }
#define REGISTER_TILING_DATA_CLASS(op, cls)
