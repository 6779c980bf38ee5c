#include "ui/main_window.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>

#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "app/models/model_store.h"
#include "app/paths.h"
#include "app/qt_file_names.h"
#include "app/worker/engine_thread.h"
#include "app/worker/model_cache.h"
#include "ui/attention_dock.h"
#include "ui/attention_panel.h"
#include "ui/batch_dialog.h"
#include "ui/document_view.h"
#include "ui/help_window.h"
#include "ui/library_panel.h"
#include "ui/model_banner.h"
#include "ui/model_folder_watcher.h"
#include "ui/open_documents_dialog.h"
#include "ui/quit_keys.h"
#include "ui/recent_files.h"
#include "ui/run_queue_panel.h"
#include "ui/run_status.h"
#include "ui/screen_fit.h"
#include "ui/status_message.h"
#include "ui/summary_panel.h"

namespace precis::ui {

namespace {

QString resolve_library_path(const QString& given) {
    if (!given.isEmpty()) return given;
    return QString::fromStdString(default_library_path().string());
}

QStringList supported_local_files(const QMimeData* mime) {
    QStringList files;
    if (!mime->hasUrls()) return files;
    for (const QUrl& url : mime->urls()) {
        const QString path = path_from_local_url(url);  // the name's bytes, not Qt's decoding of them
        if (!path.isEmpty() && is_supported_document(path)) files << path;
    }
    return files;
}

}  // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), library_path_(resolve_library_path(options.library_path)), models_(std::make_shared<ModelCache>()) {
    QDir().mkpath(QFileInfo(library_path_).absolutePath());
    library_ = std::make_unique<Library>(library_path_);
    engine_ = std::make_unique<EngineThread>(library_path_, models_);
    settings_ = load_engine_settings(QSettings());
    setWindowTitle(tr("Precis"));
    setAcceptDrops(true);
    build_layout();
    build_actions_and_menus();
    build_keyboard();
    connect_engine();
    const QSettings q;
    // Its comfortable size on a first opening, at most the screen (1024x700 included); a size
    // remembered from a bigger monitor is pulled back onto this one.
    if (!restoreGeometry(q.value("window/geometry").toByteArray())) place_within_screen(this, QSize(1320, 820));
    else keep_within_screen(this);
    restoreState(q.value("window/state").toByteArray());
    // Load the model in the background now, so the first summary starts at once and the
    // window can say which model is in use (and warn if it is the random test model).
    reload_model();
    // A model installed from the command line shows up here without waiting for a Summarize.
    model_watcher_ = new ModelFolderWatcher(this);
    connect(model_watcher_, &ModelFolderWatcher::models_changed, this, &MainWindow::refresh_models);
}

MainWindow::~MainWindow() {
    engine_.reset();  // cancels and joins the worker before the library goes
}

