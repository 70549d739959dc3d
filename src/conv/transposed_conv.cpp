// The direct transposed convolution: per output row, GEMMs of the input rows that reach
// it with the kernel rows that take them there (the driver's kernels on a column range
// of the packed B), then the col2im scatter of the products (quire/detail/
// ConvTransposed.h has the formulas).
#include <algorithm>
#include <vector>

#include "conv/conv_kernels.h"
#include "quire/Utils.h"
#include "quire/detail/Blocking.h"
#include "quire/detail/ConvTransposed.h"
#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "quire/detail/PackA.h"

namespace quire::detail {
namespace {

// Output position reached from input position i through tap k along dimension d, or -1
// outside the output: o = i * stride - pad_begin + k * dilation.
int output_index(const ConvGeometry& g, int d, int i, int k) {
  const int o = i * g.stride[d] - g.pad_begin[d] + k * g.dilation[d];
  return o >= 0 && o < g.out[d] ? o : -1;
}

}  // namespace

void transposed_conv(const TransposedConvArgs& a, int thread_id, int num_threads) {
  const ConvGeometry& g = *a.g;
  const int OT = g.out[0], OH = g.out[1], OW = g.out[2];
  const int IT = g.in[0], IH = g.in[1], IW = g.in[2];
  const int IC = g.in_channels, OC = g.out_channels;
  const int KT = g.kernel[0], KH = g.kernel[1], KW = g.kernel[2];
  int64_t r0 = 0, r1 = 0;
  fbgemmPartition1D(thread_id, num_threads, int64_t{g.batch} * OT * OH, r0, r1);
  if (r0 >= r1) return;

  const IsaRecord& isa = record_at_or_below(a.inst_set);
  const BlockingFactors bf = resolve_blocking(nullptr, "fbgemmDirectConv", Accumulation::int32);
  KernelSet kernels(isa, bf.MR, bf.NR);
  const conv::ConvKernels& ck = conv::conv_kernels_for(isa);
  const int mcb = std::min(bf.MCB, IW);
  const int64_t lda = packed_a_ld(bf, IC);
  const int ldp = KW * OC;  // the products of one input pixel with one kernel row
  const int64_t row_elems = int64_t{OW} * OC;
  std::vector<uint8_t> a_copy;  // A blocks the kernel cannot read in place (IC % 4 != 0)
  std::vector<int32_t> prod(static_cast<size_t>(mcb) * ldp);
  std::vector<int32_t> in_sums(a.row_sums ? mcb : 0), out_sums(a.row_sums ? OW : 0);

  for (int64_t r = r0; r < r1; ++r) {
    const int oh = static_cast<int>(r % OH), ot = static_cast<int>(r / OH % OT);
    const int64_t n = r / (int64_t{OH} * OT);
    int32_t* acc = a.acc + r * row_elems;
    std::fill(acc, acc + row_elems, 0);
    std::fill(out_sums.begin(), out_sums.end(), 0);
    for (int kt = 0; kt < KT; ++kt) {
      const int it = conv_input_index(g, 0, ot, kt);
      if (it < 0) continue;
      for (int kh = 0; kh < KH; ++kh) {
        const int ih = conv_input_index(g, 1, oh, kh);
        if (ih < 0) continue;
        const ASource src{a.A + ((n * IT + it) * IH + ih) * IW * IC, IC, false, IW, IC, 1, a.inst_set};
        const int n0 = (kt * KH + kh) * ldp;  // this kernel row's columns of B
        for (int iw0 = 0; iw0 < IW; iw0 += mcb) {
          const int mc = std::min(mcb, IW - iw0);
          for (int k0 = 0; k0 < IC; k0 += bf.KCB) {
            const int kc = std::min(bf.KCB, IC - k0);
            const block_type_t block{iw0, mc, k0, kc};
            if (!a_block_in_place(src, block) && a_copy.empty())
              a_copy.resize(static_cast<size_t>(mcb * lda + 64));
            const PackedABlock v = pack_a_block(src, block, a_copy.data(), lda,
                                              a.row_sums ? in_sums.data() : nullptr);
            compute_block(kernels, BlockCall{.a = v.data, .lda = v.ld, .mc = mc,
                                             .b = a.b_layout, .b_group = a.b, .k0 = k0,
                                             .kc = kc, .n0 = n0, .nc = ldp, .c = prod.data(),
                                             .ldc = ldp, .accumulate = k0 > 0});
          }
          // col2im: product row (iw, kw) lands on output pixel ow of this row.
          for (int i = 0; i < mc; ++i) {
            for (int kw = 0; kw < KW; ++kw) {
              const int ow = output_index(g, 2, iw0 + i, kw);
              if (ow < 0) continue;
              ck.add_i32(acc + int64_t{ow} * OC, prod.data() + int64_t{i} * ldp + kw * OC, OC);
              if (a.row_sums) out_sums[ow] += in_sums[i];
            }
          }
        }
      }
    }
    if (a.pixel_col_offsets != nullptr && a.a_zero_point != 0)
      ck.sub_scaled_i32(acc, a.pixel_col_offsets + (int64_t{ot} * OH + oh) * row_elems,
                        a.a_zero_point, row_elems);
    a.finish(a.ctx, r, acc, a.row_sums ? out_sums.data() : nullptr);
  }
}

void transposed_pixel_col_offsets(const ConvGeometry& g, const int32_t* tap_sums,
                                  const int32_t* b_zero_point, int ncols_per_quant_group,
                                  int32_t* col_offsets) {
  const int OC = g.out_channels, kp = g.kernel_prod();
  std::vector<int> taps;  // the taps reaching the current pixel
  int64_t p = 0;
  for (int ot = 0; ot < g.out[0]; ++ot) {
    for (int oh = 0; oh < g.out[1]; ++oh) {
      for (int ow = 0; ow < g.out[2]; ++ow, ++p) {
        taps.clear();
        for (int kt = 0; kt < g.kernel[0]; ++kt)
          for (int kh = 0; kh < g.kernel[1]; ++kh)
            for (int kw = 0; kw < g.kernel[2]; ++kw)
              if (conv_input_index(g, 0, ot, kt) >= 0 && conv_input_index(g, 1, oh, kh) >= 0 &&
                  conv_input_index(g, 2, ow, kw) >= 0)
                taps.push_back((kt * g.kernel[1] + kh) * g.kernel[2] + kw);
        const uint32_t count = static_cast<uint32_t>(taps.size()) * static_cast<uint32_t>(g.in_channels);
        for (int oc = 0; oc < OC; ++oc) {
          uint32_t sum = 0;  // modulo 2^32, as every offset the epilogue takes
          for (int t : taps) sum += static_cast<uint32_t>(tap_sums[int64_t{oc} * kp + t]);
          sum -= static_cast<uint32_t>(b_zero_point[oc / ncols_per_quant_group]) * count;
          col_offsets[p * OC + oc] = static_cast<int32_t>(sum);
        }
      }
    }
  }
}

}  // namespace quire::detail
