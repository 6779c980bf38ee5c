#include "ui/classification_view.h"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "app/library/current_labels.h"
#include "app/library/library.h"

namespace precis::ui {

namespace {

QString percent(double score) { return QStringLiteral("%1%").arg(score * 100.0, 0, 'f', 1); }

}  // namespace

ClassificationView::ClassificationView(Library& library, QWidget* parent)
    : QWidget(parent), library_(library), caption_(new QLabel(this)), grid_host_(new QWidget(this)),
      grid_(new QGridLayout(grid_host_)) {
    caption_->setWordWrap(true);
    caption_->setTextFormat(Qt::RichText);
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setHorizontalSpacing(8);
    grid_->setVerticalSpacing(2);
    grid_->setColumnStretch(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 4);
    layout->setSpacing(3);
    layout->addWidget(caption_);
    layout->addWidget(grid_host_);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    rebuild();
}

void ClassificationView::show_document(qint64 document_id) {
    document_id_ = document_id;
    rows_.clear();
    model_name_.clear();
    created_at_ = {};
    zero_shot_ = multi_label_ = false;
    const QVector<ClassificationRecord> run = document_id ? newest_classification(library_, document_id) : QVector<ClassificationRecord>{};
    if (!run.isEmpty()) {
        created_at_ = run.first().created_at;
        model_name_ = run.first().model_name;
        zero_shot_ = run.first().parameters.value("zero_shot").toBool();
        multi_label_ = run.first().parameters.value("multi_label").toBool();
    }
    for (const ClassificationRecord& c : run) rows_.push_back({c.label, c.score, is_predicted(c, run)});
    rebuild();
}

void ClassificationView::set_pending(qint64 document_id, const QString& state) {
    if (state.isEmpty())
        pending_.remove(document_id);
    else
        pending_.insert(document_id, state);
    rebuild();
}

QString ClassificationView::caption() const { return caption_->text(); }

void ClassificationView::rebuild() {
    while (QLayoutItem* item = grid_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const bool is_pending = pending();
    setVisible(document_id_ && (is_pending || !rows_.isEmpty()));
    if (rows_.isEmpty()) {
        caption_->setText(is_pending ? tr("<b>Labels</b> · <i>%1</i>").arg(pending_.value(document_id_).toHtmlEscaped()) : QString());
        grid_host_->hide();
        return;
    }
    const QString how = zero_shot_ ? tr("zero-shot") : tr("trained labels");
    QString caption = tr("<b>Labels</b> · %1 · %2%3")
                          .arg(model_name_.toHtmlEscaped(), how,
                               multi_label_ ? tr(", several may apply") : QString());
    if (is_pending) caption += tr(" · <i>%1</i>").arg(pending_.value(document_id_).toHtmlEscaped());
    caption_->setText(caption);
    caption_->setToolTip(tr("Classified %1 by %2. Single-label scores add up to 100%; with several labels allowed, "
                            "each label is scored on its own. ✓ marks the predicted labels.")
                             .arg(QLocale().toString(created_at_.toLocalTime(), QLocale::ShortFormat), model_name_));
    const int shown = std::min<int>(int(rows_.size()), kMaxRows);
    for (int i = 0; i < shown; ++i) {
        const Row& r = rows_[i];
        auto* name = new QLabel(grid_host_);
        name->setText(r.predicted ? QStringLiteral("<b>✓ %1</b>").arg(r.label.toHtmlEscaped()) : r.label.toHtmlEscaped());
        name->setToolTip(r.label);
        name->setMaximumWidth(220);
        auto* bar = new QProgressBar(grid_host_);
        bar->setRange(0, 1000);
        bar->setValue(int(std::lround(std::clamp(r.score, 0.0, 1.0) * 1000)));
        bar->setTextVisible(false);
        bar->setFixedHeight(9);
        bar->setToolTip(tr("%1: score %2").arg(r.label).arg(r.score, 0, 'f', 4));
        bar->setAccessibleName(tr("%1 score").arg(r.label));
        auto* value = new QLabel(percent(r.score), grid_host_);
        value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        value->setMinimumWidth(value->fontMetrics().horizontalAdvance(QStringLiteral("100.0%")));
        grid_->addWidget(name, i, 0);
        grid_->addWidget(bar, i, 1);
        grid_->addWidget(value, i, 2);
    }
    if (rows_.size() > shown) {
        QStringList rest;
        for (int i = shown; i < rows_.size(); ++i) rest << QStringLiteral("%1 %2").arg(rows_[i].label, percent(rows_[i].score));
        auto* more = new QLabel(tr("and %n more label(s)", nullptr, int(rows_.size()) - shown), grid_host_);
        more->setForegroundRole(QPalette::PlaceholderText);
        more->setToolTip(rest.join(QLatin1Char('\n')));
        grid_->addWidget(more, shown, 0, 1, 3);
    }
    grid_host_->show();
}

}  // namespace precis::ui
