// The factory of the import_gspmd_shardings pass (import_gspmd_shardings.cpp),
// declared on its own so that its tests need not reach into pass_util.h.
#pragma once

#include <memory>

namespace kiln {

class Pass;
std::unique_ptr<Pass> createImportGspmdShardingsPass();

}  // namespace kiln
