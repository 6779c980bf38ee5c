#pragma once
// Where a file or folder is written before it is renamed into place: a hidden sibling in
// the same folder (so the rename is atomic and never crosses file systems), named after
// the target, a tag and this process's id ("./.model.safetensors.tmp-4242"). Hidden
// names keep unfinished work out of folder listings and model pickers.
#include <filesystem>
#include <string>

namespace precis {

std::filesystem::path temp_sibling(const std::filesystem::path& target, const std::string& tag);

}  // namespace precis
