// Error reporting shared by the quantization utilities.
#include <sstream>
#include <stdexcept>
#include <string>

#include "quant/checks.h"
#include "quire/QuantUtils.h"

namespace quire::detail {

void fail_precision(const char* where, int precision, bool is_signed) {
  throw std::invalid_argument(std::string(where) + ": precision=" + std::to_string(precision) +
                              (is_signed ? " (signed)" : " (unsigned)") +
                              " must be in [1, 32] with a range that fits the integer type");
}

void fail_float(const char* where, const char* param, float value, const char* requirement) {
  std::ostringstream msg;
  msg.precision(9);
  msg << where << ": " << param << "=" << value << " " << requirement;
  throw std::invalid_argument(msg.str());
}

void check_len(const char* where, const void* src, const char* src_name, const void* dst,
               const char* dst_name, int64_t len) {
  check_arg(len >= 0, where, "len", len, "must be >= 0");
  if (len > 0) {
    check_not_null(src, where, src_name);
    check_not_null(dst, where, dst_name);
  }
}

void thread_share(const char* where, int thread_id, int num_threads, int64_t len,
                  int64_t& begin, int64_t& end) {
  check_arg(num_threads >= 1, where, "num_threads", num_threads, "must be >= 1");
  check_arg(thread_id >= 0 && thread_id < num_threads, where, "thread_id", thread_id,
            "must be in [0, num_threads)");
  fbgemmPartition1D(thread_id, num_threads, len, begin, end);
}

}  // namespace quire::detail
