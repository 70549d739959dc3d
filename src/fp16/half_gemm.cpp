// The loops of the half-precision-weight GEMM around the kernels, and the choice of the
// kernel path. Per thread (its rectangle of C from partition_tiles):
//
//   for ic over the thread's rows, mcb at a time        (the block of A kept in L2)
//     rows cut into near-equal tiles of <= mr_max rows
//     for pc over K, brow at a time (one row block of the packed weights)
//       A block: the caller's A in place, or converted (transposed, bf16 paths, or
//                rows 4 KiB apart)
//       for jc over the thread's columns, kColumnGroup at a time
//         for each row tile: main tiles across the group, then edge tiles
//
// The B columns of a group (brow x 128 elements, 128 KiB of halves or 256 KiB of floats at
// brow 512, four consecutive panels of the row block) are reused by every row tile
// while they are in L2; a row tile's A rows stay in L1 across the group. Every element
// is computed with the same operations in the same order whatever the rectangle, tile
// or block it falls in (the first K block starts from beta * C, later ones from C, which
// holds the fp32 accumulator exactly), so the split never changes a result.
#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "cpu/cpu_features.h"
#include "common/thread_scratch.h"
#include "cpu/isa_record.h"
#include "fp16/half_kernels.h"
#include "quire/Utils.h"
#include "driver/driver.h"

