// The convolution routines of each path; the dispatch record (src/cpu/dispatch.cpp) says
// which table a path uses.
#include "conv/conv_kernels.h"

#include "conv/depthwise_rows.h"

namespace quire::conv {

const DepthwiseRowKernels kDepthwiseRowsAvx512Vnni = {
    &depthwise_rows_fit, &depthwise_rows_avx512vnni, &depthwise_rows_s2_avx512vnni};
const DepthwiseRowKernels kDepthwiseRowsAvx2 = {&depthwise_rows_fit_avx2, &depthwise_rows_avx2,
                                                &depthwise_rows_s2_avx2};

const ConvKernels kConvPortable = {"portable",          &im2col_rows_portable,
                                   &depthwise_portable, nullptr,
                                   &groupwise_portable, &add_i32_portable,
                                   &sub_scaled_i32_portable};
const ConvKernels kConvAvx2 = {"avx2",          &im2col_rows_avx2, &depthwise_avx2,
                               &kDepthwiseRowsAvx2, &groupwise_avx2, &add_i32_avx2,
                               &sub_scaled_i32_avx2};
const ConvKernels kConvAvx512 = {"avx512",          &im2col_rows_avx512, &depthwise_avx512,
                                 nullptr,           &groupwise_avx512,   &add_i32_avx512,
                                 &sub_scaled_i32_avx512};
const ConvKernels kConvAvx512Vnni = {"avx512_vnni",        &im2col_rows_avx512,
                                     &depthwise_avx512vnni, &kDepthwiseRowsAvx512Vnni,
                                     &groupwise_avx512vnni, &add_i32_avx512,
                                     &sub_scaled_i32_avx512};

const ConvKernels& conv_kernels_for(const detail::IsaRecord& isa) { return *isa.conv; }

}  // namespace quire::conv
