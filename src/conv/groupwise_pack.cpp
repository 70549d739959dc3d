// Packing of groupwise weights (layout in quire/GroupwiseConv.h).
#include <cstring>

#include "quire/GroupwiseConv.h"

namespace quire::detail {
namespace {

int vectors(const ConvGeometry& g) { return (g.out_channels + 15) / 16; }

// Index of W[grp][o][t][c] in the packed buffer.
int64_t packed_index(const ConvGeometry& g, int grp, int o, int t, int c) {
  const int cg = g.oc_per_group();
  const int oc = grp * cg + o, v = oc / 16, l = oc % 16;
  return ((((int64_t{v} * g.kernel_prod() + t) * ((cg + 3) / 4) + c / 4) * 16 + l) * 4) + c % 4;
}

// Index of the same weight in the source: KRSC (grp, o, t, c) or (grp, t, c, o).
int64_t source_index(const ConvGeometry& g, bool krsc, int grp, int o, int t, int c) {
  const int cg = g.oc_per_group(), taps = g.kernel_prod();
  return krsc ? ((int64_t{grp} * cg + o) * taps + t) * cg + c
              : ((int64_t{grp} * taps + t) * cg + c) * cg + o;
}

template <class F>
void for_each_weight(const ConvGeometry& g, F f) {
  const int cg = g.oc_per_group();
  for (int grp = 0; grp < g.groups; ++grp)
    for (int o = 0; o < cg; ++o)
      for (int t = 0; t < g.kernel_prod(); ++t)
        for (int c = 0; c < cg; ++c) f(grp, o, t, c);
}

}  // namespace

int64_t gconv_packed_bytes(const ConvGeometry& g) {
  return int64_t{vectors(g)} * 64 * g.kernel_prod() * ((g.ic_per_group() + 3) / 4);
}

void pack_gconv_weights(const ConvGeometry& g, bool krsc, const int8_t* src, int8_t* dst) {
  std::memset(dst, 0, static_cast<size_t>(gconv_packed_bytes(g)));
  for_each_weight(g, [&](int grp, int o, int t, int c) {
    dst[packed_index(g, grp, o, t, c)] = src[source_index(g, krsc, grp, o, t, c)];
  });
}

void unpack_gconv_weights(const ConvGeometry& g, bool krsc, const int8_t* packed, int8_t* dst) {
  for_each_weight(g, [&](int grp, int o, int t, int c) {
    dst[source_index(g, krsc, grp, o, t, c)] = packed[packed_index(g, grp, o, t, c)];
  });
}

}  // namespace quire::detail
