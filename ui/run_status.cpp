#include "ui/run_status.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace precis::ui {

RunStatus::RunStatus(QWidget* parent)
    : QWidget(parent), stage_(new QLabel(this)), bar_(new QProgressBar(this)), cancel_(new QPushButton(tr("Cancel"), this)) {
    bar_->setFixedWidth(180);
    bar_->setTextVisible(false);
    stage_->setMinimumWidth(260);
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
    stage_->setText(what);
    bar_->setRange(0, 0);
    bar_->show();
    cancel_->show();
    cancel_->setEnabled(true);
}

void RunStatus::set_stage(const QString& stage, int done, int total) {
    if (!running_) return;
    stage_->setText(what_.isEmpty() ? stage : QStringLiteral("%1: %2").arg(what_, stage));
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
    bar_->hide();
    cancel_->hide();
}

}  // namespace precis::ui
