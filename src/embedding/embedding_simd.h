// The embedding-bag loop, written once over a row-decoding vocabulary `Ops` (bag_ops_ymm.h,
// bag_ops_zmm.h, bag_ops_scalar.h) and instantiated per path. Per column chunk of NV
// vectors, the bag's rows are summed in NV registers:
//   float / fp16 / bf16 rows:  acc = fma(w, x, acc)
//   quantized rows:            acc = fma(w * scale, q, acc + w * bias)
// which are FBGEMM's reference formulas element by element (docs/embedding.md), then
// acc *= 1 / len when normalizing, then the output conversion.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "common/intrinsics.h"
#include "embedding/embedding_kernels.h"

namespace quire::detail {
namespace {

constexpr bool quantized(RowFormat r) {
  return r == RowFormat::kU8 || r == RowFormat::kU8Half || r == RowFormat::kU4 ||
         r == RowFormat::kU2;
}

// The last n < W elements of a row, at p: a full vector would read past the row, and near
// the table's end past the table, so the bytes are copied out first. Only in the kernels
// for calls that touch the table's last rows (kSafe): elsewhere the over-read stays
// inside the table.
// W elements from element e of a row's data.
template <class Ops, RowFormat R>
typename Ops::F decode(const uint8_t* data, int e, const BagJob& j) {
  if constexpr (R == RowFormat::kF8) return Ops::fp8(data + e, j.fp8_shift, j.fp8_scale);
  return Ops::template load<R>(data, e);
}

template <class Ops, RowFormat R>
typename Ops::F load_part(const uint8_t* p, int n, const BagJob& j) {
  constexpr int64_t kBits = bits_per_element(R);
  alignas(64) uint8_t buf[64] = {};
  std::memcpy(buf, p, static_cast<size_t>((n * kBits + 7) / 8));
  return decode<Ops, R>(buf, 0, j);
}

// acc + bias of quantized rows' step, on the adder or as fma(acc, 1, bias) (the same
// rounding, so the same bits) on the fma unit. Zen 4 (and Intel) run the int -> float
// conversion, the shifts and the adds on one pair of ports and the fmas on the other: a
// zmm vector of 8-bit rows took 2 adder slots and 1 fma slot, and moving the add of
// every other vector (of 3 in 4 for 2-bit rows, with their extra shifts) balances them
// (synthetic loop on Zen 4: 8-bit 0.65 -> 0.54 ns per 16 elements, 4-bit 0.68 -> 0.61,
// 2-bit 0.74 -> 0.65). Only in chunks of 4 or more vectors: a row's chain through
// acc is add + fma (7 cycles) or fma + fma (8), which bounds chunks of 1 or 2 vectors.
// Not on the portable path (Ops::kBiasOnFma false), whose std::fma may be a library call.
template <class Ops, RowFormat R, int NV>
constexpr bool bias_on_fma(int v) {
  if (!Ops::kBiasOnFma || NV < 4) return false;
  return R == RowFormat::kU2 ? v % 4 != 0 : v % 2 != 0;
}

template <class Ops, RowFormat R, int NV>
typename Ops::F add_bias(typename Ops::F acc, typename Ops::F b, int v) {
  if (bias_on_fma<Ops, R, NV>(v)) return Ops::fmadd(acc, Ops::set1(1.0f), b);
  return Ops::add(acc, b);
}

// 4- / 2-bit rows: groups of 2 / 4 vectors accumulate their elements in an interleaved
// order (bag_ops.h), put back in order once per bag (finish_bag).
template <class Ops, RowFormat R>
constexpr int group_of() {
  if (!Ops::kGroups) return 1;
  return R == RowFormat::kU4 ? 2 : R == RowFormat::kU2 ? 4 : 1;
}

// One quantized row added into the chunk's NV accumulators: acc = fma(w * scale, q,
// acc + w * bias) per element (w = 1 unless kWeighted). A function, not a lambda over
// acc: inlined, acc stays in registers.
template <class Ops, RowFormat R, bool kSafe, bool kWeighted, int NV>
__attribute__((always_inline)) inline void add_quantized_row(typename Ops::F (&acc)[NV],
                                                             const uint8_t* row,
                                                             const uint8_t* data, float w,
                                                             const BagJob& j, int64_t sb_off) {
  using F = typename Ops::F;
  constexpr int W = Ops::W;
  constexpr int64_t kBits = bits_per_element(R);
  // 4- / 2-bit rows: groups of 2 / 4 vectors (bag_ops.h), the rest one at a time.
  constexpr int kGroup = group_of<Ops, R>();
  const bool partial = j.tail < W;
  F s, b;
  Ops::template scale_bias<R, kWeighted>(row + sb_off, w, s, b);
  if constexpr (kGroup > 1) {
#pragma GCC unroll 16
    for (int v = 0; v + kGroup <= NV; v += kGroup) {
      const uint8_t* p = data + v * W * kBits / 8;
      alignas(64) uint8_t buf[64];
      if (kSafe && v + kGroup == NV && partial) {  // the group ends in the row's last bytes
        std::memset(buf, 0, sizeof buf);
        const int elements = (kGroup - 1) * W + j.tail;
        std::memcpy(buf, p, static_cast<size_t>((elements * kBits + 7) / 8));
        p = buf;
      }
      const auto bytes = Ops::load_bytes(p);
#pragma GCC unroll 4
      for (int i = 0; i < kGroup; ++i)
        acc[v + i] = Ops::fmadd(s, Ops::template group_part<R>(bytes, i),
                                add_bias<Ops, R, NV>(acc[v + i], b, v + i));
    }
  }
  constexpr int kFirstSingle = kGroup > 1 ? NV / kGroup * kGroup : 0;
#pragma GCC unroll 16
  for (int v = kFirstSingle; v < NV; ++v) {
    const F q = kSafe && v == NV - 1 && partial
                    ? load_part<Ops, R>(data + v * W * kBits / 8, j.tail, j)
                    : decode<Ops, R>(data, v * W, j);
    acc[v] = Ops::fmadd(s, q, add_bias<Ops, R, NV>(acc[v], b, v));
  }
}

// acc + w * x as FBGEMM's reference forms it, one fma; without weights (w = 1) the same
// bits as one add, which also runs on the adder pipes (Zen: the fmas' other pair).
template <class Ops, bool kWeighted>
__attribute__((always_inline)) inline typename Ops::F weighted_add(typename Ops::F acc,
                                                                  typename Ops::F w,
                                                                  typename Ops::F x) {
  if constexpr (kWeighted) return Ops::fmadd(w, x, acc);
  return Ops::add(acc, x);
}

// One row (data: its chunk's first byte) added with weight w into acc.
template <class Ops, RowFormat R, bool kSafe, bool kWeighted, int NV>
__attribute__((always_inline)) inline void add_row(typename Ops::F (&acc)[NV], const uint8_t* row,
                                                   const uint8_t* data, float w,
                                                   const BagJob& j, int64_t sb_off) {
  if constexpr (quantized(R)) {
    add_quantized_row<Ops, R, kSafe, kWeighted, NV>(acc, row, data, w, j, sb_off);
  } else {
    constexpr int W = Ops::W;
    const typename Ops::F wv = Ops::set1(w);
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const auto x = kSafe && v == NV - 1 && j.tail < W
                         ? load_part<Ops, R>(data + v * W * bits_per_element(R) / 8, j.tail, j)
                         : decode<Ops, R>(data, v * W, j);
      acc[v] = weighted_add<Ops, kWeighted>(acc[v], wv, x);
    }
  }
}

// The prefetch of the chunk's lines of a row (BagJob::pf_off, pf_len). Its index is
// checked already (run_bags); -1 (pruned) prefetches a line before the table, which is
// harmless: a prefetch never faults. The address is formed as an integer, since pointer
// arithmetic outside the table would be undefined. Up to kLines lines (the chunk's bytes,
// the scale and bias, anywhere in a line) by unrolled instructions at 64-byte steps
// clamped to its last byte (a line prefetched twice costs less than a loop); the first
// chunk of a long quantized row, whose scale and bias lie at the row's far end, by a loop.
// Float rows whose chunk starts a line in every row (its first byte and the stride
// multiples of 64: float tables as engines allocate them) are covered by the 64-byte
// steps, and leave out the last byte's prefetch (AVX2, Zen 3, 2,000-row table: fp32 rows
// +2-8%). Quantized rows (strides of dim + 8 or dim / 2 + 4, rarely whole lines) keep it
// without a test: the test cost 8-bit rows of 32 elements up to 10% there.
template <class Ops, RowFormat R, int NV>
struct RowPrefetch {
  static constexpr int64_t kLines =
      (NV * Ops::W * bits_per_element(R) / 8 + (quantized(R) ? 8 : 0) + 62) / 64 + 1;
  uintptr_t table;
  int64_t stride, len, last;
  bool few, whole_lines;