void MainWindow::build_layout() {
    banner_ = new ModelBanner(this);
    connect(banner_, &ModelBanner::download_requested, this, &MainWindow::download_model);
    connect(banner_, &ModelBanner::use_folder_requested, this, &MainWindow::use_model_folder);

    library_panel_ = new LibraryPanel(*library_, this);
    document_view_ = new DocumentView(this);
    summary_panel_ = new SummaryPanel(*library_, this);
    queue_ = new RunQueuePanel(this);
    connect(queue_, &RunQueuePanel::removed, this, &MainWindow::clear_stale_queue_status);
    // The left column: the library, and under it the summary queue once one forms.
    auto* left = new QSplitter(Qt::Vertical, this);
    left->addWidget(library_panel_);
    left->addWidget(queue_);
    left->setStretchFactor(0, 3);
    left->setStretchFactor(1, 1);
    left->setChildrenCollapsible(false);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(document_view_);
    splitter->addWidget(summary_panel_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 4);
    splitter->setStretchFactor(2, 3);
    splitter->setSizes({320, 560, 440});
    splitter->setChildrenCollapsible(false);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->addWidget(banner_);
    layout->addWidget(splitter, 1);
    setCentralWidget(central);

    attention_panel_ = new AttentionPanel(this);
    auto* dock = new AttentionDock(tr("Attention patterns"), this);  // docked in space of its own, never floating
    dock->setObjectName(QStringLiteral("attention_dock"));
    dock->set_panel(attention_panel_);
    attention_dock_ = dock;
    addDockWidget(Qt::RightDockWidgetArea, attention_dock_);
    attention_dock_->hide();

    run_status_ = new RunStatus(this);
    model_label_ = new QLabel(this);
    // The message first, taking the width the run status (shown only while something runs)
    // and the model label leave; permanent, so QStatusBar never hides it for a message.
    status_message_ = new StatusMessage(this);
    statusBar()->addPermanentWidget(status_message_, 1);
    statusBar()->addPermanentWidget(run_status_);
    statusBar()->addPermanentWidget(model_label_);
    // QStatusBar keeps the message (currentMessage, its timeout); the label shows it.
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& message) {
        status_message_->set_message(message);
        if (message.isEmpty()) statusBar()->setToolTip(QString());
    });

    connect(library_panel_, &LibraryPanel::document_selected, this, &MainWindow::show_document);
    connect(library_panel_, &LibraryPanel::delete_requested, this, &MainWindow::delete_document);
    connect(summary_panel_, &SummaryPanel::passages_changed, document_view_, &DocumentView::set_passages);
    connect(summary_panel_, &SummaryPanel::passage_activated, document_view_, &DocumentView::reveal);
    connect(summary_panel_, &SummaryPanel::section_activated, document_view_,
            [this](const OutlineSection& section) { document_view_->reveal_start(section.start, section.first_page); });
    connect(summary_panel_, &SummaryPanel::status_message, this, [this](const QString& m) { show_status(m, 5000); });
    connect(summary_panel_, &SummaryPanel::summary_deleted, library_panel_, &LibraryPanel::refresh);
    connect(summary_panel_, &SummaryPanel::trace_requested, this, [this](qint64 summary_id) {
        track(engine_->trace_sources(summary_id, settings_), Request::Trace, tr("Finding source passages"));
    });
    connect(run_status_, &RunStatus::cancel_requested, this, &MainWindow::cancel_run);
    connect(attention_panel_, &AttentionPanel::download_requested, this, &MainWindow::download_model);
    connect(attention_panel_, &AttentionPanel::use_folder_requested, this, &MainWindow::use_model_folder);
    connect(attention_panel_, &AttentionPanel::capture_requested, this, [this](int layer, int head) {
        AttentionRequest r;
        r.document_id = current_document_;
        r.layer = layer;
        r.head = head;
        r.settings = attention_panel_->settings_for_run(settings_);
        track(engine_->capture_attention(r), Request::Capture, tr("Capturing attention"));
    });
}

