// PackedGemmMatrixB: weights of the half-precision GEMM, converted once and stored in
// FBGEMM's blocked layout (fbgemm/FbgemmPackMatrixB.h), with FBGEMM's whole surface:
// the packing constructor, the two deserialization constructors, packFromSrc /
// unpackFromSrc / unpack, addr / operator(), the block queries and the public fields.
//
// Layout of a K x N matrix (nrow = K, ncol = N), blocks of brow rows x bcol columns:
//   row block b (nbrow = ceil(K / brow) of them, the last with last_brow rows) starts at
//   b * brow * nbcol * bcol; inside it column block p starts at p * rows_b * bcol, where
//   rows_b is brow, or last_brow for the last row block; inside that, row r and column c
//   (counted from the block's corner) sit at
//     r * bcol + c                                   (fp16 and any other T: FBGEMM's)
//     (r / 2) * 2 * bcol + 2 * c + r % 2             (bf16: pairs of rows interleaved, the
//                                                    dword vdpbf16ps multiplies; rows_b
//                                                    rounded up to even, brow even)
// quire packs with bcol = 32 (FBGEMM's value on AVX-512 CPUs: 16 lanes x 2 kernel column
// blocks) on every path; matSize() = brow * nbrow * bcol * nbcol, padding included.
// A matrix restored with another bcol (FBGEMM's AVX2 layout has 16) also computes:
// cblas_gemm_compute re-blocks it per call, which costs a pass over the weights.
//
// Conversion when packing floats: C()(alpha * b). TypeConverter<float16> is FBGEMM's:
// clip to +-65504 then round to nearest even (so infinities become +-65504 and NaN
// -65504). TypeConverter<bfloat16> is quire's (FBGEMM has no bf16 GEMM): round to
// nearest even, a finite value beyond range saturates to +-0x7f7f, inf and NaN stay.
// TypeConverter<float> (the identity) is in quire/FbgemmFP32.h, where FBGEMM has it.
//
// Unlike FBGEMM, every constructor and member checks its arguments and throws
// std::invalid_argument naming the bad one; the object is movable (not copyable).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "quire/FloatConversion.h"
#include "quire/Types.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename T>
struct TypeConverter {
  template <typename F>
  T operator()(F) const;
};

template <>
struct TypeConverter<float16> {
  float16 operator()(float src) const {
    constexpr float kMax = 65504.0f;
    return cpu_float2half(std::max(-kMax, std::min(src, kMax)));
  }
};

template <>
struct TypeConverter<bfloat16> {
  bfloat16 operator()(float src) const {
    bfloat16 b = float_to_bfloat16_rne(src);
    if ((b.val & 0x7fffu) == 0x7f80u && std::isfinite(src))
      b.val = static_cast<uint16_t>((b.val & 0x8000u) | 0x7f7fu);
    return b;
  }
};

namespace detail {

// Rows per packed step of T's layout: bf16 interleaves pairs of rows.
template <typename T>
inline constexpr int kPackStepRows = std::is_same_v<T, bfloat16> ? 2 : 1;

// The fields of a packed matrix must describe one layout: ceil divisions, the last row
// block, and (when given) a buffer of at least the elements the layout addresses.
// Returns brow * nbrow * bcol * nbcol. Throws std::invalid_argument naming the field.
inline uint64_t check_packed_geometry(const char* where, int nrow, int ncol, int brow,
                                      int last_brow, int bcol, int nbrow, int nbcol, int step) {
  check_arg(nrow >= 1, where, "nrow", nrow, "must be >= 1");
  check_arg(ncol >= 1, where, "ncol", ncol, "must be >= 1");
  check_arg(brow >= 1 && brow % step == 0, where, "brow", brow,
            step == 2 ? "must be even and >= 1 (bf16 rows are packed in pairs)" : "must be >= 1");
  check_arg(bcol >= 1, where, "bcol", bcol, "must be >= 1");
  check_arg(nbrow == (nrow + brow - 1) / brow, where, "nbrow", nbrow, "must be ceil(nrow / brow)");
  check_arg(last_brow == nrow - (nbrow - 1) * brow, where, "last_brow", last_brow,
            "must be nrow - (nbrow - 1) * brow");
  check_arg(nbcol == (ncol + bcol - 1) / bcol, where, "nbcol", nbcol, "must be ceil(ncol / bcol)");
  const uint64_t size = uint64_t(brow) * uint64_t(nbrow) * uint64_t(bcol) * uint64_t(nbcol);
  if (size > uint64_t{INT32_MAX}) {
    throw std::invalid_argument(std::string(where) + ": the packed size brow x nbrow x bcol x nbcol = " +
                                std::to_string(size) + " elements overflows int32");
  }
  return size;
}

}  // namespace detail

