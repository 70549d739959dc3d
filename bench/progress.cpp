#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace quire::bench {

Progress::Progress() : tty_(isatty(STDERR_FILENO) != 0) {}

void Progress::update(int index, int total, const std::string& shape, const char* step) {
  if (!tty_) return;
  std::fprintf(stderr, "\r\033[K[%d/%d] %s: %s", index, total, shape.c_str(), step);
  std::fflush(stderr);
  shown_ = true;
}

void Progress::clear() {
  if (shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
}

}  // namespace quire::bench
