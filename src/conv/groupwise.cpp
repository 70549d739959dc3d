// The groupwise entry point: checks, per-channel requantization, the zero-point row,
// this thread's pixels, and the active path's kernel.
#include <vector>

#include "conv/conv_kernels.h"
#include "conv/direct_params.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"
#include "quire/detail/ConvDirect.h"

namespace quire::detail {

void groupwise_conv(const ConvGeometry& g, const uint8_t* A, const int8_t* packed,
                    const DirectRequant& r, uint8_t* C, int thread_id, int num_threads,
                    const char* where) {
  check_direct_call(g, A, packed, r, C, thread_id, num_threads, where);
  const int cg = g.ic_per_group();
  check_arg(g.oc_per_group() == cg && (cg == 2 || cg == 4 || cg == 8 || cg == 16), where, "IC/G",
            cg, "must equal OC/G and be 2, 4, 8 or 16 for the groupwise kernel");
  const conv::ChannelParams params(r, g.out_channels);
  const std::vector<uint8_t> zp_row(params.mult.size(), static_cast<uint8_t>(r.a_zero_point));
  conv::DirectArgs args{};
  args.g = &g;
  args.A = A;
  args.W = packed;
  args.C = C;
  args.zp_row = zp_row.data();
  args.q = params.requant;
  fbgemmPartition1D(thread_id, num_threads, g.batch * g.out_pixels(), args.pixel_begin,
                    args.pixel_end);
  if (args.pixel_begin < args.pixel_end) conv::conv_kernels_for(active_isa()).groupwise(args);
}

}  // namespace quire::detail
