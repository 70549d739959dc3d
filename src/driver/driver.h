// The driver's private pieces (src/driver/): argument checks, the thread partition, the
// kernels one call uses, and the kernel loops over one packed A block x one column block.
#pragma once

#include <algorithm>
#include <cstdint>

#include "quire/Types.h"
#include "quire/detail/Blocking.h"
#include "quire/detail/PackB.h"
#include "cpu/output_stage.h"
#include "jit/kernel_spec.h"

namespace quire::detail {

// The rectangle of C one thread computes: rows [m0, m1), columns [n0, n1) of every group.
struct ThreadTile {
  int32_t m0, m1, n0, n1;
};

// Splits M x N into num_threads rectangles on MR-row and panel-column boundaries, picking
// the grid that minimizes the largest rectangle (splitting M first on ties, so A is not
// packed twice). Results do not depend on the split: every element is computed alike.
ThreadTile partition_tiles(int32_t M, int32_t N, int mr, int panel_width, int thread_id,
                           int num_threads);

struct GemmShape {
  int32_t M, K, N;  // K and N per group
  int groups;
};

// Checks fbgemmPacked's arguments; throws std::invalid_argument naming the parameter.
GemmShape check_gemm(int32_t a_rows, int32_t a_cols, int a_groups, const PackedBLayout& b,
                     const void* C, const void* C_buffer, uint32_t ldc, int thread_id,
                     int num_threads, const BlockingFactors& a_blocking,
                     const BlockingFactors* blocking_params);

// The dispatch record of a path (src/cpu/isa_record.h, private to the library), the one
// in use, and the FBGEMM name of its path (the template argument of the output ops).
struct IsaRecord;
struct MicroKernelArgs;
using MicroKernelFn = void (*)(const MicroKernelArgs*);
using WidenAFn = void (*)(const uint8_t* a, int64_t lda, int rows, int k4_steps, uint16_t* dst,
                          int64_t ld_dst);
const IsaRecord& active_isa();
inst_set_t inst_set_of(const IsaRecord& isa);

// The form of a column kernel: exact on packed A (split in every step), exact on A
// widened beforehand (WideABlock), pair-safe (packed A, pair-safe B panels only), or
// corrected: the pair-safe kernels on a panel with unsafe pairs, after the pairs'
// correction was put in C (PairMajorBlock, driver/pair_correction.h).
enum class KernelForm : uint8_t { exact, wide, pair_safe, corrected };
struct PairCorrectionKernels;  // driver/pair_correction.h
struct PairEntry;              // pack/pair_index.h
struct PairIndexView;          // pack/pair_index.h

// The kernels one fbgemmPacked call uses, each named by its full spec (jit/kernel_spec.h)
// and obtained through the record's one kernel entry on first use, then reused without
// locking. A call uses a handful of specs (full tiles, a row tail, a column tail, in a
// form or two, with or without the output stage), so a short list beats a table; a spec
// the path has no kernel for is remembered as null. acc16 takes the path's saturating
// kernels where it has them, else its exact kernels. The record is read only out of line
// (src/driver/kernel_set.cpp), so its layout is no part of this header.
class KernelSet {
 public:
  KernelSet(const IsaRecord& isa, int mr, int nr, Accumulation acc = Accumulation::int32);
  // The spec of an mr x nr kernel of this call in a form (narrow: several rows per
  // vector, no wide form; row_sums: narrow VNNI kernels also write the rows' A sums),
  // ending in `stage` (the default: store int32).
  // panel_vectors > 0: a tile spanning B panels of that many vectors (panels() below).
  jit::KernelSpec spec(int mr, int nr, KernelForm form, bool narrow = false,
                       bool row_sums = false, const OutputStage& stage = {},
                       int panel_vectors = 0) const {
    return jit::KernelSpec{.isa = isa_id_, .mr = mr, .nr = nr, .narrow = narrow,
                           .acc16 = saturating_,
                           .pair_safe = form == KernelForm::pair_safe || form == KernelForm::corrected,
                           .stage = stage, .row_sums = row_sums,
                           .wide_a = form == KernelForm::wide,
                           .sx_b = form == KernelForm::wide && sx_b_,
                           .panel_vectors = panel_vectors};
  }
  // The kernel a spec names, or null where the path has none (a pair-safe kernel on a
  // VNNI path or under saturating acc16, a stage on a tile that leaves it no registers,
  // any but the plain form on the portable path).
  MicroKernelFn find(const jit::KernelSpec& spec) {
    const uint64_t key = jit::spec_key(spec);
    if (entries_[last_].key == key) return entries_[last_].fn;
    for (int i = 0; i < used_; ++i)
      if (entries_[i].key == key) {
        last_ = i;
        return entries_[i].fn;
      }
    return resolve(spec, key);
  }
  // The same for a kernel the call cannot run without (the exact or wide forms of a
  // tile its blocking admits); throws std::invalid_argument naming it if there is none.
  MicroKernelFn require(const jit::KernelSpec& spec) {
    if (MicroKernelFn fn = find(spec)) return fn;
    missing(spec);
  }
  int mr() const { return mr_; }
  int nr() const { return nr_; }
  // Non-null where the path's exact column kernels have a form reading A widened by this
  // routine (KernelForm::wide; avx2, avx512, not under saturating acc16).
  WidenAFn widen_a() const { return widen_; }
  // The tile of the wide form for an A block of `rows`: on avx2 the kernels that
  // sign-extend B per step (jit::KernelSpec::sx_b), 6 x 8: 6 rows x 2 four-column groups
  // of accumulators + 2 B groups + 1 A + 1 product = 16 of 16 ymm; for 1 or 2 rows 2 x 16
  // (2 x 4 + 4 + 2 = 14), which sign-extends each B step once instead of in two
  // 8-column calls (1 row: 65 against 62 GOPS, kernel alone); elsewhere the call's mr x nr.
  int wide_mr(int rows) const { return sx_b_ ? (rows < 3 ? 2 : 6) : mr_; }
  int wide_nr(int rows) const { return sx_b_ ? (rows < 3 ? 16 : 8) : nr_; }
  // The B panels one call spans for an A block of `rows` rows on panels `width`
  // columns wide: with 1-3 rows in the pair-safe form or under saturating acc16 (one call
  // per panel left its fold and store to 64 steps: 1 x 1024 x 256 at 138 GOPS, against
  // 189 spanning 4 panels on avx2, Zen 4), as many as fit the registers (up to 4; each row takes
  // one accumulator per vector, plus A, product and ones; B is read from memory), so each
  // A broadcast and loop step covers 2-4 panels' columns and one call walks them all;
  // otherwise 1 (the call's mr x nr tile). avx2 (16 columns): 1 row 4 panels, 2 rows 3,
  // 3 rows 2. The same for one row in avx2's sx_b form (one accumulator per 4 columns,
  // plus one B group, A and product): 3 panels.
  int lanes() const { return lanes_; }
  int panels(int rows, int width, KernelForm form) const {
    if (width % lanes_ != 0) return 1;
    int per_panel = 0;  // accumulators per panel
    if (((form == KernelForm::pair_safe && has_pair_safe()) ||
         (form == KernelForm::exact && saturating_)) && rows <= 3)
      per_panel = rows * (width / lanes_);
    if (form == KernelForm::wide && sx_b_ && rows == 1) per_panel = width / 4;
    if (per_panel == 0) return 1;
    return std::max(1, std::min(4, (vector_registers_ - 3) / per_panel));
  }
  // Rows per narrow tile for an output of nr columns (3 <= nr <= 8), or 0 if the path
  // has no narrow kernels.
  int narrow_rows(int nr) const { return nr >= 3 && nr <= 8 ? narrow_rows_ : 0; }
  // Whether the narrow kernels can also form the rows' A sums (row_sums: VNNI paths).
  bool narrow_row_sums() const { return narrow_rows_ > 0 && vnni_; }
  // Whether the path has pair-safe kernels (avx2, avx512; not under saturating acc16).
  bool has_pair_safe() const { return jit_ && !vnni_ && !saturating_; }
  // The correction of the corrected form, where the path has pair-safe kernels; else null.
  const PairCorrectionKernels* pair_correction() const { return correction_; }
  // The column slices compute_block chose each form for (paths with pair-safe kernels),
  // for quire/KernelFormCounts.h.
  void count_form(KernelForm form) {
    ++(form == KernelForm::pair_safe   ? pair_safe_slices_
       : form == KernelForm::corrected ? corrected_slices_
                                       : exact_slices_);
  }
  int64_t pair_safe_slices() const { return pair_safe_slices_; }
  int64_t exact_slices() const { return exact_slices_; }
  int64_t corrected_slices() const { return corrected_slices_; }
  // Whether the path's column kernels can end in an output stage (JIT paths; the portable
  // kernel stores int32 and the tile epilogue requantizes).
  bool has_output_stage() const { return jit_; }
  // Whether the path's column kernels can walk several column slices in one call
  // (jit::KernelSpec::column_slices; JIT paths).
  bool has_column_slices() const { return jit_; }

