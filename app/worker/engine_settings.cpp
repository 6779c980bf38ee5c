#include "app/worker/engine_settings.h"

#include "app/long/long_mode.h"

#include <QSettings>

#include <cstdlib>

#include "app/file_names.h"
#include "app/paths.h"
#include "app/qt_file_names.h"
#include "app/summary_method.h"
#include "app/worker/compute_type_setting.h"
#include "engine/core/error.h"
#include "engine/model/encoder.h"
#include "kernels/backend_factory.h"
#include "kernels/device_query.h"

namespace precis {

namespace fs = std::filesystem;

EngineSettings load_engine_settings(const QSettings& q) {
    EngineSettings d, s;
    s.method = q.value("summary/method", d.method).toString();
    if (!parse_summary_method(s.method)) s.method = d.method;
    s.extractive_sentences = std::max(0, q.value("summary/extractive_sentences", d.extractive_sentences).toInt());
    s.model_dir = path_from_setting(q.value("model/dir", d.model_dir));
    s.device = q.value("engine/device", d.device).toString();
    s.dtype = q.value("engine/dtype", d.dtype).toString();
    s.compute_type = q.value(compute_type_settings_key(s.model_dir), d.compute_type).toString();
    if (!is_compute_type_setting(s.compute_type)) s.compute_type = d.compute_type;
    s.attention = q.value("attention/kind", d.attention).toString();
    s.lsg_override = q.value("attention/lsg_override", d.lsg_override).toBool();
    try {
        s.sparsity_type = parse_sparsity_type(
            q.value("attention/sparsity_type", sparsity_type_name(d.sparsity_type)).toString().toStdString());
    } catch (const Error&) {
        s.sparsity_type = d.sparsity_type;  // a hand-edited settings file: fall back quietly
    }
    s.block_size = q.value("attention/block_size", d.block_size).toInt();
    s.sparse_block_size = q.value("attention/sparse_block_size", d.sparse_block_size).toInt();
    s.sparsity_factor = q.value("attention/sparsity_factor", d.sparsity_factor).toInt();
    s.num_global_tokens = q.value("attention/num_global_tokens", d.num_global_tokens).toInt();
    s.fovea_block_size = q.value("attention/fovea_block_size", d.fovea_block_size).toInt();
    s.fovea_wing = q.value("attention/fovea_wing", d.fovea_wing).toInt();
    s.max_positions = q.value("attention/max_positions", d.max_positions).toInt();
    s.long_mode = q.value("summary/long", d.long_mode).toString();
    if (!longdoc::parse_long_mode(s.long_mode.toStdString())) s.long_mode = d.long_mode;
    s.generation_override = q.value("generation/override", d.generation_override).toBool();
    s.num_beams = q.value("generation/num_beams", d.num_beams).toInt();
    s.length_penalty = q.value("generation/length_penalty", d.length_penalty).toDouble();
    s.min_length = q.value("generation/min_length", d.min_length).toInt();
    s.max_length = q.value("generation/max_length", d.max_length).toInt();
    s.no_repeat_ngram_size = q.value("generation/no_repeat_ngram_size", d.no_repeat_ngram_size).toInt();
    if (s.attention != "model" && s.attention != "lsg" && s.attention != "full" && s.attention != "fovea")
        s.attention = d.attention;
    if (s.device != "auto" && s.device != "cpu" && s.device != "cuda") s.device = d.device;
    if (s.dtype != "auto" && s.dtype != "fp32" && s.dtype != "fp16" && s.dtype != "bf16") s.dtype = d.dtype;
    s.classifier = load_classifier_settings(q);
    return s;
}

void save_engine_settings(QSettings& q, const EngineSettings& s) {
    q.setValue("summary/method", s.method);
    q.setValue("summary/extractive_sentences", s.extractive_sentences);
    q.setValue("model/dir", path_setting_value(s.model_dir));
    q.setValue("engine/device", s.device);
    q.setValue("engine/dtype", s.dtype);
    q.setValue(compute_type_settings_key(s.model_dir), s.compute_type);
    q.setValue("attention/kind", s.attention);
    q.setValue("attention/lsg_override", s.lsg_override);
    q.setValue("attention/sparsity_type", QString::fromLatin1(sparsity_type_name(s.sparsity_type)));
    q.setValue("attention/block_size", s.block_size);
    q.setValue("attention/sparse_block_size", s.sparse_block_size);
    q.setValue("attention/sparsity_factor", s.sparsity_factor);
    q.setValue("attention/num_global_tokens", s.num_global_tokens);
    q.setValue("attention/fovea_block_size", s.fovea_block_size);
    q.setValue("attention/fovea_wing", s.fovea_wing);
    q.setValue("attention/max_positions", s.max_positions);
    q.setValue("summary/long", s.long_mode);
    q.setValue("generation/override", s.generation_override);
    q.setValue("generation/num_beams", s.num_beams);
    q.setValue("generation/length_penalty", s.length_penalty);
    q.setValue("generation/min_length", s.min_length);
    q.setValue("generation/max_length", s.max_length);
    q.setValue("generation/no_repeat_ngram_size", s.no_repeat_ngram_size);
    save_classifier_settings(q, s.classifier);
}

LsgSettings lsg_settings_for(const EngineSettings& s, const LsgSettings& model_lsg) {
    LsgSettings l = model_lsg;
    if (!s.lsg_override) return l;
    l.sparsity_type = s.sparsity_type;
    l.block_size = s.block_size;
    l.sparse_block_size = s.sparse_block_size;
    l.sparsity_factor = s.sparsity_factor;
    l.num_global_tokens = s.num_global_tokens;
    return l;
}

GenerationConfig generation_config_for(const EngineSettings& s, const GenerationConfig& model_generation) {
    GenerationConfig g = model_generation;
    if (!s.generation_override) return g;
    g.num_beams = s.num_beams;
    g.length_penalty = s.length_penalty;
    g.min_length = s.min_length;
    g.max_length = s.max_length;
    g.max_new_tokens.reset();
    g.no_repeat_ngram_size = s.no_repeat_ngram_size;
    return g;
}

std::optional<ResolvedModel> find_model(const EngineSettings& s) {
    if (!s.model_dir.isEmpty()) {
        const fs::path dir = native_path(s.model_dir);
        // The fixture test model keeps its tokenizer apart; chosen by folder it still needs it.
        std::error_code ec;
        if (TestModel t = fixture_test_model(); !t.dir.empty() && fs::equivalent(dir, t.dir, ec))
            return ResolvedModel{t.dir, t.tokenizer_dir, true, "settings"};
        return ResolvedModel{dir, {}, false, "settings"};
    }
    if (const char* e = std::getenv("PRECIS_MODEL"); e && *e) return ResolvedModel{fs::path(e), {}, false, "PRECIS_MODEL"};
    if (fs::path user = user_default_model(); !user.empty()) return ResolvedModel{user, {}, false, "user model folder"};
    if (fs::path bundled = bundled_model(); !bundled.empty()) return ResolvedModel{bundled, {}, false, "bundled"};
    return std::nullopt;
}

ResolvedModel resolve_model(const EngineSettings& s) {
    if (std::optional<ResolvedModel> found = find_model(s)) return *found;
    throw Error("No summarization model is installed: download one (Settings > Download...), or use Settings > Import "
                "model... to add a HuggingFace BART or "
                "LSG-BART folder (it goes to " + user_models_dir().string() + "), or choose extractive summaries.");
}

bool uses_extractive(const EngineSettings& s) {
    if (s.method == QLatin1String("extractive")) return true;
    if (s.method == QLatin1String("neural")) return false;
    return !find_model(s).has_value();
}

extractive::ExtractiveOptions extractive_options_for(const EngineSettings& s) {
    extractive::ExtractiveOptions o;
    if (s.extractive_sentences > 0) o.budget = {extractive::BudgetUnit::Sentences, double(s.extractive_sentences)};
    return o;
}

longdoc::LongMode long_mode_of(const EngineSettings& s) {
    return longdoc::parse_long_mode(s.long_mode.toStdString()).value_or(longdoc::LongMode::Auto);
}

LoadOptions load_options_for(const EngineSettings& s, const ResolvedModel& where) {
    LoadOptions lo;
    lo.tokenizer_dir = where.tokenizer_dir;
    if (s.max_positions > 0) lo.max_positions = s.max_positions;
    if (longdoc::extends_positions(long_mode_of(s))) lo.lsg_extension_factor = longdoc::kLsgExtension;
    if (s.attention == "lsg") {
        // Only acts on a plain BART checkpoint: it gets global embeddings and LSG settings in memory.
        lo.convert_to_lsg = true;
        lo.lsg = lsg_settings_for(s, LsgSettings{});
    }
    return lo;
}

SummarizeOptions summarize_options_for(const EngineSettings& s, const Model& model) {
    SummarizeOptions o;
    o.attention = native_attention_options(model);
    if (s.attention == "lsg") o.attention.kind = EncoderAttention::Lsg;
    if (s.attention == "full") o.attention.kind = EncoderAttention::Full;
    if (s.attention == "fovea") o.attention.kind = EncoderAttention::Fovea;
    o.attention.lsg = lsg_settings_for(s, o.attention.lsg);
    if (o.attention.kind == EncoderAttention::Lsg) o.attention.lsg.validate("The LSG settings");
    o.attention.fovea.block_size = s.fovea_block_size;
    o.attention.fovea.wing = s.fovea_wing;
    check(s.fovea_block_size > 0 && s.fovea_wing > 0, "The Fovea block size and wing must be positive.");

    o.generation = generation_config_for(s, model.generation_config());
    if (s.generation_override) {
        const GenerationConfig& g = o.generation;
        check(g.num_beams >= 1, "The number of beams must be at least 1.");
        check(g.min_length >= 0 && g.no_repeat_ngram_size >= 0,
              "The minimum length and the no-repeat n-gram size must not be negative.");
        check(g.min_length < g.max_length, "The minimum summary length must be below the maximum length.");
        const int64_t positions = model.weights().decoder_positions.dim(0) - 2;
        check(g.max_length <= positions, "The maximum summary length " + std::to_string(g.max_length) +
                                             " exceeds the " + std::to_string(positions) +
                                             " positions of this model's decoder.");
    }
    return o;
}

DeviceChoice choose_device(const QString& requested, const QString& dtype) {
    BackendRequest request;
    request.device = requested.toStdString();
    request.dtype = dtype.toStdString();
    const BackendChoice c = make_backend(request);
    QString notice = QString::fromStdString(c.notice);
    if (!notice.isEmpty()) {  // a sentence for the window: capitalized, with its full stop
        notice[0] = notice[0].toUpper();
        if (!notice.endsWith('.')) notice += '.';
    }
    return {QString::fromStdString(c.device), notice, c.backend};
}

}  // namespace precis
