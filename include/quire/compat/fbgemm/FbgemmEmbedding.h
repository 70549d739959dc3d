// FBGEMM compatibility: fbgemm/FbgemmEmbedding.h (embedding bags: GenerateEmbeddingSpMDM,
// the 2- / 4-bit, FP8 and row-wise sparse forms, compressed_indices_remap,
// internal::EmbeddingSpMDMBlockSize1_; the optimizers GenerateSparseAdaGrad and
// GenerateRowWiseSparseAdaGradFused). quire/EmbeddingBag.h and quire/SparseAdagrad.h.
#pragma once

#include "fbgemm/FbgemmBuild.h"
#include "quire/EmbeddingBag.h"
#include "quire/FloatConversion.h"
#include "quire/SparseAdagrad.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
