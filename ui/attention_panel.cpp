#include "ui/attention_panel.h"

#include <algorithm>

#include <QComboBox>
#include <QLocale>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "engine/core/error.h"
#include "ui/attention_colour_scale.h"
#include "ui/attention_colours.h"
#include "ui/attention_heatmap_view.h"
#include "ui/attention_pattern_view.h"

namespace precis::ui {

namespace {

// Token counts with the locale's digit groups ("20,480"), the C locale's included.
QString token_count(int n) {
    QLocale locale;
    locale.setNumberOptions(QLocale::DefaultNumberOptions);
    return locale.toString(n);
}

QSpinBox* spin(int lo, int hi, int value, QWidget* parent) {
    auto* s = new QSpinBox(parent);
    s->setRange(lo, hi);
    s->setValue(value);
    s->setKeyboardTracking(false);  // redraw when the number is complete, not per digit
    return s;
}

QLabel* wrapped(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setWordWrap(true);
    l->setTextFormat(Qt::PlainText);
    return l;
}

void fill_numbers(QComboBox* box, int count) {
    const int keep = box->currentIndex();
    const QSignalBlocker block(box);
    box->clear();
    for (int i = 0; i < std::max(count, 1); ++i) box->addItem(QString::number(i + 1));
    box->setCurrentIndex(std::clamp(keep, 0, box->count() - 1));
}

// The slider works in steps of 1/8 of a doubling so the wheel and the slider agree.
int zoom_to_slider(double zoom) { return int(std::lround(std::log2(zoom) * 8)); }
double slider_to_zoom(int v) { return std::pow(2.0, v / 8.0); }

}  // namespace

bool AttentionPanel::PatternSettings::operator==(const PatternSettings& o) const {
    if (choice != o.choice || lsg.num_global_tokens != o.lsg.num_global_tokens) return false;
    if (choice == PatternChoice::Fovea) return fovea.block_size == o.fovea.block_size && fovea.wing == o.fovea.wing;
    return lsg.block_size == o.lsg.block_size && lsg.sparse_block_size == o.lsg.sparse_block_size &&
           lsg.sparsity_factor == o.lsg.sparsity_factor;
}

AttentionPanel::AttentionPanel(QWidget* parent) : QWidget(parent), tabs_(new QTabWidget(this)) {
    // --- what the pattern is, in words
    kind_ = new QComboBox(this);
    for (int c = 0; c < kPatternChoices; ++c) kind_->addItem(pattern_title(PatternChoice(c)));
    kind_->setCurrentIndex(int(PatternChoice::Norm));
    // As narrow as a short title: the longest would set the panel's (and the dock's) width.
    kind_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    kind_->setMinimumContentsLength(16);
    explanation_ = wrapped(this);
    QFont strong = explanation_->font();
    strong.setPointSizeF(strong.pointSizeF() * 1.05);
    explanation_->setFont(strong);
    globals_note_ = wrapped(this);
    details_ = wrapped(this);
    details_->setForegroundRole(QPalette::PlaceholderText);
    pattern_error_ = wrapped(this);
    pattern_error_->setStyleSheet(QStringLiteral("color: #b91c1c;"));

    // --- the settings, folded away: most readers never change them
    settings_toggle_ = new QToolButton(this);
    settings_toggle_->setText(tr("Settings"));
    settings_toggle_->setCheckable(true);
    settings_toggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    settings_toggle_->setArrowType(Qt::RightArrow);
    settings_toggle_->setAutoRaise(true);
    settings_box_ = new QWidget(this);
    tokens_ = spin(16, 65536, 4096, settings_box_);
    tokens_->setSingleStep(512);
    tokens_note_ = new QLabel(settings_box_);
    tokens_note_->setForegroundRole(QPalette::PlaceholderText);
    block_ = spin(1, 4096, 128, settings_box_);
    block_->setToolTip(tr("Block size (B): each word reads its own block and the two beside it in full."));
    sparse_block_ = spin(0, 4096, 128, settings_box_);
    sparse_block_->setToolTip(tr("Sparse block size (SB): how many far keys a word reads on each side."));
    factor_ = spin(1, 512, 2, settings_box_);
    factor_->setToolTip(tr("Sparsity factor (f): how many tokens one far key stands for (or 1 in how many is kept)."));
    globals_ = spin(1, 512, 1, settings_box_);
    globals_->setToolTip(tr("Global tokens (G): extra tokens every word reads."));
    fovea_block_ = spin(1, 4096, 64, settings_box_);
    fovea_wing_ = spin(1, 64, 1, settings_box_);
    auto* grid = new QGridLayout(settings_box_);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(new QLabel(tr("Text length (tokens):"), settings_box_), 0, 0);
    grid->addWidget(tokens_, 0, 1);
    grid->addWidget(tokens_note_, 0, 2, 1, 2);
    grid->addWidget(new QLabel(tr("Block:"), settings_box_), 1, 0);
    grid->addWidget(block_, 1, 1);
    grid->addWidget(new QLabel(tr("Far keys per side:"), settings_box_), 1, 2);
    grid->addWidget(sparse_block_, 1, 3);
    grid->addWidget(new QLabel(tr("Tokens per far key:"), settings_box_), 2, 0);
    grid->addWidget(factor_, 2, 1);
    grid->addWidget(new QLabel(tr("Global tokens:"), settings_box_), 2, 2);
    grid->addWidget(globals_, 2, 3);
    grid->addWidget(new QLabel(tr("Fovea block:"), settings_box_), 3, 0);
    grid->addWidget(fovea_block_, 3, 1);
    grid->addWidget(new QLabel(tr("Sharp blocks each side:"), settings_box_), 3, 2);
    grid->addWidget(fovea_wing_, 3, 3);
    settings_box_->hide();

    // --- a run on the open document, for the chosen layer and head
    layer_ = new QComboBox(this);
    head_ = new QComboBox(this);
    fill_numbers(layer_, 1);
    fill_numbers(head_, 1);
    layer_->setToolTip(tr("Which encoder layer (1 is closest to the text)"));
    head_->setToolTip(tr("Which attention head; heads of one layer read in parallel, each its own way"));
    run_ = new QPushButton(tr("Run on this document"), this);
    run_->setToolTip(tr("Runs the encoder on the open document (in the background) and shows what this layer and "
                        "head picked and how much weight it gave each word"));
    run_status_ = wrapped(this);
    run_status_->setForegroundRole(QPalette::PlaceholderText);
    // Without a model the drawings still explain the patterns, but nothing can run: say so
    // where Run is, with the same ways to get a model as the window's banner and Settings.
    no_model_ = new QWidget(this);
    no_model_->setObjectName("no-model");
    auto* no_model_text = wrapped(no_model_);
    no_model_text->setText(tr("Runs on a document need a summarization model, and none is installed."));
    download_ = new QPushButton(tr("Download a model…"), no_model_);
    download_->setObjectName("download-model");
    download_->setToolTip(tr("Pick a model from the catalog and download it from the HuggingFace Hub (as in Settings)"));
    auto* use_folder = new QPushButton(tr("Use a model folder…"), no_model_);
    use_folder->setToolTip(tr("A HuggingFace BART or LSG-BART folder already on this computer"));
    auto* no_model_row = new QHBoxLayout(no_model_);
    no_model_row->setContentsMargins(0, 0, 0, 0);
    no_model_row->addWidget(no_model_text, 1);
    no_model_row->addWidget(download_);
    no_model_row->addWidget(use_folder);
    no_model_->hide();
    connect(download_, &QPushButton::clicked, this, &AttentionPanel::download_requested);
    connect(use_folder, &QPushButton::clicked, this, &AttentionPanel::use_folder_requested);

    // --- (a) pattern
    auto* pattern_page = new QWidget(this);
    pattern_view_ = new AttentionPatternView(pattern_page);
    legend_ = new QLabel(pattern_page);
    legend_->setWordWrap(true);
    auto* pl = new QVBoxLayout(pattern_page);
    pl->setContentsMargins(2, 2, 2, 2);
    pl->addWidget(pattern_view_, 1);
    pl->addWidget(legend_);

    // --- (b) weights
    auto* weights_page = new QWidget(this);
    zoom_ = new QSlider(Qt::Horizontal, weights_page);
    zoom_->setRange(zoom_to_slider(0.25), zoom_to_slider(32));
    zoom_->setValue(0);
    zoom_->setToolTip(tr("Zoom (or turn the mouse wheel over the map)"));
    capture_info_ = wrapped(weights_page);
    capture_info_->setTextFormat(Qt::AutoText);
    heatmap_ = new AttentionHeatmapView(weights_page);
    heatmap_scroll_ = new QScrollArea(weights_page);
    heatmap_scroll_->setWidget(heatmap_);
    heatmap_scroll_->setAlignment(Qt::AlignCenter);
    scale_ = new AttentionColourScale(weights_page);
    auto* zoom_row = new QHBoxLayout;
    zoom_row->addWidget(new QLabel(tr("Zoom:"), weights_page));
    zoom_row->addWidget(zoom_, 1);
    auto* map_row = new QHBoxLayout;
    map_row->addWidget(heatmap_scroll_, 1);
    map_row->addWidget(scale_);
    auto* wl = new QVBoxLayout(weights_page);
    wl->setContentsMargins(2, 2, 2, 2);
    wl->addLayout(zoom_row);
    wl->addWidget(capture_info_);
    wl->addLayout(map_row, 1);

    tabs_->addTab(pattern_page, tr("Pattern"));
    tabs_->addTab(weights_page, tr("Weights"));

    auto* choice_row = new QHBoxLayout;
    choice_row->addWidget(new QLabel(tr("Pattern:"), this));
    choice_row->addWidget(kind_, 1);
    choice_row->addWidget(settings_toggle_);
    auto* run_row = new QHBoxLayout;
    run_row->addWidget(new QLabel(tr("Layer:"), this));
    run_row->addWidget(layer_);
    run_row->addWidget(new QLabel(tr("Head:"), this));
    run_row->addWidget(head_);
    run_row->addWidget(run_);
    run_row->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(choice_row);
    layout->addWidget(explanation_);
    layout->addWidget(globals_note_);
    layout->addWidget(details_);
    layout->addWidget(settings_box_);
    layout->addWidget(pattern_error_);
    layout->addLayout(run_row);
    layout->addWidget(no_model_);
    layout->addWidget(run_status_);
    layout->addWidget(tabs_, 1);

    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        update_enabled();
        rebuild_pattern();
    });
    connect(settings_toggle_, &QToolButton::toggled, this, [this](bool open) {
        settings_box_->setVisible(open);
        settings_toggle_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    });
    for (QSpinBox* s : {tokens_, block_, sparse_block_, factor_, globals_, fovea_block_, fovea_wing_})
        connect(s, &QSpinBox::valueChanged, this, &AttentionPanel::rebuild_pattern);
    connect(head_, &QComboBox::currentIndexChanged, this, &AttentionPanel::rebuild_pattern);
    connect(layer_, &QComboBox::currentIndexChanged, this, &AttentionPanel::rebuild_pattern);
    connect(run_, &QPushButton::clicked, this, &AttentionPanel::request_run);
    connect(pattern_view_, &AttentionPatternView::query_block_changed, this, &AttentionPanel::update_legend);
    connect(zoom_, &QSlider::valueChanged, this, [this](int v) { heatmap_->set_zoom(slider_to_zoom(v)); });
    connect(heatmap_, &AttentionHeatmapView::zoom_changed, this, [this](double z) {
        const QSignalBlocker block(zoom_);
        zoom_->setValue(zoom_to_slider(z));
    });
    update_enabled();
    rebuild_pattern();
    set_document(0, 0, false);
}

