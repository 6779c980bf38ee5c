#include "ui/model_banner.h"

#include "app/models/catalog.h"
#include "engine/core/error.h"

namespace precis::ui {

namespace {

// "lsg-bart-base-4096-pubmed, about 580 MB", or empty when the catalog cannot be read.
QString recommended_model() {
    try {
        for (const models::CatalogEntry& e : models::load_catalog()) {
            if (!e.recommended) continue;
            return e.approx_bytes() > 0 ? QObject::tr("%1, about %2").arg(e.name(), models::format_bytes(e.approx_bytes()))
                                        : e.name();
        }
    } catch (const Error&) {
    }
    return {};
}

}  // namespace

ModelBanner::ModelBanner(QWidget* parent) : QLabel(parent) {
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    setOpenExternalLinks(false);
    connect(this, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("download")) emit download_requested();
        if (link == QLatin1String("folder")) emit use_folder_requested();
    });
    hide();
}

void ModelBanner::show_for(const ModelInfo& info) {
    if (info.extractive && info.source == QLatin1String("no model installed")) {
        setStyleSheet(QStringLiteral("background:#1e3a8a; color:white; padding:6px 10px;"));
        const QString link = QStringLiteral("<a href='%1' style='color:#bfdbfe'>%2</a>");
        const QString recommended = recommended_model();
        setText(tr("No summarization model is installed, so summaries are <b>extractive</b>: the document's own most "
                   "central sentences, highlighted in the text. For summaries in new words, %1%2 or %3.")
                    .arg(link.arg(QStringLiteral("download"), tr("download a model")),
                         recommended.isEmpty() ? QString() : tr(" (recommended: %1)").arg(recommended.toHtmlEscaped()),
                         link.arg(QStringLiteral("folder"), tr("use a model folder you already have"))));
        show();
    } else if (info.is_test_model) {
        setStyleSheet(QStringLiteral("background:#b91c1c; color:white; padding:6px 10px; font-weight:bold;"));
        setText(tr("⚠ The chosen model is the tiny RANDOM test model of the fixtures (%1). Its summaries are MEANINGLESS. "
                   "Choose a real BART or LSG-BART model in Settings (Ctrl+,).")
                    .arg(info.path.toHtmlEscaped()));
        show();
    } else {
        hide();
    }
}

}  // namespace precis::ui
