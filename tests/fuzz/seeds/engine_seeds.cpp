// Writes the seed corpora of the engine's fuzz targets at build time, from the shared test
// fixtures: `precis_fuzz_engine_seeds FIXTURES OUT` fills OUT/<target>/ for each target.
// Nothing binary is committed; a seed is a fixture file as is, or a piece of one (the
// pickle inside a checkpoint, a sentencepiece model trained on the fixture texts).
#include <sentencepiece_trainer.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engine/io/zip_reader.h"

namespace fs = std::filesystem;

namespace {

void write_seed(const fs::path& dir, const std::string& name, std::string_view bytes) {
    fs::create_directories(dir);
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
}

std::string read_all(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every model folder of the fixtures holds a config.json; most a generation_config.json.
void config_seeds(const fs::path& fixtures, const fs::path& out) {
    for (const auto& model : fs::directory_iterator(fixtures / "models")) {
        const std::string name = model.path().filename().string();
        if (fs::exists(model.path() / "config.json"))
            write_seed(out, name + "-config", read_all(model.path() / "config.json"));
        if (fs::exists(model.path() / "generation_config.json"))
            write_seed(out, name + "-generation", read_all(model.path() / "generation_config.json"));
    }
}

// The smallest safetensors files: the fuzzer mutates the header, and a small body keeps
// each run fast.
void safetensors_seeds(const fs::path& fixtures, const fs::path& out) {
    for (const char* model : {"bart-tiny", "bart-tiny-cls", "lsg-norm"})
        write_seed(out, model, read_all(fixtures / "models" / model / "model.safetensors"));
}

// torch_pickle_fuzz reads a first byte that picks the mode (even: a whole checkpoint,
// odd: a bare data.pkl it wraps itself); one seed of each.
void torch_pickle_seeds(const fs::path& fixtures, const fs::path& out) {
    const fs::path checkpoint = fixtures / "models" / "bart-tiny-bin" / "pytorch_model.bin";
    write_seed(out, "checkpoint", std::string(1, '\0') + read_all(checkpoint));
    const precis::ZipReader zip(checkpoint);
    for (const auto& entry : zip.entries()) {
        if (entry.name.size() >= 9 && entry.name.ends_with("/data.pkl")) {
            write_seed(out, "data-pkl", std::string(1, '\1') + std::string(zip.data(entry)));
            return;
        }
    }
    throw std::runtime_error("no data.pkl in " + checkpoint.string());
}

void tokenizer_json_seeds(const fs::path& fixtures, const fs::path& out) {
    write_seed(out, "bart", read_all(fixtures / "tokenizer" / "bart" / "tokenizer.json"));
}

// Two small models trained on the texts of the tokenizer fixture cases: BPE with BART's
// ids and unigram with sentencepiece's default ids (the two layouts the loader tells apart).
void sentencepiece_seeds(const fs::path& fixtures, const fs::path& out, const fs::path& work) {
    fs::create_directories(work);
    const fs::path corpus = work / "sentencepiece-corpus.txt";
    {
        std::ifstream cases(fixtures / "tokenizer" / "bart" / "cases.jsonl");
        std::ofstream text(corpus);
        std::string line;
        while (std::getline(cases, line)) {
            const auto row = nlohmann::json::parse(line);
            std::string s = row.at("text").get<std::string>();
            for (char& c : s)
                if (c == '\n' || c == '\r') c = ' ';
            if (!s.empty()) text << s << "\n";
        }
    }
    const std::pair<const char*, const char*> kinds[] = {
        {"bpe-bart-ids", "--model_type=bpe --bos_id=0 --pad_id=1 --eos_id=2 --unk_id=3"},
        {"unigram-default-ids", "--model_type=unigram"},
    };
    for (const auto& [name, flags] : kinds) {
        const fs::path prefix = work / name;
        const std::string args = "--input=" + corpus.string() + " --model_prefix=" + prefix.string() +
                                 " --vocab_size=400 --hard_vocab_limit=false --character_coverage=0.995"
                                 " --num_threads=1 --minloglevel=2 " + flags;
        if (const auto status = sentencepiece::SentencePieceTrainer::Train(args); !status.ok())
            throw std::runtime_error("training the " + std::string(name) + " seed model: " + status.ToString());
        write_seed(out, name, read_all(prefix.string() + ".model"));
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: precis_fuzz_engine_seeds FIXTURES OUT\n";
        return 2;
    }
    const fs::path fixtures = argv[1], out = argv[2];
    try {
        config_seeds(fixtures, out / "config_fuzz");
        safetensors_seeds(fixtures, out / "safetensors_fuzz");
        torch_pickle_seeds(fixtures, out / "torch_pickle_fuzz");
        tokenizer_json_seeds(fixtures, out / "tokenizer_json_fuzz");
        sentencepiece_seeds(fixtures, out / "sentencepiece_fuzz", out / "work");
        fs::remove_all(out / "work");
    } catch (const std::exception& e) {
        std::cerr << "precis_fuzz_engine_seeds: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
