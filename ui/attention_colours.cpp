#include "ui/attention_colours.h"

#include <QSet>

#include <algorithm>
#include <cmath>

namespace precis::ui {

QColor pattern_kind_colour(PatternKind kind, int fovea_level) {
    switch (kind) {
        case PatternKind::Global: return QColor(0xE6, 0x9F, 0x00);      // orange
        case PatternKind::Local: return QColor(0x00, 0x72, 0xB2);       // blue
        case PatternKind::Sparse: return QColor(0x00, 0x9E, 0x73);      // bluish green
        case PatternKind::Candidates: return QColor(0x9F, 0xD8, 0xC4);  // pale green: where sparse keys may come from
        case PatternKind::Dense: return QColor(0x88, 0x88, 0x88);
        case PatternKind::FoveaNode: {
            // Finer nodes darker: level 0 is the query's own block.
            const double t = std::min(1.0, fovea_level / 6.0);
            return QColor::fromHsvF(0.88, 0.75 - 0.5 * t, 0.65 + 0.3 * t);
        }
    }
    return Qt::black;
}

QString pattern_kind_label(PatternKind kind) {
    switch (kind) {
        case PatternKind::Global: return QStringLiteral("global");
        case PatternKind::Local: return QStringLiteral("local");
        case PatternKind::Sparse: return QStringLiteral("sparse");
        case PatternKind::Candidates: return QStringLiteral("sparse (chosen from these, data-dependent)");
        case PatternKind::Dense: return QStringLiteral("full attention");
        case PatternKind::FoveaNode: return QStringLiteral("Fovea node (darker = finer level)");
    }
    return {};
}

QVector<LegendEntry> legend_for(const AttentionPattern& p) {
    QSet<int> kinds;
    for (const PatternSpan& s : p.spans) kinds.insert(int(s.kind));
    QVector<LegendEntry> out;
    for (PatternKind k : {PatternKind::Global, PatternKind::Local, PatternKind::Sparse, PatternKind::Candidates,
                          PatternKind::FoveaNode, PatternKind::Dense})
        if (kinds.contains(int(k))) out.push_back({pattern_kind_colour(k, k == PatternKind::FoveaNode ? 3 : 0), pattern_kind_label(k)});
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
