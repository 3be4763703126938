    __aicore__ inline void Process()
    {
        for (uint32_t row = 0; row < rows_; ++row) {
            const uint64_t base = static_cast<uint64_t>(row) * rowLength_;
            if (tilesPerRow_ == 1) {  // the row fits one tile: load it once
                CopyIn(base, rowLength_);
                ComputeRow(rowLength_);
                CopyOut(base, rowLength_);
                continue;
            }
            // a long row: sum it tile by tile, then compute it tile by tile
            float sums[NUM_SUMS] = {};
            for (uint32_t t = 0; t < tilesPerRow_; ++t) {
                const uint32_t len = TileLen(t);
                CopyIn(base + static_cast<uint64_t>(t) * tileLength_, len);
                SumTile(len, sums);
            }
            for (uint32_t t = 0; t < tilesPerRow_; ++t) {
                const uint32_t len = TileLen(t);
                CopyIn(base + static_cast<uint64_t>(t) * tileLength_, len);
                ComputeTile(len, sums);
                CopyOut(base + static_cast<uint64_t>(t) * tileLength_, len);
            }
        }
    }

private:
    __aicore__ inline uint32_t TileLen(uint32_t t) const
    {
        return (t + 1 == tilesPerRow_) ? rowLength_ - t * tileLength_ : tileLength_;
    }
