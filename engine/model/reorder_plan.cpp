#include "engine/model/reorder_plan.h"

#include <cstddef>

namespace precis {

ReorderPlan plan_reorder(const std::vector<int>& parents) {
    const int rows = int(parents.size());
    ReorderPlan plan;
    std::vector<int> slot(size_t(rows), -1);  // where an overwritten parent is saved
    for (int r = 0; r < rows; ++r) {
        const int par = parents[size_t(r)];
        if (par != r && parents[size_t(par)] != par && slot[size_t(par)] < 0) slot[size_t(par)] = plan.slots++;
    }
    for (int r = 0; r < rows; ++r)
        if (slot[size_t(r)] >= 0) plan.moves.push_back(ReorderMove{r, -1, -1, slot[size_t(r)]});
    plan.saves = int(plan.moves.size());
    for (int r = 0; r < rows; ++r) {
        const int par = parents[size_t(r)];
        if (par != r) plan.moves.push_back(ReorderMove{par, slot[size_t(par)], r, -1});
    }
    return plan;
}

}  // namespace precis
