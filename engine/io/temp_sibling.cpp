#include "engine/io/temp_sibling.h"

#include <unistd.h>

namespace precis {

std::filesystem::path temp_sibling(const std::filesystem::path& target, const std::string& tag) {
    const std::filesystem::path dir = target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
    std::string name(".");  // built step by step: GCC 12 warns falsely on "." + string
    name += target.filename().string();
    name += '.';
    name += tag;
    name += '-';
    name += std::to_string(::getpid());
    return dir / name;
}

}  // namespace precis