  explicit RowPrefetch(const BagJob& j)
      : table(reinterpret_cast<uintptr_t>(j.table) + static_cast<uintptr_t>(j.pf_off)),
        stride(j.stride), len(j.pf_len), last(j.pf_len - 1), few(last <= 64 * (kLines - 1)),
        whole_lines(!quantized(R) && table % 64 == 0 && stride % 64 == 0) {}
  // Inlined early: GCC deems a function that only prefetches free of effects and drops
  // its calls (GCC 12: no prefetch instruction was left) unless inlined before that.
  // The lines at 64-byte steps are immediate offsets (a line past a short chunk's end is
  // the next row's: harmless), the last byte's line one register: offsets clamped to the
  // chunk were kept on the stack and cost a load per line (fp32 rows, avx2: +4-10%).
  __attribute__((always_inline)) void operator()(int64_t r) const {
    if (few) return few_lines(r);
    const uint8_t* p = row(r);
    for (int64_t o = 0; o < len; o += 64) line(p, o);
    last_line(p);
  }
  // The same where `few` is known to hold, untested: a row's only chunk (at most NV
  // vectors, and its scale and bias), whose len <= NV * W * bits / 8 + 8 puts its last
  // byte within the kLines - 1 steps.
  __attribute__((always_inline)) void few_lines(int64_t r) const {
    const uint8_t* p = row(r);
#pragma GCC unroll 16
    for (int64_t l = 0; l + 1 < kLines; ++l) line(p, l * 64);
    last_line(p);
  }
  // Its parts, for a loop that spreads the lines among its loads (float rows, whose
  // chunk is always `few` lines): row(r) once, then line(p, o) at every 64-byte offset
  // o < the chunk's bytes, then last_line(p).
  __attribute__((always_inline)) const uint8_t* row(int64_t r) const {
    return reinterpret_cast<const uint8_t*>(table + r * stride);
  }
  __attribute__((always_inline)) static void line(const uint8_t* p, int64_t o) {
    _mm_prefetch(p + o, _MM_HINT_T0);
  }
  __attribute__((always_inline)) void last_line(const uint8_t* p) const {
    if (quantized(R) || !whole_lines) _mm_prefetch(p + last, _MM_HINT_T0);
  }
};

// A bag's sums (of len rows) to its output row at out: the 4- / 2-bit groups back in
// element order, times 1 / len when normalizing, converted to the output format.
template <class Ops, RowFormat R, int NV>
__attribute__((always_inline)) inline void finish_bag(typename Ops::F (&acc)[NV],
                                                      const BagJob& j, int64_t len, void* out) {
  using F = typename Ops::F;
  constexpr int W = Ops::W;
  constexpr int kGroup = group_of<Ops, R>();
  if constexpr (kGroup > 1) {
#pragma GCC unroll 16
    for (int v = 0; v + kGroup <= NV; v += kGroup) {
      if constexpr (kGroup == 2) {
        Ops::interleave(acc[v], acc[v + 1]);
      } else {
        // (a0, a2) and (a1, a3) interleaved, then those: a0 a1 a2 a3 of lane 0, of lane 1, ...
        Ops::interleave(acc[v], acc[v + 2]);
        Ops::interleave(acc[v + 1], acc[v + 3]);
        Ops::interleave(acc[v], acc[v + 1]);
        Ops::interleave(acc[v + 2], acc[v + 3]);
      }
    }
  }
  if (j.normalize && len != 0) {
    const F s = Ops::set1(1.0f / static_cast<float>(len));
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[v] = Ops::mul(acc[v], s);
  }
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v)
    Ops::store(j.out_format, out, int64_t{v} * W, acc[v], v == NV - 1 ? j.tail : W);
}

