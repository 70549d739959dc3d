// PackedDirectConvMatrix: the KRSC weights of a transposed convolution reordered into a
// GEMM B of IC rows and filter_prod * OC columns ordered (tap, oc), packed once, and the
// per-(channel, tap) weight sums its pixel column offsets are made of.
#include <vector>

#include "quire/DirectConv.h"
#include "quire/detail/Check.h"

namespace quire {
namespace {

constexpr const char* kWhere = "PackedDirectConvMatrix";

}  // namespace

PackedDirectConvMatrix::PackedDirectConvMatrix(int IC_per_G, int OC_per_G, int filter_prod,
                                               const std::int8_t* smat)
    : ic_(IC_per_G), oc_(OC_per_G), kernel_prod_(filter_prod) {
  detail::check_arg(IC_per_G >= 1, kWhere, "IC_per_G", IC_per_G, "must be >= 1");
  detail::check_arg(OC_per_G >= 1, kWhere, "OC_per_G", OC_per_G, "must be >= 1");
  detail::check_arg(filter_prod >= 1, kWhere, "filter_prod", filter_prod, "must be >= 1");
  detail::check_not_null(smat, kWhere, "smat");
  detail::check_product(OC_per_G, filter_prod, kWhere, "OC_per_G x filter_prod");
  detail::check_product(int64_t{OC_per_G} * filter_prod, IC_per_G, kWhere,
                        "OC_per_G x filter_prod x IC_per_G");
  const int64_t cols = int64_t{OC_per_G} * filter_prod;
  // B^T row (t, oc) is W[oc][t][:]: B^T[(t * OC + oc) * IC + ic] = W[(oc * kp + t) * IC + ic].
  std::vector<int8_t> bt(static_cast<size_t>(cols * IC_per_G));
  tap_sums_.assign(static_cast<size_t>(cols), 0);
  for (int oc = 0; oc < OC_per_G; ++oc) {
    for (int t = 0; t < filter_prod; ++t) {
      const int8_t* w = smat + (int64_t{oc} * filter_prod + t) * IC_per_G;
      int8_t* b = bt.data() + (int64_t{t} * OC_per_G + oc) * IC_per_G;
      int32_t sum = 0;
      for (int ic = 0; ic < IC_per_G; ++ic) {
        b[ic] = w[ic];
        sum += w[ic];
      }
      tap_sums_[static_cast<size_t>(oc) * filter_prod + t] = sum;
    }
  }
  packed_ = std::make_unique<PackBMatrix<int8_t, int32_t>>(
      matrix_op_t::Transpose, IC_per_G, static_cast<int32_t>(cols), bt.data(), IC_per_G);
}

PackedDirectConvMatrix::~PackedDirectConvMatrix() = default;

void PackedDirectConvMatrix::unpack(int8_t* origin_buf) const {
  detail::check_not_null(origin_buf, "PackedDirectConvMatrix::unpack", "origin_buf");
  std::vector<int8_t> bt(static_cast<size_t>(oc_) * kernel_prod_ * ic_);
  packed_->unpack(bt.data());
  for (int oc = 0; oc < oc_; ++oc)
    for (int t = 0; t < kernel_prod_; ++t)
      for (int ic = 0; ic < ic_; ++ic)
        origin_buf[(int64_t{oc} * kernel_prod_ + t) * ic_ + ic] =
            bt[(int64_t{t} * oc_ + oc) * ic_ + ic];
}

}  // namespace quire
