#pragma once
// One readable line saying which model and settings a run will use, before it starts
// (the batch dialog shows it so a long job is never started with a surprise model).
#include <QString>

#include "app/worker/engine_settings.h"

namespace precis {

// "Model: lsg-bart-base (user model folder); device auto; attention as the model was
// saved; generation: 4 beams, length 0-256, length penalty 2, no repeated 3-grams" (or "the
// model's own generation settings"), or
// "Extractive: each document's own most central sentences (no summarization model is
// installed), length automatic". Finds the model as a run would, without loading it.
QString describe_engine_settings(const EngineSettings& s);

}  // namespace precis
