// Linked into libquire.so only when asmjit comes as a static archive (Debian 12's
// libasmjit-dev ships nothing else; see CMakeLists.txt).
//
// That archive is position-independent except for one load of glibc's `stderr` variable
// (asmjit's debug output), whose PC-relative relocation cannot point into another shared
// object: the shared library would not link. This hidden definition gives the reference
// a target inside libquire.so, initialized to the stream glibc's own `stderr` starts as,
// so the library links with no text relocations. quire's and the application's other uses
// of stderr are unaffected (the symbol is not exported).
struct _IO_FILE;
extern "C" _IO_FILE _IO_2_1_stderr_;  // glibc's standard-error stream object
extern "C" {
[[gnu::visibility("hidden")]] _IO_FILE* stderr = &_IO_2_1_stderr_;
}
