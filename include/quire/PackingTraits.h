// PackingTraits<T, accT, ISA>: the default blocking of each path as compile-time
// constants, under FBGEMM's name and members (MR, NR, NR_MIN, ROW_INTERLEAVE, MCB, NCB,
// KCB and the tuple getters). The values are quire's: its kernels and packed layouts
// differ from FBGEMM's (docs/kernel-contract.md), e.g. ROW_INTERLEAVE is 4 for acc16
// too. They are what the packers use when given no BlockingFactors: the dispatch
// records read the same table (detail::kInt8Blocking). avx512_ymm runs the avx512 path,
// so it has the avx512 values.
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>

#include "quire/FloatConversion.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename T, typename accT, inst_set_t instSet>
struct PackingTraits;

namespace detail {

// The int8 GEMM's default blocking on one path (ROW_INTERLEAVE is 4 everywhere).
struct Int8Blocking {
  int MR, NR, NR_MIN, MCB, KCB, NCB;
  constexpr bool operator==(const Int8Blocking&) const = default;
};

// One row per FBGEMM name that runs an int8 path: its int32 blocking and its acc16
// (accT = int16_t) blocking, which differs only where the path has saturating acc16
// kernels (avx2, avx512); elsewhere acc16 runs the exact kernels with the int32
// blocking. The one place the numbers are written: PackingTraits below and the dispatch
// records (src/cpu/dispatch.cpp, which has the register arithmetic behind them and
// static_asserts that every path's row agrees with its traits) both read it.
struct Int8BlockingRow {
  inst_set_t inst_set;
  Int8Blocking acc32, acc16;
};
inline constexpr Int8Blocking kPortableBlocking{4, 16, 16, 64, 256, 256};
inline constexpr Int8Blocking kAvx2Blocking{4, 16, 8, 120, 2048, 512};
inline constexpr Int8Blocking kAvx2Acc16Blocking{6, 16, 8, 120, 256, 512};
inline constexpr Int8Blocking kYmmVnniBlocking{6, 16, 8, 120, 2048, 512};
inline constexpr Int8Blocking kAvx512Blocking{6, 48, 16, 120, 2048, 480};
inline constexpr Int8Blocking kAvx512Acc16Blocking{6, 64, 16, 120, 256, 512};
inline constexpr Int8Blocking kAvx512VnniBlocking{6, 64, 16, 120, 2048, 512};
inline constexpr Int8BlockingRow kInt8Blocking[] = {
    {inst_set_t::anyarch, kPortableBlocking, kPortableBlocking},
    {inst_set_t::avx2, kAvx2Blocking, kAvx2Acc16Blocking},
    {inst_set_t::avx_vnni, kYmmVnniBlocking, kYmmVnniBlocking},
    {inst_set_t::avx512, kAvx512Blocking, kAvx512Acc16Blocking},
    {inst_set_t::avx512_ymm, kAvx512Blocking, kAvx512Acc16Blocking},  // runs avx512
    {inst_set_t::avx512_vnni_ymm, kYmmVnniBlocking, kYmmVnniBlocking},
    {inst_set_t::avx512_vnni, kAvx512VnniBlocking, kAvx512VnniBlocking},
};

// The index of an FBGEMM name's row, or -1 (sve: no path). Compile-time checks use the
// index, not a pointer: under -fsanitize=undefined GCC does not take a pointer's
// comparison with null as a constant expression, and client code built so must still
// get PackingTraits.
constexpr int int8_blocking_row(inst_set_t inst_set) {
  constexpr int rows = static_cast<int>(sizeof(kInt8Blocking) / sizeof(kInt8Blocking[0]));
  for (int i = 0; i < rows; ++i)
    if (kInt8Blocking[i].inst_set == inst_set) return i;
  return -1;
}

// The row of an FBGEMM name, or null (sve: no path).
constexpr const Int8BlockingRow* find_int8_blocking(inst_set_t inst_set) {
  const int i = int8_blocking_row(inst_set);
  return i < 0 ? nullptr : &kInt8Blocking[i];
}

template <Int8Blocking B>
struct Int8Traits {
  static constexpr int MR{B.MR};
  static constexpr int NR{B.NR};
  static constexpr int NR_MIN{B.NR_MIN};
  static constexpr int ROW_INTERLEAVE{4};
  static constexpr int MCB{B.MCB};
  static constexpr int KCB{B.KCB};
  static constexpr int NCB{B.NCB};
  static constexpr std::tuple<int, int, int> getCacheBlockParams() { return {MCB, KCB, MR}; }
  static constexpr std::tuple<int, int, int, int> getKernelParams() { return {MCB, NCB, NR_MIN, NR}; }
  static constexpr std::tuple<int, int, int> getMatrixPackAParams() { return {MCB, KCB, ROW_INTERLEAVE}; }
  static constexpr std::tuple<int, int, int> getMatrixPackBParams() { return {KCB, NCB, ROW_INTERLEAVE}; }
};

template <typename accT>
concept Int8Accumulator = std::is_same_v<accT, int32_t> || std::is_same_v<accT, int16_t>;

}  // namespace detail

// Every (uint8_t / int8_t, int32_t / int16_t, path) from its kInt8Blocking row.
template <Int8Type T, detail::Int8Accumulator accT, inst_set_t I>
  requires(detail::int8_blocking_row(I) >= 0)
struct PackingTraits<T, accT, I>
    : detail::Int8Traits<std::is_same_v<accT, int16_t>
                             ? detail::kInt8Blocking[detail::int8_blocking_row(I)].acc16
                             : detail::kInt8Blocking[detail::int8_blocking_row(I)].acc32> {};

// The int64 GEMM (FbgemmI64.h): 8 x 16 tiles on AVX-512 (src/i64/).
template <>
struct PackingTraits<int64_t, int64_t, inst_set_t::avx512> {
  static constexpr int MR{8};
  static constexpr int NR_MIN{8};
  static constexpr int NR{16};
  static constexpr int MCB{96};
  static constexpr int NCB{512};
  static constexpr int KCB{256};
};

// The fp16 GEMM's B panel width (quire/FbgemmFP16.h packs 32-column panels).
template <>
struct PackingTraits<float16, float, inst_set_t::avx2> {
  static constexpr int BCOL{32};
  static constexpr int ROW_INTERLEAVE{1};
};

}  // namespace quire
QUIRE_API_END
