// The CUDA backend against the reference implementation's outputs, case by case (fixtures
// README 6-7): in fp32 every hidden state, logit, greedy and beam sequence within the
// fixtures' tolerance, the ids exact; in fp16 and bf16 the worst error of the encoder output
// and how many generated ids agree, reported (and bounded loosely: a broken kernel is far
// off, rounding is not). A silent fallback to the CPU fails the test.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/generate/model_runner.h"
#include "engine/model/model.h"
#include "kernels/backend_factory.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

struct DeviceRun {
    BackendChoice choice;
    RunCallbacks callbacks;
    std::vector<std::string> notices;
};

std::unique_ptr<DeviceRun> cuda_backend(const std::string& dtype) {
    auto run = std::make_unique<DeviceRun>();
    run->choice = make_backend({.device = "cuda", .dtype = dtype, .model_bytes = 0, .cpu_threads = 2});
    run->callbacks.on_notice = [r = run.get()](const std::string& line) { r->notices.push_back(line); };
    return run;
}

// The request as the reference ran it, with the greedy search's per-step scores left out
// (they are kept by the CPU search only), so greedy decoding runs on the device too.
ForwardRequest device_request(const FixtureCase& c, const std::string& batch, const Model& model) {
    ForwardRequest req = c.request(batch, model);
    req.keep_greedy_scores = false;
    return req;
}

const Tensor* find(const NamedTensors& all, const std::string& key) {
    for (const auto& [k, t] : all)
        if (k == key) return &t;
    return nullptr;
}

class CudaFixtureParity : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaFixtureParity, Fp32MatchesTheReferenceWithinTolerance) {
    PRECIS_REQUIRE_GPU();
    const FixtureCase c = FixtureCase::load(GetParam());
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    auto run = cuda_backend("fp32");
    ASSERT_NE(run->choice.backend->runner(), nullptr) << run->choice.notice;
    for (const std::string& batch : c.batches()) {
        SCOPED_TRACE("batch " + batch);
        const NamedTensors out = run_forward(*model, *run->choice.backend, device_request(c, batch, *model), run->callbacks);
        for (const std::string& p : compare_with_reference(c, batch, out, {"greedy.scores"}))  // see device_request
            ADD_FAILURE() << p;
    }
    EXPECT_TRUE(run->notices.empty()) << "fell back to the CPU: " << run->notices.front();
    EXPECT_NE(run->choice.backend->runner(), nullptr);
}

// fp16 / bf16: how far the encoder output is from the reference and how many generated ids
// agree, written to the test's XML (RecordProperty) and stdout for the device report.
class CudaLowPrecisionParity : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(CudaLowPrecisionParity, EncoderErrorAndIdAgreementAreReported) {
    PRECIS_REQUIRE_GPU();
    const auto& [name, dtype] = GetParam();
    const FixtureCase c = FixtureCase::load(name);
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    auto run = cuda_backend(dtype);
    ASSERT_NE(run->choice.backend->runner(), nullptr) << run->choice.notice;
    double worst = 0;
    int64_t ids_same = 0, ids_total = 0;
    for (const std::string& batch : c.batches()) {
        const NamedTensors out = run_forward(*model, *run->choice.backend, device_request(c, batch, *model), run->callbacks);
        if (const Tensor* enc = find(out, "encoder_last_hidden_state")) {
            const auto ref_it = c.tensors.find(batch + ".encoder_last_hidden_state");
            ASSERT_NE(ref_it, c.tensors.end());
            const Tensor& ref = ref_it->second;
            ASSERT_EQ(ref.numel(), enc->numel());
            std::vector<float> a(enc->data<float>(), enc->data<float>() + enc->numel());
            std::vector<float> b(ref.data<float>(), ref.data<float>() + ref.numel());
            worst = std::max(worst, normalized_error(a, b));
        }
        for (const char* key : {"greedy.sequences", "beam.sequences"}) {
            const Tensor* got = find(out, key);
            const auto ref_it = c.tensors.find(batch + "." + key);
            if (!got || ref_it == c.tensors.end()) continue;
            const Tensor& ref = ref_it->second;
            const int64_t n = std::min(got->numel(), ref.numel());
            for (int64_t i = 0; i < n; ++i) ids_same += got->data<int64_t>()[i] == ref.data<int64_t>()[i];
            ids_total += std::max(got->numel(), ref.numel());
        }
    }
    EXPECT_TRUE(run->notices.empty()) << "fell back to the CPU: " << run->notices.front();
    RecordProperty("encoder_normalized_error", std::to_string(worst));
    RecordProperty("generated_ids_agreeing", std::to_string(ids_same) + "/" + std::to_string(ids_total));
    std::printf("[ %s %s ] encoder normalized error %.3g, generated ids agreeing %lld/%lld\n", name.c_str(),
                dtype.c_str(), worst, (long long)ids_same, (long long)ids_total);
    // Rounding to 11 (fp16) or 8 (bf16) significant bits through a few layers stays well
    // under this; a wrong kernel (a missing bias, other keys) is off by the order of 1. The
    // H100 sitting of 2026-11-28 measured at most 0.0163 in fp16 and 0.0467 in bf16
    // (lsg-norm-sf4, where rounding moves which keys the norm selects): bf16's three bits
    // fewer get a bound eight times wider's share, three times what was seen.
    EXPECT_LT(worst, dtype == "bf16" ? 1.5e-1 : 5e-2);
}

std::string low_label(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
    std::string s = std::get<0>(info.param) + "_" + std::get<1>(info.param);
    for (char& ch : s)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return s;
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, CudaFixtureParity, ::testing::ValuesIn(fixture_case_names()),
                         fixture_case_label);
INSTANTIATE_TEST_SUITE_P(AllReferenceCases, CudaLowPrecisionParity,
                         ::testing::Combine(::testing::ValuesIn(fixture_case_names()),
                                            ::testing::Values(std::string("fp16"), std::string("bf16"))),
                         low_label);

}  // namespace
}  // namespace precis::test
