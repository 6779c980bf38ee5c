#include "app/cli/usage.h"

#include <utility>

namespace precis::cli {

namespace {

// Options shared by the commands that run a summarization model.
const char* const kModelRunOptions = R"(
Model and device:
  --model DIR               the model folder (default: the installed default model)
  --device auto|cpu|cuda    where to run (auto: the GPU when it has room for the model,
                            else the CPU); if the GPU fails (out of memory, a CUDA
                            error), the run goes on on the CPU and one line says so
  --dtype auto|fp32|fp16|bf16
                            GPU precision: auto (default) is fp16 on the tensor cores;
                            fp32 matches the reference exactly; bf16 needs an Ampere or
                            newer card; the CPU ignores it
  --compute-type fp32|int8|fp16-weights
                            CPU weight storage (int8 and fp16 trade accuracy for speed)
  --batch-size N|auto       documents the model summarizes together when there are
                            several (auto, the default: as many as speed gains from and
                            half the free memory holds; running out halves it)
Generation:
  --beams N  --length-penalty X  --max-length N  --min-length N  --no-repeat-ngram N
  --max-new-tokens N  --early-stopping
Attention (overrides the model's own settings):
  --attention lsg|full|fovea  --sparsity-type T  --block-size N  --sparse-block-size N
  --sparsity-factor N  --num-global-tokens N  --max-positions N  --lsh-seed N
  --fovea-block-size N  --fovea-wing N  --fovea-stop-level N
Method:
  --method auto|neural|extractive
                            auto: the model when one is installed, else the document's
                            own sentences (extractive)
  --sentences N | --words N | --ratio X
                            how long an extractive summary is
  --position-weight X  --position-decay X  --redundancy X  --dialogue-factor X
)";

// What happens to a document longer than the model reads (app/long/long_mode.h).
const char* const kLongOption = R"(Long documents:
  --long auto|extend|sections|truncate
                            auto (default): an LSG model reads up to 4x the length it
                            was trained on in one pass (extend); a longer document is
                            summarized section by section (chapters, the PDF outline,
                            else pages or paragraphs), the section summaries combined
                            into the document's summary and printed under it as its
                            outline; a cancelled run continues from its finished
                            sections. truncate: the first tokens only, as the model reads
)";

const char* const kLibraryOption = R"(
  --library DB              the library file (default: the one in your data folder)
)";

