// The attention panel explains each pattern in plain words, draws what differs between the
// sparsity types (pooled spans, strided single tokens, block-strided runs, weighted pools),
// draws norm's and lsh's far keys as the engine picked them on a document, names words and
// weights on hover, has a colour scale for the weights, and floats instead of squeezing a
// 1024 px main window.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>

#include <set>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "app/worker/model_cache.h"
#include "tests/ui/ui_test_support.h"
#include "ui/attention_colour_scale.h"
#include "ui/attention_colours.h"
#include "ui/attention_dock.h"
#include "ui/attention_heatmap_view.h"
#include "ui/attention_panel.h"
#include "ui/attention_pattern_view.h"
#include "ui/document_view.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

using ui::AttentionPanel;
using ui::KeyStyle;
using ui::PatternChoice;
using ui::StripKey;

QSet<QRgb> colours_in(const QImage& image) {
    QSet<QRgb> out;
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x) out.insert(line[x] | 0xff000000u);
    }
    return out;
}

bool has(const QSet<QRgb>& colours, KeyStyle style) {
    return colours.contains(ui::key_style_colour(style).rgb() | 0xff000000u);
}

std::vector<const StripKey*> far_keys(const ui::KeyStrip& strip) {
    std::vector<const StripKey*> out;
    for (const StripKey& k : strip.keys)
        if (k.style != KeyStyle::Global && k.style != KeyStyle::Local && k.style != KeyStyle::Dense) out.push_back(&k);
    return out;
}

ModelInfo lsg_model(int layers, int heads) {
    ModelInfo info;
    info.encoder_layers = layers;
    info.encoder_heads = heads;
    info.attention = "lsg";
    info.max_input_tokens = 4096;
    return info;
}

class AttentionPanelTest : public ::testing::Test {
protected:
    void SetUp() override {
        panel_ = std::make_unique<AttentionPanel>();
        panel_->resize(600, 900);
        panel_->show();
        panel_->set_model_info(lsg_model(12, 16));
        panel_->set_tokens(4096);
    }
    void choose(PatternChoice c) {
        panel_->select_pattern(int(c));
        QApplication::processEvents();
    }
    std::unique_ptr<AttentionPanel> panel_;
};

TEST_F(AttentionPanelTest, EveryPatternHasItsOwnPlainSentenceAndKeepsTheNotationForTheTooltip) {
    QSet<QString> sentences;
    for (int c = 0; c < ui::kPatternChoices; ++c) {
        choose(PatternChoice(c));
        SCOPED_TRACE(panel_->explanation()->text().toStdString());
        const QString sentence = panel_->explanation()->text();
        EXPECT_FALSE(sentence.isEmpty());
        sentences.insert(sentence);
        for (const QString& notation : {QStringLiteral("B="), QStringLiteral("SB="), QStringLiteral("f="), QStringLiteral("G=")}) {
            EXPECT_FALSE(sentence.contains(notation));
            EXPECT_FALSE(panel_->details()->text().contains(notation));
        }
        EXPECT_TRUE(panel_->details()->toolTip().contains("=")) << "the exact parameters stay in the tooltip";
        EXPECT_TRUE(panel_->details()->text().contains("keys per word"));
    }
    EXPECT_EQ(sentences.size(), ui::kPatternChoices);
    // A word reads 1 global + 2 x 128 far + 3 x 128 neighbouring keys (the global token's
    // own row, which reads everything, is not a word).
    choose(PatternChoice::Norm);
    EXPECT_TRUE(panel_->details()->text().contains("at most 641 keys per word")) << panel_->details()->text().toStdString();
}

