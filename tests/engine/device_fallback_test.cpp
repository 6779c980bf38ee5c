// When a device runner fails mid-run (out of memory, a CUDA error), the encoder and the
// search finish on the CPU ops with the same result, the person is told once, and the
// backend stays on the CPU afterwards (engine/generate/model_runner.h, runner_backend.h).
#include <gtest/gtest.h>

#include "engine/generate/runner_backend.h"
#include "engine/model/model.h"
#include "tests/support/failing_runner.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

TEST(DeviceFallback, AFailingDeviceFinishesOnTheCpuWithTheSameResultAndOneNotice) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load("bart-tiny");
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    ForwardRequest req = c.request("main", *model);
    req.keep_greedy_scores = false;

    auto cpu = make_cpu_backend();
    const NamedTensors expected = run_forward(*model, *cpu, req);

    auto runner = std::make_shared<FailingRunner>();
    RunnerBackend backend(make_cpu_backend(), runner);
    std::vector<std::string> notices;
    RunCallbacks cb;
    cb.on_notice = [&](const std::string& line) { notices.push_back(line); };
    const NamedTensors got = run_forward(*model, backend, req, cb);

    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("ran out of memory; running on the CPU"), std::string::npos) << notices[0];
    EXPECT_EQ(runner->calls, 1) << "after the failure the backend must stay on the CPU";
    EXPECT_EQ(backend.runner(), nullptr);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].first, expected[i].first);
        ASSERT_EQ(got[i].second.numel(), expected[i].second.numel()) << got[i].first;
        EXPECT_EQ(0, std::memcmp(got[i].second.raw(), expected[i].second.raw(), got[i].second.nbytes()))
            << got[i].first << " differs from the plain CPU run";
    }
}

}  // namespace
}  // namespace precis::test
