        rowLength_ = rowLength;
        rows_ = lastCore ? lastCoreRows : rowsPerCore;
        tileLength_ = tileLength;
        tilesPerRow_ = tilesPerRow;
        const uint64_t start = static_cast<uint64_t>(block) * rowsPerCore * rowLength;
        const uint64_t length = static_cast<uint64_t>(rows_) * rowLength;