TEST_F(AttentionPanelTest, FarKeysOfPoolingStrideBlockStrideAndBosPoolingAreDrawnDifferently) {
    const int f = 2;  // the default settings: blocks of 128, 128 far keys a side, factor 2
    QSet<QString> strips;
    QVector<QImage> pictures;
    for (PatternChoice c : {PatternChoice::Pooling, PatternChoice::Stride, PatternChoice::BlockStride, PatternChoice::BosPooling}) {
        choose(c);
        SCOPED_TRACE(int(c));
        ASSERT_FALSE(panel_->pattern_error()->isVisible()) << panel_->pattern_error()->text().toStdString();
        const auto keys = far_keys(panel_->pattern_view()->strip());
        ASSERT_EQ(keys.size(), 2u * 128);  // 128 far keys on each side
        QString signature;
        for (const StripKey* k : keys) {
            switch (c) {
                case PatternChoice::Pooling:  // a span of f neighbours averaged evenly
                    EXPECT_EQ(k->style, KeyStyle::Averaged);
                    ASSERT_EQ(int(k->rows.size()), f);
                    EXPECT_EQ(k->rows[1], k->rows[0] + 1);
                    EXPECT_FLOAT_EQ(k->shares[0], 0.5f);
                    break;
                case PatternChoice::BosPooling:  // the same span, weights left to the text
                    EXPECT_EQ(k->style, KeyStyle::Weighted);
                    ASSERT_EQ(int(k->rows.size()), f);
                    EXPECT_TRUE(k->shares.empty());
                    break;
                default:  // stride and block_stride: one token per key
                    EXPECT_EQ(k->style, KeyStyle::Single);
                    EXPECT_EQ(k->rows.size(), 1u);
            }
            signature += QString::number(k->rows.front()) + ",";
        }
        if (c == PatternChoice::Stride)  // every f-th token: single columns f apart
            for (size_t i = 1; i < keys.size() / 2; ++i) EXPECT_EQ(keys[i]->rows[0] - keys[i - 1]->rows[0], f);
        if (c == PatternChoice::BlockStride) {  // runs of consecutive tokens with gaps between runs
            int adjacent = 0, gaps = 0;
            for (size_t i = 1; i < keys.size(); ++i) (keys[i]->rows[0] - keys[i - 1]->rows[0] == 1 ? adjacent : gaps)++;
            EXPECT_GT(adjacent, 100);
            EXPECT_GE(gaps, 2);
        }
        strips.insert(signature + QString::number(int(keys.front()->style)));
        pictures.push_back(panel_->pattern_view()->grab().toImage());
    }
    EXPECT_EQ(strips.size(), 4);
    for (int a = 0; a < pictures.size(); ++a)
        for (int b = a + 1; b < pictures.size(); ++b) EXPECT_NE(pictures[a], pictures[b]) << a << " vs " << b;
}

TEST_F(AttentionPanelTest, LocalGlobalAndFarKeysHaveTheirOwnColoursAndLegend) {
    choose(PatternChoice::Pooling);
    const QSet<QRgb> overview = colours_in(panel_->pattern_view()->image());
    EXPECT_TRUE(has(overview, KeyStyle::Global));
    EXPECT_TRUE(has(overview, KeyStyle::Local));
    EXPECT_TRUE(has(overview, KeyStyle::Averaged));
    EXPECT_TRUE(overview.contains(qRgb(255, 255, 255)));  // keys not seen stay blank: it is sparse
    const QSet<QRgb> screen = colours_in(panel_->pattern_view()->grab().toImage());
    EXPECT_TRUE(has(screen, KeyStyle::Local));
    EXPECT_TRUE(has(screen, KeyStyle::Global));
    for (KeyStyle s : {KeyStyle::Global, KeyStyle::Local, KeyStyle::Averaged})
        EXPECT_TRUE(panel_->legend()->text().contains(ui::key_style_label(s).toHtmlEscaped())) << int(s);
    choose(PatternChoice::Stride);
    EXPECT_TRUE(has(colours_in(panel_->pattern_view()->image()), KeyStyle::Single));
    EXPECT_FALSE(panel_->legend()->text().contains(ui::key_style_label(KeyStyle::Averaged).toHtmlEscaped()));
}

TEST_F(AttentionPanelTest, KeysPickTheQueryBlockAndMoveTheMagnifiedWindow) {
    choose(PatternChoice::Pooling);
    ui::AttentionPatternView* view = panel_->pattern_view();
    const int block = view->query_block(), begin = view->strip().query_begin, window = view->window_begin();
    QTest::keyClick(view, Qt::Key_Down);
    EXPECT_EQ(view->query_block(), block + 1);
    EXPECT_EQ(view->strip().query_begin, begin + 128);
    const int moved = view->window_begin();
    QTest::keyClick(view, Qt::Key_Right);
    EXPECT_GT(view->window_begin(), moved);
    EXPECT_NE(moved, window);  // a new block brings the window along
}

