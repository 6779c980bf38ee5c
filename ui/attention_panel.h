#pragma once
// The attention panel (View > Attention patterns): (a) which keys each query sees for the
// current settings and document length, switchable between the seven LSG sparsity types
// and Fovea, with a legend; (b) the weights the engine actually computed on the open
// document for a chosen encoder layer and head, as a zoomable heat map (computed on
// request by the engine worker). The third view, the summary's source passages, is the
// highlighting in the document view.
#include <QWidget>

#include "app/worker/worker_types.h"

class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSlider;
class QSpinBox;
class QTabWidget;

namespace precis::ui {

class AttentionHeatmapView;
class AttentionPatternView;

class AttentionPanel : public QWidget {
    Q_OBJECT
public:
    explicit AttentionPanel(QWidget* parent = nullptr);

    // The model in use: layer/head ranges and its LSG/Fovea settings as the starting point.
    void set_model_info(const ModelInfo& info);
    // The open document and how many tokens it has (`exact` false: an estimate).
    void set_document(qint64 document_id, int tokens, bool exact);
    void show_capture(const AttentionCaptureResult& capture);
    void capture_failed(const QString& message);

    // Index into the pattern choices: 0..6 the LSG sparsity types (none .. lsh), 7 Fovea.
    void select_pattern(int choice);
    static constexpr int kFoveaChoice = 7;
    void set_tokens(int tokens);

    QTabWidget* tabs() const { return tabs_; }
    AttentionPatternView* pattern_view() const { return pattern_view_; }
    AttentionHeatmapView* heatmap_view() const { return heatmap_; }
    QLabel* pattern_error() const { return pattern_error_; }

signals:
    void capture_requested(int layer, int head);

private:
    void rebuild_pattern();
    void update_enabled();

    QTabWidget* tabs_;
    // (a) pattern
    QComboBox* kind_;
    QSpinBox *tokens_, *block_, *sparse_block_, *factor_, *globals_, *pattern_head_, *fovea_block_, *fovea_wing_;
    QLabel* tokens_note_;
    QLabel* pattern_summary_;
    QLabel* pattern_error_;
    AttentionPatternView* pattern_view_;
    QLabel* legend_;
    // (b) weights
    QSpinBox *layer_, *head_;
    QPushButton* compute_;
    QSlider* zoom_;
    QLabel* capture_info_;
    QScrollArea* heatmap_scroll_;
    AttentionHeatmapView* heatmap_;
    qint64 document_id_ = 0;
    int heads_ = 1;
};

}  // namespace precis::ui