 private:
  MicroKernelFn resolve(const jit::KernelSpec& spec, uint64_t key);  // through the record; remembered
  [[noreturn]] static void missing(const jit::KernelSpec& spec);
  struct Entry {
    uint64_t key;  // jit::spec_key; ~0 in the unused slot [0] starts as, which no spec has
    MicroKernelFn fn;
  };
  static constexpr int kSlots = 24;
  const IsaRecord& isa_;
  Isa isa_id_;
  int mr_, nr_;
  bool saturating_;  // acc16 on a path whose acc16 kernels saturate
  bool jit_, vnni_;
  bool sx_b_;  // the wide form is the sx_b kernels on linear wide A
  int lanes_, vector_registers_;  // int32 lanes per vector, vector registers (JIT paths)
  WidenAFn widen_;
  const PairCorrectionKernels* correction_;
  int narrow_rows_;
  int used_ = 0, last_ = 0;
  Entry entries_[kSlots];
  int64_t pair_safe_slices_ = 0, exact_slices_ = 0, corrected_slices_ = 0;
};

// The saturation certificate (docs/kernel-contract.md, "The saturation certificate"). A
// B panel whose pair-safe limit (PackBMatrix::pairSafeLimits) is at least the A block's
// largest value cannot saturate vpmaddubsw on that block: it runs the path's pair-safe
// kernels; one the certificate leaves out runs them corrected where its unsafe pairs in
// the K block are few enough for the correction to pay (correction_pays,
// pack/pair_index.h), else the exact form. The one place the choice is made.
inline KernelForm panel_form(uint8_t panel_limit, uint8_t a_max, KernelForm exact_form,
                             bool correction_pays = false) {
  if (a_max <= panel_limit) return KernelForm::pair_safe;
  return correction_pays ? KernelForm::corrected : exact_form;
}

// The largest of the panels' limits [first_panel, end_panel) below 255 (0 if none): an A
// block whose max exceeds it is certified for the 255-limit panels only, as any A is.
uint8_t largest_limit_below_255(const uint8_t* limits, int first_panel, int end_panel);

// The largest of the block's rows x cols bytes (rows lda apart), or, once a row takes it
// above stop_above, some value above stop_above (the rest is not read).
uint8_t block_a_max(const uint8_t* a, int64_t lda, int rows, int cols, uint8_t stop_above);

// Adds a call's counts to the process-wide ones (quire/KernelFormCounts.h).
void publish_form_counts(const KernelSet& kernels);

struct TileRequantize;  // driver/tile_output.h

// Whether compute_block runs columns [n0, n0 + nc) of B with the narrow kernels (3..8
// columns, the whole group, within one B panel, on a path that has them).
bool narrow_block(const KernelSet& kernels, const PackedBLayout& b, int n0, int nc);

// One A block as the wide exact kernels read it, widened to 16 bits (KernelSet::widen_a,
// docs/kernel-contract.md): made by the first get() and reused for every column slice of
// the A block, so the pass over mc x kc bytes is paid once per block, not per slice. The
// data lives in the calling thread's scratch until the thread widens its next block.
class WideABlock {
 public:
  WideABlock(WidenAFn widen, const uint8_t* a, int64_t lda, int rows, int kc)
      : widen_(widen), src_(a), lda_(lda), rows_(rows), k4_steps_((kc + 3) / 4) {}
  const uint8_t* get();  // row r at get() + r * ld_bytes()
  int64_t ld_bytes() const { return ld_bytes_; }

