// The progress line on stderr, rewritten in place, only when stderr is a terminal: a log
// or a pipe gets the table and the summary line, nothing else.
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
};

}  // namespace quire::bench
