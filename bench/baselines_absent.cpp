// Factories of the baselines whose package was not found at configure time.
#include "baseline.h"

namespace quire::bench {

#ifndef QUIRE_BENCH_WITH_ONEDNN
std::unique_ptr<Baseline> make_onednn_baseline(int) { return nullptr; }
#endif

#ifndef QUIRE_BENCH_WITH_OPENBLAS
std::unique_ptr<Baseline> make_openblas_baseline(int) { return nullptr; }
#endif

}  // namespace quire::bench
