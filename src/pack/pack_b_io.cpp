// Saving and loading packed weights (PackBMatrix::save / load).
#include <cstring>
#include <iostream>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>

#include "quire/detail/Check.h"
#include "quire/detail/PackB.h"
#include "common/fnv1a.h"

namespace quire::detail {
namespace {

constexpr char kMagic[8] = {'Q', 'U', 'I', 'R', 'E', 'P', 'B', '\0'};
constexpr int kHeaderInts = 7;

[[noreturn]] void bad_stream(const std::string& what) {
  throw std::invalid_argument("PackBMatrix::load: stream " + what);
}

void read_exact(std::istream& in, void* dst, size_t n, const char* part) {
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
  if (static_cast<size_t>(in.gcount()) != n) bad_stream(std::string("is truncated in the ") + part);
}

// The stream must still hold `bytes` before load() allocates for them: a corrupt or
// hostile header of a few bytes may not make it allocate gigabytes (found by
// fuzz/packb_load_fuzz.cpp). Checked where the stream can tell its length (files, string
// streams); a stream that cannot seek (a pipe) is read until it ends short.
void check_stream_holds(std::istream& in, int64_t bytes) {
  const std::streampos here = in.tellg();
  if (here == std::streampos(-1)) return;
  in.seekg(0, std::ios::end);
  const std::streampos end = in.tellg();
  in.clear();
  in.seekg(here);
  if (end != std::streampos(-1) && static_cast<int64_t>(end - here) < bytes)
    bad_stream("is truncated: the header announces " + std::to_string(bytes) +
               " more bytes, the stream holds " + std::to_string(static_cast<int64_t>(end - here)));
}

}  // namespace

void save_packed_b(std::ostream& out, const PackedBLayout& l, matrix_op_t trans, const int8_t* packed) {
  const int32_t header[kHeaderInts] = {PackedBLayout::kVersion, static_cast<int32_t>(trans), l.k_per_group,
                                       l.n, l.groups, l.panel_width, l.padded_k};
  Fnv1a hash;
  hash.add(kMagic, sizeof(kMagic));
  hash.add(header, sizeof(header));
  hash.add(packed, static_cast<size_t>(l.total_bytes()));
  out.write(kMagic, sizeof(kMagic));
  out.write(reinterpret_cast<const char*>(header), sizeof(header));
  out.write(reinterpret_cast<const char*>(packed), static_cast<std::streamsize>(l.total_bytes()));
  out.write(reinterpret_cast<const char*>(&hash.h), sizeof(hash.h));
  if (!out) throw std::invalid_argument("PackBMatrix::save: writing to the stream failed");
}

PackedBHeader read_packed_b_header(std::istream& in) {
  char magic[sizeof(kMagic)];
  int32_t h[kHeaderInts];
  read_exact(in, magic, sizeof(magic), "magic");
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) bad_stream("does not hold a packed B (bad magic)");
  read_exact(in, h, sizeof(h), "header");
  if (h[0] != PackedBLayout::kVersion)
    bad_stream("has layout version " + std::to_string(h[0]) + ", this build reads " +
               std::to_string(PackedBLayout::kVersion));
  const char* where = "PackBMatrix::load";
  check_arg(h[1] == static_cast<int32_t>(matrix_op_t::NoTranspose) ||
                h[1] == static_cast<int32_t>(matrix_op_t::Transpose),
            where, "trans", h[1], "is not a matrix_op_t");
  check_arg(h[2] >= 1 && h[2] <= kMaxExactK, where, "K per group", h[2], "is out of range");
  check_arg(h[3] >= 1, where, "N", h[3], "must be >= 1");
  check_arg(h[4] >= 1, where, "groups", h[4], "must be >= 1");
  check_arg(h[5] >= 1 && h[5] <= 64, where, "panel width", h[5], "must be in [1, 64]");
  check_arg(h[6] == ((h[2] + 3) & ~3), where, "padded K", h[6], "must be K rounded up to 4");
  check_product(int64_t{h[2]} * h[4], h[3], where, "K x N");
  const PackedBLayout layout{h[2], h[3], h[4], h[5], h[6]};
  check_stream_holds(in, layout.total_bytes() + static_cast<int64_t>(sizeof(uint64_t)));
  Fnv1a hash;
  hash.add(magic, sizeof(magic));
  hash.add(h, sizeof(h));
  return PackedBHeader{layout, static_cast<matrix_op_t>(h[1]), hash.h};
}

void read_packed_b_payload(std::istream& in, const PackedBHeader& header, int8_t* dst) {
  const size_t bytes = static_cast<size_t>(header.layout.total_bytes());
  read_exact(in, dst, bytes, "packed bytes");
  uint64_t stored;
  read_exact(in, &stored, sizeof(stored), "checksum");
  Fnv1a hash{header.hash};
  hash.add(dst, bytes);
  if (stored != hash.h) bad_stream("fails its checksum (corrupted)");
}

}  // namespace quire::detail

namespace quire::detail {

void print_packed_b(const PackedBLayout& layout, const int8_t* packed, const std::string& name,
                    int kcb) {
  std::cout << describe_packed_b(layout, packed, name, kcb);
}

}  // namespace quire::detail
