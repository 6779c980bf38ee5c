#pragma once
// LexRank (Erkan & Radev, 2004), continuous form: sentences are nodes of a graph whose
// edges are their cosine similarities; a sentence is central when sentences that are
// central themselves resemble it. Its centrality is the stationary distribution of a
// random walk over the row-normalized graph with teleportation (PageRank's damping).
#include <vector>

#include "app/extractive/sentence_vectors.h"

namespace precis::extractive {

struct LexRankOptions {
    double damping = 0.85;       // probability of following an edge rather than jumping
    double min_similarity = 0.0;  // weaker edges are dropped
    int max_iterations = 100;
    double tolerance = 1e-7;      // stop when no score moves by more than this (L1)
};

// Centrality of vectors[begin, end), scaled so that their mean is 1 (a sentence scoring
// 2 draws twice its share of the walk). The graph is dense: callers keep ranges to a few
// hundred sentences (see document_sections.h) so the cost stays linear in the document.
std::vector<double> lexrank(const std::vector<SparseVector>& vectors, size_t begin, size_t end,
                            const LexRankOptions& options = {});

}  // namespace precis::extractive
