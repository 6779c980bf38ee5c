#pragma once
// Where the reference fixtures live: $PRECIS_FIXTURES, else ../shared/fixtures beside
// the checkout. Tests read them in place; nothing is copied into the repository.
#include <cstdint>
#include <filesystem>
#include <string>

#include "engine/core/tensor.h"

namespace precis::test {

std::filesystem::path fixtures_dir();
std::filesystem::path corpus_dir();
std::filesystem::path source_dir();
std::filesystem::path binary_dir();
// A fresh empty directory under the system temp folder, removed at process exit.
std::filesystem::path scratch_dir(const std::string& name);
// A copy of the fixture model `name` at `dest` plus an extra `bytes`-long file (sparse, so
// it costs no disk until copied): a model folder that takes a while to import.
std::filesystem::path padded_fixture_model(const std::string& name, const std::filesystem::path& dest, uintmax_t bytes);

// Largest |a-b| - (atol + rtol*|b|) over all elements; <= 0 means within tolerance.
// -inf must match -inf. Shapes must match (else returns +inf and sets `why`).
double tolerance_excess(const Tensor& a, const Tensor& b, double atol, double rtol, std::string* why = nullptr);

}  // namespace precis::test
