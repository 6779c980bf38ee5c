#pragma once
// The legend of the weights map: the heat colours from no weight to the largest weight of
// the capture, with the weights they stand for written beside them. The map uses a
// square-root scale (so small weights stay visible); the labels undo it, so they read as
// the weights themselves.
#include <QWidget>

namespace precis::ui {

class AttentionColourScale : public QWidget {
    Q_OBJECT
public:
    explicit AttentionColourScale(QWidget* parent = nullptr);

    void set_maximum(float max_weight);
    float maximum() const { return max_; }
    // The weights written at the ticks, bottom (0) to top (the maximum).
    QStringList tick_labels() const;
    // The weight a colour position t in [0, 1] stands for.
    float weight_at(float t) const { return t * t * max_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    float max_ = 0;
};

}  // namespace precis::ui
