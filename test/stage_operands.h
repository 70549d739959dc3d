// The operands and the expected bytes of one call of a kernel with a requantizing output
// stage (src/cpu/output_stage.h), for KernelTester (kernel_tester.h):
//   out   rows of nr uint8 (or float), ld_out = nr + out_pad elements apart, 64 sentinel
//         bytes before and after and sentinel row padding (random bytes, so a stray store
//         of a computed value is unlikely to match them);
//   row_offsets (rows), col_offsets, b_zero_point, multiplier, bias_i32, bias_f32,
//   act_times_w_scale (nr values, or 1 for a scalar operand), each ending where a
//         PROT_NONE page begins: a JIT kernel's read past one faults, which
//         AddressSanitizer cannot report (it instruments only compiled code).
// Values: any int32 for row and column offsets and C, |b_zero_point| <= 70000, int32 bias
// within +-2^30 (every sum wraps modulo 2^32, the stage's contract), float bias within
// +-2^29 over act_times_w_scale in [0.25, 4], and multipliers scaled per column to the
// values they multiply so that the results spread past both bounds (half of them powers
// of two, whose products end in .5 and test the rounding half to even). The expected
// byte is quire::ref::requantize_u8's, except where x is NaN (0 * inf, a NaN multiplier):
// 255, as the epilogue gives (the reference's conversion of NaN is undefined). A float
// output (multiplier: b_scale; a_scale in [0.001, 2]) must hold ref::requantize_f32's
// floats bit for bit, any NaN matching any NaN.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../src/cpu/isa_record.h"
#include "guard_alloc.h"
#include "quire/ref/ReferenceOutput.h"

namespace quire::test {

using detail::BiasKind;
using detail::StageOperand;

// The multipliers: scaled to the values (see above), or every one of them 0, negative
// (scaled, then negated), +inf, NaN, or each lane one of those five at random.
enum class MultKind { scaled, zero, negative, inf, nan, mixed };

inline const char* mult_kind_name(MultKind k) {
  constexpr const char* kNames[] = {"scaled", "zero", "negative", "inf", "nan", "mixed"};
  return kNames[static_cast<int>(k)];
}
inline const char* operand_name(StageOperand o) {
  return o == StageOperand::absent ? "absent" : o == StageOperand::scalar ? "scalar" : "lanes";
}
inline const char* bias_name(BiasKind b) {
  return b == BiasKind::none ? "none" : b == BiasKind::int32 ? "int32" : "float32";
}

// The configuration a kernel runs, printed if it faults (a read past a guarded operand
// would otherwise end the whole sweep without saying where).
inline char g_running[1024];

inline void note_fault(int) {
  constexpr char kPrefix[] = "KernelTester: the kernel faulted in ";
  [[maybe_unused]] ssize_t n = write(2, kPrefix, sizeof(kPrefix) - 1);
  n = write(2, g_running, strlen(g_running));
  n = write(2, "\n", 1);
}  // SA_RESETHAND: the fault repeats on return and ends the process as usual

inline void run_noting_faults(detail::MicroKernelFn fn, const detail::MicroKernelArgs& args,
                              const std::string& config) {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_handler = note_fault;
    sa.sa_flags = SA_RESETHAND;
    return sigaction(SIGSEGV, &sa, nullptr) == 0;
  }();
  (void)installed;
  const size_t n = std::min(config.size(), sizeof(g_running) - 1);
  std::memcpy(g_running, config.data(), n);
  g_running[n] = '\0';
  fn(&args);
}

class StageCase {
 public:
  StageCase(const detail::OutputStage& st, int rows, int nr, int out_pad, int c_zero_point, bool relu)
      : st_(st), rows_(rows), nr_(nr), ld_out_(nr + out_pad), c_zero_point_(c_zero_point), relu_(relu),
        row_offsets_(st.b_zero_point != StageOperand::absent ? rows : 0, Guard::after),
        col_offsets_(st.col_offsets ? nr : 0, Guard::after),
        b_zero_point_(count(st.b_zero_point), Guard::after),
        bias_i32_(st.bias == BiasKind::int32 ? nr : 0, Guard::after),
        multiplier_(count(st.multiplier), Guard::after),
        bias_f32_(st.bias == BiasKind::float32 ? nr : 0, Guard::after),
        act_times_w_scale_(count(st.act_times_w_scale), Guard::after),
        out_(2 * kGuard + (size_t(rows - 1) * ld_out_ + nr) * elem()) {}

