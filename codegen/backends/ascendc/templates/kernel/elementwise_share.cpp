        length_ = lastCore ? lastBlockLength : blockLength;
        tileLength_ = tileLength;
        const uint64_t start = static_cast<uint64_t>(block) * blockLength;
        const uint64_t length = length_;