TEST_F(AttentionPanelTest, NormAndLshWithoutARunShowOnlyWhereKeysArePickedFrom) {
    for (PatternChoice c : {PatternChoice::Norm, PatternChoice::Lsh}) {
        choose(c);
        const auto keys = far_keys(panel_->pattern_view()->strip());
        ASSERT_FALSE(keys.empty());
        for (const StripKey* k : keys) EXPECT_EQ(k->style, KeyStyle::Candidates);
        EXPECT_FALSE(panel_->pattern_view()->shows_document());
        EXPECT_TRUE(panel_->run_status()->text().contains("open a document"));
    }
}

TEST_F(AttentionPanelTest, FoveaDrawsNodesAtSeveralLevels) {
    choose(PatternChoice::Fovea);
    EXPECT_FALSE(panel_->pattern_error()->isVisible());
    const QSet<QRgb> image = colours_in(panel_->pattern_view()->image());
    int levels = 0;
    for (int level = 0; level < 8; ++level) levels += image.contains(ui::key_style_colour(KeyStyle::FoveaNode, level).rgb());
    EXPECT_GE(levels, 3);
    EXPECT_TRUE(has(image, KeyStyle::Global));
}

TEST_F(AttentionPanelTest, ShortInputIsFullAttention) {
    choose(PatternChoice::Norm);
    panel_->set_tokens(200);  // <= 2 * block size: the engine falls back to full attention
    QApplication::processEvents();
    const QSet<QRgb> image = colours_in(panel_->pattern_view()->image());
    EXPECT_TRUE(has(image, KeyStyle::Dense));
    EXPECT_FALSE(has(image, KeyStyle::Local));
    EXPECT_TRUE(panel_->details()->text().contains("every word reads every other word"));
}

TEST_F(AttentionPanelTest, InvalidSettingsShowTheEnginesReason) {
    choose(PatternChoice::Norm);
    // block 128 with factor 3: 3 does not divide 128.
    for (QSpinBox* s : panel_->findChildren<QSpinBox*>())
        if (s->value() == 2 && s->isEnabled() && s->maximum() == 512) s->setValue(3);
    QApplication::processEvents();
    EXPECT_TRUE(panel_->pattern_error()->isVisible());
    EXPECT_TRUE(panel_->pattern_error()->text().contains("sparsity_factor")) << panel_->pattern_error()->text().toStdString();
}

TEST_F(AttentionPanelTest, WeightsMapHasAColourScaleWithValuesAndZooms) {
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
    for (int r = 0; r < 64; ++r) c.row_texts << (r == 0 ? QString() : QStringLiteral(" word%1").arg(r));
    panel_->show_capture(c);
    QApplication::processEvents();
    ui::AttentionHeatmapView* map = panel_->heatmap_view();
    ASSERT_TRUE(map->has_capture());
    const QImage shot = map->grab().toImage();
    const QRect area = map->map_rect();
    EXPECT_EQ(shot.pixel(area.center()) | 0xff000000u, ui::heat_colour(1.f) | 0xff000000u);
    EXPECT_EQ(shot.pixel(area.left() + 5, area.bottom() - 5) | 0xff000000u, qRgb(255, 255, 255));
    // The legend: visible beside the map, from 0 to the largest weight.
    ui::AttentionColourScale* scale = panel_->colour_scale();
    EXPECT_TRUE(scale->isVisible());
    EXPECT_GT(scale->width(), 20);
    EXPECT_EQ(scale->tick_labels().first(), "0");
    EXPECT_EQ(scale->tick_labels().last(), "0.8");
    EXPECT_NEAR(scale->weight_at(0.5f), 0.2f, 1e-6f);  // square-root scale: half way is a quarter of the top
    // Hover names both words and the weight.
    const double cell = double(area.width()) / 64;
    const QPointF origin = area.topLeft();
    const QString tip = map->tooltip_at(origin + QPointF(10.5 * cell, 10.5 * cell));
    EXPECT_TRUE(tip.contains("“word10”")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("Weight 0.8000")) << tip.toStdString();
    EXPECT_TRUE(map->tooltip_at(origin + QPointF(10.5 * cell, 20.5 * cell)).contains("Weight 0.0000"));
    const int before = area.width();
    map->set_zoom(2.0);
    EXPECT_EQ(map->map_rect().width(), before * 2);
}

