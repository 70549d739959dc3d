// How every depthwise row kernel (depthwise_rows.h) walks its share of output rows: in
// pairs (oh, oh + 1) within an image, the input rows a pair or a stride-2 set reads, and
// the three stride-2 plane-set slots, tagged with the set they hold. Internal linkage:
// included by the kernels' files.
#pragma once

#include <cstdint>

#include "conv/depthwise_rows.h"

namespace quire::conv {
namespace {

// Whether the share has a second row after `row` in the same image (OH rows an image).
inline bool rows_pair(const DepthwiseRowsArgs& a, int64_t row, int OH) {
  return row + 1 < a.row_end && row % OH + 1 < OH;
}

// The input rows of a four-row window: rows[s] = input row first + s of `image` (H rows
// of `row_bytes` each), null when outside the input or from `count` on (padding).
inline void window_rows(const DepthwiseRowsArgs& a, int64_t image, int first, int count,
                        int64_t row_bytes, const uint8_t* rows[4]) {
  const int H = a.g->in[1];
  for (int s = 0; s < 4; ++s) {
    const int ih = first + s;
    rows[s] = ih >= 0 && ih < H && s < count ? a.A + (image * H + ih) * row_bytes : nullptr;
  }
}

// Stride 1: the input rows oh - 1 .. oh + 2 of the pair at `row` (the last null when the
// pair is a single row); returns whether it is a pair.
inline bool stride1_pair(const DepthwiseRowsArgs& a, int64_t row, const uint8_t* rows[4]) {
  const int OH = a.g->out[1];
  const bool pair = rows_pair(a, row, OH);
  const int64_t n = int64_t{a.g->in[2]} * a.g->out_channels;
  window_rows(a, row / OH, static_cast<int>(row % OH) - 1, pair ? 4 : 3, n, rows);
  return pair;
}

// Stride 2: set(oh) of an image, the quads of input rows 2 oh - 1 .. 2 oh + 2.
struct SetTag {
  int64_t image = -1;
  int oh = 0;
  bool operator==(const SetTag&) const = default;
};

inline void set_rows(const DepthwiseRowsArgs& a, const SetTag& t, const uint8_t* rows[4]) {
  window_rows(a, t.image, 2 * t.oh - 1, 4, int64_t{a.g->in[2]} * a.g->out_channels, rows);
}

// The sets a pair at `row` reads: set(oh) and set(oh + 2).
inline void pair_sets(int64_t row, int OH, SetTag t[2]) {
  t[0] = {row / OH, static_cast<int>(row % OH)};
  t[1] = {t[0].image, t[0].oh + 2};
}

// Three plane-set slots in turn, each tagged with the set it holds.
class SetSlots {
 public:
  // The slot holding `t`, or -1.
  int find(const SetTag& t) const {
    for (int k = 0; k < 3; ++k)
      if (tag_[k] == t) return k;
    return -1;
  }
  // A slot holding neither `keep0` nor `keep1`, now tagged `t`.
  int claim(const SetTag& t, const SetTag& keep0, const SetTag& keep1) {
    for (int k = 0; k < 3; ++k)
      if (!(tag_[k] == keep0) && !(tag_[k] == keep1)) {
        tag_[k] = t;
        return k;
      }
    return -1;  // unreachable: three slots, two kept
  }

 private:
  SetTag tag_[3];
};

// The stride-2 walk over a share: per pair (or last single row) at `row`, the sets it
// reads are made ready (a pending build finished, a missing set built now: start(tag,
// slot) then finish()), ready(need, slot) may rebuild them, the next pair's first missing set
// is started (built while the pair's dot products run), and run(row, pair, first slot,
// second slot) computes the rows.
template <class Start, class Finish, class Ready, class Run>
void walk_set_pairs(const DepthwiseRowsArgs& a, Start&& start, Finish&& finish, Ready&& ready,
                    Run&& run) {
  const int OH = a.g->out[1];
  SetSlots slots;
  for (int64_t row = a.row_begin; row < a.row_end;) {
    const bool pair = rows_pair(a, row, OH);
    SetTag need[2];
    pair_sets(row, OH, need);
    if (!pair) need[1] = need[0];
    finish();
    for (const SetTag& t : need)
      if (slots.find(t) < 0) {
        start(t, slots.claim(t, need[0], need[1]));
        finish();
      }
    const int slot[2] = {slots.find(need[0]), slots.find(need[1])};
    ready(need, slot);
    const int64_t next = row + (pair ? 2 : 1);
    if (next < a.row_end) {
      SetTag ahead[2];
      pair_sets(next, OH, ahead);
      const SetTag t = slots.find(ahead[0]) < 0 || !rows_pair(a, next, OH) ? ahead[0] : ahead[1];
      if (slots.find(t) < 0) start(t, slots.claim(t, need[0], need[1]));
    }
    run(row, pair, slot[0], slot[1]);
    row = next;
  }
}

}  // namespace
}  // namespace quire::conv