template <class Ops, RowFormat R, class Index, bool kSafe, bool kWeighted, int NV>
void bag_rows(const BagJob& j) {
  using F = typename Ops::F;
  constexpr int W = Ops::W;
  const auto* idx = static_cast<const Index*>(j.indices);
  const bool partial = j.tail < W;
  const int64_t first_byte = j.data_off + j.col0 * bits_per_element(R) / 8;
  // acc[] stays in registers only if no lambda captures it (its address would escape)
  // and the loops over it are unrolled.
  F acc[NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) acc[v] = Ops::zero();

  // The per-row work is a few instructions beside the row's loads: the job's fields are
  // read once here, not per row.
  const uint8_t* const table = j.table;
  const int64_t stride = j.stride;
  const float* const weights = kWeighted ? j.weights : nullptr;  // null: weights of 1
  const int64_t weight0 = j.positional ? j.begin : 0;
  const bool skip_minus_one = j.skip_minus_one;
  const int64_t sb_off = j.sb_off;
  const int64_t end = j.begin + j.len;
  // Rows k < pf_end prefetch the row `prefetch` indices ahead (it exists), the rest
  // nothing.
  const int64_t pf_end =
      j.prefetch > 0 ? std::clamp(j.index_size - j.prefetch, j.begin, end) : j.begin;
  const int64_t ahead = j.prefetch;
  const RowPrefetch<Ops, R, NV> prefetch_row(j);
  auto load_at = [&](const uint8_t* data, int v) {
    if (kSafe && v == NV - 1 && partial)
      return load_part<Ops, R>(data + v * W * bits_per_element(R) / 8, j.tail, j);
    return decode<Ops, R>(data, v * W, j);
  };
  int64_t k = j.begin;
  if constexpr (R == RowFormat::kF32 || R == RowFormat::kF16 || R == RowFormat::kBF16) {
    // Rows two at a time while both prefetch (no pruned rows): the same fma per row in
    // the same order, with half the loop and index overhead.
    if (!skip_minus_one) {
      constexpr int64_t kVectorBytes = W * bits_per_element(R) / 8;
      for (; k + 2 <= pf_end; k += 2) {
        const uint8_t* p0 = prefetch_row.row(idx[k + ahead]);
        const uint8_t* p1 = prefetch_row.row(idx[k + ahead + 1]);
        const F w0 = Ops::set1(weights ? weights[k - weight0] : 1.0f);
        const F w1 = Ops::set1(weights ? weights[k + 1 - weight0] : 1.0f);
        const uint8_t* d0 = table + int64_t{idx[k]} * stride + first_byte;
        const uint8_t* d1 = table + int64_t{idx[k + 1]} * stride + first_byte;
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) {
          if ((v * kVectorBytes) % 64 == 0) {
            prefetch_row.line(p0, v * kVectorBytes);
            prefetch_row.line(p1, v * kVectorBytes);
          }
          acc[v] = weighted_add<Ops, kWeighted>(acc[v], w0, load_at(d0, v));
          acc[v] = weighted_add<Ops, kWeighted>(acc[v], w1, load_at(d1, v));
        }
        prefetch_row.last_line(p0);
        prefetch_row.last_line(p1);
      }
    }
  } else if constexpr (R == RowFormat::kU2) {
    // 2-bit rows too, each row's steps as one at a time (bench, 2,000 rows, 1 thread:
    // 2-bit +1-10%; 4- and 8-bit rows moved -2..+5%, within the noise, and stay single).
    if (!skip_minus_one) {
      for (; k + 2 <= pf_end; k += 2) {
        prefetch_row(idx[k + ahead]);
        prefetch_row(idx[k + ahead + 1]);
        const uint8_t* r0 = table + int64_t{idx[k]} * stride;
        const uint8_t* r1 = table + int64_t{idx[k + 1]} * stride;
        add_quantized_row<Ops, R, kSafe, kWeighted, NV>(
            acc, r0, r0 + first_byte, weights ? weights[k - weight0] : 1.0f, j, sb_off);
        add_quantized_row<Ops, R, kSafe, kWeighted, NV>(
            acc, r1, r1 + first_byte, weights ? weights[k + 1 - weight0] : 1.0f, j, sb_off);
      }
    }
  }
  // The rows that prefetch, then the rest: no test per row of whether it prefetches.
  auto add_row_at = [&](int64_t k) __attribute__((always_inline)) {
    const int64_t r = idx[k];
    if (skip_minus_one && r == -1) return;
    const uint8_t* row = table + r * stride;
    add_row<Ops, R, kSafe, kWeighted, NV>(acc, row, row + first_byte,
                                          weights ? weights[k - weight0] : 1.0f, j, sb_off);
  };
  for (; k < pf_end; ++k) {
    prefetch_row(idx[k + ahead]);
    add_row_at(k);
  }
  for (; k < end; ++k) add_row_at(k);
  finish_bag<Ops, R, NV>(acc, j, j.len, j.out);
}

