// BROKEN ON PURPOSE (a simulator self-test, never generated into a project): plain DataCopy of `len` elements,
// so the unaligned tail is lost.
template <typename T>
__aicore__ inline void LoadTile(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t len)
{
    DataCopy(dst, src, len);
}

template <typename T>
__aicore__ inline void StoreTile(GlobalTensor<T> dst, const LocalTensor<T>& src, uint32_t len)
{
    DataCopy(dst, src, len);
}
