// The entries the output ops of quire/OutputProcessing.h call: the table of the path the
// op names (epilogue_for), one indirect call per block.
#include "epilogue/epilogue_table.h"

namespace quire::detail {

void epilogue_requantize_u8(inst_set_t inst_set, const RequantizeU8Args& args) {
  epilogue_for(inst_set).requantize_u8(args);
}
void epilogue_requantize_f32(inst_set_t inst_set, const RequantizeF32Args& args) {
  epilogue_for(inst_set).requantize_f32(args);
}
void epilogue_copy_i32(inst_set_t inst_set, const Int32MapArgs& args) {
  epilogue_for(inst_set).copy_i32(args);
}
void epilogue_scale_i32(inst_set_t inst_set, const Int32MapArgs& args) {
  epilogue_for(inst_set).scale_i32(args);
}
void epilogue_relu_i32(inst_set_t inst_set, const Int32MapArgs& args) {
  epilogue_for(inst_set).relu_i32(args);
}

}  // namespace quire::detail
