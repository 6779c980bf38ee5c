// Issue 31, item 14, the attention panel: without a model it offers Download (the catalog,
// as Settings does), not only a folder; the Weights map names its axes ("keys" across,
// "queries" down) with token positions; and pooled far keys are drawn in a colour clearly
// unlike the global token's, the legend showing the colour the drawing uses.
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTabWidget>

#include <cmath>

#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/attention_colours.h"
#include "ui/attention_heatmap_view.h"
#include "ui/attention_key_strip.h"
#include "ui/attention_panel.h"
#include "ui/attention_pattern_view.h"
#include "ui/main_window.h"
#include "ui/model_catalog_dialog.h"

namespace precis::test {
namespace {

using ui::AttentionPanel;
using ui::KeyStyle;
using ui::PatternChoice;

// CIE L*a*b* of an sRGB colour (D65), for a perceptual distance between two colours.
std::array<double, 3> lab(const QColor& c) {
    const auto linear = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    const double r = linear(c.redF()), g = linear(c.greenF()), b = linear(c.blueF());
    const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    const auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double delta_e(const QColor& a, const QColor& b) {
    const auto p = lab(a), q = lab(b);
    return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

ModelInfo lsg_model() {
    ModelInfo info;
    info.encoder_layers = 2;
    info.encoder_heads = 4;
    info.attention = "lsg";
    info.max_input_tokens = 4096;
    return info;
}

ModelInfo no_model() {
    ModelInfo info;
    info.extractive = true;
    info.source = "no model installed";
    return info;
}

TEST(AttentionPanelReadability, WithoutAModelThePanelOffersDownload) {
    AttentionPanel panel;
    panel.resize(600, 800);
    panel.show();
    panel.set_model_info(no_model());
    panel.set_document(3, 500, false);
    EXPECT_FALSE(panel.has_model());
    EXPECT_TRUE(panel.no_model_row()->isVisible());
    ASSERT_NE(panel.download_button(), nullptr);
    EXPECT_TRUE(panel.download_button()->isVisible());
    EXPECT_EQ(panel.download_button()->text(), "Download a model…");
    QSignalSpy asked(&panel, &AttentionPanel::download_requested);
    panel.download_button()->click();
    EXPECT_EQ(asked.count(), 1);
    // With a model the row goes.
    panel.set_model_info(lsg_model());
    EXPECT_TRUE(panel.has_model());
    EXPECT_FALSE(panel.no_model_row()->isVisible());
}

// The window's panel opens the same catalog dialog as Settings > Download….
TEST(AttentionPanelReadability, TheWindowsPanelDownloadOpensTheCatalog) {
    QSettings().clear();  // no model folder chosen; the scratch home has none installed
    const std::filesystem::path dir = scratch_dir("attention-download");
    ui::MainWindowOptions o;
    o.library_path = QString::fromStdString((dir / "library.sqlite").string());
    ui::MainWindow window(o);
    window.show();
    ASSERT_TRUE(wait_until([&] { return window.model_info().has_value() && !window.engine()->busy(); }));
    if (!window.model_info()->extractive) GTEST_SKIP() << "a model was found on this machine: " << window.model_info()->path.toStdString();
    window.attention_dock()->show();
    ASSERT_TRUE(window.attention_panel()->download_button()->isVisible());
    int rows = -1;
    QTimer::singleShot(0, [&] {
        if (auto* catalog = qobject_cast<ui::ModelCatalogDialog*>(QApplication::activeModalWidget())) {
            rows = catalog->findChild<QTableWidget*>("catalog")->rowCount();
            catalog->reject();
        }
    });
    window.attention_panel()->download_button()->click();  // modal: returns once the timer closed it
    EXPECT_GT(rows, 0);
}

TEST(AttentionPanelReadability, TheWeightsMapNamesItsAxesWithPositions) {
    AttentionPanel panel;
    panel.resize(700, 900);
    panel.show();
    panel.set_model_info(lsg_model());
    panel.set_document(7, 300, true);
    panel.tabs()->setCurrentIndex(1);
    AttentionCaptureResult c;
    c.document_id = 7;
    c.rows = 257;  // 1 global + 256 tokens, folded onto 128 cells
    c.grid = 128;
    c.num_global = 1;
    c.attention = "lsg";
    c.cells.assign(size_t(c.grid) * size_t(c.grid), 0.1f);
    c.max_weight = 0.1f;
    panel.show_capture(c);
    QApplication::processEvents();
    ui::AttentionHeatmapView* map = panel.heatmap_view();
    const QRect area = map->map_rect();
    EXPECT_GT(area.left(), 30);  // room for the queries' labels
    EXPECT_GT(area.top(), 20);   // and the keys'
    const auto ticks = map->axis_ticks();
    ASSERT_GE(ticks.size(), 4);
    EXPECT_EQ(ticks.first().second, "G");  // the global token first, then positions of the text's tokens
    EXPECT_GT(ticks[1].second.toInt(), 0);
    EXPECT_EQ(ticks[1].second.toInt() % 10, 0);  // round numbers
    for (int i = 2; i < ticks.size(); ++i) {
        EXPECT_GT(ticks[i].second.toInt(), ticks[i - 1].second.toInt());
        EXPECT_GE(ticks[i].first - ticks[i - 1].first, 32);  // readable, not crowded
        EXPECT_LE(ticks[i].first, area.width());
    }
    // The margins carry ink (the axis titles and labels), drawn in the window's text colour.
    const QImage shot = map->grab().toImage();
    const QRgb ink = map->palette().color(QPalette::WindowText).rgb() | 0xff000000u;
    int top_ink = 0, left_ink = 0;
    for (int y = 0; y < area.top(); ++y)
        for (int x = area.left(); x < shot.width(); ++x) top_ink += (shot.pixel(x, y) | 0xff000000u) == ink;
    for (int y = area.top(); y < shot.height(); ++y)
        for (int x = 0; x < area.left(); ++x) left_ink += (shot.pixel(x, y) | 0xff000000u) == ink;
    EXPECT_GT(top_ink, 50);
    EXPECT_GT(left_ink, 50);
    // Hovering an axis names nothing; hovering the map still does.
    EXPECT_TRUE(map->tooltip_at(QPointF(5, 5)).isEmpty());
    EXPECT_FALSE(map->tooltip_at(area.center()).isEmpty());
}

TEST(AttentionPanelReadability, PooledKeysAreClearlyUnlikeTheGlobalToken) {
    const QColor global = ui::key_style_colour(KeyStyle::Global);
    // Both pooled styles, and the darker shade alternate pooled keys are drawn in.
    for (KeyStyle pooled : {KeyStyle::Averaged, KeyStyle::Weighted}) {
        ui::StripKey odd;
        odd.style = pooled;
        odd.index = 1;
        EXPECT_GT(delta_e(ui::key_style_colour(pooled), global), 40) << int(pooled);
        EXPECT_GT(delta_e(ui::key_colour(odd), global), 40) << int(pooled);
    }
    for (int i = 0; i < 8; ++i) {  // the cluster hues (lsh) are far from it too
        ui::StripKey cluster;
        cluster.style = KeyStyle::Cluster;
        cluster.index = i;
        EXPECT_GT(delta_e(ui::key_colour(cluster), global), 25) << i;
    }

    // The legend shows the colour the drawing uses.
    AttentionPanel panel;
    panel.resize(600, 900);
    panel.show();
    panel.set_model_info(lsg_model());
    panel.set_tokens(4096);
    panel.select_pattern(int(PatternChoice::Pooling));
    QApplication::processEvents();
    const QString legend = panel.legend()->text();
    const QColor averaged = ui::key_style_colour(KeyStyle::Averaged);
    EXPECT_TRUE(legend.contains(averaged.name() + "'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;" +
                                ui::key_style_label(KeyStyle::Averaged).toHtmlEscaped()))
        << legend.toStdString();
    const QImage drawing = panel.pattern_view()->image().convertToFormat(QImage::Format_RGB32);
    bool drawn = false;
    for (int y = 0; y < drawing.height() && !drawn; ++y)
        for (int x = 0; x < drawing.width() && !drawn; ++x) drawn = (drawing.pixel(x, y) | 0xff000000u) == (averaged.rgb() | 0xff000000u);
    EXPECT_TRUE(drawn);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