template <typename T, typename C = TypeConverter<T>>
class PackedGemmMatrixB {
 public:
  using value_type = T;
  using size_type = uint64_t;
  static constexpr int kStep = detail::kPackStepRows<T>;

  // Packs smat (nrow x ncol row-major, or ncol x nrow row-major when trans is Transpose)
  // times alpha. brow is the K block of the compute loops (bf16: rounded up to even).
  PackedGemmMatrixB(matrix_op_t trans, int nrow, int ncol, float alpha, const float* smat,
                    int brow = 512)
      : nrow_(nrow), ncol_(ncol), brow_(brow), kernel_ncol_blocks_(2) {
    detail::check_arg(nrow >= 1, kName, "nrow", nrow, "must be >= 1");
    detail::check_arg(ncol >= 1, kName, "ncol", ncol, "must be >= 1");
    detail::check_arg(brow >= 1, kName, "brow", brow, "must be >= 1");
    check_op(trans, kName);
    detail::check_not_null(smat, kName, "smat");
    check_alpha(alpha, kName);
    initializeParam();
    initializeMemory();
    packFromSrc(trans, alpha, smat);
  }

  // An empty matrix of the given geometry, to be filled through pmat() (deserialization).
  // size is recomputed from the geometry, as FBGEMM does.
  PackedGemmMatrixB(int nrow, int ncol, int brow, int last_brow, int bcol, int nbrow, int nbcol,
                    uint64_t /*size*/)
      : nrow_(nrow), ncol_(ncol), brow_(brow), last_brow_(last_brow), bcol_(bcol), nbrow_(nbrow),
        nbcol_(nbcol), kernel_ncol_blocks_(2) {
    detail::check_packed_geometry(kName, nrow, ncol, brow, last_brow, bcol, nbrow, nbcol, kStep);
    initializeMemory();
  }

  // A view of packed weights the caller owns (size elements at pmat, at least
  // brow * nbrow * bcol * nbcol); never freed here.
  PackedGemmMatrixB(int nrow, int ncol, int brow, int last_brow, int bcol, int nbrow, int nbcol,
                    uint64_t size, int kernel_ncol_blocks, void* pmat)
      : nrow_(nrow), ncol_(ncol), brow_(brow), last_brow_(last_brow), bcol_(bcol), nbrow_(nbrow),
        nbcol_(nbcol), size_(size), kernel_ncol_blocks_(kernel_ncol_blocks),
        pmat_(static_cast<T*>(pmat)), packed_(true), pmat_passed_in(true) {
    const uint64_t need =
        detail::check_packed_geometry(kName, nrow, ncol, brow, last_brow, bcol, nbrow, nbcol, kStep);
    detail::check_arg(size >= need, kName, "size", static_cast<int64_t>(size),
                      "must be >= brow x nbrow x bcol x nbcol");
    detail::check_not_null(pmat, kName, "pmat");
  }