// Two bags at once (BagJob::begin2, run_checked_bags): a row of one, then a row of the
// other, so that their accumulator chains overlap. A row's step depends on the previous
// row's (acc + bias, then the fma: 7 cycles on Zen 3 and 4), which bounds a bag whose
// chunk has few vectors; each bag's rows still come in order, each element's operations
// as one bag at a time: the same bits. No pruned rows (skip_minus_one is false).
template <class Ops, RowFormat R, class Index, bool kSafe, bool kWeighted, int NV>
void bag_pair_rows(const BagJob& j) {
  using F = typename Ops::F;
  const auto* idx = static_cast<const Index*>(j.indices);
  const int64_t first_byte = j.data_off + j.col0 * bits_per_element(R) / 8;
  F a[NV], b[NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) a[v] = b[v] = Ops::zero();
  const uint8_t* const table = j.table;
  const int64_t stride = j.stride;
  const float* const weights = kWeighted ? j.weights : nullptr;  // null: weights of 1
  const int64_t sb_off = j.sb_off;
  const int64_t a0 = j.begin, b0 = j.begin2, n = j.index_size, ahead = j.prefetch;
  const int64_t wa = j.positional ? a0 : 0, wb = j.positional ? b0 : 0;
  const RowPrefetch<Ops, R, NV> prefetch_row(j);
  assert(prefetch_row.few);  // the row is one chunk (RowPrefetch::few_lines)
  // Each bag prefetches `ahead` rows on in its own rows, then in the next pair's bag
  // that starts as late: bag B's run on into the next pair's first bag (it follows B),
  // bag A's jump over B and that bag (pf_jump) into the next pair's second bag.
  auto prefetch_a = [&](int64_t i) __attribute__((always_inline)) {
    int64_t t = a0 + i + ahead;
    if (t >= b0) t += j.pf_jump;
    if (ahead > 0 && t < n) prefetch_row.few_lines(idx[t]);
  };
  auto prefetch_b = [&](int64_t i) __attribute__((always_inline)) {
    const int64_t t = b0 + i + ahead;
    if (ahead > 0 && t < n) prefetch_row.few_lines(idx[t]);
  };
  auto row_at = [&](int64_t k) { return table + int64_t{idx[k]} * stride; };
  const int64_t both = std::min(j.len, j.len2);
  int64_t i = 0;
  // While both bags' targets lie `ahead` rows on in their own rows, they need no test.
  const int64_t direct = ahead > 0 ? both - ahead : 0;
  for (; i < direct; ++i) {
    prefetch_row.few_lines(idx[a0 + i + ahead]);
    prefetch_row.few_lines(idx[b0 + i + ahead]);
    const uint8_t* ra = row_at(a0 + i);
    const uint8_t* rb = row_at(b0 + i);
    add_row<Ops, R, kSafe, kWeighted, NV>(a, ra, ra + first_byte,
                                          weights ? weights[a0 + i - wa] : 1.0f, j, sb_off);
    add_row<Ops, R, kSafe, kWeighted, NV>(b, rb, rb + first_byte,
                                          weights ? weights[b0 + i - wb] : 1.0f, j, sb_off);
  }
  for (; i < both; ++i) {
    prefetch_a(i);
    prefetch_b(i);
    const uint8_t* ra = row_at(a0 + i);
    const uint8_t* rb = row_at(b0 + i);
    add_row<Ops, R, kSafe, kWeighted, NV>(a, ra, ra + first_byte,
                                          weights ? weights[a0 + i - wa] : 1.0f, j, sb_off);
    add_row<Ops, R, kSafe, kWeighted, NV>(b, rb, rb + first_byte,
                                          weights ? weights[b0 + i - wb] : 1.0f, j, sb_off);
  }
  for (int64_t k = i; k < j.len; ++k) {
    prefetch_a(k);
    const uint8_t* ra = row_at(a0 + k);
    add_row<Ops, R, kSafe, kWeighted, NV>(a, ra, ra + first_byte,
                                          weights ? weights[a0 + k - wa] : 1.0f, j, sb_off);
  }
  for (int64_t k = i; k < j.len2; ++k) {
    prefetch_b(k);
    const uint8_t* rb = row_at(b0 + k);
    add_row<Ops, R, kSafe, kWeighted, NV>(b, rb, rb + first_byte,
                                          weights ? weights[b0 + k - wb] : 1.0f, j, sb_off);
  }
  finish_bag<Ops, R, NV>(a, j, j.len, j.out);
  finish_bag<Ops, R, NV>(b, j, j.len2, j.out2);
}