PatternChoice AttentionPanel::pattern_choice() const { return PatternChoice(kind_->currentIndex()); }

AttentionPanel::PatternSettings AttentionPanel::current_settings() const {
    PatternSettings p;
    p.choice = pattern_choice();
    p.lsg.sparsity_type = sparsity_of(p.choice);
    p.lsg.block_size = block_->value();
    p.lsg.sparse_block_size = sparse_block_->value();
    p.lsg.sparsity_factor = factor_->value();
    p.lsg.num_global_tokens = globals_->value();
    p.fovea.block_size = fovea_block_->value();
    p.fovea.wing = fovea_wing_->value();
    return p;
}

void AttentionPanel::set_model_info(const ModelInfo& info) {
    has_model_ = !(info.extractive && info.source == QLatin1String("no model installed"));
    no_model_->setVisible(!has_model_);
    fill_numbers(layer_, info.encoder_layers);
    fill_numbers(head_, info.encoder_heads);
    heads_ = std::max(1, info.encoder_heads);
    {
        const QSignalBlocker b1(block_), b2(sparse_block_), b3(factor_), b4(globals_), b5(fovea_block_), b6(fovea_wing_),
            b7(kind_);
        block_->setValue(info.lsg.block_size);
        sparse_block_->setValue(info.lsg.sparse_block_size);
        factor_->setValue(info.lsg.sparsity_factor);
        globals_->setValue(info.lsg.num_global_tokens);
        fovea_block_->setValue(info.fovea.block_size);
        fovea_wing_->setValue(info.fovea.wing);
        kind_->setCurrentIndex(info.attention == "fovea" ? kFoveaChoice : int(choice_for(info.lsg.sparsity_type)));
        tokens_->setMaximum(std::max(16, std::max(info.max_input_tokens, 65536)));
    }
    // What runs use when the panel is left as it opens: the model's own attention (for a
    // full-attention model too, whose pattern choice is then only a preview).
    model_settings_ = current_settings();
    update_enabled();
    rebuild_pattern();
}

