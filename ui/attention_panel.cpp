#include "ui/attention_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>

#include "engine/core/error.h"
#include "ui/attention_colours.h"
#include "ui/attention_heatmap_view.h"
#include "ui/attention_pattern_view.h"

namespace precis::ui {

namespace {

const SparsityType kTypes[] = {SparsityType::None,        SparsityType::Norm,       SparsityType::Pooling,
                               SparsityType::Stride,      SparsityType::BlockStride, SparsityType::BosPooling,
                               SparsityType::Lsh};

QSpinBox* spin(int lo, int hi, int value, QWidget* parent) {
    auto* s = new QSpinBox(parent);
    s->setRange(lo, hi);
    s->setValue(value);
    s->setKeyboardTracking(false);  // redraw when the number is complete, not per digit
    return s;
}

// The slider works in steps of 1/8 of a doubling so the wheel and the slider agree.
int zoom_to_slider(double zoom) { return int(std::lround(std::log2(zoom) * 8)); }
double slider_to_zoom(int v) { return std::pow(2.0, v / 8.0); }

}  // namespace

AttentionPanel::AttentionPanel(QWidget* parent) : QWidget(parent), tabs_(new QTabWidget(this)) {
    // --- (a) pattern
    auto* pattern_page = new QWidget(this);
    kind_ = new QComboBox(pattern_page);
    for (SparsityType t : kTypes) kind_->addItem(tr("LSG · %1").arg(QString::fromLatin1(sparsity_type_name(t))));
    kind_->addItem(tr("Fovea"));
    kind_->setCurrentIndex(1);
    tokens_ = spin(16, 65536, 4096, pattern_page);
    tokens_->setSingleStep(512);
    tokens_note_ = new QLabel(pattern_page);
    tokens_note_->setForegroundRole(QPalette::PlaceholderText);
    block_ = spin(1, 4096, 128, pattern_page);
    sparse_block_ = spin(0, 4096, 128, pattern_page);
    factor_ = spin(1, 512, 2, pattern_page);
    globals_ = spin(1, 512, 1, pattern_page);
    pattern_head_ = spin(0, 0, 0, pattern_page);
    pattern_head_->setToolTip(tr("stride and block_stride give each head its own offset"));
    fovea_block_ = spin(1, 4096, 64, pattern_page);
    fovea_wing_ = spin(1, 64, 1, pattern_page);
    pattern_summary_ = new QLabel(pattern_page);
    pattern_summary_->setWordWrap(true);
    pattern_error_ = new QLabel(pattern_page);
    pattern_error_->setWordWrap(true);
    pattern_error_->setStyleSheet(QStringLiteral("color: #b91c1c;"));
    pattern_view_ = new AttentionPatternView(pattern_page);
    legend_ = new QLabel(pattern_page);
    legend_->setWordWrap(true);

    auto* tokens_row = new QHBoxLayout;
    tokens_row->addWidget(tokens_);
    tokens_row->addWidget(tokens_note_, 1);
    auto* params = new QGridLayout;
    params->addWidget(new QLabel(tr("Block:"), pattern_page), 0, 0);
    params->addWidget(block_, 0, 1);
    params->addWidget(new QLabel(tr("Sparse block:"), pattern_page), 0, 2);
    params->addWidget(sparse_block_, 0, 3);
    params->addWidget(new QLabel(tr("Factor:"), pattern_page), 1, 0);
    params->addWidget(factor_, 1, 1);
    params->addWidget(new QLabel(tr("Global:"), pattern_page), 1, 2);
    params->addWidget(globals_, 1, 3);
    params->addWidget(new QLabel(tr("Fovea block:"), pattern_page), 2, 0);
    params->addWidget(fovea_block_, 2, 1);
    params->addWidget(new QLabel(tr("Wing:"), pattern_page), 2, 2);
    params->addWidget(fovea_wing_, 2, 3);
    auto* form = new QFormLayout;
    form->addRow(tr("Pattern:"), kind_);
    form->addRow(tr("Tokens:"), tokens_row);
    form->addRow(params);
    form->addRow(tr("Head:"), pattern_head_);
    auto* pl = new QVBoxLayout(pattern_page);
    pl->addLayout(form);
    pl->addWidget(pattern_summary_);
    pl->addWidget(pattern_error_);
    pl->addWidget(pattern_view_, 1);
    pl->addWidget(legend_);

    // --- (b) weights
    auto* weights_page = new QWidget(this);
    layer_ = spin(0, 0, 0, weights_page);
    head_ = spin(0, 0, 0, weights_page);
    compute_ = new QPushButton(tr("Compute on this document"), weights_page);
    zoom_ = new QSlider(Qt::Horizontal, weights_page);
    zoom_->setRange(zoom_to_slider(0.25), zoom_to_slider(32));
    zoom_->setValue(0);
    zoom_->setToolTip(tr("Zoom (or turn the mouse wheel over the map)"));
    capture_info_ = new QLabel(weights_page);
    capture_info_->setWordWrap(true);
    heatmap_ = new AttentionHeatmapView(weights_page);
    heatmap_scroll_ = new QScrollArea(weights_page);
    heatmap_scroll_->setWidget(heatmap_);
    heatmap_scroll_->setAlignment(Qt::AlignCenter);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Layer:"), weights_page));
    controls->addWidget(layer_);
    controls->addWidget(new QLabel(tr("Head:"), weights_page));
    controls->addWidget(head_);
    controls->addWidget(compute_);
    controls->addStretch();
    auto* zoom_row = new QHBoxLayout;
    zoom_row->addWidget(new QLabel(tr("Zoom:"), weights_page));
    zoom_row->addWidget(zoom_, 1);
    auto* wl = new QVBoxLayout(weights_page);
    wl->addLayout(controls);
    wl->addLayout(zoom_row);
    wl->addWidget(capture_info_);
    wl->addWidget(heatmap_scroll_, 1);

    tabs_->addTab(pattern_page, tr("Pattern"));
    tabs_->addTab(weights_page, tr("Weights"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(tabs_);

    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        update_enabled();
        rebuild_pattern();
    });
    for (QSpinBox* s : {tokens_, block_, sparse_block_, factor_, globals_, pattern_head_, fovea_block_, fovea_wing_})
        connect(s, &QSpinBox::valueChanged, this, &AttentionPanel::rebuild_pattern);
    connect(compute_, &QPushButton::clicked, this, [this] {
        compute_->setEnabled(false);
        capture_info_->setText(tr("Running the encoder on the document…"));
        emit capture_requested(layer_->value(), head_->value());
    });
    connect(zoom_, &QSlider::valueChanged, this, [this](int v) { heatmap_->set_zoom(slider_to_zoom(v)); });
    connect(heatmap_, &AttentionHeatmapView::zoom_changed, this, [this](double z) {
        const QSignalBlocker block(zoom_);
        zoom_->setValue(zoom_to_slider(z));
    });
    update_enabled();
    rebuild_pattern();
    set_document(0, 0, false);
}

void AttentionPanel::set_model_info(const ModelInfo& info) {
    layer_->setMaximum(std::max(0, info.encoder_layers - 1));
    head_->setMaximum(std::max(0, info.encoder_heads - 1));
    heads_ = std::max(1, info.encoder_heads);
    pattern_head_->setMaximum(heads_ - 1);
    const QSignalBlocker b1(block_), b2(sparse_block_), b3(factor_), b4(globals_), b5(fovea_block_), b6(fovea_wing_);
    block_->setValue(info.lsg.block_size);
    sparse_block_->setValue(info.lsg.sparse_block_size);
    factor_->setValue(info.lsg.sparsity_factor);
    globals_->setValue(info.lsg.num_global_tokens);
    fovea_block_->setValue(info.fovea.block_size);
    fovea_wing_->setValue(info.fovea.wing);
    if (info.attention == "fovea")
        select_pattern(kFoveaChoice);
    else
        select_pattern(int(info.lsg.sparsity_type));
    tokens_->setMaximum(std::max(16, std::max(info.max_input_tokens, 65536)));
    rebuild_pattern();
}

void AttentionPanel::set_document(qint64 document_id, int tokens, bool exact) {
    if (document_id != document_id_) {
        heatmap_->set_capture({});
        capture_info_->clear();
    }
    document_id_ = document_id;
    compute_->setEnabled(document_id != 0);
    if (document_id == 0) {
        tokens_note_->setText(tr("no document open: choose a length"));
        capture_info_->setText(tr("Open a document to see the weights the engine computes on it."));
        return;
    }
    if (tokens > 0) set_tokens(tokens);
    tokens_note_->setText(exact ? tr("tokens the encoder read") : tr("estimated from the document's length"));
}

void AttentionPanel::select_pattern(int choice) { kind_->setCurrentIndex(std::clamp(choice, 0, kFoveaChoice)); }

void AttentionPanel::set_tokens(int tokens) { tokens_->setValue(tokens); }

void AttentionPanel::update_enabled() {
    const bool fovea = kind_->currentIndex() == kFoveaChoice;
    for (QSpinBox* s : {block_, sparse_block_, factor_, globals_}) s->setEnabled(!fovea);
    for (QSpinBox* s : {fovea_block_, fovea_wing_}) s->setEnabled(fovea);
    const SparsityType t = fovea ? SparsityType::None : kTypes[kind_->currentIndex()];
    pattern_head_->setEnabled(t == SparsityType::Stride || t == SparsityType::BlockStride);
}

void AttentionPanel::rebuild_pattern() {
    AttentionPattern pattern;
    try {
        const int T = tokens_->value();
        if (kind_->currentIndex() == kFoveaChoice) {
            FoveaSettings f;
            f.block_size = fovea_block_->value();
            f.wing = fovea_wing_->value();
            pattern = fovea_attention_pattern(f, globals_->value(), T);
        } else {
            LsgSettings s;
            s.sparsity_type = kTypes[kind_->currentIndex()];
            s.block_size = block_->value();
            s.sparse_block_size = sparse_block_->value();
            s.sparsity_factor = factor_->value();
            s.num_global_tokens = globals_->value();
            s.validate("These LSG settings");
            // The encoder pads the input to a multiple of the block size (adaptive padding).
            const int B = s.block_size;
            const int padded = T <= 2 * B ? T : (T + B - 1) / B * B;
            pattern = lsg_attention_pattern(s, s.num_global_tokens, padded, heads_);
        }
        pattern_error_->hide();
    } catch (const Error& e) {
        pattern_error_->setText(QString::fromUtf8(e.what()));
        pattern_error_->show();
        return;
    }
    pattern_view_->set_pattern(pattern, pattern_head_->value());
    pattern_summary_->setText(QString::fromStdString(pattern.summary));
    QStringList entries;
    for (const LegendEntry& e : legend_for(pattern))
        entries << QStringLiteral("<span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
                       .arg(e.colour.name(), e.label.toHtmlEscaped());
    legend_->setText(entries.join(QStringLiteral("&nbsp;&nbsp; ")));
}

void AttentionPanel::show_capture(const AttentionCaptureResult& c) {
    compute_->setEnabled(document_id_ != 0);
    if (c.document_id != document_id_) return;  // the user moved on to another document
    heatmap_->set_capture(c);
    const QSignalBlocker b1(layer_), b2(head_);
    layer_->setValue(c.layer);
    head_->setValue(c.head);
    QString path = c.attention == "lsg" ? (c.sparse_path ? tr("LSG block-sparse path") : tr("LSG, short input: full attention"))
                                        : c.attention;
    capture_info_->setText(tr("Layer %1, head %2 · %3 · %4 tokens read, %5 rows with %6 global · largest weight %7 · "
                              "each cell is the largest weight among %8 × %8 rows")
                               .arg(c.layer)
                               .arg(c.head)
                               .arg(path)
                               .arg(c.tokens_read)
                               .arg(c.rows)
                               .arg(c.num_global)
                               .arg(c.max_weight, 0, 'f', 3)
                               .arg(std::max(1, (c.rows + c.grid - 1) / std::max(c.grid, 1))));
}

void AttentionPanel::capture_failed(const QString& message) {
    compute_->setEnabled(document_id_ != 0);
    capture_info_->setText(QStringLiteral("<span style='color:#b91c1c'>%1</span>").arg(message.toHtmlEscaped()));
}

}  // namespace precis::ui
