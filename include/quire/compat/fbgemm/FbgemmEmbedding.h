// FBGEMM compatibility: fbgemm/FbgemmEmbedding.h (embedding bags: GenerateEmbeddingSpMDM,
// the 2- / 4-bit and row-wise sparse forms, compressed_indices_remap). Declares what
// quire implements (quire/EmbeddingBag.h); the optimizers and the FP8 form are not here.
#pragma once

#include "fbgemm/FbgemmBuild.h"
#include "quire/EmbeddingBag.h"
#include "quire/FloatConversion.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
