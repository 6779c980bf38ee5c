#include "app/cli/method_flags.h"

#include <iostream>

#include "engine/core/error.h"

namespace precis::cli {

namespace {

const char* const kExtractiveOptions[] = {"--sentences", "--words", "--ratio", "--position-weight", "--position-decay",
                                           "--redundancy", "--dialogue-factor"};

}  // namespace

std::set<std::string> method_option_names() {
    std::set<std::string> names(std::begin(kExtractiveOptions), std::end(kExtractiveOptions));
    names.insert("--method");
    return names;
}

namespace {

// Options of the model's run that an extractive summary cannot honour: an error, so that
// "--beams zero" or "--max-length 60" is never silently ignored.
void reject_neural_options(const Arguments& args, bool asked_for_extractive) {
    std::set<std::string> names = generation_option_names();
    names.merge(attention_option_names());
    names.insert("--max-input-tokens");
    for (const std::string& name : names)
        if (args.value(name))
            throw Error(name + " applies to neural summaries, and this one is extractive" +
                        (asked_for_extractive ? std::string(" (--method extractive)")
                                              : std::string(": no summarization model is installed")));
    for (const std::string& name : generation_flag_names())
        if (args.flag(name)) throw Error(name + " applies to neural summaries, and this one is extractive");
}

}  // namespace

MethodChoice choose_method(const Arguments& args) {
    const std::string name = args.value_or("--method", "auto");
    const std::optional<SummaryMethod> method = parse_summary_method(QString::fromStdString(name));
    if (!method) throw Error("--method must be auto, extractive or neural, not '" + name + "'");
    MethodChoice choice;
    switch (*method) {
        case SummaryMethod::Extractive: reject_neural_options(args, true); return choice;
        case SummaryMethod::Neural:
            for (const char* option : kExtractiveOptions)
                if (args.value(option)) throw Error(std::string(option) + " applies to extractive summaries, not --method neural");
            choice.method = SummaryMethod::Neural;
            choice.model = locate_model(args);
            return choice;
        case SummaryMethod::Auto: break;
    }
    if (std::optional<ModelLocation> model = find_model(args)) {
        choice.method = SummaryMethod::Neural;
        choice.model = std::move(model);
        return choice;
    }
    reject_neural_options(args, false);
    choice.notice = "no summarization model is installed, so this is an extractive summary (the document's own "
                    "sentences); for a neural one, get a model with 'precis model catalog' and 'precis model download REPO'";
    return choice;
}

extractive::ExtractiveOptions extractive_from_flags(const Arguments& args) {
    extractive::ExtractiveOptions o;
    int lengths = 0;
    if (auto v = args.int_value("--sentences")) {
        if (*v < 1) throw Error("--sentences must be at least 1");
        o.budget = {extractive::BudgetUnit::Sentences, double(*v)};
        ++lengths;
    }
    if (auto v = args.int_value("--words")) {
        if (*v < 1) throw Error("--words must be at least 1");
        o.budget = {extractive::BudgetUnit::Words, double(*v)};
        ++lengths;
    }
    if (auto v = args.double_value("--ratio")) {
        if (!(*v > 0 && *v <= 1)) throw Error("--ratio must be more than 0 and at most 1");
        o.budget = {extractive::BudgetUnit::Ratio, *v};
        ++lengths;
    }
    if (lengths > 1) throw Error("give one of --sentences, --words and --ratio, not several");
    if (auto v = args.double_value("--position-weight")) {
        if (!(*v >= 0 && *v <= 1)) throw Error("--position-weight must be between 0 and 1");
        o.position_weight = *v;
    }
    if (auto v = args.double_value("--position-decay")) {
        if (!(*v > 0)) throw Error("--position-decay must be more than 0 (sentences)");
        o.position_decay = *v;
    }
    if (auto v = args.double_value("--dialogue-factor")) {
        if (!(*v >= 0 && *v <= 1)) throw Error("--dialogue-factor must be between 0 and 1");
        o.dialogue_factor = *v;
    }
    if (auto v = args.double_value("--redundancy")) {
        if (!(*v >= 0 && *v <= 10)) throw Error("--redundancy must be between 0 and 10");
        o.redundancy = *v;
    }
    return o;
}

}  // namespace precis::cli