// The panel driven against the engine worker on a real document, as the main window does.
class AttentionPanelOnDocumentTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        dir_ = scratch_dir("attention-panel");
        library_path_ = QString::fromStdString((dir_ / "library.sqlite").string());
        engine_ = std::make_unique<EngineThread>(library_path_, std::make_shared<ModelCache>());
        const auto path = write_text_file(dir_ / "rivers.txt", river_paragraphs() + river_paragraphs());
        QSignalSpy opened(engine_->worker(), &EngineWorker::document_opened);
        engine_->open_document(QString::fromStdString(path.string()));
        ASSERT_TRUE(wait_until([&] { return opened.count() == 1; }));
        doc_ = opened.first().first().value<OpenedDocument>().document_id;

        base_ = fixture_model_settings();
        base_.attention = "lsg";  // the plain fixture model read with LSG, as the screenshots do
        base_.max_positions = 4096;
        base_.lsg_override = true;  // small blocks, so the short text takes the sparse path
        base_.block_size = 16;
        base_.sparse_block_size = 16;
        base_.sparsity_factor = 2;
        base_.sparsity_type = SparsityType::Norm;
        panel_ = std::make_unique<AttentionPanel>();
        panel_->resize(600, 900);
        panel_->show();
        ModelInfo info = lsg_model(2, 4);
        info.lsg.block_size = 16;  // as base_: what the worker reports for these settings
        info.lsg.sparse_block_size = 16;
        info.lsg.sparsity_factor = 2;
        panel_->set_model_info(info);
        panel_->set_document(doc_, 200, false);
        QObject::connect(panel_.get(), &AttentionPanel::capture_requested, panel_.get(), [this](int layer, int head) {
            AttentionRequest r;
            r.document_id = doc_;
            r.layer = layer;
            r.head = head;
            r.settings = panel_->settings_for_run(base_);
            engine_->capture_attention(r);
        });
        QObject::connect(engine_->worker(), &EngineWorker::attention_captured, panel_.get(), &AttentionPanel::show_capture);
    }

    AttentionCaptureResult run(PatternChoice choice, int layer, int head) {
        panel_->select_pattern(int(choice));
        panel_->set_layer_and_head(layer, head);
        QSignalSpy captured(engine_->worker(), &EngineWorker::attention_captured);
        panel_->request_run();
        EXPECT_TRUE(wait_until([&] { return captured.count() == 1; }));
        QApplication::processEvents();
        return captured.isEmpty() ? AttentionCaptureResult{} : captured.first().first().value<AttentionCaptureResult>();
    }

    // The far keys drawn for the current block must be the engine's, key for key.
    void expect_strip_matches(const AttentionCaptureResult& c) {
        const ui::KeyStrip& strip = panel_->pattern_view()->strip();
        ASSERT_TRUE(strip.from_document);
        const auto block = std::find_if(c.sparse.blocks.begin(), c.sparse.blocks.end(),
                                        [&](const SparseBlockKeys& b) { return b.query_begin == strip.query_begin; });
        ASSERT_NE(block, c.sparse.blocks.end());
        std::set<std::vector<int>> engine, drawn;
        for (int32_t j : block->keys)
            if (!c.sparse.keys[size_t(j)].rows.empty())
                engine.insert(std::vector<int>(c.sparse.keys[size_t(j)].rows.begin(), c.sparse.keys[size_t(j)].rows.end()));
        for (const StripKey* k : far_keys(strip)) drawn.insert(k->rows);
        EXPECT_FALSE(drawn.empty());
        EXPECT_EQ(drawn, engine);
    }

    std::filesystem::path dir_;
    QString library_path_;
    std::unique_ptr<EngineThread> engine_;
    qint64 doc_ = 0;
    EngineSettings base_;
    std::unique_ptr<AttentionPanel> panel_;
};

