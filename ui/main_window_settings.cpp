// The main window's settings and models: the settings dialog, the model catalog, a model
// folder of the person's own, and the About box that says which model is in use. (The
// window itself is built in main_window.cpp.)
#include <filesystem>

#include <QApplication>
#include <QFileDialog>
#include <QMessageBox>
#include <QSettings>

#include "app/file_names.h"
#include "app/models/model_store.h"
#include "app/qt_file_names.h"
#include "app/worker/engine_thread.h"
#include "ui/main_window.h"
#include "ui/model_catalog_dialog.h"
#include "ui/settings_dialog.h"

namespace precis::ui {

void MainWindow::set_settings(const EngineSettings& s) {
    QSettings q;
    save_engine_settings(q, s);
    // The classifier loads when a classification runs: changing only it reloads nothing now.
    EngineSettings summarizer_part = s;
    summarizer_part.classifier = settings_.classifier;
    const bool reload = !(summarizer_part == settings_);
    settings_ = s;
    if (reload) track(engine_->prepare_model(settings_), Request::PrepareModel, tr("Loading the model"));
}

void MainWindow::download_model() {
    ModelCatalogDialog catalog(this);
    QStringList installed;
    bool new_default = false;
    connect(&catalog, &ModelCatalogDialog::model_installed, this, [&installed](const QString& dir) { installed << dir; });
    connect(&catalog, &ModelCatalogDialog::default_changed, this, [&new_default] { new_default = true; });
    catalog.exec();
    if (installed.isEmpty()) return;
    // A classifier lands as the classifier when none is chosen yet (never as the summarizer);
    // a summarizer is the window's model only as the default (the catalog asked or said).
    EngineSettings s = settings_;
    for (const QString& dir : installed) {
        const models::ModelInfo info = models::describe_model(native_path(dir));
        if (info.usable && info.task != QLatin1String("summarization") && s.classifier.model_dir.isEmpty())
            s.classifier.model_dir = dir;
    }
    if (new_default) s.model_dir.clear();
    if (!(s == settings_)) set_settings(s);
    else reload_model();
}

void MainWindow::use_model_folder() {
    const QString chosen = QFileDialog::getExistingDirectory(this, tr("A HuggingFace BART or LSG-BART model folder"));
    if (chosen.isEmpty()) return;
    const QString dir = path_from_dialog(chosen);  // Qt's decoding lost bytes that are not UTF-8
    if (std::error_code ec; !std::filesystem::is_regular_file(native_path(dir) / "config.json", ec)) {
        show_error(tr("Use a model folder"),
                   tr("%1 has no config.json: it is not a HuggingFace model folder.").arg(path_for_display(dir)));
        return;
    }
    EngineSettings s = settings_;
    s.model_dir = dir;
    set_settings(s);
}

void MainWindow::show_settings() {
    SettingsDialog dialog(settings_, engine_.get(), this);
    if (dialog.exec() != QDialog::Accepted) return;
    const EngineSettings chosen = dialog.settings();
    // Another default model changes no setting of this window, yet the window uses it.
    if (dialog.default_model_changed() && chosen == settings_) reload_model();
    set_settings(chosen);
}

void MainWindow::show_about() {
    QString model = tr("No model loaded yet.");
    if (model_info_ && model_info_->extractive) {
        model = tr("Summaries are <b>extractive</b> (%1): the document's most central sentences, chosen on this "
                   "computer without a model.").arg(model_info_->source);
    } else if (model_info_) {
        model = tr("Model in use: <b>%1</b><br><small>%2</small><br>%3 attention on %4")
                    .arg(model_info_->name.toHtmlEscaped(), model_info_->path.toHtmlEscaped(), model_info_->attention, model_info_->device.toHtmlEscaped());
        if (model_info_->is_test_model)
            model += tr("<p style='color:#b91c1c'><b>This is the tiny random test model: its summaries are meaningless.</b></p>");
    }
    QMessageBox::about(this, tr("About Precis"),
                       tr("<h3>Precis %1</h3><p>Summarizes and classifies long documents on this computer with "
                          "BART and LSG-BART models; nothing leaves the machine.</p><p>%2</p><p>Library: %3</p>")
                           .arg(QApplication::applicationVersion(), model, library_path_.toHtmlEscaped()));
}

}  // namespace precis::ui
