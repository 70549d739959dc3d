// The convolution routines per GEMM path (see conv_kernels.h). This is the one place the
// convolution code maps an instruction set onto its routines.
#include "conv/conv_kernels.h"

namespace quire::conv {
namespace {

const ConvKernels kPortable = {"portable", &im2col_row_portable};
const ConvKernels kAvx2 = {"avx2", &im2col_row_avx2};
const ConvKernels kAvx512 = {"avx512", &im2col_row_avx512};

}  // namespace

const ConvKernels& conv_kernels_for(const detail::IsaRecord& isa) {
  switch (isa.isa) {
    case detail::Isa::portable: return kPortable;
    case detail::Isa::avx2:
    case detail::Isa::avx_vnni:
    case detail::Isa::avx512_vnni_ymm: return kAvx2;
    case detail::Isa::avx512:
    case detail::Isa::avx512_vnni: break;
  }
  return kAvx512;
}

}  // namespace quire::conv
