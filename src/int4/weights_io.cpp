// PackedInt4Weights::save / load: the packed form with its geometry, a layout version
// and an FNV-1a checksum, as PackBMatrix::save does for int8 weights.
//   magic "QUIRE4W\0", int32 header {version, K, N, group size, groups, kind, scale
//   type}, codes, scales, minimums (kinds with them), zero points (zero_point kind),
//   uint64 FNV-1a of everything before it.
#include <cstring>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>

#include "common/fnv1a.h"
#include "quire/Int4Gemm.h"
#include "quire/detail/Check.h"
#include "int4/int4_layout.h"

namespace quire {
namespace {

constexpr char kMagic[8] = {'Q', 'U', 'I', 'R', 'E', '4', 'W', '\0'};
constexpr int kHeaderInts = 7;
constexpr const char* kLoad = "PackedInt4Weights::load";

[[noreturn]] void bad_stream(const std::string& what) {
  throw std::invalid_argument(std::string(kLoad) + ": stream " + what);
}

// The payload parts in stream order.
template <class F>
void for_each_part(const detail::Int4Layout& l, const F& f) {
  f(l.codes.data(), l.codes.size, "codes");
  f(l.scales.data(), l.scales.size, "scales");
  if (l.has_mins()) f(l.mins.data(), l.mins.size, "minimums");
  if (!l.zero_points.empty())
    f(const_cast<uint8_t*>(l.zero_points.data()), static_cast<int64_t>(l.zero_points.size()),
      "zero points");
}

}  // namespace

void PackedInt4Weights::save(std::ostream& out) const {
  const detail::Int4Layout& l = *layout_;
  const int32_t header[kHeaderInts] = {detail::Int4Layout::kVersion, l.K, l.N, l.group_size,
                                       l.groups, static_cast<int32_t>(l.kind),
                                       static_cast<int32_t>(l.scale_type)};
  detail::Fnv1a hash;
  hash.add(kMagic, sizeof(kMagic));
  hash.add(header, sizeof(header));
  out.write(kMagic, sizeof(kMagic));
  out.write(reinterpret_cast<const char*>(header), sizeof(header));
  for_each_part(l, [&](const uint8_t* p, int64_t n, const char*) {
    hash.add(p, static_cast<size_t>(n));
    out.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
  });
  out.write(reinterpret_cast<const char*>(&hash.h), sizeof(hash.h));
  if (!out) throw std::invalid_argument("PackedInt4Weights::save: writing to the stream failed");
}

PackedInt4Weights PackedInt4Weights::load(std::istream& in) {
  auto read = [&](void* dst, size_t n, const char* part) {
    in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
    if (static_cast<size_t>(in.gcount()) != n) bad_stream(std::string("is truncated in the ") + part);
  };
  char magic[sizeof(kMagic)];
  int32_t h[kHeaderInts];
  read(magic, sizeof(magic), "magic");
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) bad_stream("does not hold packed int4 weights (bad magic)");
  read(h, sizeof(h), "header");
  if (h[0] != detail::Int4Layout::kVersion)
    bad_stream("has layout version " + std::to_string(h[0]) + ", this build reads " +
               std::to_string(detail::Int4Layout::kVersion));
  const int K = h[1], N = h[2], group = h[3];
  detail::check_arg(K >= 1, kLoad, "K", K, "must be >= 1");
  detail::check_arg(N >= 1, kLoad, "N", N, "must be >= 1");
  detail::check_product(K, N, kLoad, "K x N");
  detail::check_arg(group == 32 || group == 64 || group == 128 || group == 256 || group == K,
                    kLoad, "group size", group, "must be 32, 64, 128, 256 or K");
  detail::check_arg(group <= (1 << 20), kLoad, "group size", group, "must be <= 1048576");
  detail::check_arg(h[4] == (K + group - 1) / group, kLoad, "groups", h[4],
                    "does not match K and the group size");
  detail::check_arg(h[5] >= 0 && h[5] <= 2, kLoad, "kind", h[5], "is not an Int4Kind");
  detail::check_arg(h[6] >= 0 && h[6] <= 2, kLoad, "scale type", h[6], "is not an Int4ScaleType");

  PackedInt4Weights w;
  detail::Int4Layout& l = *w.layout_;
  l.init(K, N, group, static_cast<Int4Kind>(h[5]), static_cast<Int4ScaleType>(h[6]));
  detail::Fnv1a hash;
  hash.add(magic, sizeof(magic));
  hash.add(h, sizeof(h));
  for_each_part(l, [&](uint8_t* p, int64_t n, const char* part) {
    read(p, static_cast<size_t>(n), part);
    hash.add(p, static_cast<size_t>(n));
  });
  uint64_t stored;
  read(&stored, sizeof(stored), "checksum");
  if (stored != hash.h) bad_stream("fails its checksum (corrupted)");
  return w;
}

}  // namespace quire
