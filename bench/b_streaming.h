// The small-M view of an int8 run (issue 10, "Small M"): with M <= 4 a call streams
// packed B once and does little else, so its speed is B's bytes per second against the
// read bandwidth of a working set of B's size (its level: L2, L3, or DRAM with --flush),
// measured by the bench itself.
#pragma once

#include <cstdio>
#include <vector>

#include "report.h"

namespace quire::bench {

// Prints, for each shape with M <= 4, packed B's size, its level, B GB/s (packed bytes /
// median time of quire's call as measured), the level's probed read bandwidth
// (read_bandwidth_gbs of a working set of B's size, 256 MiB when flushed) and the ratio,
// then a plain read of B's bytes timed like the call (ShapeResult::b_read_gbs, as the
// int4 bench's %bw) and that ratio; then the geomean ratios. Prints nothing when no
// shape has M <= 4.
void print_b_streaming(std::FILE* out, const std::vector<ShapeResult>& results, int threads,
                       bool flushed);

}  // namespace quire::bench
