// Classification in the main window: Classify runs on the worker through the run queue
// (behind a running summary), stores labels with scores in the library, shows them with
// score bars in the summary pane and again when the document is re-opened (also in a new
// window on the same library); the library's label filter lists the documents given a
// label; without a classifier (or without labels for a zero-shot one) Classify says what
// to do; the classifier settings are remembered; a batch can classify every file; and
// Classify is on the Document menu and the toolbar, and Ctrl+L runs it.
// The classifiers are tiny random models built from the fixtures (tests/support).
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTabWidget>
#include <QToolBar>

#include <cmath>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "app/worker/model_cache.h"
#include "tests/support/test_models.h"
#include "tests/ui/ui_test_support.h"
#include "ui/batch_dialog.h"
#include "ui/classification_view.h"
#include "ui/classifier_settings_box.h"
#include "ui/library_model.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/run_queue_panel.h"
#include "ui/run_status.h"
#include "ui/settings_dialog.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;
using ui::MainWindow;
using Task = ui::RunQueuePanel::Task;
using State = ui::RunQueuePanel::State;

// A classifier folder the engine can read text with: the fixtures' tokenizer copied in.
fs::path classifier_model(const std::string& name, const nlohmann::json& id2label) {
    const fs::path dir = make_classifier(name, id2label, "");
    fs::copy_file(fixtures_dir() / "tokenizer/bart/tokenizer.json", dir / "tokenizer.json", fs::copy_options::overwrite_existing);
    return dir;
}

fs::path topic_classifier() { return classifier_model("gui-topics", {{"0", "rivers"}, {"1", "cooking"}, {"2", "finance"}}); }
fs::path nli_classifier() {
    return classifier_model("gui-nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}});
}

EngineSettings settings_with_classifier(const fs::path& dir, const QString& labels = {}) {
    EngineSettings s = fixture_model_settings();
    s.classifier.model_dir = QString::fromStdString(dir.string());
    s.classifier.labels = labels;
    return s;
}

class ClassifyWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        dir_ = scratch_dir("classify-window");
        library_path_ = QString::fromStdString((dir_ / "library.sqlite").string());
    }
    void TearDown() override { window_.reset(); }

    void open_window(const EngineSettings& settings) {
        QSettings q;
        q.clear();
        save_engine_settings(q, settings);
        ui::MainWindowOptions o;
        o.library_path = library_path_;
        window_ = std::make_unique<MainWindow>(o);
        window_->resize(1024, 700);
        window_->show();
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }

    qint64 open_and_wait(const std::string& name, const std::string& text) {
        const auto path = write_text_file(dir_ / name, text);
        window_->open_file(QString::fromStdString(path.string()));
        EXPECT_TRUE(wait_until([&] {
            const auto doc = window_->library().document(window_->current_document());
            return !window_->engine()->busy() && doc && doc->path.endsWith(QString::fromStdString(name));
        }));
        return window_->current_document();
    }

    void classify_and_wait(qint64 document_id) {
        window_->show_document(document_id);
        window_->classify_current();
        ASSERT_TRUE(wait_until([&] {
            return !window_->library().classifications_for(document_id).isEmpty() && !window_->engine()->busy();
        }));
        QApplication::processEvents();
    }

    // The documents the library table shows now.
    QSet<qint64> listed_documents() const {
        QSet<qint64> ids;
        QAbstractItemModel* m = window_->library_panel()->table()->model();
        for (int r = 0; r < m->rowCount(); ++r) ids.insert(m->index(r, 0).data(ui::LibraryModel::DocumentIdRole).toLongLong());
        return ids;
    }

    QMessageBox* classifier_missing_box() const {
        for (QMessageBox* box : window_->findChildren<QMessageBox*>(QStringLiteral("classifier-missing")))
            if (box->isVisible()) return box;
        return nullptr;
    }

    fs::path dir_;
    QString library_path_;
    std::unique_ptr<MainWindow> window_;
};

