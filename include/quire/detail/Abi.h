// What crosses from client code into libquire, and how it is marked.
//
// The library is built with -fvisibility=hidden: only what an installed header declares
// between QUIRE_API_BEGIN and QUIRE_API_END leaves the shared object (every public header
// wraps its declarations so; src/ headers do not, so their symbols stay inside).
//
// The inline code of the installed headers reaches the library only through non-template
// entries taking argument records. Those records live in the inline namespace
// QUIRE_ABI_NAMESPACE: their layout is frozen for a release series. A change to one is
// made as a new record in a new namespace (abi_v2), so that a client compiled against the
// old headers fails to link instead of passing a struct the library misreads. The
// per-ISA tables and records behind the entries are private (src/) and may change freely
// (docs/engines.md, "What is installed, and the ABI promise").
#pragma once

#define QUIRE_API_BEGIN _Pragma("GCC visibility push(default)")
#define QUIRE_API_END _Pragma("GCC visibility pop")

#define QUIRE_ABI_NAMESPACE abi_v1