// One loop for unweighted calls, which skip the per-row products by 1 (quantized rows)
// or add rows instead of an fma by 1 (float rows), one for weighted calls. Quantized
// rows through the weighted loop with weights of 1 (the same bits, 27% less compile time
// for the AVX2 file) ran 3-17% slower (Zen 3, 2,000 rows, 8-, 4- and 2-bit, dims 8-1024).
template <class Ops, RowFormat R, class Index, bool kSafe, int NV>
void bag_chunk(const BagJob& j) {
  if (!j.weights) return bag_rows<Ops, R, Index, kSafe, false, NV>(j);
  bag_rows<Ops, R, Index, kSafe, true, NV>(j);
}

template <class Ops, RowFormat R, class Index, bool kSafe, int NV>
void bag_pair(const BagJob& j) {
  if constexpr (quantized(R)) {
    if (!j.weights) return bag_pair_rows<Ops, R, Index, kSafe, false, NV>(j);
  }
  bag_pair_rows<Ops, R, Index, kSafe, true, NV>(j);
}

// The call's index check, before any row is read (MaxIndexFn). One max covers both
// bounds: i - low (low is 0 or -1) as an unsigned number, where an index below low wraps
// past every valid one, kept as i - low + 2^(bits - 1) in a signed lane (one add, then
// the signed max the vocabulary has: AVX2 has no 64-bit max of either kind). kLanes
// separate maxima: a single vectorized max carried from vector to vector bounded the
// loop at its latency (AVX2 int64: compare, blend).
template <class Index>
int64_t max_index(const void* indices, int64_t n, int64_t data_size, int64_t low) {
  using U = std::make_unsigned_t<Index>;
  constexpr Index kMin = std::numeric_limits<Index>::min();
  if (n <= 0) return -1;
  const auto* idx = static_cast<const Index*>(indices);
  const U offset = static_cast<U>(static_cast<U>(kMin) - static_cast<U>(low));
  auto key = [offset](Index i) { return static_cast<Index>(static_cast<U>(i) + offset); };
  constexpr int kLanes = 128 / sizeof(Index);  // two cache lines of indices per step
  Index m[kLanes];
#pragma GCC unroll 32
  for (int l = 0; l < kLanes; ++l) m[l] = kMin;
  // The indices are often new to the cache (a stream the caller walks): they are
  // prefetched a page (4 KiB) ahead, by a loop of their own (prefetches among the maxima
  // kept GCC from vectorizing them).
  constexpr int64_t kPage = 4096 / sizeof(Index);  // a multiple of kLanes
  const uintptr_t base = reinterpret_cast<uintptr_t>(idx);
  auto prefetch = [base](int64_t from, int64_t to) {
    for (int64_t e = from; e < to; e += 64 / static_cast<int64_t>(sizeof(Index)))
      _mm_prefetch(reinterpret_cast<const char*>(base + static_cast<uintptr_t>(e) * sizeof(Index)),
                   _MM_HINT_T0);
  };
  const int64_t full = n / kLanes * kLanes;
  prefetch(0, std::min(n, kPage));
  for (int64_t p = 0; p < full; p += kPage) {
    prefetch(p + kPage, std::min(n, p + 2 * kPage));
    const int64_t stop = std::min(full, p + kPage);
    for (int64_t i = p; i < stop; i += kLanes) {
#pragma GCC unroll 32
      for (int l = 0; l < kLanes; ++l) m[l] = std::max(m[l], key(idx[i + l]));
    }
  }
  int64_t i = full;
  Index top = kMin;
  for (; i < n; ++i) top = std::max(top, key(idx[i]));
  for (int l = 0; l < kLanes; ++l) top = std::max(top, m[l]);
  const uint64_t largest = static_cast<U>(static_cast<U>(top) - static_cast<U>(kMin));  // i - low
  // Valid i - low lie in [0, min(data_size, Index's max + 1) - low), below the wrapped.
  const int64_t end = std::min<int64_t>(data_size, int64_t{std::numeric_limits<Index>::max()});
  const uint64_t limit = static_cast<uint64_t>(end) - static_cast<uint64_t>(low) +
                         (data_size > end ? 1 : 0);
  if (largest >= limit) return -2;
  return static_cast<int64_t>(largest + static_cast<uint64_t>(low));
}

