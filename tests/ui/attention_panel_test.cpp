// The attention panel paints the LSG pattern of every sparsity type and Fovea (checked by
// the colours in the image and on screen), rejects settings the engine rejects, and shows
// captured weights as a zoomable heat map.
#include <QLabel>
#include <QSpinBox>
#include <QSet>
#include <QTabWidget>

#include "tests/ui/ui_test_support.h"
#include "ui/attention_colours.h"
#include "ui/attention_heatmap_view.h"
#include "ui/attention_panel.h"
#include "ui/attention_pattern_view.h"

namespace precis::test {
namespace {

using ui::AttentionPanel;

QSet<QRgb> colours_in(const QImage& image) {
    QSet<QRgb> out;
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x) out.insert(line[x] | 0xff000000u);
    }
    return out;
}

bool has(const QSet<QRgb>& colours, PatternKind kind) {
    return colours.contains(ui::pattern_kind_colour(kind).rgb() | 0xff000000u);
}

class AttentionPanelTest : public ::testing::Test {
protected:
    void SetUp() override {
        panel_ = std::make_unique<AttentionPanel>();
        panel_->resize(560, 760);
        panel_->show();
        ModelInfo info;
        info.encoder_layers = 12;
        info.encoder_heads = 16;
        info.attention = "lsg";
        info.max_input_tokens = 4096;
        panel_->set_model_info(info);
        panel_->set_tokens(4096);
    }
    std::unique_ptr<AttentionPanel> panel_;
};

TEST_F(AttentionPanelTest, PaintsEverySparsityType) {
    struct Case {
        int choice;
        const char* name;
        bool sparse;
        bool candidates;
    };
    // Index order of the pattern choices: none, norm, pooling, stride, block_stride, bos_pooling, lsh.
    const Case cases[] = {{0, "none", false, false},  {1, "norm", false, true},        {2, "pooling", true, false},
                          {3, "stride", true, false}, {4, "block_stride", true, false}, {5, "bos_pooling", true, false},
                          {6, "lsh", false, true}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        panel_->select_pattern(c.choice);
        QApplication::processEvents();
        EXPECT_FALSE(panel_->pattern_error()->isVisible()) << panel_->pattern_error()->text().toStdString();
        const QSet<QRgb> image = colours_in(panel_->pattern_view()->image());
        EXPECT_TRUE(has(image, PatternKind::Global));
        EXPECT_TRUE(has(image, PatternKind::Local));
        EXPECT_EQ(has(image, PatternKind::Sparse), c.sparse);
        EXPECT_EQ(has(image, PatternKind::Candidates), c.candidates);
        EXPECT_TRUE(image.contains(qRgb(255, 255, 255)));  // keys not seen stay blank: it is sparse
        // What reaches the screen, not only the image behind it.
        const QSet<QRgb> screen = colours_in(panel_->pattern_view()->grab().toImage());
        EXPECT_TRUE(has(screen, PatternKind::Local));
        EXPECT_TRUE(has(screen, PatternKind::Global));
    }
}

TEST_F(AttentionPanelTest, PaintsFovea) {
    panel_->select_pattern(AttentionPanel::kFoveaChoice);
    QApplication::processEvents();
    EXPECT_FALSE(panel_->pattern_error()->isVisible());
    const QSet<QRgb> image = colours_in(panel_->pattern_view()->image());
    int fovea_levels = 0;
    for (int level = 0; level < 8; ++level) fovea_levels += image.contains(ui::pattern_kind_colour(PatternKind::FoveaNode, level).rgb());
    EXPECT_GE(fovea_levels, 3);  // nodes at several levels of the tree
    EXPECT_TRUE(has(image, PatternKind::Global));
}

TEST_F(AttentionPanelTest, ShortInputIsFullAttention) {
    panel_->select_pattern(1);
    panel_->set_tokens(200);  // <= 2 * block size: the engine falls back to full attention
    QApplication::processEvents();
    const QSet<QRgb> image = colours_in(panel_->pattern_view()->image());
    EXPECT_TRUE(has(image, PatternKind::Dense));
    EXPECT_FALSE(has(image, PatternKind::Local));
}

TEST_F(AttentionPanelTest, InvalidSettingsShowTheEnginesReason) {
    panel_->select_pattern(1);
    // block 128 with factor 3: 3 does not divide 128.
    for (QSpinBox* s : panel_->findChildren<QSpinBox*>())
        if (s->value() == 2 && s->isEnabled() && s->maximum() == 512) s->setValue(3);
    QApplication::processEvents();
    EXPECT_TRUE(panel_->pattern_error()->isVisible());
    EXPECT_TRUE(panel_->pattern_error()->text().contains("sparsity_factor")) << panel_->pattern_error()->text().toStdString();
}

TEST_F(AttentionPanelTest, HeatMapShowsCapturedWeightsAndZooms) {
    panel_->set_document(7, 100, true);
    panel_->tabs()->setCurrentIndex(1);
    AttentionCaptureResult c;
    c.document_id = 7;
    c.rows = 64;
    c.grid = 64;
    c.num_global = 1;
    c.attention = "lsg";
    c.cells.assign(64 * 64, 0.f);
    for (int i = 0; i < 64; ++i) c.cells[size_t(i) * 64 + size_t(i)] = 0.8f;  // a diagonal
    c.max_weight = 0.8f;
    panel_->show_capture(c);
    QApplication::processEvents();
    ui::AttentionHeatmapView* map = panel_->heatmap_view();
    ASSERT_TRUE(map->has_capture());
    const QImage shot = map->grab().toImage();
    EXPECT_EQ(shot.pixel(shot.width() / 2, shot.height() / 2) | 0xff000000u, ui::heat_colour(1.f) | 0xff000000u);
    EXPECT_EQ(shot.pixel(5, shot.height() - 5) | 0xff000000u, qRgb(255, 255, 255));
    const int before = map->width();
    map->set_zoom(2.0);
    EXPECT_EQ(map->width(), before * 2);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
