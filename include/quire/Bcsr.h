// Sparse weight formats of FBGEMM's FbgemmSparse.h: CSRMatrix (compressed sparse rows)
// and BCSRMatrix, tiled block CSR, the layout fbgemmSparseDenseInt8MM
// (SparseDenseMM.h) reads.
//
// BCSRMatrix<T, RB, CB> (R x C): the columns are cut into tiles of COLTILE, each tile's
// rows into blocks of RB rows, and each block row into blocks of CB columns. A block with
// a nonzero is stored whole (RB x CB values, row-major, zero-filled past R or C); all-zero
// blocks are not stored. Tile t's block row b holds the blocks r in
// [rowBPtr[t * rowBlocks + b], rowBPtr[t * rowBlocks + b + 1]), rowBlocks = ceil(R / RB);
// block r starts at column t * COLTILE + colBIdx[r] * CB and its values at
// values[r * RB * CB]. rowBPtr is cumulative over all tiles (tiles * rowBlocks + 1
// entries, starting at 0). row_offsets[i] is the sum of row i's values (the weight row
// offsets of trRequantizationParams_t). With the default RB = 1 and CB = 4 each block is
// four consecutive K values of one output channel: one 32-bit word.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "quire/detail/Check.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename T>
struct CSRMatrix {
  std::vector<int> rowPtr;  // R + 1 entries: row i's nonzeros are [rowPtr[i], rowPtr[i + 1])
  std::vector<int> colIdx;  // column of each nonzero
  std::vector<T> values;
};

template <typename T = std::int8_t, int ROW_BLOCK = 1, int COL_BLOCK = 4>
struct BCSRMatrix {
  static_assert(ROW_BLOCK >= 1 && COL_BLOCK >= 1, "block sizes must be positive");
  using DTYPE = T;
  static constexpr int RB = ROW_BLOCK;  // rows per block
  static constexpr int CB = COL_BLOCK;  // columns per block
  static constexpr int COLTILE = 4000;  // columns per tile, a multiple of CB
  static_assert(COLTILE % COL_BLOCK == 0, "COLTILE must be a multiple of COL_BLOCK");

  std::vector<int> rowBPtr;
  std::vector<int> colBIdx;
  std::vector<DTYPE> values;
  std::vector<int32_t> row_offsets;
  int R;
  int C;

  // An empty Rows x Cols matrix; throws std::invalid_argument for a negative size.
  BCSRMatrix(int Rows, int Cols) : R(Rows), C(Cols) {
    detail::check_arg(Rows >= 0, "BCSRMatrix", "Rows", Rows, "must be >= 0");
    detail::check_arg(Cols >= 0, "BCSRMatrix", "Cols", Cols, "must be >= 0");
    row_offsets.assign(static_cast<size_t>(Rows), 0);
  }

  int rowBlocks() const { return (R + RB - 1) / RB; }
  int colTiles() const { return (C + COLTILE - 1) / COLTILE; }

  // Replaces the contents with the R x C matrix src (row-major, rows ld apart, ld >= C).
  void pack(const DTYPE* src, size_t ld) {
    check_dense("BCSRMatrix::pack", "src", src, ld);
    rowBPtr.assign(1, 0);
    colBIdx.clear();
    values.clear();
    std::fill(row_offsets.begin(), row_offsets.end(), 0);
    const auto at = [&](int i, int j) { return src[static_cast<size_t>(i) * ld + j]; };
    for (int t = 0; t < colTiles(); ++t) {
      const int c0 = t * COLTILE;
      const int c1 = std::min(C, c0 + COLTILE);
      for (int b = 0; b < rowBlocks(); ++b) {
        const int r0 = b * RB;
        const int r1 = std::min(R, r0 + RB);
        for (int cb = 0; c0 + cb * CB < c1; ++cb) {
          const int j0 = c0 + cb * CB;
          const int j1 = std::min(c1, j0 + CB);
          bool nonzero = false;
          for (int i = r0; i < r1 && !nonzero; ++i)
            for (int j = j0; j < j1 && !nonzero; ++j) nonzero = at(i, j) != DTYPE(0);
          if (!nonzero) continue;
          for (int i = r0; i < r0 + RB; ++i) {
            for (int j = j0; j < j0 + CB; ++j) {
              const DTYPE v = i < r1 && j < j1 ? at(i, j) : DTYPE(0);
              values.push_back(v);
              if (i < r1) row_offsets[i] += static_cast<int32_t>(v);
            }
          }
          colBIdx.push_back(cb);
        }
        rowBPtr.push_back(static_cast<int>(colBIdx.size()));
      }
    }
  }
  void pack(const DTYPE* src) { pack(src, static_cast<size_t>(C)); }

