// The unsafe-pair index (pack/pair_index.h): built once per packing, after the limits.
#include "pack/pair_index.h"

#include <algorithm>
#include <cstring>

namespace quire::detail {
namespace {

constexpr size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

struct Offsets {
  size_t indexed, begin, entries;
};

Offsets offsets_of(const PackedBLayout& l) {
  const size_t panels = static_cast<size_t>(l.groups) * static_cast<size_t>(l.panels());
  Offsets o{};
  o.indexed = align8(panels);
  o.begin = align8(o.indexed + panels);
  o.entries = align8(o.begin + sizeof(uint32_t) * (panels + 1));
  return o;
}

}  // namespace

void append_pair_index(const PackedBLayout& l, const int8_t* packed, std::vector<uint8_t>& blob) {
  const int panels = l.groups * l.panels();
  const Offsets o = offsets_of(l);
  std::vector<uint8_t> indexed(static_cast<size_t>(panels), 0);
  std::vector<uint32_t> begin(static_cast<size_t>(panels) + 1, 0);
  std::vector<PairEntry> entries;
  const int width = l.panel_width;
  for (int gp = 0; gp < panels; ++gp) {
    const size_t first = entries.size();
    begin[gp] = static_cast<uint32_t>(first);
    const uint8_t limit = blob[gp];
    if (limit == 255) {  // certified for any A: nothing to correct
      indexed[gp] = 1;
      continue;
    }
    const int8_t* panel = packed + int64_t{gp} * l.panel_bytes();
    const int cols = std::min(width, l.n - (gp % l.panels()) * width);
    // Steps in order, two pairs per lane: entries come out sorted by pair, then column.
    for (int step = 0; step < l.padded_k / 4; ++step)
      for (int half = 0; half < 2; ++half)
        for (int j = 0; j < cols; ++j) {
          const int8_t* p = panel + int64_t{step} * width * 4 + j * 4 + half * 2;
          if (pair_limit(p[0], p[1]) == 255) continue;
          const uint32_t b01 = static_cast<uint16_t>(int16_t{p[0]}) |
                               (uint32_t{static_cast<uint16_t>(int16_t{p[1]})} << 16);
          entries.push_back(PairEntry{static_cast<uint16_t>(step * 2 + half),
                                      static_cast<uint16_t>(j), static_cast<int32_t>(b01)});
        }
    // Too dense to pay anywhere: dropped, the panel runs the exact form.
    if (correction_pays(static_cast<int64_t>(entries.size() - first), l.padded_k / 2, cols))
      indexed[gp] = 1;
    else
      entries.resize(first);
  }
  begin[panels] = static_cast<uint32_t>(entries.size());
  blob.resize(o.entries + sizeof(PairEntry) * entries.size(), 0);
  if (!indexed.empty())  // no panels (N = 0): memcpy takes no null source
    std::memcpy(blob.data() + o.indexed, indexed.data(), indexed.size());
  std::memcpy(blob.data() + o.begin, begin.data(), sizeof(uint32_t) * begin.size());
  if (!entries.empty())
    std::memcpy(blob.data() + o.entries, entries.data(), sizeof(PairEntry) * entries.size());
}

PairIndexView pair_index_view(const PackedBLayout& l, const uint8_t* blob) {
  const Offsets o = offsets_of(l);
  return PairIndexView{blob + o.indexed, reinterpret_cast<const uint32_t*>(blob + o.begin),
                       reinterpret_cast<const PairEntry*>(blob + o.entries)};
}

bool PairIndexView::range(int gp, int pair0, int pair1, const PairEntry*& first,
                          const PairEntry*& last) const {
  if (indexed[gp] == 0) return false;
  const auto by_pair = [](const PairEntry& e, int t) { return e.pair < t; };
  first = std::lower_bound(entries + begin[gp], entries + begin[gp + 1], pair0, by_pair);
  last = std::lower_bound(first, entries + begin[gp + 1], pair1, by_pair);
  return true;
}

}  // namespace quire::detail