// One entry per command and subcommand: its usage line and what it does, then options.
const std::vector<std::pair<std::string, std::string>>& usage_table() {
    static const std::vector<std::pair<std::string, std::string>> table = {
        {"summarize", std::string(R"(usage: precis summarize FILE... [OPTIONS]

Summarizes each PDF, text or Markdown file and prints the summary.

  --json                    one JSON object per file (file, summary, summary_ids,
                            input_tokens, truncated, long, sections, seconds, device)
  --password P              the password of an encrypted PDF
  --max-input-tokens N      read at most N tokens of each document
)") + kLongOption + kModelRunOptions},
        {"classify", R"(usage: precis classify FILE... --model DIR [OPTIONS]

Prints each file's labels with their scores, from a trained classification head or,
with --labels, zero-shot (an NLI model scores each label).

  --model DIR               the classifier model folder
  --labels "a,b,c"          candidate labels for zero-shot classification
  --template "This text is about {}."
                            the hypothesis each label is put into (zero-shot)
  --multi-label             score each label on its own instead of choosing one
  --threshold X             with --multi-label, the score a label needs (0 to 1)
  --device auto|cpu|cuda  --dtype auto|fp32|fp16|bf16  --compute-type T  --password P
                            (and the attention options; see precis summarize --help)
  --json                    JSON instead of text
  --store                   also store the labels in the library
  --library DB              the library --store writes to
)"},
        {"batch", std::string(R"(usage: precis batch DIR [OPTIONS]

Summarizes every PDF, text and Markdown file in DIR into the library. Progress goes to
stderr; Ctrl-C stops after the current step and running the same command again resumes
the job without redoing finished files. The report at the end counts every file of the
job and lists each failed file with its reason.

  --recursive               include subfolders
  --retry-failed            try again the files an earlier run of this job failed on
  --library DB              the library to fill (default: the one in your data folder)
  --shard I/N               only share I (0..N-1) of the folder's files, chosen by a hash of
                            each file's path in DIR: the same on every run and machine;
                            needs its own --library (merge the shards with library merge)
  --shard-from-env          the share from the job array: SLURM_ARRAY_TASK_ID and
                            SLURM_ARRAY_TASK_COUNT, or a Kubernetes Indexed Job's
                            JOB_COMPLETION_INDEX with --shard-count N (or PRECIS_SHARD_COUNT)
  --shard-count N           the number of shards, for --shard-from-env
  --failed-files-ok         exit 0 when the run finished though some files failed (they
                            are recorded with their reasons), as a job array task should
  --classifier DIR          also classify each file with this model
  --labels "a,b,c"  --multi-label  --threshold X
                            zero-shot labels for --classifier, as for precis classify
)") + kLongOption + kModelRunOptions},
        {"library", R"(usage: precis library list|show|search|export|delete|merge ... [--library DB]

Reads and edits the library of documents and summaries.

  list [--label L] [--failed]     documents with their summaries (or the files batch
                                  jobs could not summarize, with --failed)
  show ID                         a document, its labels and summaries
  search TEXT                     documents whose text or summary matches, with snippets
  export ID [--format md|json]    a document's summaries
  delete ID                       a document and its summaries
  merge OUT IN...                 other libraries (e.g. batch shards) into OUT

precis library SUBCOMMAND --help tells more.
)"},
        {"library list", std::string(R"(usage: precis library list [--label L] [--failed] [--library DB]

Lists the documents: id, title, how many summaries, labels and the latest summary.

  --label L                 only documents classified with label L
  --failed                  instead, the files batch jobs could not summarize: job id,
                            file and reason; retry them with precis batch DIR --retry-failed)") + kLibraryOption},
        {"library merge", R"(usage: precis library merge OUT IN...

Merges the libraries IN (e.g. the shards of precis batch --shard) into OUT, creating it
when missing: documents (one per content), summaries (one per document and settings; other
settings are kept as separate summaries), labels, models and batch jobs. Every IN is
checked before OUT is touched: a damaged, truncated, newer or foreign file is refused and
OUT stays as it was. Each IN is merged in one transaction, and merging one again changes
nothing.
)"},
        {"cluster", R"(usage: precis cluster submit|status|resubmit|merge ...

Runs a batch folder on a Slurm cluster as a job array: one shard of the folder per task,
each into its own library, then one job that merges them into the library you open.

  submit DIR --library OUT.db --tasks N [options]    write the scripts and submit them
  status JOB                                          tasks, their states and progress
  resubmit JOB --task I                               run a task again (its shard resumes)
  merge JOB                                           merge whatever shards finished, here

precis cluster SUBCOMMAND --help tells more.
)"},
        {"cluster submit", std::string(R"(usage: precis cluster submit DIR --library OUT.db --tasks N [OPTIONS]

Writes a Slurm batch script for a job array of N tasks (each runs precis batch DIR --shard
I/N into OUT-cluster/shards/shard-I.db) and one that merges the shards into OUT.db, keeps
both in OUT-cluster/ beside OUT.db, submits them with sbatch, and prints the job ids.

  --library OUT.db          the merged library (the shards and scripts go beside it)
  --tasks N                 array tasks, one shard each
  --partition P  --time T  --mem M  --cpus-per-task C  --gres gpu:1
                            what each task asks Slurm for (default: the cluster's)
  --merge-after ok|any      merge when every task succeeded (ok, the default), or when
                            all have ended, merging whatever finished (any)
  --recursive  --method auto|neural|extractive  --sentences N  --classifier DIR ...
                            passed on to each task's precis batch; the method is settled
                            here, and a model is read in place from its folder
)") + kModelRunOptions},
        {"cluster status", R"(usage: precis cluster status JOB

Shows each task of the job (from squeue, and sacct or scontrol for ended ones): pending,
running, completed, or failed with its reason and exit code, with the progress its shard
library records, and the merge job's state. JOB is the id submit printed, the job's
folder or its OUT.db.
)"},
        {"cluster resubmit", R"(usage: precis cluster resubmit JOB --task I [--merge-after ok|any]

Submits task I (or I,J or I-J) of the job again, alone, with a new merge job after it; its
shard library resumes, so nothing is done twice. A merge job still waiting for the failed
array is cancelled.
)"},
        {"cluster merge", R"(usage: precis cluster merge JOB

Merges into the job's library, here and now, every shard that can be merged, and says
which cannot (not started, or damaged); run it again later, merging is idempotent.
)"},
        {"library show", std::string(R"(usage: precis library show ID [--library DB]

Shows document ID: its file, pages, labels, and every summary with its settings, the
source passages it drew on and, for a long document summarized section by section, each
section's title, pages and summary.)") + kLibraryOption},
        {"library search", std::string(R"(usage: precis library search TEXT [--library DB]

Full-text search over document text and summaries (sections' summaries too); prints each
matching document with a snippet of the match.)") + kLibraryOption},
        {"library export", std::string(R"(usage: precis library export ID [--format md|json] [--library DB]

Prints document ID's summaries as Markdown (the default) or JSON.

  --format md|json          the output format)") + kLibraryOption},
        {"library delete", std::string(R"(usage: precis library delete ID [--library DB]

Deletes document ID and its summaries from the library (the file itself stays).)") + kLibraryOption},
        {"convert", R"(usage: precis convert SRC DST [OPTIONS]

Turns a HuggingFace BART checkpoint folder SRC into an LSG one in DST, so it reads long
documents.

  --max-positions N         the longest input the converted model reads (tokens)
  --block-size N            local attention block size
  --sparse-block-size N     sparse attention block size
  --sparsity-factor N       how many keys one sparse key stands for
  --sparsity-type T         none, pooling, stride, block_stride, norm, lsh, bos_pooling
  --num-global-tokens N     global tokens prepended to the input
  --seed N                  seed for position rows the source model lacks
  --stride N                the global tokens' position stride (64 in the paper)
)"},
        {"tokenize", R"(usage: precis tokenize --model DIR [--json] [--decode] TEXT

Shows how TEXT becomes token ids with the model's tokenizer.

  --model DIR               a model folder (or just its tokenizer files)
  --json                    the ids as a JSON array
  --decode                  TEXT is ids ("31414 232"); print the text they stand for
  --windows FILE --max-tokens N
                            the windows a long document is summarized in by a model that
                            reads N tokens (--long sections): one JSON object a line with
                            title, start, end, pages, tokens and ids
)"},
        {"forward", R"(usage: precis forward --model DIR --input IN.json --out OUT.safetensors [OPTIONS]

Runs the encoder and one decoder pass on the ids in IN.json (input_ids, attention_mask,
decoder_input_ids) and writes the tensors, for parity checks against reference fixtures.

  --generate greedy|beam    also generate, and write the ids
  --lsh-projections FILE    the LSH projections to use (safetensors)
  --device auto|cpu|cuda  --dtype auto|fp32|fp16|bf16  --compute-type T
  (and the generation and attention options; see precis summarize --help)
)"},
        {"inspect", R"(usage: precis inspect MODEL [--json]

Prints a model's architecture, sizes, attention settings and tokenizer.

  --json                    as JSON
)"},
        {"bench", R"(usage: precis bench [--model DIR | --shape base|large|tiny] [OPTIONS]

Times the encoder, greedy generation and peak memory per input length and compute type.

  --model DIR | --shape S   a real model, or random weights of a standard shape
  --device auto|cpu|cuda    where to run, as for precis summarize
  --dtype auto|fp32|fp16|bf16  GPU precision (auto: fp16; fp32: exact)
  --lengths 1024,4096,16384 input lengths in tokens
  --compute-type fp32,int8,fp16-weights
                            compute types to compare
  --repeat N                timed repetitions (median reported)
  --rounds N                run the compute types one after another N times; ratios to
                            fp32 are taken round by round, medians reported
  --new-tokens N            tokens generated per timing
  --include-infeasible      also run full attention beyond 8192 tokens
  --method extractive       time the extractive summarizer instead
  --merge-summaries N       time precis library merge of N summaries instead (and its
                            memory): --shards K libraries (4), --document-bytes B (2000)
  --json                    one JSON array
  --docs DOCS.jsonl         many documents at once instead: every document of DOCS.jsonl
                            ({"ids": [...]} a line) gets exactly --new-tokens tokens with
                            --beams B, --batch-size N|auto at a time, on --model DIR and
                            one --compute-type; prints one JSON line (seconds, ids,
                            peak_memory_mb, batch_size)
  (and the attention options of precis summarize)
)"},
        {"eval", std::string(R"(usage: precis eval --input PAIRS.jsonl [OPTIONS]

ROUGE-1/2/L/Lsum of summaries against references. Lines holding "candidate" are scored as
they are; lines holding "document" are summarized first.

  --input PAIRS.jsonl       one JSON object a line with "reference" and "candidate" or
                            "document"
  --limit N                 score the first N lines only
  --output OUT.jsonl        write each line's candidate and scores
  --no-stemmer              compare words without Porter stemming
  --json                    the scores as JSON
)") + kModelRunOptions},
        {"model", R"(usage: precis model catalog|download|list|remove|default ...

Finds, downloads and manages summarization and classification models.

  catalog [--json]                      the curated models you can download
  download REPO [--revision R] [--name NAME] [--convert-lsg N]
                                        one from the HuggingFace Hub
  list [--json]                         installed and HuggingFace-cached models
  remove NAME                           delete an installed model
  default [NAME]                        show or set the default model

precis model SUBCOMMAND --help tells more.
)"},
        {"model catalog", R"(usage: precis model catalog [--json]

Lists the curated models: task, input length, size, licence and what each is good for.

  --json                    as JSON
)"},
        {"model download", R"(usage: precis model download REPO [--revision R] [--name NAME] [--convert-lsg N]

Downloads a model from the HuggingFace Hub (HF_ENDPOINT and HF_TOKEN are honoured) and
installs it; an interrupted download resumes.

  --revision R              branch, tag or commit (default: main)
  --name NAME               the installed name (default: from REPO)
  --convert-lsg N           convert a BART model to LSG reading N tokens
)"},
        {"model list", R"(usage: precis model list [--json]

Lists installed models and the ones found in the HuggingFace cache.

  --json                    as JSON
)"},
        {"model remove", R"(usage: precis model remove NAME

Deletes the installed model NAME.
)"},
        {"model default", R"(usage: precis model default [NAME]

Without NAME, prints the default model's folder; with NAME, makes it the default.
)"},
    };
    return table;
}

}  // namespace

std::optional<std::string> command_usage(const std::string& command) {
    for (const auto& [name, text] : usage_table())
        if (name == command) return text;
    return std::nullopt;
}

std::vector<std::string> commands_with_usage() {
    std::vector<std::string> names;
    for (const auto& entry : usage_table()) names.push_back(entry.first);
    return names;
}

}  // namespace precis::cli
