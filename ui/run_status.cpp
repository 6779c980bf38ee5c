#include "ui/run_status.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>

namespace precis::ui {

namespace {

// The stage keeps one width while a run goes on (the message beside it does not jump at
// every "120 of 142"), gives way to the status-bar message when the bar is narrow, and cuts
// the run's name (a file's) in its middle before the stage and its count; the whole text is
// the tooltip and text().
class StageLabel : public QLabel {
public:
    static constexpr int kWidth = 300, kNarrowest = 140;
    using QLabel::QLabel;

    // "what: stage", or `what` alone when `stage` is empty.
    void set_parts(const QString& what, const QString& stage) {
        what_ = what;
        stage_ = stage;
        setText(stage.isEmpty() ? what : what.isEmpty() ? stage : QStringLiteral("%1: %2").arg(what, stage));
        setToolTip(text());
    }

    QSize sizeHint() const override { return {kWidth, QLabel::sizeHint().height()}; }
    QSize minimumSizeHint() const override { return {kNarrowest, QLabel::minimumSizeHint().height()}; }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        const QRect r = contentsRect();
        const QFontMetrics m = fontMetrics();
        QString shown = text();
        if (m.horizontalAdvance(shown) > r.width()) {
            const QString tail = QStringLiteral(": ") + stage_;
            const int room = r.width() - m.horizontalAdvance(tail);
            shown = !what_.isEmpty() && !stage_.isEmpty() && room >= m.horizontalAdvance(QStringLiteral("Summarizing a…z.pdf"))
                        ? m.elidedText(what_, Qt::ElideMiddle, room) + tail
                        : m.elidedText(shown, Qt::ElideMiddle, r.width());
        }
        p.setPen(palette().color(foregroundRole()));
        p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, shown);
    }

private:
    QString what_, stage_;
};

}  // namespace

RunStatus::RunStatus(QWidget* parent)
    : QWidget(parent), stage_(new StageLabel(this)), bar_(new QProgressBar(this)), cancel_(new QPushButton(tr("Cancel"), this)) {
    bar_->setFixedWidth(140);
    bar_->setTextVisible(false);
    stage_->setTextFormat(Qt::PlainText);
    cancel_->setToolTip(tr("Stop the running job (Esc); nothing half-done is stored"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(stage_);
    layout->addWidget(bar_);
    layout->addWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, this, &RunStatus::cancel_requested);
    finish();
}

void RunStatus::start(const QString& what) {
    what_ = what;
    running_ = true;
    show();
    static_cast<StageLabel*>(stage_)->set_parts(what, {});
    bar_->setRange(0, 0);
    bar_->show();
    cancel_->show();
    cancel_->setEnabled(true);
}

void RunStatus::set_stage(const QString& stage, int done, int total) {
    if (!running_) return;
    static_cast<StageLabel*>(stage_)->set_parts(what_, stage);
    if (total > 0) {
        bar_->setRange(0, total);
        bar_->setValue(done);
    } else {
        bar_->setRange(0, 0);
    }
}

void RunStatus::finish() {
    running_ = false;
    stage_->clear();
    stage_->setToolTip(QString());
    bar_->hide();
    cancel_->hide();
    // Idle, the corner is hidden whole: its empty stage label would keep 260 pixels of the
    // status bar from the message (issue 42).
    hide();
}

}  // namespace precis::ui
