#include "app/cli/bench_rounds.h"

#include <algorithm>
#include <cstdio>

namespace precis::cli {

namespace {

// "x2.41", or over several rounds "x2.41 (2.27-2.90)": the median and the rounds' range.
std::string ratio_text(const nlohmann::json& j, const std::string& name) {
    char text[64];
    std::snprintf(text, sizeof text, "x%.2f", j[name].get<double>());
    if (!j.contains(name + "_rounds")) return text;
    const auto v = j[name + "_rounds"].get<std::vector<double>>();
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    char range[64];
    std::snprintf(range, sizeof range, " (%.2f-%.2f)", *lo, *hi);
    return text + std::string(range);
}

// A number of the JSON, or -1 where it is null (not measured), for the text table.
double number_or(const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : -1;
}

}  // namespace

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

nlohmann::json median_over_rounds(const std::vector<nlohmann::json>& runs) {
    nlohmann::json j = runs.front();
    for (auto& [key, value] : j.items()) {
        if (!value.is_number_float()) continue;
        std::vector<double> v;
        for (const nlohmann::json& run : runs)
            if (run.contains(key) && run[key].is_number()) v.push_back(run[key].get<double>());
        value = median(v);
    }
    j["rounds"] = runs.size();
    return j;
}

void add_ratios_to_fp32(const std::vector<nlohmann::json>& fp32, const std::vector<nlohmann::json>& runs,
                        nlohmann::json& j) {
    struct Ratio {
        std::string name;
        std::string key;
        bool time;  // seconds (fp32 over this) rather than a rate or a size (this over fp32)
    };
    const std::string beam = "beam" + std::to_string(j.value("beams", 4));
    for (const Ratio& r : {Ratio{"encoder_speedup_vs_fp32", "encoder_seconds", true},
                           Ratio{"greedy_speedup_vs_fp32", "greedy_tokens_per_second", false},
                           Ratio{beam + "_speedup_vs_fp32", "beam_tokens_per_second", false},
                           Ratio{"peak_memory_vs_fp32", "peak_memory_mb", false}}) {
        std::vector<double> per_round;
        for (size_t i = 0; i < runs.size(); ++i) {
            const double mine = runs[i][r.key].get<double>(), theirs = fp32[i][r.key].get<double>();
            per_round.push_back(r.time ? theirs / mine : mine / theirs);
        }
        j[r.name] = median(per_round);
        if (per_round.size() > 1) j[r.name + "_rounds"] = per_round;
    }
}

void print_result(int length, const std::string& compute, const nlohmann::json& j) {
    const int beams = j.value("beams", 4);
    const std::string gemm = j["encoder_gemm_seconds"].is_number()
                                 ? std::to_string(j["encoder_gemm_seconds"].get<double>()).substr(0, 8) + " s, x" +
                                       std::to_string(j["encoder_over_gemm"].get<double>()).substr(0, 5)
                                 : std::string("not measured");
    std::printf("%6d tokens  %-5s %-12s %-12s encoder %8.3f s  (GEMMs alone %s)  greedy %6.1f tok/s"
                " (first token after %.2f s)  beam-%d %6.1f tok/s  peak %7.0f MB (linear weights %6.0f MB)",
                length, j["attention"].get<std::string>().c_str(), j.value("sparsity_type", std::string("-")).c_str(),
                compute.c_str(), j["encoder_seconds"].get<double>(), gemm.c_str(),
                j["greedy_tokens_per_second"].get<double>(), j["seconds_to_first_token"].get<double>(), beams,
                j["beam_tokens_per_second"].get<double>(), j["peak_memory_mb"].get<double>(),
                j["linear_weights_mb"].get<double>());
    if (j.value("on_device", false)) {
        const double gpu = number_or(j, "peak_gpu_memory_mb");
        if (gpu >= 0)
            std::printf("  GPU peak %7.0f MB", gpu);
        else
            std::printf("  GPU peak not measured");
        std::printf(" [%s]", j["device"].get<std::string>().c_str());
    }
    std::printf("\n");
    const std::string kernel = j.contains("int8_kernel") ? "; int8 products by " + j["int8_kernel"].get<std::string>() : "";
    std::printf("%6d tokens  %-12s decoder reads %.0f MB of weights + %.0f MB of cross keys/values per token; copy "
                "bandwidth %.1f GB/s bounds greedy at %.1f tok/s, reached %.0f%%%s\n",
                length, compute.c_str(), j["decoder_weight_mb_per_token"].get<double>(),
                j["cross_attention_kv_mb_per_token"].get<double>(), j["copy_bandwidth_gb_per_second"].get<double>(),
                j["greedy_bandwidth_bound_tokens_per_second"].get<double>(),
                100 * j["greedy_fraction_of_bandwidth_bound"].get<double>(), kernel.c_str());
    if (j.contains("encoder_speedup_vs_fp32")) {
        const int rounds = j.value("rounds", 1);
        const std::string over = rounds > 1 ? " (medians of " + std::to_string(rounds) + " rounds, range)" : "";
        const std::string beam = "beam" + std::to_string(beams) + "_speedup_vs_fp32";
        std::printf("%6d tokens  %s vs fp32%s: encoder %s faster, greedy %s tokens/s, beam-%d %s tokens/s, peak memory "
                    "%s\n",
                    length, compute.c_str(), over.c_str(), ratio_text(j, "encoder_speedup_vs_fp32").c_str(),
                    ratio_text(j, "greedy_speedup_vs_fp32").c_str(), beams, ratio_text(j, beam).c_str(),
                    ratio_text(j, "peak_memory_vs_fp32").c_str());
    }
    std::fflush(stdout);
}


}  // namespace precis::cli