template <class Ops, RowFormat R, class Index, bool kSafe, int... NV>
constexpr void fill_row(BagFn* out, std::integer_sequence<int, NV...>) {
  ((out[NV] = &bag_chunk<Ops, R, Index, kSafe, NV + 1>), ...);
}

template <class Ops, RowFormat R, class Index, bool kSafe, int... NV>
constexpr void fill_pair(BagFn* out, std::integer_sequence<int, NV...>) {
  ((out[NV] = &bag_pair<Ops, R, Index, kSafe, NV + 1>), ...);
}

template <class Ops>
constexpr EmbeddingKernels make_embedding_kernels() {
  EmbeddingKernels k{};
  k.lanes = Ops::W;
  k.max_index[0] = &max_index<int32_t>;
  k.max_index[1] = &max_index<int64_t>;
  using Seq = std::make_integer_sequence<int, kMaxChunkVectors>;
  // One-lane vectors are never partial, so their safe routines would be the others
  // compiled again (the portable path's share of the build, halved).
  constexpr bool kSafeRoutines = Ops::W > 1;
  auto fill = [&]<RowFormat R>() {
    auto& f = k.bag[static_cast<int>(R)];
    fill_row<Ops, R, int32_t, false>(f[0][0], Seq{});
    fill_row<Ops, R, int32_t, kSafeRoutines>(f[0][1], Seq{});
    fill_row<Ops, R, int64_t, false>(f[1][0], Seq{});
    fill_row<Ops, R, int64_t, kSafeRoutines>(f[1][1], Seq{});
    // Float and 8-bit rows: 4- and 2-bit rows decode groups of vectors (more registers
    // live) and fp16 rows convert each vector; with 12-vector chunks 2-bit rows measured
    // 7-10% slower (AVX2, dims 256-1024), fp16 and 4-bit no faster. One-lane vectors
    // gain nothing.
    if constexpr (Ops::W > 1 && (R == RowFormat::kF32 || R == RowFormat::kU8 ||
                                 R == RowFormat::kU8Half)) {
      auto& w = k.wide[static_cast<int>(R)];
      constexpr int kWide = kWideChunkVectors;
      w[0][0] = &bag_chunk<Ops, R, int32_t, false, kWide>;
      w[0][1] = &bag_chunk<Ops, R, int32_t, true, kWide>;
      w[1][0] = &bag_chunk<Ops, R, int64_t, false, kWide>;
      w[1][1] = &bag_chunk<Ops, R, int64_t, true, kWide>;
    }
    if constexpr (quantized(R)) {
      auto& g = k.pair[static_cast<int>(R)];
      using PairSeq = std::make_integer_sequence<int, kMaxPairVectors>;
      fill_pair<Ops, R, int32_t, false>(g[0][0], PairSeq{});
      fill_pair<Ops, R, int32_t, kSafeRoutines>(g[0][1], PairSeq{});
      fill_pair<Ops, R, int64_t, false>(g[1][0], PairSeq{});
      fill_pair<Ops, R, int64_t, kSafeRoutines>(g[1][1], PairSeq{});
    }
  };
  fill.template operator()<RowFormat::kF32>();
  fill.template operator()<RowFormat::kF16>();
  fill.template operator()<RowFormat::kBF16>();
  fill.template operator()<RowFormat::kU8>();
  fill.template operator()<RowFormat::kU8Half>();
  fill.template operator()<RowFormat::kU4>();
  fill.template operator()<RowFormat::kU2>();
  fill.template operator()<RowFormat::kF8>();
  return k;
}

}  // namespace
}  // namespace quire::detail
