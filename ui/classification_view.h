#pragma once
// The document's labels, at the top of the summary pane: the newest classification stored
// in the library (which model made it, when), one row per label with a score bar and a
// percentage, the predicted labels in bold with a check mark. While a classification of the
// shown document runs or waits in the queue, it says so; with none stored it stays hidden.
#include <QDateTime>
#include <QHash>
#include <QVector>
#include <QWidget>

class QGridLayout;
class QLabel;

namespace precis {
class Library;
}

namespace precis::ui {

class ClassificationView : public QWidget {
    Q_OBJECT
public:
    struct Row {
        QString label;
        double score = 0;
        bool predicted = false;
    };
    // Rows beyond this many are counted in a last line (with all of them in its tooltip).
    static constexpr int kMaxRows = 5;

    explicit ClassificationView(Library& library, QWidget* parent = nullptr);

    // Reads the document's newest classification from the library (0: clears).
    void show_document(qint64 document_id);
    // What is happening to a document's classification ("waiting in the queue",
    // "classifying…"); an empty state clears it. Said in the caption while it is shown.
    void set_pending(qint64 document_id, const QString& state);
    QList<qint64> pending_documents() const { return pending_.keys(); }

    qint64 document_id() const { return document_id_; }
    const QVector<Row>& rows() const { return rows_; }
    QString caption() const;
    bool pending() const { return pending_.contains(document_id_); }

private:
    void rebuild();

    Library& library_;
    qint64 document_id_ = 0;
    QHash<qint64, QString> pending_;  // by document
    QVector<Row> rows_;
    QString model_name_;
    QDateTime created_at_;
    bool zero_shot_ = false, multi_label_ = false;
    QLabel* caption_;
    QWidget* grid_host_;
    QGridLayout* grid_;
};

}  // namespace precis::ui
