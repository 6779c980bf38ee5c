#pragma once
// The outline pane of a summary made section by section: a list with "Whole document" first
// and then each section's title and where it is (ui/outline_model.h). Choosing a row (click,
// arrows, Enter) reports the section, so the summary panel shows that section's summary and
// the document view scrolls to where it starts. Hidden for a summary made in one pass.
//
// SectionCaption names the section whose summary shows: "Section 7 of 42: CHAPTER VII. The
// Storm (pages 88-101)" on one line, or where that does not fit, "Section 7 of 42 (pages
// 88-101)" over the title, shortened at a word (the whole caption in its tooltip).
//
// OutlineSplitter holds the pane and the summary text: side by side when the panel is wide
// enough for both, the outline above the text when it is not (1024x700, and the default
// column widths at 1600x1000).
#include <QLabel>
#include <QListView>
#include <QSplitter>

#include "app/long/outline_section.h"
#include "ui/outline_model.h"

namespace precis::ui {

class OutlineView : public QListView {
    Q_OBJECT
public:
    explicit OutlineView(QWidget* parent = nullptr);

    // Lists the outline with "Whole document" selected; an empty outline lists nothing.
    void set_outline(const DocumentOutline& outline, int text_length);
    void clear_outline();
    int current_section() const;  // -1: "Whole document" (or nothing listed)
    OutlineModel* outline_model() const { return model_; }
    // Height that shows `rows` rows whole, frame included.
    int height_for_rows(int rows) const;
    int row_height() const;

signals:
    void section_selected(int section);  // -1: the whole document

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    OutlineModel* model_;
};

class SectionCaption : public QLabel {
    Q_OBJECT
public:
    explicit SectionCaption(QWidget* parent = nullptr);
    void set_caption(const SectionCaptionText& caption);
    QString full_text() const { return caption_.full(); }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;  // narrow: the caption shortens instead of widening the panel

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fit();
    SectionCaptionText caption_;
};

class OutlineSplitter : public QSplitter {
    Q_OBJECT
public:
    // Beside each other from this width of the splitter; the outline above the text below it.
    // (The outline then gets some 290 pixels, enough for most chapter titles.)
    static constexpr int kBesideWidth = 640;

    OutlineSplitter(OutlineView* outline, QWidget* reading, QWidget* parent = nullptr);
    void set_outline_visible(bool visible);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void arrange(bool force);

    OutlineView* outline_;
    bool user_sized_ = false;  // the handle was dragged: the sizes are the user's
};

}  // namespace precis::ui