namespace quire::detail {
namespace {

constexpr int kColumnGroup = 4 * kHalfPanel;

// Software prefetch of the weights. At small m the kernels are bound by reading B from
// memory, and the hardware prefetcher alone leaves the core waiting: a row tile that
// reads B first fetches each panel 4 KiB ahead of its own reads (fp16, m = 4: 50 -> 76
// GFLOPS on Zen 4, n = k = 512, caches flushed). With several row tiles, the second
// one fetches the next column group instead, so that the first tile of that group finds
// its weights in cache while memory works in the shadow of the other tiles' FMAs. A
// prefetch past the end of B is harmless.
constexpr int64_t kPrefetchAheadBytes = 4096;

// p advanced by elems packed elements of esize bytes.
const void* advance(const void* p, int64_t elems, int esize) {
  return static_cast<const char*>(p) + elems * esize;
}

// The converted A block of the calling thread: at most its share of A.
thread_local GrowingScratch t_scratch;

// Rows of A a multiple of 4 KiB apart all fall in the same L1 set (8 ways on current
// x86 cores), so the rows of a tile evict each other: K = 1024 read in place drops from
// 107 to 94 GFLOPS on Zen 4. Such A is copied, and a converted block gets rows 64 bytes
// longer when its own rows would be.
bool l1_aliasing(int64_t row_bytes) { return row_bytes % 4096 == 0; }

int64_t buffer_ld(int cols_pad, size_t elem_size) {
  return l1_aliasing(cols_pad * static_cast<int64_t>(elem_size))
             ? cols_pad + static_cast<int64_t>(64 / elem_size)
             : cols_pad;
}

// rows x cols floats of A into dst (rows ld_dst apart): the copy for aliasing rows.
void copy_rows(const float* src, int64_t ld, int rows, int cols, float* dst, int64_t ld_dst) {
  for (int r = 0; r < rows; ++r) std::memcpy(dst + r * ld_dst, src + r * ld, sizeof(float) * cols);
}

// Rows [0, mc) of a block cut into count tiles of near-equal size (<= mr_max rows each):
// the first mc % count tiles get one row more.
struct RowTiles {
  int count, base, extra;
  RowTiles(int mc, int mr_max)
      : count((mc + mr_max - 1) / mr_max), base(mc / count), extra(mc % count) {}
  int rows(int t) const { return base + (t < extra ? 1 : 0); }
  int first(int t) const { return t * base + std::min(t, extra); }
};

// One row tile across nc columns: main tiles while they fit, then edge tiles. args.b,
// args.prefetch and args.c point at the first column.
void run_row(const HalfKernelSet& set, HalfType type, int mr, HalfKernelArgs args, int nc) {
  const HalfTile main = set.main[mr], edge = set.edge[mr];
  const void *b = args.b, *pf = args.prefetch;
  const int esize = half_elem_bytes(type);
  float* c = args.c;
  int j = 0;
  auto at = [&](int col) {
    const int64_t offset = half_column_offset(type, col, args.b_panel);
    args.b = advance(b, offset, esize);
    args.prefetch = advance(pf, offset, esize);
    args.c = c + col;
  };
  for (; j + main.width <= nc; j += main.width) {
    at(j);
    args.cols = main.width;
    main.fn(args);
  }
  for (; j < nc; j += edge.width) {
    at(j);
    args.cols = std::min(edge.width, nc - j);
    edge.fn(args);
  }
}

}  // namespace

void half_gemm(const HalfGemmCall& g, const HalfKernelSet& set, int thread_id, int num_threads) {
  if (set.weights != g.weights) {
    const char* type = g.weights == HalfType::fp16   ? "fp16"
                       : g.weights == HalfType::bf16 ? "bf16"
                                                     : "fp32";
    throw std::invalid_argument(std::string("half_gemm: kernel path ") + set.name +
                                " does not take " + type + " weights");
  }
  const ThreadTile tile = partition_tiles(g.m, g.n, set.mr_max, kHalfPanel, thread_id, num_threads);
  if (tile.m0 >= tile.m1 || tile.n0 >= tile.n1) return;

  const int step = half_step_rows(g.weights);
  const int esize = half_elem_bytes(g.weights);
  const int64_t nbcol = (g.n + kHalfPanel - 1) / kHalfPanel;
  const int kc_max = (std::min(g.brow, g.k) + step - 1) / step * step;
  const bool transposed = g.transa == matrix_op_t::Transpose;
  const bool as_is = set.a_format == AFormat::f32 && g.act == ActType::f32 && !transposed;
  const bool in_place = as_is && !l1_aliasing(int64_t{g.k} * sizeof(float));
  const size_t a_size = g.act == ActType::f32 ? sizeof(float) : sizeof(uint16_t);
  const size_t buf_size = set.a_format == AFormat::bf16_pairs ? sizeof(uint16_t) : sizeof(float);
  // A shorter last K block may alias where kc_max does not: room for the padded rows
  // of any block (buffer_ld adds at most 64 bytes).
  void* buf = in_place ? nullptr
                       : t_scratch.get((buf_size * kc_max + 64) *
                                       std::min(set.mcb, tile.m1 - tile.m0));

  for (int i0 = tile.m0; i0 < tile.m1; i0 += set.mcb) {
    const int mc = std::min(set.mcb, tile.m1 - i0);
    const RowTiles rows(mc, set.mr_max);
    for (int k0 = 0; k0 < g.k; k0 += kc_max) {
      const int kc = std::min(kc_max, g.k - k0);
      const int64_t steps = (kc + step - 1) / step;
      // This row block's panels: steps * step rows of 32 each, one after another; the
      // block starts after k0 rows of all nbcol panels (kc_max = brow unless one block).
      const int64_t panel = steps * step * kHalfPanel;
      const void* b_block = advance(g.b, int64_t{k0} * nbcol * kHalfPanel, esize);

      HalfKernelArgs args{};
      if (in_place) {
        args.a = static_cast<const float*>(g.a) + int64_t{i0} * g.k + k0;
        args.lda = g.k;
      } else {
        // Element (i0, k0) of A, and the distance between its rows.
        const int64_t first = transposed ? int64_t{k0} * g.m + i0 : int64_t{i0} * g.k + k0;
        const void* src = static_cast<const char*>(g.a) + a_size * first;
        const int64_t ld = transposed ? g.m : g.k;
        const int cols_pad = static_cast<int>(steps * step);
        const int64_t ld_buf = buffer_ld(cols_pad, buf_size);
        if (as_is) {
          copy_rows(static_cast<const float*>(src), ld, mc, kc, static_cast<float*>(buf), ld_buf);
        } else if (transposed || set.convert_a == nullptr) {
          convert_a_scalar(set.a_format, src, g.act, ld, transposed, mc, kc, cols_pad, buf, ld_buf);
        } else {
          set.convert_a(src, g.act, ld, mc, kc, cols_pad, buf, ld_buf);
        }
        args.a = buf;
        args.lda = ld_buf;
      }
      args.b_panel = panel;
      args.ldc = g.n;
      args.steps = steps;
      args.beta = k0 == 0 ? g.beta : 1.0f;

      for (int j0 = tile.n0; j0 < tile.n1; j0 += kColumnGroup) {
        const int nc = std::min(kColumnGroup, tile.n1 - j0);
        const void* b_group = advance(b_block, j0 / kHalfPanel * panel, esize);
        const bool next_group = j0 + kColumnGroup < tile.n1;
        for (int t = 0; t < rows.count; ++t) {
          const int r0 = rows.first(t);
          HalfKernelArgs row = args;
          row.a = static_cast<const char*>(args.a) +
                  (in_place ? sizeof(float) : buf_size) * r0 * args.lda;
          row.b = b_group;
          row.prefetch = t == 1 && next_group
                             ? advance(b_group, kColumnGroup / kHalfPanel * panel, esize)
                             : advance(b_group, kPrefetchAheadBytes, 1);
          row.c = g.c + int64_t{i0 + r0} * g.n + j0;
          run_row(set, g.weights, rows.rows(t), row, nc);
        }
      }
    }
  }
}

namespace {

// A path's kernels for a weight type on this CPU.
const HalfKernelSet& kernels_of(const IsaRecord& r, HalfType type) {
  if (type == HalfType::fp16) return *r.half.fp16;
  if (type == HalfType::fp32) return *r.half.fp32;
  const bool dot = r.traits().bf16_dot && (cpu::cpu_features().caps() & kCapAvx512Bf16);
  return dot ? *r.half.bf16_dot : *r.half.bf16;
}

}  // namespace

std::vector<const HalfKernelSet*> half_kernel_sets(HalfType type) {
  std::vector<const HalfKernelSet*> sets;
  auto add = [&](const HalfKernelSet* set) {
    if (set != nullptr && std::find(sets.begin(), sets.end(), set) == sets.end())
      sets.push_back(set);
  };
  // Best path first; on a path with vdpbf16ps kernels the CPU can run, those and then
  // the FMA kernels of the same width.
  for (int i = kIsaCount - 1; i >= 0; --i) {
    const Isa isa = kIsaTraits[i].isa;
    if (!cpu_has(isa)) continue;
    const IsaRecord& r = isa_record(isa);
    add(&kernels_of(r, type));
    if (type == HalfType::bf16) add(r.half.bf16);
  }
  return sets;
}

const char* half_kernel_set_name(const HalfKernelSet& set) { return set.name; }

const HalfKernelSet& active_half_kernels(HalfType type) { return kernels_of(active_isa(), type); }

}  // namespace quire::detail