  // Writes the R x C matrix, zeros included, to dst (rows ld apart, ld >= C).
  void unpack(DTYPE* dst, size_t ld) const {
    check_dense("BCSRMatrix::unpack", "dst", dst, ld);
    for (int i = 0; i < R; ++i) std::fill_n(dst + static_cast<size_t>(i) * ld, C, DTYPE(0));
    for (int t = 0; t < colTiles(); ++t) {
      for (int b = 0; b < rowBlocks(); ++b) {
        const size_t entry = static_cast<size_t>(t) * rowBlocks() + b;
        for (int r = rowBPtr.at(entry); r < rowBPtr.at(entry + 1); ++r) {
          const int j0 = t * COLTILE + colBIdx.at(r) * CB;
          for (int ib = 0; ib < RB && b * RB + ib < R; ++ib)
            for (int jb = 0; jb < CB && j0 + jb < C; ++jb)
              dst[static_cast<size_t>(b * RB + ib) * ld + j0 + jb] =
                  values.at(static_cast<size_t>(r) * RB * CB + ib * CB + jb);
        }
      }
    }
  }
  void unpack(DTYPE* dst) const { unpack(dst, static_cast<size_t>(C)); }

 private:
  void check_dense(const char* where, const char* param, const void* p, size_t ld) const {
    if (int64_t{R} * C > 0) detail::check_not_null(p, where, param);
    detail::check_arg(ld >= static_cast<size_t>(C), where, "ld", static_cast<int64_t>(ld),
                      "must be >= C");
  }
};

// The nonzeros of the R x C matrix inp (rows ld apart), row by row, columns ascending.
template <typename T>
std::unique_ptr<CSRMatrix<T>> fbgemmDenseToCSR(int R, int C, const T* inp, int ld) {
  const char* where = "fbgemmDenseToCSR";
  detail::check_arg(R >= 0, where, "R", R, "must be >= 0");
  detail::check_arg(C >= 0, where, "C", C, "must be >= 0");
  detail::check_arg(ld >= C, where, "ld", ld, "must be >= C");
  if (int64_t{R} * C > 0) detail::check_not_null(inp, where, "inp");
  auto csr = std::make_unique<CSRMatrix<T>>();
  csr->rowPtr.reserve(static_cast<size_t>(R) + 1);
  csr->rowPtr.push_back(0);
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < C; ++j) {
      const T v = inp[static_cast<size_t>(i) * ld + j];
      if (v == T(0)) continue;
      csr->values.push_back(v);
      csr->colIdx.push_back(j);
    }
    csr->rowPtr.push_back(static_cast<int>(csr->values.size()));
  }
  return csr;
}

template <typename T>
std::unique_ptr<CSRMatrix<T>> fbgemmDenseToCSR(int R, int C, const T* inp) {
  return fbgemmDenseToCSR<T>(R, C, inp, C);
}

template <typename T = std::int8_t, int RB = 1, int CB = 4>
std::unique_ptr<BCSRMatrix<T, RB, CB>> fbgemmDenseToBCSR(int R, int C, const T* inp, int ld) {
  detail::check_arg(ld >= 0, "fbgemmDenseToBCSR", "ld", ld, "must be >= C");
  auto bcsr = std::make_unique<BCSRMatrix<T, RB, CB>>(R, C);
  bcsr->pack(inp, static_cast<size_t>(ld));
  return bcsr;
}

template <typename T = std::int8_t, int RB = 1, int CB = 4>
std::unique_ptr<BCSRMatrix<T, RB, CB>> fbgemmDenseToBCSR(int R, int C, const T* inp) {
  return fbgemmDenseToBCSR<T, RB, CB>(R, C, inp, C);
}

}  // namespace quire
QUIRE_API_END
