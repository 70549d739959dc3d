// radix_sort_parallel: a stable LSD radix sort, one byte per pass, with FBGEMM's pass
// count, sign handling and choice of result buffer, so the same call returns the same
// pointers and the same order. Sequential: quire has no OpenMP.
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "quire/Utils.h"
#include "quire/detail/Check.h"

namespace quire {
namespace {

constexpr int kBins = 256;

// One pass over byte `pass` of the keys: histogram, exclusive prefix sum (bins 128..255
// first when sign_byte, so that negative keys precede non-negative ones), stable scatter.
template <typename K, typename V>
void radix_pass(const K* keys, const V* values, K* out_keys, V* out_values, int64_t n, int pass,
                bool sign_byte) {
  using U = std::make_unsigned_t<K>;
  const int shift = pass * 8;
  const auto bin = [shift](K key) { return static_cast<int>((static_cast<U>(key) >> shift) & 0xFF); };
  std::array<int64_t, kBins> count{};
  for (int64_t i = 0; i < n; ++i) ++count[bin(keys[i])];
  std::array<int64_t, kBins> next{};
  int64_t offset = 0;
  const int first = sign_byte ? kBins / 2 : 0;
  for (int b = 0; b < kBins; ++b) {
    const int bb = (first + b) % kBins;
    next[bb] = offset;
    offset += count[bb];
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t pos = next[bin(keys[i])]++;
    out_keys[pos] = keys[i];
    out_values[pos] = values[i];
  }
}

}  // namespace

template <typename K, typename V>
std::pair<K*, V*> radix_sort_parallel(K* const inp_key_buf, V* const inp_value_buf,
                                      K* const tmp_key_buf, V* const tmp_value_buf,
                                      const int64_t elements_count, const int64_t max_value,
                                      const bool maybe_with_neg_vals) {
  static_assert(std::is_integral_v<K>, "radix_sort_parallel sorts integer keys");
  if (max_value == 0) return {inp_key_buf, inp_value_buf};
  const char* where = "radix_sort_parallel";
  detail::check_arg(elements_count >= 0, where, "elements_count", elements_count, "must be >= 0");
  if (elements_count > 0) {
    detail::check_not_null(inp_key_buf, where, "inp_key_buf");
    detail::check_not_null(inp_value_buf, where, "inp_value_buf");
    detail::check_not_null(tmp_key_buf, where, "tmp_key_buf");
    detail::check_not_null(tmp_value_buf, where, "tmp_value_buf");
  }
  // Bits to sort: all of K's with negative keys, else up to max_value's highest set bit
  // (max_value taken in K's unsigned type, as FBGEMM does).
  int num_bits = static_cast<int>(sizeof(K)) * 8;
  if (!maybe_with_neg_vals)
    num_bits -= std::countl_zero(static_cast<std::make_unsigned_t<K>>(max_value));
  const int passes = (num_bits + 7) / 8;
  K* in_k = inp_key_buf;
  V* in_v = inp_value_buf;
  K* out_k = tmp_key_buf;
  V* out_v = tmp_value_buf;
  for (int pass = 0; pass < passes; ++pass) {
    radix_pass(in_k, in_v, out_k, out_v, elements_count, pass,
               maybe_with_neg_vals && pass == passes - 1);
    std::swap(in_k, out_k);
    std::swap(in_v, out_v);
  }
  return passes % 2 == 0 ? std::pair{inp_key_buf, inp_value_buf}
                         : std::pair{tmp_key_buf, tmp_value_buf};
}

bool is_radix_sort_accelerated_with_openmp() { return false; }

// FBGEMM's instantiations: keys uint8/int8/int16/int/int64 with values of those types,
// and int keys with (int, double) / (int, float) pair values.
#define QUIRE_RADIX_SORT(K, V)                                                           \
  template std::pair<K*, V*> radix_sort_parallel<K, V>(K* const, V* const, K* const,    \
                                                       V* const, const int64_t,         \
                                                       const int64_t, const bool);
#define QUIRE_RADIX_SORT_KEY(K) \
  QUIRE_RADIX_SORT(K, uint8_t)  \
  QUIRE_RADIX_SORT(K, int8_t)   \
  QUIRE_RADIX_SORT(K, int16_t)  \
  QUIRE_RADIX_SORT(K, int)      \
  QUIRE_RADIX_SORT(K, int64_t)
QUIRE_RADIX_SORT_KEY(uint8_t)
QUIRE_RADIX_SORT_KEY(int8_t)
QUIRE_RADIX_SORT_KEY(int16_t)
QUIRE_RADIX_SORT_KEY(int)
QUIRE_RADIX_SORT_KEY(int64_t)
using pair_int_double = std::pair<int, double>;
using pair_int_float = std::pair<int, float>;
QUIRE_RADIX_SORT(int, pair_int_double)
QUIRE_RADIX_SORT(int, pair_int_float)
#undef QUIRE_RADIX_SORT_KEY
#undef QUIRE_RADIX_SORT

}  // namespace quire