void MainWindow::build_actions_and_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(QIcon::fromTheme("document-open"), tr("&Open…"), this, &MainWindow::choose_files);
    open->setShortcut(QKeySequence::Open);
    QMenu* recent_menu = file->addMenu(tr("Open &Recent"));
    recent_ = new RecentFiles(recent_menu, this);
    connect(recent_, &RecentFiles::open_requested, this, [this](const QString& p) { open_file(p); });
    QAction* batch = file->addAction(tr("&Batch summarize…"), this, [this] { open_batch_dialog(); });
    batch->setShortcut(Qt::CTRL | Qt::Key_B);
    file->addSeparator();
    // Ctrl+Q everywhere (quit_keys.h); close asks first if work would be lost.
    file->addAction(QIcon::fromTheme("application-exit"), tr("&Quit"), this, &QWidget::close)->setShortcuts(quit_keys());

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* find = edit->addAction(tr("&Find in library"), library_panel_, &LibraryPanel::focus_search);
    find->setShortcut(QKeySequence::Find);
    edit->addSeparator();
    QAction* settings = edit->addAction(QIcon::fromTheme("preferences-system"), tr("&Settings…"), this, &MainWindow::show_settings);
    settings->setShortcut(Qt::CTRL | Qt::Key_Comma);
    settings->setMenuRole(QAction::PreferencesRole);

    QMenu* doc = menuBar()->addMenu(tr("&Document"));
    summarize_action_ = doc->addAction(QIcon::fromTheme("system-run"), tr("&Summarize"), this, &MainWindow::summarize_current);
    summarize_action_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    summarize_action_->setToolTip(tr("Summarize the open document with the current settings (Ctrl+Enter)"));
    classify_action_ = doc->addAction(QIcon::fromTheme("tag"), tr("C&lassify"), this, &MainWindow::classify_current);
    classify_action_->setShortcut(Qt::CTRL | Qt::Key_L);
    classify_action_->setToolTip(tr("Label the open document with the classifier chosen in Settings (Ctrl+L)"));
    cancel_action_ = doc->addAction(QIcon::fromTheme("process-stop"), tr("&Cancel"), this, &MainWindow::cancel_run_confirmed);
    cancel_action_->setShortcut(Qt::Key_Escape);
    cancel_action_->setEnabled(false);
    doc->addSeparator();
    QAction* remove = doc->addAction(tr("&Remove from library"), this, [this] {
        if (current_document_) delete_document(current_document_);
    });
    remove->setShortcut(Qt::CTRL | Qt::Key_Delete);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* attention = attention_dock_->toggleViewAction();
    attention->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_A);
    view->addAction(attention);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(QIcon::fromTheme("help-contents"), tr("&User Guide"), this, [this] { HelpWindow::show_for(this); })
        ->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About Precis"), this, &MainWindow::show_about)->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("main_toolbar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setMovable(false);
    bar->addAction(open);
    bar->addAction(summarize_action_);
    bar->addAction(classify_action_);
    bar->addAction(cancel_action_);
    bar->addSeparator();
    bar->addAction(batch);
    bar->addAction(attention);
    bar->addAction(settings);
}