void AttentionPanel::set_document(qint64 document_id, int tokens, bool exact, int document_tokens) {
    if (document_id != document_id_) {
        heatmap_->set_capture({});
        scale_->set_maximum(0);
        capture_info_->clear();
        capture_.reset();
        capture_settings_.reset();
    }
    document_id_ = document_id;
    document_tokens_ = document_id == 0 ? 0 : std::max(tokens, document_tokens);
    if (document_id != 0 && tokens > 0) set_tokens(tokens);
    const bool part = document_tokens_ > tokens;
    tokens_note_->setText(document_id == 0 ? tr("no document open: choose a length")
                          : part  ? (exact ? tr("tokens the encoder reads in one pass, of %1 in the document")
                                           : tr("tokens the encoder reads in one pass, of about %1 in the document"))
                                        .arg(token_count(document_tokens_))
                          : exact ? tr("tokens the encoder read")
                                  : tr("estimated from the document's length"));
    if (document_id == 0) capture_info_->setText(tr("Open a document to see the weights the engine computes on it."));
    update_enabled();
    rebuild_pattern();
}

QString AttentionPanel::scope_noun() const {
    const int read = tokens_->value();
    if (document_id_ == 0) return tr("all %1 tokens").arg(token_count(read));
    if (document_tokens_ > read)
        return tr("the first %1 of %2 tokens").arg(token_count(read), token_count(document_tokens_));
    return tr("the whole document");
}

