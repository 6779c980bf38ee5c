// The window's GPU precision setting (EngineSettings::dtype): fp32 unless chosen, each
// choice survives QSettings, and a value the engine does not know (a hand-edited settings
// file, an older or newer version) falls back to fp32 instead of failing every run.
#include <gtest/gtest.h>

#include <QSettings>

#include "app/worker/engine_settings.h"
#include "engine/core/error.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

QString settings_file(const std::string& name) {
    return QString::fromStdString((scratch_dir(name) / "settings.ini").string());
}

TEST(EngineSettingsDtype, DefaultsToAutomatic) {
    EXPECT_EQ(EngineSettings{}.dtype, "auto");
    QSettings q(settings_file("engine-settings-empty"), QSettings::IniFormat);
    q.clear();
    EXPECT_EQ(load_engine_settings(q).dtype, "auto");
}

TEST(EngineSettingsDtype, EachPrecisionSurvivesQSettings) {
    const QString file = settings_file("engine-settings-dtype");
    for (const char* dtype : {"fp16", "bf16", "fp32", "auto"}) {
        EngineSettings s;
        s.device = "cuda";
        s.dtype = dtype;
        {
            QSettings q(file, QSettings::IniFormat);
            save_engine_settings(q, s);
        }
        QSettings q(file, QSettings::IniFormat);
        const EngineSettings loaded = load_engine_settings(q);
        EXPECT_EQ(loaded.dtype, dtype);
        EXPECT_EQ(loaded.device, "cuda");
        EXPECT_EQ(loaded, s);
    }
}

TEST(EngineSettingsDtype, AnUnknownValueFallsBackToAutomatic) {
    QSettings q(settings_file("engine-settings-bad-dtype"), QSettings::IniFormat);
    for (const char* bad : {"FP16", "float16", "int8", "", "fp16 "}) {
        q.setValue("engine/dtype", QString::fromLatin1(bad));
        EXPECT_EQ(load_engine_settings(q).dtype, "auto") << bad;
    }
    // The device beside it is read on its own: a bad precision does not reset it.
    q.setValue("engine/device", "cpu");
    q.setValue("engine/dtype", "fp8");
    EXPECT_EQ(load_engine_settings(q).device, "cpu");
}

TEST(EngineSettingsGeneration, TheModelsOwnUnlessOverriddenAndAnOverriddenLengthReplacesMaxNewTokens) {
    GenerationConfig own;
    own.num_beams = 3;
    own.max_new_tokens = 60;
    EngineSettings s;
    EXPECT_EQ(generation_config_for(s, own), own);  // not overridden: the model's, untouched
    s.generation_override = true;
    s.num_beams = 5;
    s.max_length = 120;
    const GenerationConfig g = generation_config_for(s, own);
    EXPECT_EQ(g.num_beams, 5);
    EXPECT_EQ(g.max_length, 120);
    EXPECT_FALSE(g.max_new_tokens.has_value()) << "the override's length is the one that bounds the summary";
    EXPECT_EQ(g.decoder_start_token_id, own.decoder_start_token_id);
}

TEST(EngineSettingsDtype, ChooseDeviceTakesThePrecision) {
    // The CPU ignores the GPU's precision: each one runs there without a notice.
    for (const char* dtype : {"fp32", "fp16", "bf16"}) {
        const DeviceChoice cpu = choose_device("cpu", dtype);
        EXPECT_EQ(cpu.device, "cpu") << dtype;
        EXPECT_TRUE(cpu.notice.isEmpty()) << cpu.notice.toStdString();
        EXPECT_NE(cpu.backend, nullptr);
    }
    // One the engine does not know is refused, naming it (load_engine_settings never passes one).
    try {
        choose_device("cpu", "fp8");
        ADD_FAILURE() << "fp8 was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'fp8'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace precis::test

namespace precis::test {
namespace {

TEST(EngineSettingsLongMode, AutoByDefaultEachChoiceSurvivesAndAnUnknownOneFallsBackToAuto) {
    EXPECT_EQ(EngineSettings{}.long_mode, "auto");
    const QString file = settings_file("engine-settings-long");
    for (const char* mode : {"sections", "extend", "truncate", "auto"}) {
        EngineSettings s;
        s.long_mode = mode;
        {
            QSettings q(file, QSettings::IniFormat);
            save_engine_settings(q, s);
        }
        QSettings q(file, QSettings::IniFormat);
        EXPECT_EQ(load_engine_settings(q).long_mode, mode);
    }
    QSettings q(file, QSettings::IniFormat);
    q.setValue("summary/long", "everything");
    EXPECT_EQ(load_engine_settings(q).long_mode, "auto");
}

TEST(EngineSettingsLongMode, AutoAndExtendLoadLsgModelsExtendedSectionsAndTruncateDoNot) {
    EngineSettings s;
    for (const char* mode : {"auto", "extend", "sections", "truncate"}) {
        s.long_mode = mode;
        const bool extends = std::string(mode) == "auto" || std::string(mode) == "extend";
        EXPECT_EQ(load_options_for(s, {}).lsg_extension_factor, extends ? longdoc::kLsgExtension : 0) << mode;
    }
}

}  // namespace
}  // namespace precis::test
