    __aicore__ inline void Process()
    {
        const uint32_t tiles = (length_ + tileLength_ - 1) / tileLength_;
        for (uint32_t t = 0; t < tiles; ++t) {
            const uint32_t len = (t + 1 == tiles) ? length_ - t * tileLength_ : tileLength_;
            CopyIn(static_cast<uint64_t>(t) * tileLength_, len);
            Compute(len);
            CopyOut(static_cast<uint64_t>(t) * tileLength_, len);
        }
    }

private:
