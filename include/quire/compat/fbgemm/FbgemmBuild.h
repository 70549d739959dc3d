// FBGEMM compatibility: fbgemm/FbgemmBuild.h, the build macros FBGEMM's headers and its
// client code use. FBGEMM_API and FBGEMM_ENUM_CLASS_API mark nothing (FBGEMM's
// static-build spelling): quire's own headers mark what the library exports
// (QUIRE_API_BEGIN, quire/detail/Abi.h). The others keep FBGEMM's meaning. Each is defined only if the including code has not defined it.
#pragma once

#ifndef FBGEMM_API
#define FBGEMM_API
#endif
#ifndef FBGEMM_ENUM_CLASS_API
#define FBGEMM_ENUM_CLASS_API
#endif

#ifndef NOINLINE
#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define NOINLINE __declspec(noinline)
#else
#define NOINLINE
#endif
#endif

#ifndef ALWAYS_INLINE
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((__always_inline__))
#else
#define ALWAYS_INLINE inline
#endif
#endif

#ifndef ALIGNAS
#define ALIGNAS(byte_alignment) alignas(byte_alignment)
#endif

#ifndef NO_SANITIZE
#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define NO_SANITIZE(what) __attribute__((no_sanitize(what)))
#endif
#endif
#endif
#ifndef NO_SANITIZE
#define NO_SANITIZE(what)
#endif

// __builtin_assume where the compiler lacks it (GCC) evaluates to nothing, as in FBGEMM.
#ifndef __has_builtin
#define __has_builtin(x) 0
#endif
#if !__has_builtin(__builtin_assume)
#define __builtin_assume(x) (static_cast<void>(0))
#endif

// Silencing a warning for a stretch of code: FBGEMM_PUSH_WARNING_AND_DISABLE("-Wname")
// ... FBGEMM_POP_WARNING.
#if defined(__GNUC__) || defined(__clang__)
#define FBGEMM_PUSH_WARNING _Pragma("GCC diagnostic push")
#define FBGEMM_DISABLE_WARNING_INTERNAL2(warningName) #warningName
#define FBGEMM_DISABLE_WARNING(warningName) \
  _Pragma(FBGEMM_DISABLE_WARNING_INTERNAL2(GCC diagnostic ignored warningName))
#define FBGEMM_PUSH_WARNING_AND_DISABLE(warningName) \
  _Pragma("GCC diagnostic push")                     \
      _Pragma(FBGEMM_DISABLE_WARNING_INTERNAL2(GCC diagnostic ignored warningName))
#define FBGEMM_POP_WARNING _Pragma("GCC diagnostic pop")
#else
#define FBGEMM_PUSH_WARNING
#define FBGEMM_DISABLE_WARNING(NAME)
#define FBGEMM_PUSH_WARNING_AND_DISABLE(NAME)
#define FBGEMM_POP_WARNING
#endif
