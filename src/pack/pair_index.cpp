// The unsafe-pair index (pack/pair_index.h): built once per packing, after the limits.
#include "pack/pair_index.h"

#include <algorithm>
#include <cstring>

namespace quire::detail {
namespace {

constexpr size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

// One offset per list and the end; none where K is too short for any K block to be
// corrected (correction_pays), so short-K groups (grouped convs) pay 1 byte per panel,
// not 8 per column.
size_t list_offsets(const PackedBLayout& l) {
  if (l.padded_k / 2 < kCorrectedTallMinPairs) return 0;
  return static_cast<size_t>(l.groups) * static_cast<size_t>(l.panels()) * l.panel_width * 2 + 1;
}

struct Offsets {
  size_t indexed, offsets, entries;
};

Offsets offsets_of(const PackedBLayout& l) {
  const size_t panels = static_cast<size_t>(l.groups) * static_cast<size_t>(l.panels());
  Offsets o{};
  o.indexed = align8(panels);
  o.offsets = align8(o.indexed + panels);
  o.entries = align8(o.offsets + sizeof(uint32_t) * list_offsets(l));
  return o;
}

}  // namespace

void append_pair_index(const PackedBLayout& l, const int8_t* packed, std::vector<uint8_t>& blob) {
  const int panels = l.groups * l.panels();
  const int width = l.panel_width;
  const Offsets o = offsets_of(l);
  std::vector<uint8_t> indexed(static_cast<size_t>(panels), 0);
  std::vector<uint32_t> offsets(list_offsets(l), 0);
  if (offsets.empty()) {  // nothing indexed
    blob.resize(o.entries, 0);
    return;
  }
  std::vector<PairEntry> entries;
  std::vector<std::vector<PairEntry>> lists(static_cast<size_t>(width) * 2);
  for (int gp = 0; gp < panels; ++gp) {
    const uint8_t limit = blob[gp];
    const int cols = std::min(width, l.n - (gp % l.panels()) * width);
    for (auto& list : lists) list.clear();
    size_t unsafe = 0;
    if (limit < 255) {  // else certified for any A: nothing to correct
      const int8_t* panel = packed + int64_t{gp} * l.panel_bytes();
      // Steps in order, two pairs per lane: each list comes out sorted by pair.
      for (int step = 0; step < l.padded_k / 4; ++step)
        for (int half = 0; half < 2; ++half)
          for (int j = 0; j < cols; ++j) {
            const int8_t* p = panel + int64_t{step} * width * 4 + j * 4 + half * 2;
            if (pair_limit(p[0], p[1]) == 255) continue;
            const uint32_t b01 = static_cast<uint16_t>(int16_t{p[0]}) |
                                 (uint32_t{static_cast<uint16_t>(int16_t{p[1]})} << 16);
            const int side = p[0] + p[1] > 0 ? 0 : 1;
            lists[static_cast<size_t>(j) * 2 + side].push_back(
                PairEntry{static_cast<uint16_t>(step * 2 + half), static_cast<uint16_t>(j),
                          static_cast<int32_t>(b01)});
            ++unsafe;
          }
    }
    // Too dense to pay anywhere: dropped, the panel runs the exact form.
    indexed[gp] = limit == 255 ||
                  correction_pays(static_cast<int64_t>(unsafe), l.padded_k / 2, cols);
    for (int k = 0; k < width * 2; ++k) {
      offsets[(static_cast<size_t>(gp) * width) * 2 + k] = static_cast<uint32_t>(entries.size());
      if (indexed[gp]) entries.insert(entries.end(), lists[k].begin(), lists[k].end());
    }
  }
  offsets.back() = static_cast<uint32_t>(entries.size());
  blob.resize(o.entries + sizeof(PairEntry) * entries.size(), 0);
  if (!indexed.empty())  // no panels (N = 0): memcpy takes no null source
    std::memcpy(blob.data() + o.indexed, indexed.data(), indexed.size());
  std::memcpy(blob.data() + o.offsets, offsets.data(), sizeof(uint32_t) * offsets.size());
  if (!entries.empty())
    std::memcpy(blob.data() + o.entries, entries.data(), sizeof(PairEntry) * entries.size());
}

PairIndexView pair_index_view(const PackedBLayout& l, const uint8_t* blob) {
  const Offsets o = offsets_of(l);
  return PairIndexView{blob + o.indexed, reinterpret_cast<const uint32_t*>(blob + o.offsets),
                       reinterpret_cast<const PairEntry*>(blob + o.entries), l.panel_width,
                       l.padded_k / 2};
}

void cut_to_pairs(const PairEntry*& first, const PairEntry*& last, int pair0, int pair1) {
  const auto by_pair = [](const PairEntry& e, int t) { return e.pair < t; };
  first = std::lower_bound(first, last, pair0, by_pair);
  last = std::lower_bound(first, last, pair1, by_pair);
}

int64_t PairIndexView::count(int gp, int pair0, int pair1) const {
  if (indexed[gp] == 0) return -1;
  const uint32_t* o = lists(gp);
  if (pair0 <= 0 && pair1 >= pairs) return int64_t{o[2 * width]} - o[0];  // the whole K
  int64_t n = 0;
  for (int k = 0; k < 2 * width; ++k) {
    const PairEntry *first = entries + o[k], *last = entries + o[k + 1];
    if (first == last) continue;
    cut_to_pairs(first, last, pair0, pair1);
    n += last - first;
  }
  return n;
}

}  // namespace quire::detail
