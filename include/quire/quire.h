// Everything of quire's int8 GEMM API in one include.
#pragma once

#include "quire/Acc16.h"
#include "quire/CompressedSparseColumn.h"
#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP32.h"
#include "quire/Conv.h"
#include "quire/DoSConvOnInpBuffer.h"
#include "quire/DoSpmdmOnInpBuffer.h"
#include "quire/Gemm.h"
#include "quire/Int4Gemm.h"
#include "quire/KernelFormCounts.h"
#include "quire/OutputProcessing.h"
#include "quire/PackAMatrix.h"
#include "quire/PackAWithQuantRowOffset.h"
#include "quire/PackBMatrix.h"
#include "quire/PackMatrix.h"
#include "quire/SimpleGemm.h"
#include "quire/ThreadPool.h"
#include "quire/Types.h"
#include "quire/Utils.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
QUIRE_API_END
