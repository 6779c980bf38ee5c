#include "app/extractive/sentence_vectors.h"

#include <algorithm>
#include <cmath>

namespace precis::extractive {

std::vector<SparseVector> tfidf_vectors(const text::SentenceTerms& terms) {
    const size_t n = terms.terms.size();
    std::vector<int> df(terms.vocabulary.size(), 0);
    std::vector<SparseVector> out(n);
    for (size_t i = 0; i < n; ++i) {
        std::vector<int> ids = terms.terms[i];
        std::sort(ids.begin(), ids.end());
        SparseVector& v = out[i];
        for (size_t j = 0; j < ids.size();) {
            size_t k = j;
            while (k < ids.size() && ids[k] == ids[j]) ++k;
            v.emplace_back(ids[j], float(k - j));  // raw term frequency for now
            ++df[size_t(ids[j])];
            j = k;
        }
    }
    for (SparseVector& v : out) {
        double norm = 0;
        for (auto& [id, w] : v) {
            // Sublinear tf keeps one word repeated in a list from dominating its sentence.
            const double idf = std::log((1.0 + double(n)) / (1.0 + double(df[size_t(id)]))) + 1.0;
            w = float((1.0 + std::log(double(w))) * idf);
            norm += double(w) * double(w);
        }
        if (norm > 0) {
            const float inv = float(1.0 / std::sqrt(norm));
            for (auto& [id, w] : v) w *= inv;
        }
    }
    return out;
}

float cosine(const SparseVector& a, const SparseVector& b) {
    float dot = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].first == b[j].first) dot += a[i++].second * b[j++].second;
        else if (a[i].first < b[j].first) ++i;
        else ++j;
    }
    return dot;
}

}  // namespace precis::extractive