TEST_F(ClassifyWindowTest, ClassifyStoresLabelsAndShowsThemWithScoresAgainAfterReopening) {
    open_window(settings_with_classifier(topic_classifier()));
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    const qint64 other = open_and_wait("bread.txt", "Flour, water, salt and time make bread. Knead the dough until smooth.\n");
    window_->show_document(doc);
    window_->classify_current();
    EXPECT_EQ(window_->run_status()->stage_label()->text(), "Classifying rivers.txt");
    ASSERT_TRUE(wait_until([&] { return !window_->library().classifications_for(doc).isEmpty() && !window_->engine()->busy(); }));
    QApplication::processEvents();

    // Stored: every label of the model once, single-label scores adding up to one, one predicted.
    const QVector<ClassificationRecord> stored = window_->library().classifications_for(doc);
    ASSERT_EQ(stored.size(), 3);
    double sum = 0;
    int predicted = 0;
    for (const ClassificationRecord& c : stored) {
        sum += c.score;
        predicted += c.parameters.value("predicted").toBool();
        EXPECT_EQ(c.model_name, "gui-topics");
    }
    EXPECT_NEAR(sum, 1.0, 1e-4);
    EXPECT_EQ(predicted, 1);
    EXPECT_TRUE(window_->library().classifications_for(other).isEmpty());

    // Shown beside the summary: best label first, with its bar and percentage.
    ui::ClassificationView* view = window_->summary_panel()->classification_view();
    EXPECT_TRUE(view->isVisible());
    ASSERT_EQ(view->rows().size(), 3);
    EXPECT_EQ(view->rows()[0].label, stored[0].label);
    EXPECT_TRUE(view->rows()[0].predicted);
    EXPECT_TRUE(view->caption().contains("gui-topics")) << view->caption().toStdString();
    const QList<QProgressBar*> bars = view->findChildren<QProgressBar*>();
    ASSERT_EQ(bars.size(), 3);
    QStringList texts;
    for (QLabel* l : view->findChildren<QLabel*>()) texts << l->text();
    EXPECT_TRUE(texts.contains(QStringLiteral("%1%").arg(stored[0].score * 100, 0, 'f', 1))) << texts.join(" | ").toStdString();
    int top_bar = 0;
    for (QProgressBar* b : bars) top_bar = std::max(top_bar, b->value());
    EXPECT_EQ(top_bar, int(std::lround(stored[0].score * 1000)));

    // Another document has no labels; coming back shows them again.
    window_->show_document(other);
    EXPECT_FALSE(view->isVisible());
    EXPECT_TRUE(view->rows().isEmpty());
    window_->show_document(doc);
    EXPECT_EQ(view->rows().size(), 3);

    // A new window on the same library (the application started again) shows them too.
    window_.reset();
    open_window(settings_with_classifier(topic_classifier()));
    window_->show_document(doc);
    ui::ClassificationView* again = window_->summary_panel()->classification_view();
    EXPECT_TRUE(again->isVisible());
    ASSERT_EQ(again->rows().size(), 3);
    EXPECT_EQ(again->rows()[0].label, stored[0].label);
}

TEST_F(ClassifyWindowTest, ClassifyIsInTheDocumentMenuAndToolbarAndCtrlLRunsIt) {
    open_window(settings_with_classifier(topic_classifier()));
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    QAction* classify = nullptr;
    for (QAction* menu : window_->menuBar()->actions())
        if (menu->menu() && menu->text() == "&Document")
            for (QAction* a : menu->menu()->actions())
                if (a->text() == "C&lassify") classify = a;
    ASSERT_NE(classify, nullptr);
    EXPECT_EQ(classify->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_L));
    bool on_toolbar = false;
    for (QToolBar* bar : window_->findChildren<QToolBar*>()) on_toolbar |= bar->actions().contains(classify);
    EXPECT_TRUE(on_toolbar);

    window_->activateWindow();
    QTest::keyClick(window_.get(), Qt::Key_L, Qt::ControlModifier);
    ASSERT_TRUE(wait_until([&] { return !window_->library().classifications_for(doc).isEmpty() && !window_->engine()->busy(); }));
}

