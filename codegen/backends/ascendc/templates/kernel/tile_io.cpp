// GM -> UB for `len` elements.
template <typename T>
__aicore__ inline void LoadTile(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t len)
{
#if __CCE_AICORE__ == 220
    DataCopyPad(dst, src, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0},
                DataCopyPadExtParams<T>{false, 0, 0, T(0)});
#else
    // No DataCopyPad: copy whole 32-byte blocks, the length rounded up.  At most 31 bytes past the data are read
    // (inside the device allocation); the elements past `len` are computed on but never stored.
    constexpr uint32_t perBlock = 32 / sizeof(T);
    DataCopy(dst, src, (len + perBlock - 1) / perBlock * perBlock);
#endif
}

// UB -> GM for `len` elements, never writing past them.  (`dst` by value: GlobalTensor::SetValue is not const.)
template <typename T>
__aicore__ inline void StoreTile(GlobalTensor<T> dst, const LocalTensor<T>& src, uint32_t len)
{
#if __CCE_AICORE__ == 220
    DataCopyPad(dst, src, DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0});
#else
    // No DataCopyPad: the aligned body by DataCopy, the unaligned tail (< 32 bytes) by scalar writes, so no
    // element of a neighbouring core or row is overwritten.
    constexpr uint32_t perBlock = 32 / sizeof(T);
    const uint32_t body = len / perBlock * perBlock;
    if (body > 0) {
        DataCopy(dst, src, body);
    }
    if (body < len) {
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = body; i < len; ++i) {
            dst.SetValue(i, src.GetValue(i));
        }
#if __CCE_AICORE__ == 200
        // scalar stores go through the data cache: flush the (at most two) 64-byte lines of the tail.  dav-c100
        // has no flush instruction: its data cache writes whole lines back by itself, and the tiling gives each
        // core whole lines, so no core's write-back overwrites another's bytes.
        DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE>(dst[body]);
        DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE>(dst[len - 1]);
#endif
    }
#endif
}
