// Which GPUs a build runs on and in which precision (kernels/device_support.h), decided
// before anything is uploaded: proved with faked devices, so it runs on every machine.
#include "kernels/device_support.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"

namespace precis::cuda {
namespace {

DeviceInfo card(const char* name, int major, int minor) {
    DeviceInfo d;
    d.name = name;
    d.compute_major = major;
    d.compute_minor = minor;
    return d;
}

const BuildTargets kEveryGeneration{{75, 80, 86, 89, 90, 100, 120}, 120, 13000};
const BuildTargets kAmpereAndHopperOnly{{80, 90}, 90, 13000};
constexpr int kDriverCuda13 = 13000;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(DeviceSupport, EveryCurrentGenerationRunsItsOwnMachineCode) {
    for (const DeviceInfo& d : {card("Tesla T4", 7, 5), card("NVIDIA A100", 8, 0), card("RTX 3090", 8, 6),
                                card("RTX 4090", 8, 9), card("NVIDIA H100", 9, 0), card("NVIDIA B200", 10, 0),
                                card("RTX 5090", 12, 0)}) {
        const DeviceSupport s = check_device(d, kDriverCuda13, kEveryGeneration);
        EXPECT_TRUE(s.usable) << d.name << ": " << s.why;
        EXPECT_EQ(s.first_use, "") << d.name << " should not need the driver to compile anything";
    }
}

TEST(DeviceSupport, ATuringCardWithoutItsCodeIsRefusedBeforeAnyUploadNamingItsCapability) {
    // The build that only carried sm_80 and sm_90: a T4 used to fail at its first launch.
    const DeviceSupport s = check_device(card("Tesla T4", 7, 5), kDriverCuda13, kAmpereAndHopperOnly);
    EXPECT_FALSE(s.usable);
    EXPECT_TRUE(contains(s.why, "Tesla T4")) << s.why;
    EXPECT_TRUE(contains(s.why, "7.5")) << s.why;
    EXPECT_TRUE(contains(s.why, "8.0, 9.0")) << s.why;
}

TEST(DeviceSupport, ANewerMinorVersionRunsTheMachineCodeOfItsMajorVersion) {
    // sm_80 code on an Ada card when the build has no sm_89 (binary compatible within 8.x).
    EXPECT_TRUE(check_device(card("RTX 4090", 8, 9), kDriverCuda13, kAmpereAndHopperOnly).usable);
    EXPECT_EQ(check_device(card("RTX 4090", 8, 9), kDriverCuda13, kAmpereAndHopperOnly).first_use, "");
}

TEST(DeviceSupport, ACardNewerThanEveryMachineCodeRunsThePtxAndSaysItIsCompiledAtFirstUse) {
    const DeviceSupport s = check_device(card("RTX 5090", 12, 0), kDriverCuda13, kAmpereAndHopperOnly);
    EXPECT_TRUE(s.usable) << s.why;
    EXPECT_TRUE(contains(s.first_use, "RTX 5090")) << s.first_use;
    EXPECT_TRUE(contains(s.first_use, "first use")) << s.first_use;
}

TEST(DeviceSupport, ACardOlderThanTuringIsRefusedWhateverTheBuildCarries) {
    const DeviceSupport s = check_device(card("Tesla V100", 7, 0), kDriverCuda13, kEveryGeneration);
    EXPECT_FALSE(s.usable);
    EXPECT_TRUE(contains(s.why, "Tesla V100")) << s.why;
    EXPECT_TRUE(contains(s.why, "7.0")) << s.why;
    EXPECT_TRUE(contains(s.why, "7.5")) << s.why;
}

TEST(DeviceSupport, ADriverOlderThanTheBuildsCudaIsRefusedSayingToUpdateIt) {
    const DeviceSupport s = check_device(card("NVIDIA H100", 9, 0), 12080, kEveryGeneration);
    EXPECT_FALSE(s.usable);
    EXPECT_TRUE(contains(s.why, "CUDA 12.8")) << s.why;
    EXPECT_TRUE(contains(s.why, "CUDA 13.0")) << s.why;
    EXPECT_TRUE(contains(s.why, "update the driver")) << s.why;
    // A newer minor version of the same major is fine; an unknown driver version is not held against it.
    EXPECT_TRUE(check_device(card("NVIDIA H100", 9, 0), 13020, kEveryGeneration).usable);
    EXPECT_TRUE(check_device(card("NVIDIA H100", 9, 0), 0, kEveryGeneration).usable);
}

TEST(DtypeChoice, AutoIsHalfPrecisionOnEveryCardThisBuildRuns) {
    for (const DeviceInfo& d : {card("Tesla T4", 7, 5), card("NVIDIA A100", 8, 0), card("NVIDIA H100", 9, 0)}) {
        const DtypeChoice c = choose_dtype("auto", d);
        EXPECT_EQ(c.dtype, "fp16") << d.name;
        EXPECT_EQ(c.refusal, "") << d.name;
    }
}

TEST(DtypeChoice, WhatIsAskedRunsAndBf16IsRefusedBeforeAmpere) {
    EXPECT_EQ(choose_dtype("fp32", card("Tesla T4", 7, 5)).dtype, "fp32");
    EXPECT_EQ(choose_dtype("bf16", card("NVIDIA A100", 8, 0)).dtype, "bf16");
    EXPECT_EQ(choose_dtype("bf16", card("NVIDIA A100", 8, 0)).refusal, "");
    const DtypeChoice t4 = choose_dtype("bf16", card("Tesla T4", 7, 5));
    EXPECT_TRUE(contains(t4.refusal, "bf16")) << t4.refusal;
    EXPECT_TRUE(contains(t4.refusal, "Tesla T4")) << t4.refusal;
    EXPECT_TRUE(contains(t4.refusal, "8.0")) << t4.refusal;
}

TEST(DtypeChoice, AnFp16OverflowMovesToBf16WhereTheCardHasItElseToFp32) {
    // --dtype auto's fallback when fp16 overflows (kernels/runner/cuda_runner.cpp).
    EXPECT_EQ(dtype_after_fp16_overflow(80), "bf16");
    EXPECT_EQ(dtype_after_fp16_overflow(90), "bf16");
    EXPECT_EQ(dtype_after_fp16_overflow(120), "bf16");
    EXPECT_EQ(dtype_after_fp16_overflow(75), "fp32");
}

TEST(DtypeChoice, AnUnknownNameIsRefusedNamingIt) {
    try {
        choose_dtype("fp8", card("NVIDIA H100", 9, 0));
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), "'fp8'")) << e.what();
        EXPECT_TRUE(contains(e.what(), "auto")) << e.what();
    }
    EXPECT_NO_THROW(check_dtype_name("auto"));
}

TEST(DeviceSupport, ABuildDescribesItsCodeAsCapabilities) {
    EXPECT_EQ(describe_targets(kEveryGeneration), "machine code for 7.5, 8.0, 8.6, 8.9, 9.0, 10.0, 12.0; PTX 12.0");
    EXPECT_EQ(describe_targets(BuildTargets{}), "");
}

TEST(DeviceSupport, ThisBuildSaysWhatItCarries) {
    const BuildTargets t = build_targets();
    if (t.sass.empty()) GTEST_SKIP() << "a build without CUDA carries no GPU code";
    EXPECT_GT(t.runtime_version, 0);
    EXPECT_EQ(t.ptx, t.sass.back()) << "the PTX is the newest machine code's";
    // Whatever the list, it holds the H100 the device script proves things on, or its PTX does.
    EXPECT_TRUE(check_device(card("NVIDIA H100", 9, 0), 0, t).usable);
}

}  // namespace
}  // namespace precis::cuda
