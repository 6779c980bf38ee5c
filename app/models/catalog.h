#pragma once
// The curated model catalog (resources/models/catalog.json): HuggingFace repos Precis runs,
// each with what it is for, its input length, size, licence and, where its model card
// states them, ROUGE figures.
#include <QString>

#include <filesystem>
#include <vector>

namespace precis::models {

struct CatalogEntry {
    QString repo, revision = QStringLiteral("main");
    QString task;        // "summarization" or "zero-shot labels"
    QString good_for;
    int input_tokens = 0;
    QString attention;   // "LSG" or "full"
    int params_millions = 0;  // as the model card states it; 0: not confirmed
    QString licence;     // empty: not confirmed from the model card
    QString rouge;       // "R1 47.37 / R2 21.74 / RL 28.59 / RLsum 43.67 (dataset)", empty if none
    QString rouge_figures;  // "47.37 / 21.74 / 28.59 / 43.67" (R1 / R2 / RL / RLsum), for a table column
    QString rouge_dataset;  // "scientific_papers pubmed test"
    int offer_lsg_conversion = 0;  // >0: a plain BART offered converted to LSG with this many positions
    bool recommended = false;

    QString name() const { return repo.section('/', -1); }  // the folder it installs as
    qint64 approx_bytes() const { return qint64(params_millions) * 4'000'000; }  // float32 weights
};

// Reads the catalog (model_catalog_path() unless given); recommended entries first, then in
// file order. Throws precis::Error naming the file when it is missing or malformed.
std::vector<CatalogEntry> load_catalog(const std::filesystem::path& path = {});

// "1.6 GB", "580 MB", "12 KB", "0 B" (powers of 1000, as download sizes are quoted).
QString format_bytes(qint64 bytes);
// "3 s", "4 min 10 s", "1 h 02 min".
QString format_duration(double seconds);

}  // namespace precis::models
