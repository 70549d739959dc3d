// Everything of quire's convolution API in one include (docs/convolution.md).
#pragma once

#include "quire/ConvFastPath.h"
#include "quire/ConvUtils.h"
#include "quire/Depthwise.h"
#include "quire/DirectConv.h"
#include "quire/FbgemmConv.h"
#include "quire/GroupwiseConv.h"
#include "quire/PackAWithIm2Col.h"
#include "quire/PackWeightsForConv.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
QUIRE_API_END
