#pragma once
// The colours the attention panel uses for each kind of key, chosen from the Okabe-Ito
// palette so they stay distinguishable for colour-blind readers, and the heat-map scale.
#include <QColor>
#include <QString>
#include <QVector>

#include "engine/attention/attention_pattern.h"

namespace precis::ui {

QColor pattern_kind_colour(PatternKind kind, int fovea_level = 0);
QString pattern_kind_label(PatternKind kind);

struct LegendEntry {
    QColor colour;
    QString label;
};
// The entries that explain `pattern` (only kinds it contains).
QVector<LegendEntry> legend_for(const AttentionPattern& pattern);

// 0..1 -> a perceptually ordered dark-to-bright scale (white background stays "no weight").
QRgb heat_colour(float t);

}  // namespace precis::ui