TEST_F(AttentionPanelOnDocumentTest, NormAndLshDrawTheKeysTheEnginePickedAndTheyDiffer) {
    const AttentionCaptureResult norm = run(PatternChoice::Norm, 1, 2);
    ASSERT_EQ(norm.sparsity_type, "norm");
    ASSERT_FALSE(norm.sparse.empty());
    ASSERT_TRUE(panel_->pattern_view()->shows_document());
    expect_strip_matches(norm);
    for (const StripKey* k : far_keys(panel_->pattern_view()->strip())) {
        EXPECT_EQ(k->style, KeyStyle::Single);  // norm keeps single tokens
        EXPECT_EQ(k->rows.size(), 1u);
    }
    EXPECT_TRUE(panel_->run_status()->text().contains("actually read"));
    const QImage norm_picture = panel_->pattern_view()->grab().toImage();

    const AttentionCaptureResult lsh = run(PatternChoice::Lsh, 1, 2);
    ASSERT_EQ(lsh.sparsity_type, "lsh");
    ASSERT_TRUE(panel_->pattern_view()->shows_document());
    expect_strip_matches(lsh);
    size_t largest = 0;
    for (const StripKey* k : far_keys(panel_->pattern_view()->strip())) {
        EXPECT_EQ(k->style, KeyStyle::Cluster);
        largest = std::max(largest, k->rows.size());
    }
    EXPECT_GT(largest, 1u);  // clusters gather several tokens, norm keeps one
    EXPECT_NE(panel_->pattern_view()->grab().toImage(), norm_picture);

    // The exact token count arriving later (as the main window reports it after a summary)
    // pads to the same length: the drawing stays the document's.
    panel_->set_document(doc_, lsh.tokens_read, true);
    EXPECT_TRUE(panel_->pattern_view()->shows_document());
    // Another head picks other keys, and changing the head leaves the old run's drawing.
    panel_->set_layer_and_head(1, 3);
    EXPECT_FALSE(panel_->pattern_view()->shows_document());
}

TEST_F(AttentionPanelOnDocumentTest, FixedTypesAfterARunAreDrawnFromTheEnginesKeys) {
    const AttentionCaptureResult bos = run(PatternChoice::BosPooling, 0, 1);
    ASSERT_TRUE(panel_->pattern_view()->shows_document());
    expect_strip_matches(bos);
    bool uneven = false;  // the weights now come from the run: no longer unknown, and not all equal
    for (const StripKey* k : far_keys(panel_->pattern_view()->strip())) {
        EXPECT_EQ(k->style, KeyStyle::Weighted);
        ASSERT_EQ(k->shares.size(), k->rows.size());
        for (float share : k->shares) uneven |= std::abs(share - 0.5f) > 1e-3f;
    }
    EXPECT_TRUE(uneven);

    run(PatternChoice::LocalOnly, 0, 1);
    EXPECT_FALSE(panel_->pattern_view()->shows_document());
    EXPECT_TRUE(panel_->run_status()->text().contains("no far keys")) << panel_->run_status()->text().toStdString();
}

TEST_F(AttentionPanelOnDocumentTest, HoverNamesTheWordsOfTheDocument) {
    const AttentionCaptureResult c = run(PatternChoice::Norm, 0, 0);
    ASSERT_FALSE(c.row_texts.isEmpty());
    EXPECT_TRUE(c.row_texts.join("").contains("river"));
    // The pattern: a token in the magnified window names its word and what key it is part of.
    ui::AttentionPatternView* view = panel_->pattern_view();
    const int row = view->window_begin() + 2;
    const QRect cell = view->magnified_cell(row);
    ASSERT_FALSE(cell.isEmpty());
    const QString word = c.row_texts[row].trimmed();
    const QString pattern_tip = view->tooltip_at(cell.center());
    EXPECT_TRUE(pattern_tip.contains(QStringLiteral("Token %1").arg(row - c.num_global))) << pattern_tip.toStdString();
    if (!word.isEmpty()) EXPECT_TRUE(pattern_tip.contains(word)) << pattern_tip.toStdString();
    // The weights: both words and the weight.
    panel_->tabs()->setCurrentIndex(1);
    QApplication::processEvents();
    ui::AttentionHeatmapView* map = panel_->heatmap_view();
    ASSERT_EQ(c.grid, c.rows);  // a short text: one cell per row
    int q = -1, k = -1;
    for (int i = c.num_global + 1; i < c.rows && q < 0; ++i)
        for (int j = c.num_global + 1; j < c.rows; ++j)
            if (c.cells[size_t(i) * size_t(c.grid) + size_t(j)] > 0.05f && !c.row_texts[i].trimmed().isEmpty() &&
                !c.row_texts[j].trimmed().isEmpty()) {
                q = i, k = j;
                break;
            }
    ASSERT_GE(q, 0) << "no weight above 0.05 between two words among " << c.rows << " rows, largest " << c.max_weight;
    const double side = double(map->map_rect().width()) / c.grid;
    const QString tip = map->tooltip_at(map->map_rect().topLeft() + QPointF((k + 0.5) * side, (q + 0.5) * side));
    EXPECT_TRUE(tip.contains(c.row_texts[q].trimmed())) << tip.toStdString();
    EXPECT_TRUE(tip.contains(c.row_texts[k].trimmed())) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QString::number(c.cells[size_t(q) * size_t(c.grid) + size_t(k)], 'f', 4))) << tip.toStdString();
}

