// The classifier settings of the desktop app: labels as typed become a clean list, the
// choices survive QSettings, a zero-shot model needs labels and a trained one refuses
// them (one sentence each), and with no classifier anywhere the message says how to get one.
#include <gtest/gtest.h>

#include <QSettings>

#include "app/worker/classifier_settings.h"
#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "tests/support/fixtures.h"
#include "tests/support/test_models.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

Classifier load_classifier(const fs::path& dir) {
    LoadOptions lo;
    lo.tokenizer_dir = fixtures_dir() / "tokenizer/bart";
    return Classifier(Model::load(dir, lo), std::shared_ptr<Backend>(make_cpu_backend()));
}

TEST(ClassifierSettings, LabelsAreSplitAtCommasTrimmedAndDeduplicated) {
    ClassifierSettings s;
    s.labels = QStringLiteral(" invoice,contract , ,  Letter of  credit,INVOICE,");
    EXPECT_EQ(classifier_labels(s), (QStringList{"invoice", "contract", "Letter of credit"}));
    s.labels.clear();
    EXPECT_TRUE(classifier_labels(s).isEmpty());
}

TEST(ClassifierSettings, SurviveQSettings) {
    const QString file = QString::fromStdString((scratch_dir("classifier-settings") / "settings.ini").string());
    ClassifierSettings s;
    s.model_dir = QStringLiteral("/models/bart-large-mnli");
    s.labels = QStringLiteral("a, b");
    s.multi_label = true;
    {
        QSettings q(file, QSettings::IniFormat);
        save_classifier_settings(q, s);
    }
    QSettings q(file, QSettings::IniFormat);
    EXPECT_EQ(load_classifier_settings(q), s);
}

TEST(ClassifierSettings, ZeroShotNeedsLabelsAndTrainedLabelsRefuseThem) {
    const Classifier nli = load_classifier(make_classifier("settings-nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, ""));
    const Classifier topics = load_classifier(make_classifier("settings-topics", {{"0", "law"}, {"1", "health"}}, ""));
    ClassifierSettings s;
    try {
        classify_options_for(s, nli);
        ADD_FAILURE() << "a zero-shot model without labels was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Settings > Classification"), std::string::npos) << e.what();
    }
    s.labels = QStringLiteral("law, health");
    s.multi_label = true;
    const ClassifyOptions o = classify_options_for(s, nli);
    EXPECT_EQ(o.candidate_labels, (std::vector<std::string>{"law", "health"}));
    EXPECT_EQ(o.multi_label, std::optional<bool>(true));
    EXPECT_THROW(classify_options_for(s, topics), Error);
    s.labels.clear();
    EXPECT_TRUE(classify_options_for(s, topics).candidate_labels.empty());
}

TEST(ClassifierSettings, AChosenFolderIsUsedAsIsAndNoneFoundSaysHowToGetOne) {
    const fs::path dir = make_classifier("settings-chosen", {{"0", "law"}, {"1", "health"}}, "");
    ClassifierSettings s;
    s.model_dir = QString::fromStdString(dir.string());
    const std::optional<ResolvedClassifier> found = find_classifier_model(s);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->dir, dir);
    EXPECT_EQ(found->task, "classification");
    const QString message = no_classifier_message();
    EXPECT_TRUE(message.contains("bart-large-mnli")) << message.toStdString();
    EXPECT_TRUE(message.contains("Settings")) << message.toStdString();
}

}  // namespace
}  // namespace precis::test
