#include "app/worker/worker_types.h"

namespace precis {

void register_worker_types() {
    // Queued connections copy arguments through the meta-type system.
    qRegisterMetaType<ModelInfo>();
    qRegisterMetaType<OpenedDocument>();
    qRegisterMetaType<SummaryOutcome>();
    qRegisterMetaType<SourceTrace>();
    qRegisterMetaType<ClassificationOutcome>();
    qRegisterMetaType<AttentionCaptureResult>();
    qRegisterMetaType<BatchOutcome>();
    qRegisterMetaType<EngineSettings>();
}

}  // namespace precis
