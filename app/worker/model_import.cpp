#include "app/worker/model_import.h"

#include <fstream>
#include <vector>

#include "engine/convert/bart_to_lsg.h"
#include "engine/core/error.h"
#include "engine/io/temp_sibling.h"
#include "engine/config/config.h"

namespace precis {

namespace fs = std::filesystem;

namespace {

// A folder name under `root` that is not taken yet.
fs::path free_folder(const fs::path& root, const std::string& name) {
    fs::path dst = root / name;
    for (int i = 2; fs::exists(dst); ++i) dst = root / (name + "-" + std::to_string(i));
    return dst;
}

void copy_file_in_chunks(const fs::path& from, const fs::path& to, uint64_t& done, uint64_t total,
                         const ByteProgress& progress) {
    std::ifstream in(from, std::ios::binary);
    if (!in) throw Error("cannot read '" + from.string() + "'");
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write '" + to.string() + "'");
    std::vector<char> buffer(static_cast<size_t>(kByteProgressChunk));
    while (in) {
        progress.check_abort();
        in.read(buffer.data(), std::streamsize(buffer.size()));
        const std::streamsize n = in.gcount();
        if (n <= 0) break;
        out.write(buffer.data(), n);
        if (!out) throw Error("cannot write '" + to.string() + "' (is the disk full?)");
        done += uint64_t(n);
        progress.report(done, total);
    }
    if (in.bad()) throw Error("cannot read '" + from.string() + "'");
    out.close();
    if (!out) throw Error("cannot write '" + to.string() + "' (is the disk full?)");
}

// Copies every regular file under `from` (sub-folders included) into the new folder `to`,
// except a weight cache (engine/model/weight_cache.h): the copy's files get new times, so
// it would never match them, and it can be as large as the model.
void copy_model_folder(const fs::path& from, const fs::path& to, const ByteProgress& progress) {
    std::vector<fs::path> files;
    uint64_t total = 0;
    for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator(); ++it) {
        const fs::directory_entry& e = *it;
        if (e.is_directory() && e.path().filename() == ".precis-cache") {
            it.disable_recursion_pending();
            continue;
        }
        if (!e.is_regular_file()) continue;
        files.push_back(e.path());
        total += e.file_size();
    }
    fs::create_directories(to);
    uint64_t done = 0;
    for (const fs::path& f : files) {
        const fs::path target = to / fs::relative(f, from);
        fs::create_directories(target.parent_path());
        copy_file_in_chunks(f, target, done, total, progress);
    }
}

}  // namespace

ImportedModel import_model_folder(const fs::path& source_in, const fs::path& models_root,
                                  const EngineSettings& settings, const ByteProgress& progress) {
    const fs::path source = source_in.filename().empty() ? source_in.parent_path() : source_in;
    if (!fs::exists(source / "config.json"))
        throw Error("The folder " + source.string() + " has no config.json, so it is not a HuggingFace model folder.");
    const ModelConfig cfg = parse_model_config(source / "config.json");
    fs::create_directories(models_root);

    ImportedModel result;
    result.architecture = cfg.architecture;
    if (cfg.is_lsg) {
        result.dir = free_folder(models_root, source.filename().string());
        const fs::path partial = temp_sibling(result.dir, "partial");
        try {
            copy_model_folder(source, partial, progress);
            fs::rename(partial, result.dir);
        } catch (...) {
            std::error_code ec;
            fs::remove_all(partial, ec);
            throw;
        }
        result.message = QStringLiteral("Imported the LSG model into %1.").arg(QString::fromStdString(result.dir.string()));
        return result;
    }

    ConversionOptions conv;
    conv.max_positions = settings.max_positions > 0 ? settings.max_positions : 4096;
    const LsgSettings lsg = lsg_settings_for(settings, LsgSettings{});
    conv.block_size = lsg.block_size;
    conv.sparse_block_size = lsg.sparse_block_size;
    conv.sparsity_factor = lsg.sparsity_factor;
    conv.sparsity_type = sparsity_type_name(lsg.sparsity_type);
    conv.num_global_tokens = lsg.num_global_tokens;
    result.dir = free_folder(models_root, source.filename().string() + "-lsg");
    convert_bart_folder(source, result.dir, conv, &progress);  // itself atomic and cancellable
    result.converted = true;
    result.message = QStringLiteral("Converted the BART model to LSG (%1 positions) into %2.")
                          .arg(conv.max_positions)
                          .arg(QString::fromStdString(result.dir.string()));
    return result;
}

}  // namespace precis
