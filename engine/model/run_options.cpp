#include "engine/model/run_options.h"

#include "engine/core/error.h"

namespace precis {

void RunCallbacks::check_abort() const {
    if (should_abort && should_abort()) throw Cancelled();
}

}  // namespace precis
