#include "app/summary_method.h"

namespace precis {

const char* summary_method_name(SummaryMethod method) {
    switch (method) {
        case SummaryMethod::Extractive: return "extractive";
        case SummaryMethod::Neural: return "neural";
        case SummaryMethod::Auto: break;
    }
    return "auto";
}

std::optional<SummaryMethod> parse_summary_method(const QString& name) {
    for (SummaryMethod m : {SummaryMethod::Auto, SummaryMethod::Extractive, SummaryMethod::Neural})
        if (name == QLatin1String(summary_method_name(m))) return m;
    return std::nullopt;
}

}  // namespace precis
