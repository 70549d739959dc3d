// The progress line on stderr: rewritten in place on a terminal, one line per shape
// otherwise (a log file should not fill with carriage returns).
#pragma once

#include <string>

namespace quire::bench {

class Progress {
 public:
  Progress();
  // "[i/n] shape: step"
  void update(int index, int total, const std::string& shape, const char* step);
  // Erases the line before the table prints a row on the same terminal.
  void clear();

 private:
  bool tty_;
  bool shown_ = false;
  std::string last_shape_;
};

}  // namespace quire::bench