  PackedGemmMatrixB(const PackedGemmMatrixB&) = delete;
  PackedGemmMatrixB& operator=(const PackedGemmMatrixB&) = delete;
  PackedGemmMatrixB(PackedGemmMatrixB&& o) noexcept { steal(o); }
  PackedGemmMatrixB& operator=(PackedGemmMatrixB&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~PackedGemmMatrixB() { release(); }

  // bcol and the block counts for nrow, ncol and brow.
  void initializeParam() {
    if (brow_ % kStep != 0) brow_ += kStep - brow_ % kStep;
    bcol_ = 16 * kernelNumColBlocks();
    nbrow_ = (nrow_ + brow_ - 1) / brow_;
    last_brow_ = nrow_ % brow_ == 0 ? brow_ : nrow_ % brow_;
    nbcol_ = (ncol_ + bcol_ - 1) / bcol_;
  }

  // Allocates matSize() zeroed elements.
  void initializeMemory() {
    size_ = detail::check_packed_geometry(kName, nrow_, ncol_, brow_, last_brow_, bcol_, nbrow_,
                                          nbcol_, kStep);
    release();
    pmat_passed_in = false;
    pmat_ = static_cast<T*>(fbgemmAlignedAlloc(64, sizeof(T) * size_, true));
    std::memset(static_cast<void*>(pmat_), 0, sizeof(T) * size_);
  }

  void setPacked(bool p) { packed_ = p; }
  bool packed() const { return packed_; }

  // Position of element (r, c) of the K x N matrix in pmat().
  uint64_t addr(int r, int c) const { return row_base(r) + col_offset(r, c); }

  const T& operator()(int r, int c) const {
    detail::check_arg(r >= 0 && r < nrow_, "PackedGemmMatrixB::operator()", "r", r, "must be in [0, nrow)");
    detail::check_arg(c >= 0 && c < ncol_, "PackedGemmMatrixB::operator()", "c", c, "must be in [0, ncol)");
    return pmat_[addr(r, c)];
  }

  // Packs alpha * smat with C (the layout's padding zeroed).
  void packFromSrc(matrix_op_t trans, float alpha, const float* smat) {
    check_source(trans, smat, "PackedGemmMatrixB::packFromSrc", "smat");
    check_alpha(alpha, "PackedGemmMatrixB::packFromSrc");
    const C convert{};
    pack_each(trans, [&](uint64_t src) { return convert(alpha * smat[src]); });
  }

  // Packs an unpacked T matrix of the same shape, values as they are.
  void packFromSrc(matrix_op_t trans, const T* smat) {
    check_source(trans, smat, "PackedGemmMatrixB::packFromSrc", "smat");
    pack_each(trans, [&](uint64_t src) { return smat[src]; });
  }

  // FBGEMM's in-place unpacking: src_mat holds a copy of the packed data; pmat() receives
  // the plain matrix (K x N row-major, N x K when transposed) and packed() becomes false.
  void unpackFromSrc(matrix_op_t trans, T* src_mat) {
    check_source(trans, src_mat, "PackedGemmMatrixB::unpackFromSrc", "src_mat");
    for_each_element(trans, [&](uint64_t packed, uint64_t plain) { pmat_[plain] = src_mat[packed]; });
    packed_ = false;
  }

  // The plain matrix into origin_buf (K x N row-major, N x K when transposed). As in
  // FBGEMM (whose check is a debug assert), packed() is not required: a matrix restored
  // through the deserialization constructor has packed() false and valid contents.
  void unpack(T* origin_buf, matrix_op_t trans) const {
    check_source(trans, origin_buf, "PackedGemmMatrixB::unpack", "origin_buf");
    for_each_element(trans, [&](uint64_t packed, uint64_t plain) { origin_buf[plain] = pmat_[packed]; });
  }

  int matSize() const { return static_cast<int>(size_); }
  int numRows() const { return nrow_; }
  int numCols() const { return ncol_; }
  int lastBrow() const { return last_brow_; }
  int numBrow() const { return nbrow_; }
  int numBcol() const { return nbcol_; }
  T* pmat() const { return pmat_; }
  int blockRowSize() const { return brow_; }
  int blockColSize() const { return bcol_; }
  int kernelNumColBlocks() const { return kernel_ncol_blocks_; }
  const value_type* data() const { return pmat_; }
  // FBGEMM's definition (bytes of size_ elements... divided by the element size).
  uint64_t size() const { return size_ / sizeof(value_type); }

  // FBGEMM's public fields (client code such as Marian sets them directly).
  int nrow_, ncol_;
  int brow_, last_brow_ = 0, bcol_ = 0;
  int nbrow_ = 0, nbcol_ = 0;
  uint64_t size_ = 0;
  int kernel_ncol_blocks_ = 2;
  T* pmat_ = nullptr;
  bool packed_{false};
  bool pmat_passed_in{false};

 private:
  static constexpr const char* kName =
      std::is_same_v<T, float16>    ? "PackedGemmMatrixFP16"
      : std::is_same_v<T, bfloat16> ? "PackedGemmMatrixBF16"
      : std::is_same_v<T, float>    ? "PackedGemmMatrixFP32"
                                    : "PackedGemmMatrixB";

  // Offset of row r's row block plus its place inside a column block.
  uint64_t row_base(int r) const {
    const uint64_t block = uint64_t(r / brow_), in = uint64_t(r % brow_);
    return block * brow_ * nbcol_ * bcol_ + in / kStep * kStep * bcol_ + in % kStep;
  }
  // Elements between column blocks in row r's row block, times c's block, plus c's lane.
  uint64_t col_offset(int r, int c) const {
    const int rows = r / brow_ == nbrow_ - 1 ? (last_brow_ + kStep - 1) / kStep * kStep : brow_;
    return uint64_t(c / bcol_) * rows * bcol_ + uint64_t(c % bcol_) * kStep;
  }

  // f(packed index, plain index) for every element.
  template <class F>
  void for_each_element(matrix_op_t trans, F f) const {
    const bool tr = trans == matrix_op_t::Transpose;
    for (int r = 0; r < nrow_; ++r) {
      const uint64_t base = row_base(r);
      for (int c = 0; c < ncol_; ++c) {
        const uint64_t plain = tr ? uint64_t(c) * nrow_ + r : uint64_t(r) * ncol_ + c;
        f(base + col_offset(r, c), plain);
      }
    }
  }

  template <class Value>
  void pack_each(matrix_op_t trans, Value value) {
    std::memset(static_cast<void*>(pmat_), 0, sizeof(T) * size_);
    for_each_element(trans, [&](uint64_t packed, uint64_t plain) { pmat_[packed] = value(plain); });
    packed_ = true;
  }

  static void check_op(matrix_op_t trans, const char* where) {
    detail::check_arg(trans == matrix_op_t::NoTranspose || trans == matrix_op_t::Transpose, where,
                      "trans", static_cast<int64_t>(trans), "is not a matrix_op_t value");
  }
  static void check_alpha(float alpha, const char* where) {
    if (!std::isfinite(alpha)) {
      throw std::invalid_argument(std::string(where) + ": alpha=" + std::to_string(alpha) +
                                  " must be finite");
    }
  }
  void check_source(matrix_op_t trans, const void* p, const char* where, const char* name) const {
    check_op(trans, where);
    detail::check_not_null(p, where, name);
    if (pmat_ == nullptr) throw std::invalid_argument(std::string(where) + ": the matrix holds no weights (moved from)");
  }

  void release() {
    if (!pmat_passed_in && pmat_ != nullptr) fbgemmAlignedFree(pmat_);
    pmat_ = nullptr;
  }

  void steal(PackedGemmMatrixB& o) {
    nrow_ = o.nrow_, ncol_ = o.ncol_, brow_ = o.brow_, last_brow_ = o.last_brow_, bcol_ = o.bcol_;
    nbrow_ = o.nbrow_, nbcol_ = o.nbcol_, size_ = o.size_, kernel_ncol_blocks_ = o.kernel_ncol_blocks_;
    pmat_ = o.pmat_, packed_ = o.packed_, pmat_passed_in = o.pmat_passed_in;
    o.pmat_ = nullptr;
    o.packed_ = false;
  }
};

}  // namespace quire
QUIRE_API_END
