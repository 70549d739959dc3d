// Compile-only check that the installed headers expose no dispatch internals: after
// including every public header (quire's and the FBGEMM compat ones), the names of the
// private dispatch layer (src/cpu/isa_traits.h, isa_record.h, src/fp16/half_gemm.h) are
// declared here as something else. If any public header declared one of them, this
// file would not compile. Adding a field to a record or a path to the table therefore
// cannot change what client code compiles against.
// fbgemmPacked's loops, kernels and path choice sit behind detail::run_packed_gemm
// (quire/detail/GemmCore.h), so the driver's names are checked too, and so are the per-ISA
// tables the output ops, the quantization functions and SpMDM reach through entries
// (src/epilogue/epilogue_table.h, src/quant/quant_kernels.h, src/sparse/spmdm_table.h)
// and the int4 layout, which only src/ reads.
#include "quire/Acc16.h"
#include "quire/Bcsr.h"
#include "quire/CompressedSparseColumn.h"
#include "quire/Conv.h"
#include "quire/ConvFastPath.h"
#include "quire/ConvUtils.h"
#include "quire/Depthwise.h"
#include "quire/DirectConv.h"
#include "quire/DoSConvOnInpBuffer.h"
#include "quire/DoSpmdmOnInpBuffer.h"
#include "quire/EmbeddingBag.h"
#include "quire/FbgemmBF16.h"
#include "quire/FbgemmConv.h"
#include "quire/FbgemmConvert.h"
#include "quire/FbgemmFP16.h"
#include "quire/FbgemmFP32.h"
#include "quire/FbgemmFPCommon.h"
#include "quire/FbgemmI64.h"
#include "quire/FbgemmPackMatrixB.h"
#include "quire/FloatConversion.h"
#include "quire/Gemm.h"
#include "quire/GroupwiseConv.h"
#include "quire/Int4Gemm.h"
#include "quire/OutlierSplit.h"
#include "quire/OutputProcessing.h"
#include "quire/PackAMatrix.h"
#include "quire/PackAWithIm2Col.h"
#include "quire/PackAWithQuantRowOffset.h"
#include "quire/PackBMatrix.h"
#include "quire/PackMatrix.h"
#include "quire/PackWeightsForConv.h"
#include "quire/PackingTraits.h"
#include "quire/QuantUtils.h"
#include "quire/QuantUtilsAvx2.h"
#include "quire/QuantUtilsAvx512.h"
#include "quire/RequantizeParams.h"
#include "quire/SimpleGemm.h"
#include "quire/SparseDenseMM.h"
#include "quire/SparseRequantize.h"
#include "quire/ThreadPool.h"
#include "quire/Types.h"
#include "quire/Utils.h"
#include "quire/quire.h"
#include "fbgemm/Assert.h"
#include "fbgemm/ConvUtils.h"
#include "fbgemm/Fbgemm.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/FbgemmConvert.h"
#include "fbgemm/FbgemmEmbedding.h"
#include "fbgemm/FbgemmFP16.h"
#include "fbgemm/FbgemmFP32.h"
#include "fbgemm/FbgemmFPCommon.h"
#include "fbgemm/FbgemmI64.h"
#include "fbgemm/FbgemmI8Depthwise.h"
#include "fbgemm/FbgemmI8DepthwiseAvx2.h"
#include "fbgemm/FbgemmI8DirectconvAvx2.h"
#include "fbgemm/FbgemmI8Spmdm.h"
#include "fbgemm/FbgemmPackMatrixB.h"
#include "fbgemm/FbgemmSparse.h"
#include "fbgemm/FloatConversion.h"
#include "fbgemm/QuantUtils.h"
#include "fbgemm/QuantUtilsAvx2.h"
#include "fbgemm/QuantUtilsAvx512.h"
#include "fbgemm/Types.h"
#include "fbgemm/Utils.h"
#include "fbgemm/UtilsAvx2.h"
#include "fbgemm/spmmUtils.h"
#include "fbgemm/spmmUtilsAvx2.h"

#include <gtest/gtest.h>

namespace quire::detail {
using Isa = int;
using IsaTraits = int;
using Cap = int;
using Caps = int;
using kIsaTraits = int;
using cpu_has = int;
using isa_record = int;
using BlockCall = int;
using GemmRun = int;
using AdagradKernels = int;
using TransposeKernels = int;
using KernelGetter = int;
using HalfKernels = int;
using HalfKernelSet = int;
using HalfGemmCall = int;
using half_kernel_sets = int;
using active_half_kernels = int;
using half_gemm = int;
using IsaRecord = int;
using KernelSet = int;
using active_isa = int;
using inst_set_of = int;
using MicroKernelArgs = int;
using MicroKernelFn = int;
using compute_block = int;
using partition_tiles = int;
using EmbeddingKernels = int;
using BagPlan = int;
using BagJob = int;
using EpilogueTable = int;
using epilogue_for = int;
using kEpiloguePortable = int;
using kEpilogueAvx2 = int;
using kEpilogueAvx512 = int;
using QuantKernels = int;
using kQuantPortable = int;
using kQuantAvx2 = int;
using kQuantAvx512 = int;
using SpmdmKernels = int;
using SpmdmArgs = int;
using Int4Plan = int;
using int4_plan = int;
}  // namespace quire::detail

namespace quire::cpu {
using CpuFeatures = int;
using cpu_features = int;
}  // namespace quire::cpu

namespace quire::test {
namespace {

TEST(PublicHeaders, DeclareNoDispatchInternals) {
  // The check is the compilation of this file; at run time the aliases are plain ints.
  detail::Isa isa = 0;
  cpu::CpuFeatures features = 0;
  EXPECT_EQ(isa + features, 0);
}

}  // namespace
}  // namespace quire::test
