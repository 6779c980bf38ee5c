#include "engine/model/run_options.h"

#include <iostream>

#include "engine/core/error.h"

namespace precis {

void RunCallbacks::check_abort() const {
    if (should_abort && should_abort()) throw Cancelled();
}

void RunCallbacks::notice(const std::string& line) const {
    if (on_notice)
        on_notice(line);
    else
        std::cerr << "precis: " << line << "\n";
}

}  // namespace precis