void MainWindow::show_error(const QString& title, const QString& message) {
    // Engine errors are written to follow "precis: FILE: " on the command line, in lowercase;
    // shown on their own here they start a sentence ("the document has no text..."), unless
    // they start with a name ("charlie.txt: ...", "bart-large: ..."), which keeps its case.
    QString sentence = message;
    const QString first_word = sentence.section(u' ', 0, 0);
    if (!first_word.isEmpty() && std::all_of(first_word.begin(), first_word.end(), [](QChar c) { return c.isLetter(); }))
        sentence[0] = sentence[0].toUpper();
    show_status(sentence, 15000);
    // Not exec(): the window keeps running (and tests keep going) while the message shows.
    auto* box = new QMessageBox(QMessageBox::Warning, title, sentence, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

// --- requests

void MainWindow::show_status(const QString& message, int timeout_ms) {
    // The whole text: the label fits it to its room each time that room changes (a message
    // given while the run status is wide gets the width back when the run ends).
    statusBar()->setToolTip(message);
    statusBar()->showMessage(message, timeout_ms);
    queued_status_entry_ = 0;  // a queue message sets it after this call
}

void MainWindow::open_file(const QString& path, const QString& password) {
    if (!password.isEmpty()) pdf_passwords_[QFileInfo(path).absoluteFilePath()] = password;
    const quint64 ticket = engine_->open_document(path, password);
    opening_.insert(ticket, path);
    track(ticket, Request::Open, tr("Opening %1").arg(path_for_display(QFileInfo(path).fileName())));
}

void MainWindow::choose_files() {
    const QString start = recent_->files().isEmpty() ? QString::fromStdString(samples_dir().string())
                                                     : QFileInfo(recent_->files().first()).absolutePath();
    const std::unique_ptr<QFileDialog> dialog = make_open_documents_dialog(this, start);
    if (dialog->exec() != QDialog::Accepted) return;
    for (const QString& f : dialog->selectedFiles()) open_file(path_from_dialog(f));  // Qt's decoding lost bytes that are not UTF-8
}

void MainWindow::cancel_run() {
    if (!engine_->busy()) return;
    engine_->cancel();
    run_status_->set_stage(tr("cancelling…"), 0, 0);
}

bool MainWindow::work_worth_asking_about() const {
    if (batch_dialog_ && batch_dialog_->running()) return true;
    return engine_->busy() && busy_since_.isValid() && busy_since_.elapsed() >= confirm_after_ms_;
}

bool MainWindow::confirm_losing_work(const QString& title, const QString& question) {
    if (!work_worth_asking_about()) return true;
    QMessageBox box(QMessageBox::Question, title, question, QMessageBox::Yes | QMessageBox::No, this);
    box.setDefaultButton(QMessageBox::No);  // a stray Enter keeps the work
    return box.exec() == QMessageBox::Yes;
}

void MainWindow::cancel_run_confirmed() {
    if (!engine_->busy()) return;
    // A batched run (no single running entry) keeps the summaries that finish before the cancel.
    const bool batch = running_ticket_ && !running_entry_;
    if (!confirm_losing_work(tr("Cancel the run"),
                             (batch ? tr("The run has been going for %1 s. Cancel it? The summaries already finished "
                                         "are kept; the others will not be stored.")
                                    : tr("The run has been going for %1 s. Cancel it? Nothing of it will be stored."))
                                 .arg(busy_since_.elapsed() / 1000)))
        return;
    cancel_run();
}

BatchDialog* MainWindow::open_batch_dialog() {
    if (!batch_dialog_) {
        batch_dialog_ = new BatchDialog(library_path_, models_, settings_, this);
        connect(batch_dialog_, &BatchDialog::library_changed, library_panel_, &LibraryPanel::refresh);
        // Also at the end: files that failed show under the library's "Failed files".
        connect(batch_dialog_, &BatchDialog::finished_batch, library_panel_, &LibraryPanel::refresh);
    }
    if (!batch_dialog_->running()) batch_dialog_->set_settings(settings_);
    batch_dialog_->show();
    batch_dialog_->raise();
    batch_dialog_->activateWindow();
    return batch_dialog_;
}

// --- results

void MainWindow::show_model_label() {
    if (!model_info_) return;
    const ModelInfo& info = *model_info_;
    if (info.extractive) {
        model_label_->setText(tr("Summaries: <b>extractive</b> · %1").arg(info.source));
        model_label_->setToolTip(tr("The summary quotes the document's most central sentences; no model runs."));
        return;
    }
    // Whether this is the one default (what `precis model default` names) or a folder chosen
    // for this window alone: the two used to disagree without a word.
    std::error_code ec;
    const std::filesystem::path def = models::default_model_folder();
    const bool is_default = !def.empty() && std::filesystem::equivalent(native_path(info.path), def, ec);
    // fp32 is the exact path and goes unsaid; quantized weights are named.
    const QString weights = info.compute_type.isEmpty() || info.compute_type == "fp32" ? QString() : " · " + info.compute_type;
    model_label_->setText(tr("Model: <b>%1</b>%2 · %3%4 · %5 attention")
                              .arg(info.name.toHtmlEscaped(), is_default ? tr(" (default)") : QString(),
                                   info.device.toHtmlEscaped(), weights, info.attention));
    model_label_->setToolTip(is_default ? tr("%1\nThe default model, as precis model default shows it.").arg(info.path)
                                        : tr("%1\nfound via: %2 (not the default model: Settings > Default model)")
                                              .arg(info.path, info.source));
}

void MainWindow::reload_model() { track(engine_->prepare_model(settings_), Request::PrepareModel, tr("Loading the model")); }

void MainWindow::refresh_models() {
    if (closing_) return;
    const std::optional<ResolvedModel> now = find_model(settings_);
    const bool had_model = model_info_ && !model_info_->extractive;
    std::error_code ec;
    const bool same = now && had_model ? std::filesystem::equivalent(now->dir, native_path(model_info_->path), ec)
                                       : !now && !had_model;
    // An extractive-only choice, or the same model: nothing to load, only the label to redo.
    if (same || settings_.method == QLatin1String("extractive") || !model_info_) {
        show_model_label();
        return;
    }
    reload_model();
}

void MainWindow::on_document_opened(const OpenedDocument& opened) {
    recent_->add(opened.path);
    library_panel_->refresh();
    // Shown again even when it is the open one: re-added from a new place, its path changed.
    if (opened.document_id == current_document_) current_document_ = 0;
    for (const QString& note : opened.notes) show_status(path_for_display(QFileInfo(opened.path).fileName()) + ": " + note, 8000);
    if (!opened.added) show_status(tr("%1 is already in the library.").arg(path_for_display(QFileInfo(opened.path).fileName())), 5000);
    show_document(opened.document_id);
}

void MainWindow::show_document(qint64 document_id) {
    const std::optional<DocumentRecord> doc = library_->document(document_id);
    if (!doc) return;
    if (document_id != current_document_) {
        current_document_ = document_id;
        document_view_->show_document(*doc, pdf_passwords_.value(QFileInfo(doc->path).absoluteFilePath()));
        setWindowTitle(tr("%1 — Precis").arg(doc->title));
    }
    summary_panel_->show_document(document_id);
    if (document_id == streaming_document_) summary_panel_->show_streaming(streaming_text_);
    else if (batch_entries_.contains(document_id)) summary_panel_->show_streaming(QString());  // a batch streams no text
    {
        const QSignalBlocker block(library_panel_);
        library_panel_->select_document(document_id);
    }
    update_attention_document();
    emit document_shown(document_id);
}

void MainWindow::update_attention_document() {
    if (!current_document_) {
        attention_panel_->set_document(0, 0, false);
        return;
    }
    // The panel captures what the model reads in one pass: the whole document, or its first
    // tokens up to the model's length (a long document's summary went section by section and
    // read it all, its capture does not), and it says which.
    int readable = 0;
    if (model_info_ && !model_info_->extractive && model_info_->max_input_tokens > 0) {
        readable = model_info_->max_input_tokens;
        const int block = model_info_->lsg.block_size;  // an LSG encoder reads whole blocks
        if (model_info_->attention == QLatin1String("lsg") && block > 0 && readable > 2 * block)
            readable = readable / block * block;
    }
    const auto one_pass = [readable](int tokens) { return readable > 0 ? std::min(tokens, readable) : tokens; };
    const QVector<SummaryRecord> summaries = library_->summaries_for(current_document_);
    if (!summaries.isEmpty() && summaries.first().input_tokens > 0 &&
        summaries.first().parameters.contains("tokens_read")) {
        const int whole = int(summaries.first().input_tokens);
        attention_panel_->set_document(current_document_, one_pass(whole), true, whole);
        return;
    }
    // About four characters per token for English BPE.
    const auto doc = library_->document(current_document_);
    const int estimate = doc ? int(doc->text.size() / 4) + 2 : 0;
    attention_panel_->set_document(current_document_, one_pass(estimate), false, estimate);
}

void MainWindow::delete_document(qint64 document_id) {
    const auto doc = library_->document(document_id);
    if (!doc) return;
    if (QMessageBox::question(this, tr("Remove document"),
                              tr("Remove “%1” and all its summaries from the library? The file itself stays.").arg(doc->title)) !=
        QMessageBox::Yes)
        return;
    library_->delete_document(document_id);
    if (document_id == current_document_) {
        current_document_ = 0;
        document_view_->clear();
        summary_panel_->clear();
        setWindowTitle(tr("Precis"));
        update_attention_document();
    }
    library_panel_->refresh();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!supported_local_files(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QStringList files = supported_local_files(event->mimeData());
    for (const QString& f : files) open_file(f);
    if (!files.isEmpty()) event->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    const bool batch = batch_dialog_ && batch_dialog_->running();
    if (!confirm_losing_work(tr("Quit Precis"), batch ? tr("A batch is running. Quit and stop it? Files already summarized stay "
                                                          "in the library; the same batch resumes later.")
                                                       : tr("A summary is being made. Quit and lose it?"))) {
        event->ignore();
        return;
    }
    if (batch) batch_dialog_->cancel();
    closing_ = true;
    queue_->cancel_waiting();
    QSettings q;
    q.setValue("window/geometry", saveGeometry());
    q.setValue("window/state", saveState());
    engine_->cancel();
    QMainWindow::closeEvent(event);
}

}  // namespace precis::ui
