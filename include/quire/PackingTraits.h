// PackingTraits<T, accT, ISA>: the default blocking of each path as compile-time
// constants, under FBGEMM's name and members (MR, NR, NR_MIN, ROW_INTERLEAVE, MCB, NCB,
// KCB and the tuple getters). The values are quire's: its kernels and packed layouts
// differ from FBGEMM's (docs/kernel-contract.md), e.g. ROW_INTERLEAVE is 4 for acc16
// too. They are what the packers use when given no BlockingFactors (a test keeps the
// two in step). avx512_ymm runs the avx512 path, so it has the avx512 values.
#pragma once

#include <cstdint>
#include <tuple>

#include "quire/FloatConversion.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename T, typename accT, inst_set_t instSet>
struct PackingTraits;

namespace detail {

template <int MR_, int NR_, int NR_MIN_, int MCB_, int KCB_, int NCB_>
struct Int8Traits {
  static constexpr int MR{MR_};
  static constexpr int NR{NR_};
  static constexpr int NR_MIN{NR_MIN_};
  static constexpr int ROW_INTERLEAVE{4};
  static constexpr int MCB{MCB_};
  static constexpr int KCB{KCB_};
  static constexpr int NCB{NCB_};
  static constexpr std::tuple<int, int, int> getCacheBlockParams() { return {MCB, KCB, MR}; }
  static constexpr std::tuple<int, int, int, int> getKernelParams() { return {MCB, NCB, NR_MIN, NR}; }
  static constexpr std::tuple<int, int, int> getMatrixPackAParams() { return {MCB, KCB, ROW_INTERLEAVE}; }
  static constexpr std::tuple<int, int, int> getMatrixPackBParams() { return {KCB, NCB, ROW_INTERLEAVE}; }
};

// {MR, NR, NR_MIN, MCB, KCB, NCB} of each path (src/cpu/dispatch.cpp has the register
// arithmetic behind them).
using PortableTraits = Int8Traits<4, 16, 16, 64, 256, 256>;
using Avx2Traits = Int8Traits<4, 16, 8, 120, 2048, 512>;
using Avx2Acc16Traits = Int8Traits<6, 16, 8, 120, 256, 512>;
using YmmVnniTraits = Int8Traits<6, 16, 8, 120, 2048, 512>;
using Avx512Traits = Int8Traits<6, 48, 16, 120, 2048, 480>;
using Avx512Acc16Traits = Int8Traits<6, 64, 16, 120, 256, 512>;
using Avx512VnniTraits = Int8Traits<6, 64, 16, 120, 2048, 512>;

}  // namespace detail

// acc16 (accT = int16_t) has its own blocking where the path has saturating kernels
// (avx2, avx512); elsewhere it runs the exact kernels with the int32 blocking.
template <Int8Type T> struct PackingTraits<T, int32_t, inst_set_t::anyarch> : detail::PortableTraits {};
template <Int8Type T> struct PackingTraits<T, int16_t, inst_set_t::anyarch> : detail::PortableTraits {};
template <Int8Type T> struct PackingTraits<T, int32_t, inst_set_t::avx2> : detail::Avx2Traits {};
template <Int8Type T> struct PackingTraits<T, int16_t, inst_set_t::avx2> : detail::Avx2Acc16Traits {};
template <Int8Type T> struct PackingTraits<T, int32_t, inst_set_t::avx_vnni> : detail::YmmVnniTraits {};
template <Int8Type T> struct PackingTraits<T, int16_t, inst_set_t::avx_vnni> : detail::YmmVnniTraits {};
template <Int8Type T> struct PackingTraits<T, int32_t, inst_set_t::avx512> : detail::Avx512Traits {};
template <Int8Type T> struct PackingTraits<T, int16_t, inst_set_t::avx512> : detail::Avx512Acc16Traits {};
template <Int8Type T> struct PackingTraits<T, int32_t, inst_set_t::avx512_ymm> : detail::Avx512Traits {};
template <Int8Type T> struct PackingTraits<T, int16_t, inst_set_t::avx512_ymm> : detail::Avx512Acc16Traits {};
template <Int8Type T> struct PackingTraits<T, int32_t, inst_set_t::avx512_vnni> : detail::Avx512VnniTraits {};
template <Int8Type T> struct PackingTraits<T, int16_t, inst_set_t::avx512_vnni> : detail::Avx512VnniTraits {};
template <Int8Type T> struct PackingTraits<T, int32_t, inst_set_t::avx512_vnni_ymm> : detail::YmmVnniTraits {};
template <Int8Type T> struct PackingTraits<T, int16_t, inst_set_t::avx512_vnni_ymm> : detail::YmmVnniTraits {};

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