QString AttentionPanel::reading_scope() const { return tr("across %1").arg(scope_noun()); }

void AttentionPanel::select_pattern(int choice) { kind_->setCurrentIndex(std::clamp(choice, 0, kFoveaChoice)); }

void AttentionPanel::set_tokens(int tokens) { tokens_->setValue(tokens); }

void AttentionPanel::set_layer_and_head(int layer, int head) {
    const QSignalBlocker b1(layer_), b2(head_);
    layer_->setCurrentIndex(std::clamp(layer, 0, layer_->count() - 1));
    head_->setCurrentIndex(std::clamp(head, 0, head_->count() - 1));
    rebuild_pattern();
}

void AttentionPanel::request_run() {
    if (document_id_ == 0 || running_) return;
    running_ = true;
    requested_ = current_settings();
    update_enabled();
    run_status_->setText(tr("Running the encoder on the document…"));
    capture_info_->setText(tr("Running the encoder on the document…"));
    emit capture_requested(layer_->currentIndex(), head_->currentIndex());
}

EngineSettings AttentionPanel::settings_for_run(EngineSettings base) const {
    const PatternSettings p = requested_.value_or(current_settings());
    if (model_settings_ && p == *model_settings_) return base;
    if (p.choice == PatternChoice::Fovea) {
        base.attention = QStringLiteral("fovea");
        base.fovea_block_size = p.fovea.block_size;
        base.fovea_wing = p.fovea.wing;
    } else {
        base.attention = QStringLiteral("lsg");
        base.lsg_override = true;
        base.sparsity_type = p.lsg.sparsity_type;
        base.block_size = p.lsg.block_size;
        base.sparse_block_size = p.lsg.sparse_block_size;
        base.sparsity_factor = p.lsg.sparsity_factor;
    }
    base.num_global_tokens = p.lsg.num_global_tokens;
    return base;
}

