// PackedInt4Weights: argument checks, packing into the layout of int4_layout.h,
// and the way back (unpack, dequantize).
#include <cmath>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "quire/Int4Gemm.h"
#include "quire/detail/Check.h"
#include "int4/int4_layout.h"
#include "quire/detail/StreamedAlloc.h"

namespace quire {
namespace detail {

void AlignedBytes::allocate(int64_t bytes) {
  const size_t n = (static_cast<size_t>(bytes) + 64 + 63) / 64 * 64;
  void* p = allocate_streamed(n);
  std::memset(p, 0, n);
  ptr.reset(static_cast<uint8_t*>(p));
  size = bytes;
}

void Int4Layout::init(int k, int n, int group, Int4Kind kd, Int4ScaleType st) {
  K = k;
  N = n;
  group_size = group;
  groups = (k + group - 1) / group;
  kp8 = (k + kBlockK - 1) / kBlockK;
  group_k8 = groups == 1 ? kp8 : group / kBlockK;
  panels = (n + kPanel - 1) / kPanel;
  kind = kd;
  scale_type = st;
  codes.allocate(panels * panel_code_bytes());
  scales.allocate(panels * panel_scale_bytes());
  if (has_mins()) mins.allocate(panels * panel_mins() * int64_t{sizeof(float)});
  if (kind == Int4Kind::zero_point) zero_points.assign(static_cast<size_t>(groups) * n, 0);
}

Int4Plan int4_plan(int M, int panels, int groups, int num_threads, bool k_split_allowed) {
  if (M > kInt4DecodeRows) return Int4Plan{false, 1, 1};
  if (panels >= num_threads || !k_split_allowed) {
    return Int4Plan{true, panels < num_threads ? panels : num_threads, 1};
  }
  const int k_parts = num_threads / panels;
  return Int4Plan{true, panels, k_parts < groups ? k_parts : groups};
}

namespace {

constexpr const char* kWhere = "PackedInt4Weights";
constexpr int kMaxInt4Group = 1 << 20;

float scale_value(const void* base, Int4ScaleType st, int64_t i) {
  switch (st) {
    case Int4ScaleType::f32: return static_cast<const float*>(base)[i];
    case Int4ScaleType::f16: return cpu_half2float(static_cast<const float16*>(base)[i]);
    case Int4ScaleType::bf16: return cpu_bf162float(static_cast<const bfloat16*>(base)[i]);
  }
  return 0.0f;
}

[[noreturn]] void bad_position(const char* param, int64_t value, const char* requirement,
                               const char* row, int64_t r, const char* col, int64_t c) {
  throw std::invalid_argument(std::string(kWhere) + ": " + param + "=" + std::to_string(value) +
                              " " + requirement + " (at " + row + "=" + std::to_string(r) + ", " +
                              col + "=" + std::to_string(c) + ")");
}

void check_geometry(matrix_op_t trans, int K, int N, const void* src, int ld, int group_size,
                    const char* src_name) {
  check_arg(trans == matrix_op_t::NoTranspose || trans == matrix_op_t::Transpose, kWhere, "trans",
            static_cast<int>(trans), "is not a matrix_op_t");
  check_arg(K >= 1, kWhere, "K", K, "must be >= 1");
  check_arg(N >= 1, kWhere, "N", N, "must be >= 1");
  check_product(K, N, kWhere, "K x N");
  check_arg(group_size == 32 || group_size == 64 || group_size == 128 || group_size == 256 ||
                group_size == K,
            kWhere, "group_size", group_size, "must be 32, 64, 128, 256 or K (per channel)");
  // A group's int32 sums: |P| <= group * 128 * 15 and |8 R| <= group * 1024 must fit.
  check_arg(group_size <= kMaxInt4Group, kWhere, "group_size", group_size,
            "must be <= 1048576 (a group's int32 sums would overflow)");
  check_not_null(src, kWhere, src_name);
  const bool t = trans == matrix_op_t::Transpose;
  check_arg(ld >= (t ? K : N), kWhere, "ld", ld, t ? "must be >= K when transposed" : "must be >= N");
}

// Checks groups x N scales (finite) and copies them into the panels; minimums go to the
// fp32 minimums instead.
void store_scales(detail::Int4Layout& l, const void* src, Int4ScaleType st, const char* name,
                  bool as_mins) {
  for (int g = 0; g < l.groups; ++g) {
    for (int j = 0; j < l.N; ++j) {
      const int64_t i = int64_t{g} * l.N + j;
      const float s = scale_value(src, st, i);
      if (!std::isfinite(s)) {
        throw std::invalid_argument(std::string(kWhere) + ": " + name + "[" + std::to_string(i) +
                                    "]=" + std::to_string(s) + " must be finite (group " +
                                    std::to_string(g) + ", column " + std::to_string(j) + ")");
      }
      const int p = j / Int4Layout::kPanel, jj = j % Int4Layout::kPanel;
      const int64_t dst = (int64_t{p} * l.groups + g) * Int4Layout::kPanel + jj;
      if (as_mins) {
        reinterpret_cast<float*>(l.mins.data())[dst] = s;
      } else {
        std::memcpy(l.scales.data() + dst * l.scale_bytes(),
                    static_cast<const uint8_t*>(src) + i * l.scale_bytes(), l.scale_bytes());
      }
    }
  }
}

// Byte offset of (k, j) in the packed codes, and whether it is the high nibble.
int64_t code_offset(const detail::Int4Layout& l, int k, int j, bool& high) {
  const int p = j / Int4Layout::kPanel, jj = j % Int4Layout::kPanel, t = k / 8, r = k % 8;
  high = r >= 4;
  return p * l.panel_code_bytes() + int64_t{t} * Int4Layout::kBlockBytes + 64 * (jj / 16) +
         4 * (jj % 16) + r % 4;
}

// Packs codes(k, j) (already checked to be in [0, 15]).
template <class Code>
void store_codes(detail::Int4Layout& l, const Code& code) {
  uint8_t* dst = l.codes.data();
  for (int k = 0; k < l.K; ++k) {
    for (int j = 0; j < l.N; ++j) {
      bool high;
      const int64_t o = code_offset(l, k, j, high);
      dst[o] |= static_cast<uint8_t>(high ? code(k, j) << 4 : code(k, j));
    }
  }
}

template <class T>
T element(const T* src, bool transposed, int ld, int k, int j) {
  return transposed ? src[int64_t{j} * ld + k] : src[int64_t{k} * ld + j];
}

}  // namespace
}  // namespace detail

using detail::Int4Layout;

PackedInt4Weights::PackedInt4Weights() : layout_(std::make_unique<Int4Layout>()) {}
PackedInt4Weights::PackedInt4Weights(PackedInt4Weights&&) noexcept = default;
PackedInt4Weights& PackedInt4Weights::operator=(PackedInt4Weights&&) noexcept = default;
PackedInt4Weights::~PackedInt4Weights() = default;

PackedInt4Weights::PackedInt4Weights(matrix_op_t trans, int K, int N, const int8_t* values, int ld,
                                     int group_size, Int4Scales scales)
    : PackedInt4Weights() {
  detail::check_geometry(trans, K, N, values, ld, group_size, "values");
  detail::check_not_null(scales.data, detail::kWhere, "scales");
  const bool t = trans == matrix_op_t::Transpose;
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < N; ++j) {
      const int v = detail::element(values, t, ld, k, j);
      if (v < -8 || v > 7) detail::bad_position("values", v, "is outside [-8, 7]", "k", k, "n", j);
    }
  }
  layout_->init(K, N, group_size, Int4Kind::symmetric, scales.type);
  detail::store_codes(*layout_, [&](int k, int j) { return detail::element(values, t, ld, k, j) + 8; });
  detail::store_scales(*layout_, scales.data, scales.type, "scales", false);
}