TEST_F(ClassifyWindowTest, ClassifyWaitsInTheQueueBehindARunningSummary) {
    open_window(settings_with_classifier(topic_classifier()));
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    ui::RunQueuePanel* queue = window_->run_queue();
    // No event loop turn between the calls: the summary is still running when Classify comes.
    window_->summarize_current();
    window_->classify_current();
    window_->classify_current();  // twice: queued once
    ASSERT_EQ(queue->entries().size(), 2);
    EXPECT_EQ(queue->entries()[0].task, Task::Summarize);
    EXPECT_EQ(queue->entries()[0].state, State::Running);
    EXPECT_EQ(queue->entries()[1].task, Task::Classify);
    EXPECT_EQ(queue->entries()[1].state, State::Waiting);
    EXPECT_TRUE(queue->is_waiting(doc, Task::Classify));
    EXPECT_TRUE(queue->list()->item(1)->text().startsWith("Classify rivers.txt")) << queue->list()->item(1)->text().toStdString();
    ui::ClassificationView* view = window_->summary_panel()->classification_view();
    EXPECT_TRUE(view->isVisible());
    EXPECT_TRUE(view->caption().contains("waiting in the queue")) << view->caption().toStdString();

    QStringList lines;
    QObject::connect(window_->engine()->worker(), &EngineWorker::progress, window_.get(),
                     [&] { lines << window_->run_status()->stage_label()->text(); });
    ASSERT_TRUE(wait_until([&] { return queue->entries()[1].state == State::Done && !window_->engine()->busy(); }));
    EXPECT_EQ(queue->entries()[0].state, State::Done);
    EXPECT_EQ(window_->library().summaries_for(doc).size(), 1);
    EXPECT_EQ(window_->library().classifications_for(doc).size(), 3);
    EXPECT_TRUE(lines.filter("Classifying rivers.txt").size() > 0) << lines.join(" | ").toStdString();
    EXPECT_EQ(view->rows().size(), 3);
    EXPECT_FALSE(view->pending());
}

TEST_F(ClassifyWindowTest, RemovingAWaitingClassificationForgetsIt) {
    open_window(settings_with_classifier(topic_classifier()));
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    window_->summarize_current();
    window_->classify_current();
    ui::RunQueuePanel* queue = window_->run_queue();
    ASSERT_EQ(queue->entries().size(), 2);
    ui::ClassificationView* view = window_->summary_panel()->classification_view();
    EXPECT_TRUE(view->pending());
    EXPECT_TRUE(queue->remove(queue->entries()[1].id));
    EXPECT_FALSE(view->pending());
    EXPECT_FALSE(view->isVisible());
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
    QApplication::processEvents();
    EXPECT_EQ(window_->library().summaries_for(doc).size(), 1);
    EXPECT_TRUE(window_->library().classifications_for(doc).isEmpty());  // never classified
}

TEST_F(ClassifyWindowTest, CancelledClassificationStoresNothing) {
    open_window(settings_with_classifier(topic_classifier()));
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    WorkerGate gate(window_->engine()->worker());  // the classification cannot end before the cancel
    window_->classify_current();
    EXPECT_TRUE(window_->summary_panel()->classification_view()->pending());
    window_->cancel_run();
    gate.release();
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
    QApplication::processEvents();
    ASSERT_EQ(window_->run_queue()->entries().size(), 1);
    EXPECT_EQ(window_->run_queue()->entries()[0].state, State::Cancelled);
    EXPECT_TRUE(window_->library().classifications_for(doc).isEmpty());
    EXPECT_FALSE(window_->summary_panel()->classification_view()->pending());
    EXPECT_FALSE(window_->summary_panel()->classification_view()->isVisible());
}