// Issue 42, item 7: the panel never lies over the summary (floated over a 1024 px window it
// did). It docks in space of its own beside the panes at 1024x700 and at 1600x1000, the
// window keeps its size, and the document and summary stay usable beside it.
QRect global_rect(const QWidget* w) { return QRect(w->mapToGlobal(QPoint(0, 0)), w->size()); }

std::string describe(const QRect& r) {
    return std::to_string(r.x()) + "," + std::to_string(r.y()) + " " + std::to_string(r.width()) + "x" +
           std::to_string(r.height());
}

void expect_beside_the_summary(ui::MainWindow& window, QSize size, const QString& shot) {
    QApplication::processEvents();
    QDockWidget* dock = window.attention_dock();
    ASSERT_TRUE(dock->isVisible());
    EXPECT_FALSE(dock->isFloating());
    EXPECT_EQ(window.size(), size);
    const QRect panel = global_rect(dock), summary = global_rect(window.summary_panel()),
                document = global_rect(window.document_view());
    EXPECT_FALSE(panel.intersects(summary)) << "panel " << describe(panel) << " over summary " << describe(summary);
    EXPECT_FALSE(panel.intersects(document)) << "panel " << describe(panel) << " over document " << describe(document);
    EXPECT_TRUE(window.summary_panel()->isVisible());
    EXPECT_TRUE(global_rect(&window).contains(panel)) << "the panel is inside the window";
    EXPECT_GE(window.summary_panel()->width(), 200);
    EXPECT_GE(window.document_view()->width(), 200);
    EXPECT_GE(dock->width(), ui::kAttentionDockMinWidth);  // and the panel itself has room
    const auto* scroll = dock->findChild<QScrollArea*>();
    ASSERT_NE(scroll, nullptr);
    EXPECT_FALSE(scroll->horizontalScrollBar()->isVisible()) << "the panel scrolls sideways";
    save_shot_if_asked(&window, shot);
}

TEST(AttentionDock, NeverLiesOverTheSummaryAt1024x700Or1600x1000) {
    if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
    use_fixture_model_settings();
    const auto dir = scratch_dir("attention-dock");
    const auto essay = write_text_file(dir / "rivers.txt", river_paragraphs());
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
        SCOPED_TRACE(describe(QRect(QPoint(), size)));
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir / "library.sqlite").string());
        ui::MainWindow window(o);
        window.resize(size);
        window.show();
        ASSERT_TRUE(wait_until([&] { return window.model_info().has_value() && !window.engine()->busy(); }));
        window.open_file(QString::fromStdString(essay.string()));
        ASSERT_TRUE(wait_until([&] { return window.current_document() != 0 && !window.engine()->busy(); }));
        window.attention_dock()->show();
        const QString name = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        expect_beside_the_summary(window, size, "attention-panel-" + name + ".png");
        // A floating state (one restored from an older version) docks again when shown.
        window.attention_dock()->hide();
        window.attention_dock()->setFloating(true);
        window.attention_dock()->show();
        expect_beside_the_summary(window, size, "attention-panel-reshown-" + name + ".png");
    }
}

TEST(AttentionDock, StaysBesideTheSummaryWhenTheWindowIsResized) {
    if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
    use_fixture_model_settings();
    const auto dir = scratch_dir("attention-dock-resize");
    ui::MainWindowOptions o;
    o.library_path = QString::fromStdString((dir / "library.sqlite").string());
    ui::MainWindow window(o);
    window.resize(1024, 700);
    window.show();
    ASSERT_TRUE(wait_until([&] { return window.model_info().has_value() && !window.engine()->busy(); }));
    window.attention_dock()->show();
    expect_beside_the_summary(window, QSize(1024, 700), "attention-panel-opened-narrow-1024x700.png");
    window.resize(1600, 1000);
    QApplication::processEvents();  // the dock takes its room back after the window's layout
    expect_beside_the_summary(window, QSize(1600, 1000), "attention-panel-widened-1600x1000.png");
    EXPECT_GE(window.attention_dock()->width(), ui::kAttentionDockWidth - 20);
    window.resize(1024, 700);
    expect_beside_the_summary(window, QSize(1024, 700), "attention-panel-narrowed-1024x700.png");
}