  // Draws the operands for the tile's int32 sums (rows x nr, A*B [+ C]) and forms the
  // expected bytes. c_in_place: a float output in C itself (out_pad = ldc_pad): out
  // starts as a copy of C's buffer (its 16 guard elements, tile and padding), which the
  // kernel then gets as C (in_place_c()).
  // row_offsets: the row offsets to use (a row_sums kernel's true sums) instead of random.
  void draw(std::mt19937& rng, const std::vector<int32_t>& sums, MultKind kind,
            const std::vector<int32_t>* c_in_place = nullptr,
            const std::vector<int32_t>* row_offsets = nullptr) {
    sums_ = sums;
    std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), zp(-70000, 70000),
        bias(-(1 << 30), 1 << 30), byte(0, 255), small_zp(1, 255), coin(0, 1), pick(0, 4),
        doubling(0, 2);
    std::uniform_real_distribution<float> fbias(-536870912.0f, 536870912.0f), scale(0.25f, 4.0f),
        factor(0.5f, 4.0f), a_scale(0.001f, 2.0f);
    a_scale_ = a_scale(rng);
    for (size_t r = 0; r < row_offsets_.size(); ++r)
      row_offsets_[r] = row_offsets != nullptr ? (*row_offsets)[r] : any(rng);
    for (size_t c = 0; c < col_offsets_.size(); ++c) col_offsets_[c] = any(rng);
    for (size_t c = 0; c < b_zero_point_.size(); ++c) b_zero_point_[c] = zp(rng);
    for (size_t c = 0; c < bias_i32_.size(); ++c) bias_i32_[c] = bias(rng);
    for (size_t c = 0; c < bias_f32_.size(); ++c) bias_f32_[c] = fbias(rng);
    for (size_t c = 0; c < act_times_w_scale_.size(); ++c) act_times_w_scale_[c] = scale(rng);
    a_zero_point_ = 0;
    if (st_.col_offsets) {
      a_zero_point_ = coin(rng) ? small_zp(rng) : zp(rng);
      if (a_zero_point_ == 0) a_zero_point_ = 1;
    }

    // x before the multiplier, and the multipliers scaled to its largest |value| per
    // column (per slice for a scalar).
    pre_.assign(sums.size(), 0.0f);
    std::vector<float> largest(size_t(nr_), 1.0f);
    for (int r = 0; r < rows_; ++r)
      for (int c = 0; c < nr_; ++c) {
        const float x = before_multiplier(r, c);
        pre_[size_t(r) * nr_ + c] = x;
        largest[c] = std::max(largest[c], std::fabs(x));
      }
    if (st_.multiplier == StageOperand::scalar)
      std::fill(largest.begin(), largest.end(), *std::max_element(largest.begin(), largest.end()));
    for (size_t c = 0; c < multiplier_.size(); ++c) {
      const float base = 300.0f / largest[c];
      const float scaled = coin(rng) ? std::exp2(std::floor(std::log2(base)) + float(doubling(rng)))
                                     : base * factor(rng);
      const MultKind k = kind == MultKind::mixed ? static_cast<MultKind>(pick(rng)) : kind;
      switch (k) {
        case MultKind::zero: multiplier_[c] = 0.0f; break;
        case MultKind::negative: multiplier_[c] = -scaled; break;
        case MultKind::inf: multiplier_[c] = std::numeric_limits<float>::infinity(); break;
        case MultKind::nan: multiplier_[c] = std::numeric_limits<float>::quiet_NaN(); break;
        case MultKind::scaled:
        case MultKind::mixed: multiplier_[c] = scaled; break;
      }
    }

    if (c_in_place != nullptr && c_in_place->size() * sizeof(int32_t) == out_.size() && st_.to_float)
      std::memcpy(out_.data(), c_in_place->data(), out_.size());
    else if (c_in_place != nullptr)
      throw std::invalid_argument("StageCase: C in place needs a float output laid out as C");
    else
      for (uint8_t& x : out_) x = uint8_t(byte(rng));
    want_ = out_;
    expect();