TEST_F(ClassifyWindowTest, LabelFilterListsOnlyTheDocumentsGivenThatLabel) {
    open_window(settings_with_classifier(topic_classifier()));
    const qint64 a = open_and_wait("rivers.txt", river_paragraphs());
    const qint64 b = open_and_wait("harbour.txt", "Ships unload grain at the harbour; the bakery by the quay sells bread at dawn.\n");
    const qint64 c = open_and_wait("unlabelled.txt", "Nobody classified this note about tides and the moon.\n");
    classify_and_wait(a);
    window_->set_settings(settings_with_classifier(nli_classifier(), "harbour, bakery"));
    classify_and_wait(b);

    QString predicted_a, scored_not_predicted_a, predicted_b;
    for (const ClassificationRecord& r : window_->library().classifications_for(a))
        (r.parameters.value("predicted").toBool() ? predicted_a : scored_not_predicted_a) = r.label;
    for (const ClassificationRecord& r : window_->library().classifications_for(b))
        if (r.parameters.value("predicted").toBool()) predicted_b = r.label;
    ASSERT_FALSE(predicted_a.isEmpty());
    ASSERT_FALSE(predicted_b.isEmpty());
    EXPECT_TRUE(predicted_b == "harbour" || predicted_b == "bakery") << predicted_b.toStdString();

    QComboBox* filter = window_->library_panel()->label_filter();
    EXPECT_TRUE(filter->isVisible());
    for (const QString& l : {predicted_a, predicted_b}) EXPECT_GE(filter->findData(l), 0) << l.toStdString();
    EXPECT_EQ(listed_documents(), (QSet<qint64>{a, b, c}));
    filter->setCurrentIndex(filter->findData(predicted_b));
    EXPECT_EQ(listed_documents(), (QSet<qint64>{b}));
    filter->setCurrentIndex(filter->findData(predicted_a));
    EXPECT_EQ(listed_documents(), (QSet<qint64>{a}));
    // A label the classifier scored but did not give is not offered (it would list nothing).
    EXPECT_LT(filter->findData(scored_not_predicted_a), 0) << scored_not_predicted_a.toStdString();
    filter->setCurrentIndex(0);  // All labels
    EXPECT_EQ(listed_documents(), (QSet<qint64>{a, b, c}));
}

TEST_F(ClassifyWindowTest, WithoutAClassifierClassifySaysHowToGetOne) {
    open_window(fixture_model_settings());  // no classifier folder, and none installed in the test's home
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    window_->classify_current();
    QMessageBox* box = classifier_missing_box();
    ASSERT_NE(box, nullptr);
    EXPECT_TRUE(box->text().contains("No classifier model is installed")) << box->text().toStdString();
    EXPECT_TRUE(box->text().contains("Download")) << box->text().toStdString();
    EXPECT_TRUE(window_->run_queue()->entries().isEmpty());
    EXPECT_FALSE(window_->engine()->busy());
    box->close();
    QApplication::processEvents();

    // A zero-shot model without labels: asked for the labels, nothing runs.
    window_->set_settings(settings_with_classifier(nli_classifier()));
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
    window_->classify_current();
    box = classifier_missing_box();
    ASSERT_NE(box, nullptr);
    EXPECT_TRUE(box->text().contains("zero-shot")) << box->text().toStdString();
    EXPECT_TRUE(box->text().contains("Settings > Classification")) << box->text().toStdString();
    EXPECT_TRUE(window_->run_queue()->entries().isEmpty());
    box->close();
    QApplication::processEvents();

    // The summarizer's folder chosen as the classifier: said at once, nothing runs.
    window_->set_settings(settings_with_classifier(fixtures_dir() / "models" / "bart-tiny-realvocab"));
    window_->classify_current();
    box = classifier_missing_box();
    ASSERT_NE(box, nullptr);
    EXPECT_TRUE(box->text().contains("summarization model")) << box->text().toStdString();
    EXPECT_TRUE(window_->run_queue()->entries().isEmpty());
    EXPECT_TRUE(window_->library().classifications_for(doc).isEmpty());
}

TEST_F(ClassifyWindowTest, ClassifierSettingsAreRememberedAndAZeroShotModelNeedsLabels) {
    open_window(fixture_model_settings());
    const fs::path nli = nli_classifier();
    ui::SettingsDialog dialog(window_->settings(), window_->engine(), window_.get());
    ui::ClassifierSettingsBox* box = dialog.classifier_box();
    box->folder()->setText(QString::fromStdString(nli.string()));
    emit box->folder()->editingFinished();
    EXPECT_TRUE(box->note()->text().contains("Zero-shot")) << box->note()->text().toStdString();
    dialog.accept();  // refused: no labels
    EXPECT_NE(dialog.result(), QDialog::Accepted);
    EXPECT_EQ(dialog.tabs()->currentIndex(), ui::SettingsDialog::kClassificationTab);  // the problem is in view
    EXPECT_TRUE(box->problem().contains("zero-shot")) << box->problem().toStdString();
    box->labels()->setText(" harbour,  bakery , ,harbour");
    box->multi_label()->setChecked(true);
    EXPECT_TRUE(box->problem().isEmpty()) << box->problem().toStdString();
    const EngineSettings chosen = dialog.settings();
    EXPECT_EQ(classifier_labels(chosen.classifier), (QStringList{"harbour", "bakery"}));
    EXPECT_EQ(chosen.model_dir, window_->settings().model_dir);  // the summarizer's folder is its own
    window_->set_settings(chosen);
    const EngineSettings reloaded = load_engine_settings(QSettings());
    EXPECT_EQ(reloaded.classifier, chosen.classifier);
    EXPECT_TRUE(reloaded.classifier.multi_label);

    // A trained classifier has its own labels: typed labels are refused.
    box->folder()->setText(QString::fromStdString(topic_classifier().string()));
    emit box->folder()->editingFinished();
    EXPECT_TRUE(box->note()->text().contains("rivers, cooking, finance")) << box->note()->text().toStdString();
    EXPECT_TRUE(box->problem().contains("own fixed labels")) << box->problem().toStdString();
}

