#pragma once
// The engine tests' precompiled header (tests/CMakeLists.txt).
#include "tests/support/precompiled_common.h"
