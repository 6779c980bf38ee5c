#pragma once
// The attention panel (View > Attention patterns), written for someone who has not read the
// LSG paper. (a) Pattern: for the chosen sparsity type (or Fovea) one plain sentence on what
// each word reads, the settings in words, and a drawing at two scales (the whole document,
// and one query block's keys token by token); for the types that pick keys from the text
// (norm, lsh) it draws what the model actually picked on the open document for the chosen
// layer and head. (b) Weights: the attention weights the engine computed on the document
// for that layer and head, as a zoomable heat map with a colour scale; hovering names the
// words and the weight. Runs happen in the engine worker: the panel asks with
// capture_requested and shows what comes back. The third view, the summary's source
// passages, is the highlighting in the document view.
#include <QWidget>

#include <optional>

#include "app/worker/engine_settings.h"
#include "app/worker/worker_types.h"
#include "ui/attention_explanations.h"

class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSlider;
class QSpinBox;
class QTabWidget;
class QToolButton;

namespace precis::ui {

class AttentionColourScale;
class AttentionHeatmapView;
class AttentionPatternView;

class AttentionPanel : public QWidget {
    Q_OBJECT
public:
    explicit AttentionPanel(QWidget* parent = nullptr);

    // The model in use: layer/head ranges and its LSG/Fovea settings as the starting point.
    void set_model_info(const ModelInfo& info);
    // The open document and how many of its tokens the model reads in one pass (`exact`
    // false: an estimate); `document_tokens` is the whole document's length (0: the same,
    // it reads all of it). A long document summarized section by section is still read
    // only up to the model's length when the panel captures attention.
    void set_document(qint64 document_id, int tokens, bool exact, int document_tokens = 0);
    // What the drawing and the weights stand for: "across the whole document" when the
    // model reads all of it, else "across the first 4,096 of 20,480 tokens".
    QString reading_scope() const;
    void show_capture(const AttentionCaptureResult& capture);
    void capture_failed(const QString& message);

    // Index into the pattern choices (PatternChoice): 0..6 the LSG sparsity types, 7 Fovea.
    void select_pattern(int choice);
    static constexpr int kFoveaChoice = int(PatternChoice::Fovea);
    PatternChoice pattern_choice() const;
    void set_tokens(int tokens);
    void set_layer_and_head(int layer, int head);
    // Asks for a run on the open document with the chosen layer and head (as the Run button).
    void request_run();

    // The settings a run asked for by this panel uses: `base` unchanged while the panel shows
    // the model's own pattern, else with the pattern's attention settings (so the drawing of
    // e.g. lsh on a norm model shows what lsh would pick).
    EngineSettings settings_for_run(EngineSettings base) const;

    QTabWidget* tabs() const { return tabs_; }
    AttentionPatternView* pattern_view() const { return pattern_view_; }
    AttentionHeatmapView* heatmap_view() const { return heatmap_; }
    AttentionColourScale* colour_scale() const { return scale_; }
    QLabel* pattern_error() const { return pattern_error_; }
    QLabel* explanation() const { return explanation_; }
    QLabel* details() const { return details_; }
    QLabel* legend() const { return legend_; }
    QLabel* run_status() const { return run_status_; }
    QComboBox* layer_box() const { return layer_; }
    QComboBox* head_box() const { return head_; }
    // Shown instead of Run while no model is installed: what the panel needs, with Download
    // (the catalog, as in Settings) and a model folder already on disk.
    QWidget* no_model_row() const { return no_model_; }
    QPushButton* download_button() const { return download_; }
    bool has_model() const { return has_model_; }

signals:
    void capture_requested(int layer, int head);
    void download_requested();
    void use_folder_requested();

private:
    // The attention settings a drawing or a run stands for.
    struct PatternSettings {
        PatternChoice choice = PatternChoice::Norm;
        LsgSettings lsg;
        FoveaSettings fovea;
        bool operator==(const PatternSettings& o) const;
    };
    PatternSettings current_settings() const;
    int padded_tokens() const;  // the length the encoder reads the chosen text length at
    QString scope_noun() const;  // "the whole document", "the first 4,096 of 20,480 tokens"
    void rebuild_pattern();
    void update_enabled();
    void update_run_status();
    void update_legend();
    void show_selection_if_it_matches();

    QTabWidget* tabs_;
    QComboBox* kind_;
    QLabel *explanation_, *globals_note_, *details_;
    QToolButton* settings_toggle_;
    QWidget* settings_box_;
    QSpinBox *tokens_, *block_, *sparse_block_, *factor_, *globals_, *fovea_block_, *fovea_wing_;
    QLabel* tokens_note_;
    QLabel* pattern_error_;
    QComboBox *layer_, *head_;
    QPushButton* run_;
    QLabel* run_status_;
    QWidget* no_model_;
    QPushButton* download_;
    AttentionPatternView* pattern_view_;
    QLabel* legend_;
    QSlider* zoom_;
    QLabel* capture_info_;
    QScrollArea* heatmap_scroll_;
    AttentionHeatmapView* heatmap_;
    AttentionColourScale* scale_;

    qint64 document_id_ = 0;
    int document_tokens_ = 0;  // the whole open document's length in tokens
    int heads_ = 1;
    std::optional<PatternSettings> model_settings_;  // the model's own, from set_model_info
    std::optional<PatternSettings> requested_;        // what the run in flight was asked with
    std::optional<AttentionCaptureResult> capture_;   // the last run on the open document
    std::optional<PatternSettings> capture_settings_;
    bool running_ = false;
    bool has_model_ = true;  // until set_model_info says otherwise
};

}  // namespace precis::ui
