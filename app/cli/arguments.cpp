#include "app/cli/arguments.h"

#include <cctype>
#include <cstdlib>

namespace precis::cli {

namespace {

// "-x", "-json": a short option, which no command has besides -h. "-" (standard input)
// and "-5" (a number) stay positional.
bool looks_like_short_option(const std::string& a) {
    return a.size() >= 2 && a[0] == '-' && std::isalpha(static_cast<unsigned char>(a[1]));
}

}  // namespace

Arguments::Arguments(std::string command, std::vector<std::string> args, std::set<std::string> flags,
                     std::set<std::string> options)
    : command_(std::move(command)) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") throw HelpRequested{command_};
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a, value;
            bool has_value = false;
            if (auto eq = a.find('='); eq != std::string::npos) {
                name = a.substr(0, eq);
                value = a.substr(eq + 1);
                has_value = true;
            }
            if (flags.count(name)) {
                if (has_value) throw UsageError("option " + name + " of precis " + command_ + " takes no value");
                flags_.insert(name);
            } else if (options.count(name)) {
                if (!has_value) {
                    if (i + 1 >= args.size()) throw UsageError("option " + name + " of precis " + command_ + " needs a value");
                    value = args[++i];
                }
                values_[name] = value;
            } else {
                throw UsageError("unknown option " + name + " for precis " + command_ + " (see precis " + command_ + " --help)");
            }
        } else if (a == "--") {
            for (++i; i < args.size(); ++i) positional_.push_back(args[i]);
        } else if (looks_like_short_option(a)) {
            throw UsageError("unknown option " + a + " for precis " + command_ + " (see precis " + command_ + " --help)");
        } else {
            positional_.push_back(a);
        }
    }
}

std::string first_positional(const std::vector<std::string>& args, const std::set<std::string>& valued_options) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") return i + 1 < args.size() ? args[i + 1] : std::string();
        if (a.rfind("-", 0) != 0 || a == "-") return a;
        if (valued_options.count(a)) ++i;  // "--library DB": DB is the option's, not the subcommand
    }
    return {};
}

std::optional<std::string> Arguments::value(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Arguments::value_or(const std::string& name, const std::string& fallback) const {
    return value(name).value_or(fallback);
}

std::optional<int> Arguments::int_value(const std::string& name) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    char* end = nullptr;
    long x = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || x < -2147483647L || x > 2147483647L)
        throw Error("option " + name + " of precis " + command_ + " needs an integer, not '" + *v + "'");
    return int(x);
}

std::optional<double> Arguments::double_value(const std::string& name) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    char* end = nullptr;
    double x = std::strtod(v->c_str(), &end);
    if (v->empty() || *end != '\0')
        throw Error("option " + name + " of precis " + command_ + " needs a number, not '" + *v + "'");
    return x;
}

std::vector<std::string> split_list(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    auto flush = [&] {
        size_t b = cur.find_first_not_of(" \t"), e = cur.find_last_not_of(" \t");
        if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
        cur.clear();
    };
    for (char c : s) {
        if (c == sep)
            flush();
        else
            cur += c;
    }
    flush();
    return out;
}

int batch_size_value(const Arguments& args) {
    const std::string s = args.value_or("--batch-size", "auto");
    if (s == "auto") return 0;
    const std::optional<int> n = args.int_value("--batch-size");
    if (!n || *n < 1)
        throw Error("--batch-size needs a number of documents (1 or more) or auto, not '" + s + "'");
    return *n;
}

}  // namespace precis::cli
