#pragma once
// What nearly every test file includes and nothing changes between builds: GoogleTest, the
// standard library and nlohmann/json. Precompiled once per test folder; a test file still
// includes what it uses (it compiles the same with PRECIS_TEST_PCH=OFF).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