namespace {

// The asymmetric constructors' common part: checks and packs the codes.
void pack_codes(Int4Layout& l, matrix_op_t trans, int K, int N, const uint8_t* codes, int ld,
                int group_size, Int4Kind kind, Int4Scales scales) {
  detail::check_geometry(trans, K, N, codes, ld, group_size, "codes");
  detail::check_not_null(scales.data, detail::kWhere, "scales");
  const bool t = trans == matrix_op_t::Transpose;
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < N; ++j) {
      const int c = detail::element(codes, t, ld, k, j);
      if (c > 15) detail::bad_position("codes", c, "is outside [0, 15]", "k", k, "n", j);
    }
  }
  l.init(K, N, group_size, kind, scales.type);
  detail::store_codes(l, [&](int k, int j) { return detail::element(codes, t, ld, k, j); });
  detail::store_scales(l, scales.data, scales.type, "scales", false);
}

}  // namespace

PackedInt4Weights::PackedInt4Weights(matrix_op_t trans, int K, int N, const uint8_t* codes, int ld,
                                     int group_size, Int4Scales scales,
                                     const uint8_t* zero_points)
    : PackedInt4Weights() {
  detail::check_not_null(zero_points, detail::kWhere, "zero_points");
  pack_codes(*layout_, trans, K, N, codes, ld, group_size, Int4Kind::zero_point, scales);
  Int4Layout& l = *layout_;
  float* mins = reinterpret_cast<float*>(l.mins.data());
  for (int g = 0; g < l.groups; ++g) {
    for (int j = 0; j < N; ++j) {
      const int64_t i = int64_t{g} * N + j;
      const int z = zero_points[i];
      if (z > 15) detail::bad_position("zero_points", z, "is outside [0, 15]", "group", g, "n", j);
      l.zero_points[i] = static_cast<uint8_t>(z);
      // m = -(s * z) in fp32: w = s * c + m = s * (c - z), exactly for fp16 / bf16 s.
      const float s = detail::scale_value(scales.data, scales.type, i);
      mins[(int64_t{j / Int4Layout::kPanel} * l.groups + g) * Int4Layout::kPanel +
           j % Int4Layout::kPanel] = -(s * static_cast<float>(z));
    }
  }
}