void AttentionPanel::update_enabled() {
    const bool fovea = pattern_choice() == PatternChoice::Fovea;
    for (QSpinBox* s : {block_, sparse_block_, factor_}) s->setEnabled(!fovea);
    for (QSpinBox* s : {fovea_block_, fovea_wing_}) s->setEnabled(fovea);
    run_->setEnabled(document_id_ != 0 && !running_ && has_model_);
}

int AttentionPanel::padded_tokens() const {
    // The LSG encoder pads the input to a multiple of the block size (adaptive padding).
    const int T = tokens_->value(), B = std::max(1, block_->value());
    return pattern_choice() == PatternChoice::Fovea || T <= 2 * B ? T : (T + B - 1) / B * B;
}

void AttentionPanel::rebuild_pattern() {
    const PatternSettings p = current_settings();
    AttentionPattern pattern;
    try {
        const int T = tokens_->value();
        if (p.choice == PatternChoice::Fovea) {
            pattern = fovea_attention_pattern(p.fovea, p.lsg.num_global_tokens, T);
        } else {
            p.lsg.validate("These LSG settings");
            pattern = lsg_attention_pattern(p.lsg, p.lsg.num_global_tokens, padded_tokens(), heads_);
        }
        pattern_error_->hide();
    } catch (const Error& e) {
        pattern_error_->setText(QString::fromUtf8(e.what()));
        pattern_error_->show();
        return;
    }
    explanation_->setText(pattern_explanation(p.choice, p.lsg, p.fovea));
    globals_note_->setText(global_tokens_explanation(pattern.num_global));
    globals_note_->setVisible(pattern.num_global > 0);
    details_->setText(pattern_details(p.choice, pattern, p.lsg, p.fovea));
    details_->setToolTip(tr("In the paper's notation: %1").arg(QString::fromStdString(pattern.summary)));
    pattern_view_->set_scope(reading_scope());
    pattern_view_->set_pattern(pattern, head_->currentIndex(), p.choice == PatternChoice::BosPooling);
    show_selection_if_it_matches();
    update_legend();
    update_run_status();
}

void AttentionPanel::show_selection_if_it_matches() {
    const bool same_document = capture_ && capture_->document_id == document_id_;
    const bool matches = same_document && capture_settings_ && *capture_settings_ == current_settings() &&
                         capture_->head == head_->currentIndex() && capture_->layer == layer_->currentIndex() &&
                         capture_->rows - capture_->num_global == padded_tokens();  // same length: blocks line up
    // Row texts help hovering even when the drawing is the static one (same tokens).
    const QStringList texts = same_document ? capture_->row_texts : QStringList();
    pattern_view_->set_selection(matches ? capture_->sparse : SparseSelection{}, texts);
}

