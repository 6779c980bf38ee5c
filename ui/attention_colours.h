#pragma once
// The colours the attention panel uses for each kind of key, chosen from the Okabe-Ito
// palette so they stay distinguishable for colour-blind readers, and the heat-map scale.
#include <QColor>
#include <QString>
#include <QVector>

#include "engine/attention/attention_pattern.h"
#include "ui/attention_key_strip.h"

namespace precis::ui {

QColor key_style_colour(KeyStyle style, int fovea_level = 0);
// Adjacent keys of one style alternate between two shades, so where one averaged key ends
// and the next begins stays visible; lsh clusters cycle through distinct hues instead.
QColor key_colour(const StripKey& key);
QString key_style_label(KeyStyle style);

struct LegendEntry {
    QColor colour;
    QString label;
};
// The entries that explain `strip` (only styles it contains), global and local first.
QVector<LegendEntry> legend_for(const KeyStrip& strip);

// 0..1 -> a perceptually ordered light-to-dark scale (white stays "no weight").
QRgb heat_colour(float t);

}  // namespace precis::ui