    args_ = detail::OutputStageArgs{};
    args_.out = out_.data() + kGuard;
    args_.ld_out = ld_out_ * int64_t(elem());
    args_.row_offsets = row_offsets_.data();
    args_.col_offsets = col_offsets_.data();
    args_.b_zero_point = b_zero_point_.data();
    args_.multiplier = multiplier_.data();
    args_.bias_i32 = bias_i32_.data();
    args_.bias_f32 = bias_f32_.data();
    args_.act_times_w_scale = act_times_w_scale_.data();
    args_.a_zero_point = a_zero_point_;
    args_.c_zero_point = c_zero_point_;
    args_.hi = static_cast<float>(255 - c_zero_point_);
    args_.floor = relu_ ? c_zero_point_ : 0;
    args_.a_scale = a_scale_;
  }

  const detail::OutputStageArgs& args() const { return args_; }
  int32_t* in_place_c() { return reinterpret_cast<int32_t*>(out_.data() + kGuard); }

  // Empty if out holds exactly the expected bytes (floats: bits, or NaN for NaN), else
  // where it does not.
  std::string check() const {
    int wrong = 0;
    size_t first = 0;
    for (size_t i = 0; i < out_.size();) {
      const size_t n = tile_element(i) ? elem() : 1;
      bool same = std::memcmp(&out_[i], &want_[i], n) == 0;
      if (!same && n == 4) same = std::isnan(float_at(out_, i)) && std::isnan(float_at(want_, i));
      if (!same && wrong++ == 0) first = i;
      i += n;
    }
    if (wrong == 0) return "";
    std::ostringstream s;
    s << wrong << " wrong bytes or elements of out; first ";
    const int64_t rel = int64_t(first) - kGuard, tile = int64_t(out_.size()) - 2 * kGuard;
    const int64_t row_bytes = ld_out_ * int64_t(elem());
    if (rel < 0 || rel >= tile) {
      s << "a guard byte " << (rel < 0 ? rel : rel - tile) << (rel < 0 ? " before out" : " after out");
    } else if (!tile_element(first)) {
      s << "row padding of out row " << rel / row_bytes << ", byte " << rel % row_bytes;
    } else {
      const int r = int(rel / row_bytes), c = int(rel % row_bytes) / int(elem());
      s << "out[" << r << "][" << c << "] (sum " << sums_[size_t(r) * nr_ + c] << ", x before the multiplier "
        << pre_[size_t(r) * nr_ + c] << ", multiplier " << multiplier_[q(c)];
      if (st_.to_float) s << ", a_scale " << a_scale_;
      if (st_.col_offsets) s << ", a_zero_point " << a_zero_point_;
      s << ")";
    }
    s.precision(9);
    if (tile_element(first) && st_.to_float)
      s << " = " << float_at(out_, first) << ", expected " << float_at(want_, first);
    else
      s << " = " << int(out_[first]) << ", expected " << int(want_[first]);
    return s.str();
  }

 private:
  static constexpr int kGuard = 64;

  size_t elem() const { return st_.to_float ? sizeof(float) : 1; }
  // Whether byte i of out starts an element of the tile.
  bool tile_element(size_t i) const {
    const int64_t rel = int64_t(i) - kGuard, row_bytes = ld_out_ * int64_t(elem());
    return rel >= 0 && rel < int64_t(out_.size()) - 2 * kGuard && rel % int64_t(elem()) == 0 &&
           rel % row_bytes / int64_t(elem()) < nr_;
  }
  static float float_at(const std::vector<uint8_t>& bytes, size_t i) {
    float x;
    std::memcpy(&x, &bytes[i], sizeof x);
    return x;
  }
  int count(StageOperand o) const { return o == StageOperand::lanes ? nr_ : o == StageOperand::scalar ? 1 : 0; }
  size_t q(int c) const { return multiplier_.size() == 1 ? 0 : size_t(c); }

  // (float)raw [+ bias_f32 / act_times_w_scale], raw (modulo 2^32) with the int32 bias;
  // float output: (float)raw.
  float before_multiplier(int r, int c) const {
    uint32_t raw = uint32_t(sums_[size_t(r) * nr_ + c]);
    if (st_.bias == BiasKind::int32) raw += uint32_t(bias_i32_[c]);
    if (st_.col_offsets) raw -= uint32_t(a_zero_point_) * uint32_t(col_offsets_[c]);
    if (st_.b_zero_point != StageOperand::absent)
      raw -= uint32_t(b_zero_point_[b_zero_point_.size() == 1 ? 0 : c]) * uint32_t(row_offsets_[r]);
    float x = static_cast<float>(static_cast<int32_t>(raw));
    if (st_.bias == BiasKind::float32 && !st_.to_float)
      x = x + bias_f32_[c] / act_times_w_scale_[act_times_w_scale_.size() == 1 ? 0 : c];
    return x;
  }

  // want_ = ref::requantize_u8 element by element (every per-group operand spread to one
  // value per column, OUT_CHANNEL), 255 where x is NaN; or ref::requantize_f32.
  void expect() {
    const auto spread = [&](const auto& src, auto absent_value) {
      std::vector<decltype(absent_value)> v(size_t(nr_), absent_value);
      for (int c = 0; c < nr_; ++c)
        if (src.size() > 0) v[c] = src[src.size() == 1 ? 0 : size_t(c)];
      return v;
    };
    const std::vector<int32_t> b_zero_point = spread(b_zero_point_, int32_t{0});
    const std::vector<float> multiplier = spread(multiplier_, 0.0f), act = spread(act_times_w_scale_, 1.0f);
    ref::QuantParams p;
    p.granularity = QuantizationGranularity::OUT_CHANNEL;
    p.groups = nr_;
    p.nCol = uint32_t(nr_);
    p.Aq_zero_point = a_zero_point_;
    p.Bq_zero_point = b_zero_point.data();
    p.col_offsets = st_.col_offsets ? col_offsets_.data() : nullptr;
    if (st_.to_float) {
      p.row_offsets = row_offsets_.size() > 0 ? row_offsets_.data() : nullptr;
      std::vector<float> tile(size_t(rows_ - 1) * ld_out_ + nr_);
      ref::requantize_f32(tile.data(), sums_.data(), block_type_t{0, rows_, 0, nr_}, ld_out_, nr_, p, a_scale_,
                          multiplier.data(), st_.bias == BiasKind::float32 ? bias_f32_.data() : nullptr, relu_);
      for (int r = 0; r < rows_; ++r)
        std::memcpy(&want_[kGuard + size_t(r) * ld_out_ * sizeof(float)], &tile[size_t(r) * ld_out_],
                    size_t(nr_) * sizeof(float));
      return;
    }
    uint8_t* out = want_.data() + kGuard;
    for (int r = 0; r < rows_; ++r)
      for (int c = 0; c < nr_; ++c) {
        if (std::isnan(pre_[size_t(r) * nr_ + c] * multiplier[c])) {
          out[int64_t{r} * ld_out_ + c] = 255;
          continue;
        }
        p.row_offsets = row_offsets_.size() > 0 ? row_offsets_.data() + r : nullptr;
        const block_type_t one{r, 1, c, 1};
        const int32_t* in = &sums_[size_t(r) * nr_ + c];
        if (st_.bias == BiasKind::float32)
          ref::requantize_u8<float>(out, in, one, ld_out_, nr_, p, multiplier.data(), c_zero_point_,
                                    bias_f32_.data(), act.data(), relu_);
        else
          ref::requantize_u8<int32_t>(out, in, one, ld_out_, nr_, p, multiplier.data(), c_zero_point_,
                                      st_.bias == BiasKind::int32 ? bias_i32_.data() : nullptr,
                                      nullptr, relu_);
      }
  }

  detail::OutputStage st_;
  int rows_, nr_, ld_out_, c_zero_point_;
  bool relu_;
  int32_t a_zero_point_ = 0;
  float a_scale_ = 1.0f;
  GuardedArray<int32_t> row_offsets_, col_offsets_, b_zero_point_, bias_i32_;
  GuardedArray<float> multiplier_, bias_f32_, act_times_w_scale_;
  std::vector<uint8_t> out_, want_;
  std::vector<int32_t> sums_;
  std::vector<float> pre_;
  detail::OutputStageArgs args_{};
};

}  // namespace quire::test
