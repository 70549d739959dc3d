// The pair-major copy of one A block (driver.h, PairMajorBlock), made on first use into
// the calling thread's scratch.
#include "common/thread_scratch.h"
#include "driver/driver.h"
#include "driver/pair_correction.h"

namespace quire::detail {

namespace {

// The calling thread's pair-major block and correction tile (only the latest is live).
thread_local GrowingScratch t_pairs, t_tile, t_slice;

}  // namespace

PairMajorBlock::PairMajorBlock(const PairCorrectionKernels& kernels, const uint8_t* a,
                               int64_t lda, int rows, int kc)
    : kernels_(kernels), src_(a), lda_(lda), rows_(rows), kc_(kc),
      ld_((rows + kernels.lanes - 1) / kernels.lanes * kernels.lanes) {}

const int32_t* PairMajorBlock::get() {
  if (data_ != nullptr) return data_;
  const int64_t pairs = (kc_ + 1) / 2;
  auto* dst = static_cast<int32_t*>(
      t_pairs.get(sizeof(int32_t) * static_cast<size_t>(pairs * ld_)));
  kernels_.pair_major(src_, lda_, rows_, kc_, dst, ld_);
  data_ = dst;
  return data_;
}

int32_t* PairMajorBlock::tile(int cols) {
  return static_cast<int32_t*>(t_tile.get(sizeof(int32_t) * static_cast<size_t>(cols * ld_)));
}

int32_t* PairMajorBlock::slice(int cols) {
  return static_cast<int32_t*>(t_slice.get(sizeof(int32_t) * static_cast<size_t>(cols * rows_)));
}

}  // namespace quire::detail