PackedInt4Weights PackedInt4Weights::withMins(matrix_op_t trans, int K, int N, const uint8_t* codes,
                                              int ld, int group_size, Int4Scales scales,
                                              Int4Scales mins) {
  detail::check_not_null(mins.data, detail::kWhere, "mins");
  detail::check_arg(mins.type == scales.type, detail::kWhere, "mins type",
                    static_cast<int>(mins.type), "must be the type of the scales");
  PackedInt4Weights w;
  pack_codes(*w.layout_, trans, K, N, codes, ld, group_size, Int4Kind::scale_min, scales);
  detail::store_scales(*w.layout_, mins.data, mins.type, "mins", true);
  return w;
}

int PackedInt4Weights::rows() const { return layout_->K; }
int PackedInt4Weights::cols() const { return layout_->N; }
int PackedInt4Weights::groupSize() const { return layout_->group_size; }
int PackedInt4Weights::numGroups() const { return layout_->groups; }
Int4Kind PackedInt4Weights::kind() const { return layout_->kind; }
Int4ScaleType PackedInt4Weights::scaleType() const { return layout_->scale_type; }
int64_t PackedInt4Weights::streamedBytes() const {
  return layout_->codes.size + layout_->scales.size + layout_->mins.size;
}

void PackedInt4Weights::unpackCodes(uint8_t* codes) const {
  detail::check_not_null(codes, "PackedInt4Weights::unpackCodes", "codes");
  const Int4Layout& l = *layout_;
  for (int k = 0; k < l.K; ++k) {
    for (int j = 0; j < l.N; ++j) {
      bool high;
      const uint8_t b = l.codes.data()[detail::code_offset(l, k, j, high)];
      codes[int64_t{k} * l.N + j] = high ? b >> 4 : b & 15;
    }
  }
}

