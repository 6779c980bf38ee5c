#pragma once
// TF-IDF vectors of sentences and their cosine similarity, the similarity graph's edges.
// Inverse document frequency counts sentences of the same document: a term that is in
// every sentence tells sentences apart no better than a stop word.
#include <utility>
#include <vector>

#include "app/text/content_terms.h"

namespace precis::extractive {

// Unit-length sparse vector: (term id, weight) sorted by term id.
using SparseVector = std::vector<std::pair<int, float>>;

std::vector<SparseVector> tfidf_vectors(const text::SentenceTerms& terms);

// Cosine similarity of two unit-length vectors (their dot product).
float cosine(const SparseVector& a, const SparseVector& b);

}  // namespace precis::extractive