TEST_F(ClassifyWindowTest, BatchClassifiesEveryFileWhenAsked) {
    const fs::path folder = dir_ / "inbox";
    write_text_file(folder / "a-rivers.txt", river_paragraphs());
    write_text_file(folder / "b-bread.md", "# Bread\n\nFlour, water, salt and time make bread. Knead until smooth.\n");
    ui::BatchDialog dialog(library_path_, std::make_shared<ModelCache>(),
                           settings_with_classifier(nli_classifier(), "harbour, bakery, rivers"));
    dialog.set_folder(QString::fromStdString(folder.string()));
    dialog.set_classify(true);
    dialog.show();
    QSignalSpy finished(&dialog, &ui::BatchDialog::finished_batch);
    dialog.start();
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    const BatchOutcome o = finished.first().first().value<BatchOutcome>();
    EXPECT_EQ(o.done_now, 2);
    EXPECT_TRUE(o.failures.isEmpty());
    // Issue 42, item 9: the finish line says how many were classified.
    EXPECT_EQ(o.classified, 2);
    EXPECT_TRUE(dialog.report()->text().contains("2 classified")) << dialog.report()->text().toStdString();
    save_shot_if_asked(&dialog, "batch-finished-classified.png");
    Library library(library_path_);
    ASSERT_EQ(library.documents().size(), 2);
    for (const DocumentListItem& d : library.documents()) {
        const QVector<ClassificationRecord> labels = library.classifications_for(d.document.id);
        ASSERT_EQ(labels.size(), 3) << d.document.path.toStdString();
        EXPECT_TRUE(labels[0].parameters.value("zero_shot").toBool());
        EXPECT_EQ(library.summaries_for(d.document.id).size(), 1);
    }
}

TEST_F(ClassifyWindowTest, BatchWithoutAClassifierFailsWithHowToGetOne) {
    const fs::path folder = dir_ / "inbox-none";
    write_text_file(folder / "a-rivers.txt", river_paragraphs());
    ui::BatchDialog dialog(library_path_, std::make_shared<ModelCache>(), fixture_model_settings());
    dialog.set_folder(QString::fromStdString(folder.string()));
    dialog.set_classify(true);
    dialog.show();
    dialog.start();
    ASSERT_TRUE(wait_until([&] { return !dialog.running(); }));
    EXPECT_TRUE(dialog.report()->text().contains("No classifier model is installed")) << dialog.report()->text().toStdString();
    EXPECT_TRUE(Library(library_path_).documents().isEmpty());
}

TEST_F(ClassifyWindowTest, BatchWithASummarizerAsClassifierSaysItCannotClassify) {
    const fs::path folder = dir_ / "inbox-summarizer";
    write_text_file(folder / "a-rivers.txt", river_paragraphs());
    ui::BatchDialog dialog(library_path_, std::make_shared<ModelCache>(),
                           settings_with_classifier(fixtures_dir() / "models" / "bart-tiny-realvocab"));
    dialog.set_folder(QString::fromStdString(folder.string()));
    dialog.set_classify(true);
    dialog.show();
    dialog.start();
    ASSERT_TRUE(wait_until([&] { return !dialog.running(); }));
    EXPECT_TRUE(dialog.report()->text().contains("summarization model, not a classifier")) << dialog.report()->text().toStdString();
    EXPECT_TRUE(Library(library_path_).documents().isEmpty());
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
