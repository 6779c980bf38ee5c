#include "ui/default_model_box.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include "app/models/model_store.h"

namespace precis::ui {

DefaultModelBox::DefaultModelBox(QWidget* parent) : QWidget(parent), combo_(new QComboBox(this)), note_(new QLabel(this)) {
    combo_->setObjectName("default-model");
    combo_->setToolTip(tr("The model the window and the precis commands summarize with; the command line sets "
                          "the same one with precis model default NAME"));
    note_->setForegroundRole(QPalette::PlaceholderText);
    note_->setText(tr("shared with the command line"));
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(combo_, 1);
    row->addWidget(note_);
    refresh();
}

void DefaultModelBox::refresh() {
    // What the user picked but has not applied yet survives a refresh (a download finishing).
    const QString keep = combo_->count() > 0 && changed() ? chosen() : QString();
    // The stored name; when none is stored the box still shows the model used in its place
    // (the first installed), and OK stores it, so a later install cannot change it unasked.
    persisted_ = models::default_model_name();
    QString effective;
    combo_->clear();
    const std::vector<models::ModelInfo> all = models::all_models();
    for (const models::ModelInfo& m : all) {
        // Only summarizers: a classifier as the default would be refused by summarize.
        if (!m.usable || m.task != QLatin1String("summarization")) continue;
        const QString where = m.in_hf_cache ? tr("HuggingFace cache") : tr("installed");
        combo_->addItem(tr("%1  (%2)").arg(m.name, where), m.name);
        combo_->setItemData(combo_->count() - 1, QString::fromStdString(m.dir.string()), Qt::ToolTipRole);
        if (m.is_default) effective = m.name;
    }
    if (combo_->count() == 0) combo_->addItem(tr("none installed for summaries: Download… adds one"), QString());
    combo_->setEnabled(combo_->itemData(0).isValid() && !combo_->itemData(0).toString().isEmpty());
    const int at = combo_->findData(keep.isEmpty() ? effective : keep);
    combo_->setCurrentIndex(std::max(0, at));
}

QString DefaultModelBox::chosen() const { return combo_->currentData().toString(); }

bool DefaultModelBox::changed() const { return !chosen().isEmpty() && chosen() != persisted_; }

QString DefaultModelBox::apply() {
    if (!changed()) return {};
    try {
        models::set_default_model(chosen());
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    persisted_ = chosen();
    return {};
}

}  // namespace precis::ui