 private:
  WidenAFn widen_;
  const uint8_t* src_;
  int64_t lda_;
  int rows_, k4_steps_;
  const uint8_t* data_ = nullptr;
  int64_t ld_bytes_ = 0;
};

// One A block pair-major, as the correction reads it (PairMajorFn): made by the first
// get() and reused for every corrected column slice of the A block and K block, in the
// calling thread's scratch until the thread makes its next one.
class PairMajorBlock {
 public:
  PairMajorBlock(const PairCorrectionKernels& kernels, const uint8_t* a, int64_t lda, int rows,
                 int kc);
  const int32_t* get();
  int64_t ld() const { return ld_; }  // int32 elements between pairs
  int32_t* tile(int cols);            // scratch for one slice's correction tile
  int32_t* slice(int cols);           // scratch for one slice's correction, rows x cols

 private:
  const PairCorrectionKernels& kernels_;
  const uint8_t* src_;
  int64_t lda_;
  int rows_, kc_;
  int64_t ld_;
  const int32_t* data_ = nullptr;
};

// One compute_block call: C[0..mc) x [0..nc) (int32, ldc elements apart) = (or +=, when
// accumulate) the A block times columns [n0, n0 + nc) of the packed B group at b_group,
// over K range [k0, k0 + kc).
struct BlockCall {
  const uint8_t* a;  // the A block as packed: mc rows, lda bytes apart
  int64_t lda;
  int mc;
  const PackedBLayout* b;
  const int8_t* b_group;
  int k0, kc, n0, nc;
  int32_t* c;
  int64_t ldc;
  bool accumulate;
  // Null, or the group's per-panel pair-safe limits (PackBMatrix::pairSafeLimits); a_max
  // is the block's largest A value (or any value above it, 255 at most); panel_form picks
  // each panel's kernels from them.
  const uint8_t* pair_limits = nullptr;
  uint8_t a_max = 255;
  // Last K block only: the tile is requantized to uint8 or float instead, in the kernels'
  // output stage where they have one (C_buffer then holds no int32 there).
  const TileRequantize* requantize = nullptr;
  // Null, or the same A block widened: then the column panels that are not pair-safe run
  // the wide exact kernels (KernelForm::wide).
  WideABlock* wide = nullptr;
  // Null, or B's unsafe-pair index (with first_panel, the group's first panel in it)
  // and the A block pair-major: then panels the certificate leaves out may run corrected.
  const PairIndexView* pair_index = nullptr;
  int first_panel = 0;
  PairMajorBlock* pair_major = nullptr;
  // Narrow blocks (KernelSet::narrow_row_sums, one K block): the kernels also write the
  // block's row sums of A here (the packer then skips them).
  int32_t* row_sums = nullptr;
};

void compute_block(KernelSet& kernels, const BlockCall& call);

}  // namespace quire::detail
