#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace quire::bench {

Progress::Progress() : tty_(isatty(STDERR_FILENO) != 0) {}

void Progress::update(int index, int total, const std::string& shape, const char* step) {
  if (tty_) {
    std::fprintf(stderr, "\r\033[K[%d/%d] %s: %s", index, total, shape.c_str(), step);
    shown_ = true;
  } else if (shape != last_shape_) {
    std::fprintf(stderr, "[%d/%d] %s\n", index, total, shape.c_str());
    last_shape_ = shape;
  }
  std::fflush(stderr);
}

void Progress::clear() {
  if (shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
}

}  // namespace quire::bench
