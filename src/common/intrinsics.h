// <immintrin.h> without GCC 12's false warnings: its AVX-512 intrinsics start unmasked
// results from a self-initialized "undefined" vector, which -W(maybe-)uninitialized
// reports once inlined (GCC bug 105593).
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
