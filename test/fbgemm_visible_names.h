// The names each FBGEMM public header declares (a few per header, enough to tell whether
// the header's content is visible). A generated translation unit per compat header
// (test/CMakeLists.txt, "FBGEMM's transitive names") includes that header alone, defines
// QUIRE_SEES_<Header>_h for every header FBGEMM's version of it includes, directly or
// not, and then this file: a name missing after quire's header fails the build, as client
// code relying on FBGEMM's include structure would.
//
// Names are checked by using-declarations (valid for types, templates and functions) and
// macros by #ifndef. This file includes nothing.

namespace quire_visible_names_check {
inline void names_are_visible() {
#ifdef QUIRE_SEES_FbgemmBuild_h
#if !defined(FBGEMM_API) || !defined(FBGEMM_ENUM_CLASS_API) || !defined(ALWAYS_INLINE) || \
    !defined(NOINLINE) || !defined(ALIGNAS) || !defined(NO_SANITIZE) ||                    \
    !defined(FBGEMM_PUSH_WARNING) || !defined(FBGEMM_POP_WARNING)
#error "a build macro of fbgemm/FbgemmBuild.h is not visible"
#endif
#endif
#ifdef QUIRE_SEES_Types_h
  using fbgemm::bfloat16;
  using fbgemm::float16;
  using fbgemm::is_8bit;
#endif
#ifdef QUIRE_SEES_UtilsAvx2_h
  using fbgemm::block_type_t;
  using fbgemm::fbgemmAlignedAlloc;
  using fbgemm::QuantizationGranularity;
  using fbgemm::requantizationParams_t;
#endif
#ifdef QUIRE_SEES_Utils_h
#ifndef WARN_ONCE
#error "WARN_ONCE (fbgemm/Utils.h) is not visible"
#endif
  using fbgemm::fbgemmInstructionSet;
  using fbgemm::fbgemmPartition1D;
  using fbgemm::inst_set_t;
  using fbgemm::matrix_op_t;
  using fbgemm::nbit_embedding_sanity_check;
  using fbgemm::optimized_conv_t;
  using fbgemm::transpose_simd;
#endif
#ifdef QUIRE_SEES_ConvUtils_h
  using fbgemm::conv_param_t;
#endif
#ifdef QUIRE_SEES_FloatConversion_h
  using fbgemm::cpu_float2half_rn;
  using fbgemm::cpu_half2float;
#endif
#ifdef QUIRE_SEES_QuantUtilsAvx2_h
  using fbgemm::FindMinMax;
  using fbgemm::RequantizationParams;
  using fbgemm::requantizeOutputProcessingAvx2;
  using fbgemm::TensorQuantizationParams;
#endif
#ifdef QUIRE_SEES_QuantUtilsAvx512_h
  using fbgemm::Fused8BitRowwiseQuantizedSBFloatToBfloat16Avx512;
#endif
#ifdef QUIRE_SEES_QuantUtils_h
  using fbgemm::ChooseQuantizationParams;
  using fbgemm::Quantize;
#endif
#ifdef QUIRE_SEES_FbgemmI8Depthwise_h
  using fbgemm::PackedDepthWiseConvMatrix;
#endif
#ifdef QUIRE_SEES_FbgemmI8DirectconvAvx2_h
  using fbgemm::PackedDirectConvMatrix;
#endif
#ifdef QUIRE_SEES_FbgemmI8Spmdm_h
  using fbgemm::CompressedSparseColumn;
#endif
#ifdef QUIRE_SEES_FbgemmPackMatrixB_h
  using fbgemm::PackedGemmMatrixB;
  using fbgemm::TypeConverter;
#endif
#ifdef QUIRE_SEES_FbgemmFPCommon_h
  using fbgemm::GemmParams;
#endif
#ifdef QUIRE_SEES_FbgemmFP16_h
  using fbgemm::PackedGemmMatrixFP16;
#endif
#ifdef QUIRE_SEES_FbgemmFP32_h
  using fbgemm::GemmParamsFP32;
  using fbgemm::PackedGemmMatrixFP32;
#endif
#ifdef QUIRE_SEES_FbgemmSparse_h
  using fbgemm::BCSRMatrix;
  using fbgemm::CSRMatrix;
#endif
#ifdef QUIRE_SEES_spmmUtilsAvx2_h
  using fbgemm::trRequantizationParams_t;
  using fbgemm::trRequantizeOpt;
#endif
#ifdef QUIRE_SEES_spmmUtils_h
  using fbgemm::trRequantizeRef;
  using fbgemm::sparseDenseMMRef;
#endif
#ifdef QUIRE_SEES_FbgemmConvert_h
  using fbgemm::FloatToFloat16_simd;
  using fbgemm::RoundToFloat16;
#endif
#ifdef QUIRE_SEES_FbgemmI64_h
  using fbgemm::cblas_gemm_i64_i64acc;
#endif
#ifdef QUIRE_SEES_Assert_h
#ifndef FBGEMM_CHECK
#error "FBGEMM_CHECK (fbgemm/Assert.h) is not visible"
#endif
#endif
#ifdef QUIRE_SEES_FbgemmEmbedding_h
  using fbgemm::compressed_indices_remap;
  using fbgemm::EmbeddingSpMDMKernelSignature;
  using fbgemm::GenerateEmbeddingSpMDM;
  using fbgemm::GenerateEmbeddingSpMDMNBitRowWiseSparse;
  using fbgemm::GenerateEmbeddingSpMDMNBitWithStrides;
  using fbgemm::GenerateEmbeddingSpMDMFP8WithStrides;
  using fbgemm::GenerateRowWiseSparseAdaGradFused;
  using fbgemm::GenerateSparseAdaGrad;
  using fbgemm::internal::EmbeddingSpMDMBlockSize1_;
#endif
#ifdef QUIRE_SEES_SimdUtils_h
  using fbgemm::simd_info;
  using fbgemm::Ymm;
  using fbgemm::Zmm;
#endif
#ifdef QUIRE_SEES_Fbgemm_h
  using fbgemm::fbgemmConv;
  using fbgemm::fbgemmPacked;
  using fbgemm::PackAWithRowOffset;
  using fbgemm::PackBMatrix;
  using fbgemm::ReQuantizeOutput;
#endif
}
}  // namespace quire_visible_names_check