void PackedInt4Weights::unpackValues(int8_t* values) const {
  const char* where = "PackedInt4Weights::unpackValues";
  detail::check_not_null(values, where, "values");
  detail::check_arg(layout_->kind == Int4Kind::symmetric, where, "kind",
                    static_cast<int>(layout_->kind), "must be symmetric (others have codes)");
  const int64_t n = int64_t{layout_->K} * layout_->N;
  std::vector<uint8_t> codes(static_cast<size_t>(n));
  unpackCodes(codes.data());
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<int8_t>(codes[i] - 8);
}

namespace {

// groups x N floats from a panel-major array of the given element reader.
template <class Read>
void unpack_groups(const Int4Layout& l, float* dst, const Read& read) {
  for (int g = 0; g < l.groups; ++g)
    for (int j = 0; j < l.N; ++j)
      dst[int64_t{g} * l.N + j] =
          read((int64_t{j / Int4Layout::kPanel} * l.groups + g) * Int4Layout::kPanel +
               j % Int4Layout::kPanel);
}

}  // namespace

void PackedInt4Weights::unpackScales(float* scales) const {
  detail::check_not_null(scales, "PackedInt4Weights::unpackScales", "scales");
  const Int4Layout& l = *layout_;
  unpack_groups(l, scales, [&](int64_t i) { return detail::scale_value(l.scales.data(), l.scale_type, i); });
}

void PackedInt4Weights::unpackMins(float* mins) const {
  const char* where = "PackedInt4Weights::unpackMins";
  detail::check_not_null(mins, where, "mins");
  const Int4Layout& l = *layout_;
  detail::check_arg(l.has_mins(), where, "kind", static_cast<int>(l.kind),
                    "must be zero_point or scale_min (symmetric has no minimums)");
  const float* m = reinterpret_cast<const float*>(l.mins.data());
  unpack_groups(l, mins, [&](int64_t i) { return m[i]; });
}

void PackedInt4Weights::unpackZeroPoints(uint8_t* zero_points) const {
  const char* where = "PackedInt4Weights::unpackZeroPoints";
  detail::check_not_null(zero_points, where, "zero_points");
  detail::check_arg(layout_->kind == Int4Kind::zero_point, where, "kind",
                    static_cast<int>(layout_->kind), "must be zero_point");
  std::memcpy(zero_points, layout_->zero_points.data(), layout_->zero_points.size());
}

void PackedInt4Weights::dequantize(float* w) const {
  detail::check_not_null(w, "PackedInt4Weights::dequantize", "w");
  const Int4Layout& l = *layout_;
  std::vector<uint8_t> codes(static_cast<size_t>(l.K) * l.N);
  std::vector<float> scales(static_cast<size_t>(l.groups) * l.N), mins;
  unpackCodes(codes.data());
  unpackScales(scales.data());
  if (l.has_mins()) {
    mins.resize(scales.size());
    unpackMins(mins.data());
  }
  for (int k = 0; k < l.K; ++k) {
    for (int j = 0; j < l.N; ++j) {
      const int64_t i = int64_t{k} * l.N + j, gi = int64_t{k / l.group_size} * l.N + j;
      w[i] = l.has_mins() ? scales[gi] * static_cast<float>(codes[i]) + mins[gi]
                          : scales[gi] * static_cast<float>(codes[i] - 8);
    }
  }
}

bool PackedInt4Weights::equals(const PackedInt4Weights& other) const {
  const Int4Layout &a = *layout_, &b = *other.layout_;
  auto same = [](const detail::AlignedBytes& x, const detail::AlignedBytes& y) {
    return x.size == y.size && (x.size == 0 || std::memcmp(x.data(), y.data(), x.size) == 0);
  };
  return a.K == b.K && a.N == b.N && a.group_size == b.group_size && a.kind == b.kind &&
         a.scale_type == b.scale_type && same(a.codes, b.codes) && same(a.scales, b.scales) &&
         same(a.mins, b.mins) && a.zero_points == b.zero_points;
}

}  // namespace quire
