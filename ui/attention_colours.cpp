#include "ui/attention_colours.h"

#include <QCoreApplication>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace precis::ui {

QColor key_style_colour(KeyStyle style, int fovea_level) {
    switch (style) {
        case KeyStyle::Global: return QColor(0xE6, 0x9F, 0x00);      // orange
        case KeyStyle::Local: return QColor(0x00, 0x72, 0xB2);       // blue
        case KeyStyle::Dense: return QColor(0x88, 0x88, 0x88);       // grey
        case KeyStyle::Single: return QColor(0x00, 0x9E, 0x73);      // bluish green
        // Deep violet: vermillion sat too close to the global token's orange (issue 31).
        case KeyStyle::Averaged: return QColor(0x5E, 0x3C, 0x99);    // deep violet
        case KeyStyle::Weighted: return QColor(0xCC, 0x79, 0xA7);    // reddish purple
        case KeyStyle::Cluster: return QColor(0x56, 0xB4, 0xE9);     // sky blue
        case KeyStyle::Candidates: return QColor(0xC9, 0xE8, 0xDD);  // pale green: chosen from here, by the text
        case KeyStyle::FoveaNode: {
            // Finer nodes darker: level 0 is the query's own block.
            const double t = std::min(1.0, fovea_level / 6.0);
            return QColor::fromHsvF(0.88, 0.75 - 0.5 * t, 0.65 + 0.3 * t);
        }
    }
    return Qt::black;
}

QColor key_colour(const StripKey& key) {
    const QColor base = key_style_colour(key.style, key.level);
    switch (key.style) {
        case KeyStyle::Averaged:
        case KeyStyle::Weighted:
            return key.index % 2 ? base.darker(135) : base;
        case KeyStyle::Cluster: {
            // A cluster's tokens lie scattered: neighbouring clusters need clearly different
            // hues (none of them the neighbours' blue or the global orange).
            static const QColor hues[] = {QColor(0x56, 0xB4, 0xE9), QColor(0x00, 0x9E, 0x73), QColor(0xAA, 0x33, 0x77),
                                          QColor(0xCC, 0x79, 0xA7), QColor(0x8C, 0x6D, 0x1F), QColor(0x99, 0x99, 0x33),
                                          QColor(0x44, 0xAA, 0x99), QColor(0x88, 0x22, 0x55)};
            return hues[key.index % 8];
        }
        default: return base;
    }
}

QString key_style_label(KeyStyle style) {
    const auto tr = [](const char* s) { return QCoreApplication::translate("AttentionPatterns", s); };
    switch (style) {
        case KeyStyle::Global: return tr("global token");
        case KeyStyle::Local: return tr("neighbour (read in full)");
        case KeyStyle::Dense: return tr("every word (short text)");
        case KeyStyle::Single: return tr("far key: one token");
        case KeyStyle::Averaged: return tr("far key: average of the span");
        case KeyStyle::Weighted: return tr("far key: weighted average (bar height = weight)");
        case KeyStyle::Cluster: return tr("far key: average of one cluster (tokens joined by an arc)");
        case KeyStyle::Candidates: return tr("far keys are picked from here on the document");
        case KeyStyle::FoveaNode: return tr("averaged block (darker = nearer, sharper)");
    }
    return {};
}

QVector<LegendEntry> legend_for(const KeyStrip& strip) {
    QSet<int> styles;
    for (const StripKey& k : strip.keys) styles.insert(int(k.style));
    QVector<LegendEntry> out;
    for (KeyStyle s : {KeyStyle::Global, KeyStyle::Local, KeyStyle::Dense, KeyStyle::Single, KeyStyle::Averaged,
                       KeyStyle::Weighted, KeyStyle::Cluster, KeyStyle::Candidates, KeyStyle::FoveaNode})
        if (styles.contains(int(s))) out.push_back({key_style_colour(s, 2), key_style_label(s)});
    return out;
}

QRgb heat_colour(float t) {
    t = std::clamp(t, 0.f, 1.f);
    // A short piecewise-linear ramp: white -> light blue -> blue -> dark purple -> near black red.
    static const float stops[][3] = {{255, 255, 255}, {198, 219, 239}, {66, 146, 198}, {84, 39, 143}, {103, 0, 13}};
    const float x = t * 4.f;
    const int i = std::min(3, int(x));
    const float f = x - float(i);
    auto mix = [&](int c) { return int(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f)); };
    return qRgb(mix(0), mix(1), mix(2));
}

}  // namespace precis::ui
