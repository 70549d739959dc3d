// Guard-page buffers for the out-of-bounds tests (test/guard_page_*_test.cpp), the way
// careful BLAS test suites catch overruns that land inside a malloc'd block's slack,
// where AddressSanitizer's redzones do not always reach and a plain build sees nothing.
//
// A GuardedArray<T> of n elements lives in its own mapping:
//
//   [PROT_NONE page] [data pages, read-write] [PROT_NONE page]
//
// Guard::after puts the last element flush against the trailing guard page (its last
// byte is the last byte of a page), so reading or writing even one byte past the end
// raises SIGSEGV, which kills the test binary: a failure ctest reports. Guard::before
// puts the first element at the start of the page after the leading guard, so one byte
// before the start faults the same way. Each variant also keeps the other guard, which
// catches any access farther than the slack of the last partial page.
//
// The size is what the caller of the API would allocate from its documentation, never
// what quire happens to read: that is the point of the test. An empty array still owns
// a mapping, and data() points at a guard page, so any access through it faults.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <utility>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace quire::test {

enum class Guard { after, before };

inline const char* guard_name(Guard g) { return g == Guard::after ? "end-guarded" : "start-guarded"; }

inline size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

template <class T>
class GuardedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  GuardedArray() = default;
  // n zero-filled elements. `align` (a power of two, at least alignof(T)) applies to the
  // start of Guard::after data: the end is flush only when n * sizeof(T) is a multiple
  // of it, so pass 1 (alignof(T)) unless the API documents an alignment.
  GuardedArray(size_t n, Guard where, size_t align = alignof(T)) : n_(n) {
    const size_t page = page_size();
    const size_t bytes = n * sizeof(T);
    const size_t data_pages = (bytes + page - 1) / page;
    map_bytes_ = (data_pages + 2) * page;
    void* m = mmap(nullptr, map_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    map_ = static_cast<unsigned char*>(m);
    unsigned char* first = map_ + page;
    if (data_pages > 0 && mprotect(first, data_pages * page, PROT_READ | PROT_WRITE) != 0) {
      munmap(map_, map_bytes_);
      throw std::runtime_error("GuardedArray: mprotect failed");
    }
    if (where == Guard::before) {
      data_ = reinterpret_cast<T*>(first);
    } else {
      const uintptr_t end = reinterpret_cast<uintptr_t>(first + data_pages * page);
      data_ = reinterpret_cast<T*>((end - bytes) & ~(uintptr_t{align} - 1));
    }
  }
  GuardedArray(const std::vector<T>& v, Guard where, size_t align = alignof(T))
      : GuardedArray(v.size(), where, align) {
    if (!v.empty()) std::memcpy(static_cast<void*>(data_), v.data(), v.size() * sizeof(T));
  }
  ~GuardedArray() {
    if (map_ != nullptr) munmap(map_, map_bytes_);
  }
  GuardedArray(GuardedArray&& o) noexcept { swap(o); }
  GuardedArray& operator=(GuardedArray&& o) noexcept {
    swap(o);
    return *this;
  }
  GuardedArray(const GuardedArray&) = delete;
  GuardedArray& operator=(const GuardedArray&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  void swap(GuardedArray& o) {
    std::swap(map_, o.map_);
    std::swap(map_bytes_, o.map_bytes_);
    std::swap(data_, o.data_);
    std::swap(n_, o.n_);
  }
  unsigned char* map_ = nullptr;
  size_t map_bytes_ = 0;
  T* data_ = nullptr;
  size_t n_ = 0;
};

// A copy of v in a guarded array (shorthand for the tests).
template <class T>
GuardedArray<T> guarded(const std::vector<T>& v, Guard where) {
  return GuardedArray<T>(v, where);
}

inline constexpr Guard kGuards[] = {Guard::after, Guard::before};

}  // namespace quire::test