// Issue 42, item 7: the panel says what it read. A long document is summarized section by
// section, but the attention capture reads what the model reads in one pass: its first
// tokens. "Across the whole document" only when that is all of it.
TEST(AttentionPanelScope, SaysHowMuchOfTheDocumentItReads) {
    AttentionPanel panel;
    panel.resize(560, 900);
    panel.show();
    ModelInfo info;
    info.encoder_layers = 2;
    info.encoder_heads = 4;
    info.attention = "lsg";
    info.max_input_tokens = 4096;
    panel.set_model_info(info);
    panel.set_document(7, 4096, true, 20480);
    EXPECT_EQ(panel.reading_scope(), "across the first 4,096 of 20,480 tokens");
    EXPECT_TRUE(panel.pattern_view()->reach_caption().endsWith("reads, across the first 4,096 of 20,480 tokens:"))
        << panel.pattern_view()->reach_caption().toStdString();
    EXPECT_TRUE(panel.legend()->text().contains("Top: the first 4,096 of 20,480 tokens")) << panel.legend()->text().toStdString();
    EXPECT_FALSE(panel.legend()->text().contains("whole document")) << panel.legend()->text().toStdString();
    EXPECT_FALSE(panel.pattern_view()->reach_caption().contains("whole document"));
    save_shot_if_asked(&panel, "attention-panel-reads-a-fifth.png");

    // What a capture of that document reports says the same.
    panel.tabs()->setCurrentIndex(1);
    AttentionCaptureResult c;
    c.document_id = 7;
    c.num_global = 1;
    c.rows = 4097;
    c.tokens_read = 4096;
    c.grid = 64;
    c.attention = "lsg";
    c.sparse_path = true;
    c.sparsity_type = "norm";
    c.cells.assign(size_t(c.grid) * size_t(c.grid), 0.1f);
    c.max_weight = 0.1f;
    panel.show_capture(c);
    EXPECT_EQ(panel.reading_scope(), "across the first 4,096 of 20,480 tokens");
    const QLabel* info_line = nullptr;
    for (QLabel* l : panel.findChildren<QLabel*>())
        if (l->text().contains("largest weight")) info_line = l;
    ASSERT_NE(info_line, nullptr);
    EXPECT_TRUE(info_line->text().contains("the first 4,096 of 20,480 tokens read")) << info_line->text().toStdString();
    save_shot_if_asked(&panel, "attention-panel-weights-reads-a-fifth.png");

    // A document the model reads whole.
    panel.tabs()->setCurrentIndex(0);
    panel.set_document(8, 3000, true, 3000);
    EXPECT_EQ(panel.reading_scope(), "across the whole document");
    EXPECT_TRUE(panel.pattern_view()->reach_caption().endsWith("reads, across the whole document:"))
        << panel.pattern_view()->reach_caption().toStdString();
    EXPECT_TRUE(panel.legend()->text().contains("Top: the whole document")) << panel.legend()->text().toStdString();
    save_shot_if_asked(&panel, "attention-panel-reads-all.png");
}

// The window tells the panel how long the document is and how much of it one pass reads,
// from the document's summary: a long document summarized in sections read it all, the
// capture reads the model's length.
TEST(AttentionPanelScope, TheWindowSaysTheFirstTokensOfALongDocument) {
    if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
    use_fixture_model_settings();
    const auto dir = scratch_dir("attention-scope-window");
    std::string long_text;
    while (long_text.size() < 60000) long_text += river_paragraphs();
    const auto book = write_text_file(dir / "long-rivers.txt", long_text);
    ui::MainWindowOptions o;
    o.library_path = QString::fromStdString((dir / "library.sqlite").string());
    ui::MainWindow window(o);
    window.resize(1600, 1000);
    window.show();
    ASSERT_TRUE(wait_until([&] { return window.model_info().has_value() && !window.engine()->busy(); }));
    ASSERT_GT(window.model_info()->max_input_tokens, 0);
    window.open_file(QString::fromStdString(book.string()));
    ASSERT_TRUE(wait_until([&] { return window.current_document() != 0 && !window.engine()->busy(); }));
    window.attention_dock()->show();
    QApplication::processEvents();
    // Before any summary: an estimate from the text's length, longer than the model reads.
    const QString scope = window.attention_panel()->reading_scope();
    EXPECT_TRUE(scope.startsWith("across the first ")) << scope.toStdString();
    EXPECT_FALSE(scope.contains("whole document")) << scope.toStdString();
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
