// The window's weights setting: a named compute type is taken as given, "auto" is fp32 for
// a model that fits in the memory free now (the fixture models all do), a folder without
// a config stays fp32 for loading to explain, and each model folder has its own key.
#include <gtest/gtest.h>

#include "app/file_names.h"
#include "app/worker/compute_type_setting.h"
#include "engine/core/error.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

TEST(ComputeTypeSetting, NamedTypesAreTakenAsGivenAndUnknownOnesRefused) {
    EXPECT_EQ(resolve_compute_type("int8", "/nonexistent").type, ComputeType::Int8);
    EXPECT_EQ(resolve_compute_type("fp16-weights", "/nonexistent").type, ComputeType::Fp16Weights);
    EXPECT_EQ(resolve_compute_type("fp32", "/nonexistent").type, ComputeType::Fp32);
    EXPECT_THROW(resolve_compute_type("int4", "/nonexistent"), Error);
    EXPECT_TRUE(is_compute_type_setting("auto"));
    EXPECT_TRUE(is_compute_type_setting("int8"));
    EXPECT_FALSE(is_compute_type_setting("int4"));
    EXPECT_FALSE(is_compute_type_setting(""));
}

TEST(ComputeTypeSetting, AutoIsFloat32ForAModelThatFitsAndForAFolderWithoutConfig) {
    const ComputeTypeChoice fits = resolve_compute_type("auto", fixtures_dir() / "models/bart-tiny-realvocab");
    EXPECT_EQ(fits.type, ComputeType::Fp32);
    EXPECT_TRUE(fits.notice.empty());
    const ComputeTypeChoice no_config = resolve_compute_type("auto", scratch_dir("no-config"));
    EXPECT_EQ(no_config.type, ComputeType::Fp32);
}

TEST(ComputeTypeSetting, EachModelFolderHasItsOwnKeyWithoutNestedGroups) {
    const QString a = compute_type_settings_key("/models/bart-large-cnn");
    const QString b = compute_type_settings_key("/models/bart-base");
    EXPECT_NE(a, b);
    EXPECT_EQ(a.count('/'), 1) << a.toStdString();  // "compute_type/<encoded folder>"
    EXPECT_EQ(compute_type_settings_key(""), "compute_type/automatic");
    EXPECT_EQ(compute_type_settings_key(" /models/bart-base "), b);
}

TEST(ComputeTypeSetting, FoldersDifferingOnlyInBytesThatAreNotUtf8KeepTheirOwnKeys) {
    const QString latin1 = path_from_native(std::string_view("/models/mod\xE8le"));
    const QString other = path_from_native(std::string_view("/models/mod\xE9le"));
    EXPECT_NE(compute_type_settings_key(latin1), compute_type_settings_key(other));
    EXPECT_EQ(compute_type_settings_key(latin1).count('/'), 1);
}

}  // namespace
}  // namespace precis::test