void AttentionPanel::update_legend() {
    QStringList entries;
    for (const LegendEntry& e : legend_for(pattern_view_->strip()))
        entries << QStringLiteral("<span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
                       .arg(e.colour.name(), e.label.toHtmlEscaped());
    legend_->setText(entries.join(QStringLiteral("&nbsp;&nbsp; ")) +
                     tr("<br><small>Top: %1, each word (down) against what it reads (across). "
                        "Below: one block of words, key by key. Click the top drawing (or press Up/Down) for another block, "
                        "Left/Right to move the magnified window.</small>")
                         .arg(scope_noun().toHtmlEscaped()));
}

void AttentionPanel::update_run_status() {
    if (running_) return;
    const PatternChoice c = pattern_choice();
    run_status_->setVisible(has_model_);  // the no-model row says what there is to say
    if (document_id_ == 0) {
        run_status_->setText(depends_on_text(c) ? tr("Which far keys this pattern reads depends on the text: open a "
                                                     "document and press Run to see what the model picks.")
                                                : tr("Open a document and press Run to see the model at work on it."));
        return;
    }
    if (pattern_view_->shows_document()) {
        run_status_->setText(tr("Drawn from the run on this document: the far keys layer %1, head %2 actually read.")
                                 .arg(layer_->currentIndex() + 1)
                                 .arg(head_->currentIndex() + 1));
        return;
    }
    if (capture_ && capture_settings_ && *capture_settings_ == current_settings() && capture_->sparse.empty() &&
        capture_->layer == layer_->currentIndex() && capture_->head == head_->currentIndex()) {
        run_status_->setText(
            capture_->attention == "fovea"
                ? tr("Fovea picks its blocks by position alone, so the drawing is the same for every document; the "
                     "Weights tab shows what this run read.")
            : capture_->attention != "lsg"
                ? tr("This run used full attention: every word reads every other word (see Weights).")
            : capture_->sparse_path
                ? tr("With this pattern words read no far keys; the Weights tab shows how much each neighbour counted.")
                : tr("This document is short enough that every word reads every other word."));
        return;
    }
    run_status_->setText(depends_on_text(c)
                             ? tr("The far keys drawn are only where the model may pick from: press Run to see which "
                                  "tokens layer %1, head %2 picks on this document.")
                                   .arg(layer_->currentIndex() + 1)
                                   .arg(head_->currentIndex() + 1)
                             : tr("Press Run to draw this from the model's run on the document (with the words under "
                                  "the mouse) and to see its weights."));
}

void AttentionPanel::show_capture(const AttentionCaptureResult& c) {
    running_ = false;
    const std::optional<PatternSettings> asked = std::exchange(requested_, std::nullopt);
    update_enabled();
    if (c.document_id != document_id_) return;  // the user moved on to another document
    capture_ = c;
    document_tokens_ = std::max(document_tokens_, c.tokens_read);
    capture_settings_ = asked.value_or(current_settings());  // a request not made by Run: settings_for_run used these
    heatmap_->set_capture(c);
    scale_->set_maximum(c.max_weight);
    set_layer_and_head(c.layer, c.head);  // also redraws
    // Draw the pattern at the length the run read, so the blocks line up with its selection.
    if (c.rows - c.num_global > 0 && c.rows - c.num_global != tokens_->value()) set_tokens(c.rows - c.num_global);
    rebuild_pattern();
    const QString how = c.attention == "lsg" ? (c.sparse_path ? tr("LSG %1").arg(c.sparsity_type)
                                                              : tr("LSG, short text: every word reads every word"))
                                             : c.attention;
    const int per_cell = std::max(1, (c.rows + c.grid - 1) / std::max(c.grid, 1));
    const QString read = document_tokens_ > c.tokens_read
                             ? tr("the first %1 of %2 tokens read")
                                   .arg(token_count(c.tokens_read), token_count(document_tokens_))
                             : tr("%1 tokens read, the whole document").arg(token_count(c.tokens_read));
    capture_info_->setText(tr("Layer %1, head %2 · %3 · %4 · largest weight %5%6")
                               .arg(c.layer + 1)
                               .arg(c.head + 1)
                               .arg(how)
                               .arg(read)
                               .arg(c.max_weight, 0, 'f', 3)
                               .arg(per_cell > 1 ? tr(" · each cell shows the largest weight among %1 × %1 token pairs")
                                                       .arg(per_cell)
                                                 : QString()));
}

void AttentionPanel::capture_failed(const QString& message) {
    running_ = false;
    requested_.reset();
    update_enabled();
    capture_info_->setText(QStringLiteral("<span style='color:#b91c1c'>%1</span>").arg(message.toHtmlEscaped()));
    run_status_->setText(message);
}

}  // namespace precis::ui
