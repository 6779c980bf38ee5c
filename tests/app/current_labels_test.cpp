// A document's current labels: the newest classification run (one model, one time) and
// the labels it predicted, which the window shows and its label filter lists by.
#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QJsonObject>
#include <QThread>

#include "app/ingest/ingest.h"
#include "app/library/current_labels.h"
#include "app/library/library.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

IngestedDocument make_doc(const QString& title) {
    IngestedDocument d;
    d.path = QStringLiteral("/docs/%1.txt").arg(title);
    d.title = title;
    d.text = title + QStringLiteral(" text");
    d.encoding = QStringLiteral("UTF-8");
    d.content_hash = QCryptographicHash::hash(d.text.toUtf8(), QCryptographicHash::Sha256).toHex();
    return d;
}

ClassificationRecord record(qint64 doc, const QString& model, const QString& label, double score, bool predicted) {
    return {0, doc, model, QJsonObject{{"predicted", predicted}}, label, score, {}};
}

class CurrentLabelsTest : public ::testing::Test {
protected:
    void SetUp() override { path_ = QString::fromStdString((scratch_dir("current-labels") / "library.sqlite").string()); }
    QString path_;
};

TEST_F(CurrentLabelsTest, TheNewestRunIsShownAndAnOlderRunIsNot) {
    Library lib(path_);
    const qint64 doc = lib.add_or_get_document(make_doc("A"));
    EXPECT_TRUE(newest_classification(lib, doc).isEmpty());
    lib.add_classifications({record(doc, "old", "sports", 0.9, true), record(doc, "old", "politics", 0.1, false)});
    QThread::msleep(5);  // the library stamps runs to the millisecond
    lib.add_classifications({record(doc, "new", "politics", 0.6, true), record(doc, "new", "sports", 0.3, false),
                             record(doc, "new", "weather", 0.1, false)});
    const QVector<ClassificationRecord> run = newest_classification(lib, doc);
    ASSERT_EQ(run.size(), 3);
    EXPECT_EQ(run[0].label, "politics");
    for (const ClassificationRecord& c : run) EXPECT_EQ(c.model_name, "new");
    EXPECT_TRUE(is_predicted(run[0], run));
    EXPECT_FALSE(is_predicted(run[1], run));
}

TEST_F(CurrentLabelsTest, FilterListsDocumentsWhoseNewestRunPredictedTheLabel) {
    Library lib(path_);
    const qint64 a = lib.add_or_get_document(make_doc("A"));
    const qint64 b = lib.add_or_get_document(make_doc("B"));
    const qint64 c = lib.add_or_get_document(make_doc("C"));
    lib.add_classifications({record(a, "m", "sports", 0.8, true), record(a, "m", "politics", 0.2, false)});
    lib.add_classifications({record(b, "m", "politics", 0.7, true), record(b, "m", "sports", 0.3, false)});
    lib.add_classifications({record(c, "m", "sports", 0.9, true)});
    QThread::msleep(5);
    lib.add_classifications({record(c, "m", "politics", 0.6, true), record(c, "m", "sports", 0.4, false)});  // relabelled
    EXPECT_EQ(documents_predicted_as(lib, "sports"), (QSet<qint64>{a}));
    EXPECT_EQ(documents_predicted_as(lib, "politics"), (QSet<qint64>{b, c}));
    EXPECT_TRUE(documents_predicted_as(lib, "weather").isEmpty());
}

TEST_F(CurrentLabelsTest, RecordsWithoutThePredictedFlagCountTheBestScoreAsPredicted) {
    Library lib(path_);
    const qint64 doc = lib.add_or_get_document(make_doc("A"));
    lib.add_classifications({{0, doc, "cli", {}, "sports", 0.7, {}}, {0, doc, "cli", {}, "politics", 0.3, {}}});
    EXPECT_EQ(documents_predicted_as(lib, "sports"), (QSet<qint64>{doc}));
    EXPECT_TRUE(documents_predicted_as(lib, "politics").isEmpty());
}

}  // namespace
}  // namespace precis::test
