// Model downloads against a local stand-in for the HuggingFace Hub (tests/support/fake_hub.h,
// serving the fixture checkpoint in place; nothing here reaches the internet): only the files
// Precis needs, verified and installed atomically; resume with Range after a dropped
// connection or a cancel; checksum, 401, 404, offline and disk-space errors in one sentence;
// the HuggingFace cache used in place; `precis model ...` on the command line, and a
// downloaded model summarizing.
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QTcpServer>

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <csignal>

#include <algorithm>
#include <fstream>
#include <set>

#include "app/models/catalog.h"
#include "app/models/hub_download.h"
#include "app/models/model_store.h"
#include "app/paths.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "tests/support/fake_hub.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;
using namespace precis::models;

const QString kRepo = QStringLiteral("precis-test/bart-tiny-realvocab");

QByteArray slurp(const fs::path& p) {
    QFile f(QString::fromStdString(p.string()));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::vector<std::string> entries_of(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

class ModelDownload : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(fixtures_dir() / "models/bart-tiny-realvocab/model.safetensors"))
            GTEST_SKIP() << "fixture model not found in " << fixtures_dir();
        hub_.add_repo(kRepo, fixture_hub_files());
        root_ = scratch_dir("model-download") / "models";
    }
    DownloadRequest request() const {
        DownloadRequest r;
        r.repo = kRepo;
        r.endpoint = hub_.endpoint();
        r.models_root = root_;
        return r;
    }
    fs::path model_dir() const { return root_ / "bart-tiny-realvocab"; }
    fs::path staging() const { return download_staging_dir(root_, "bart-tiny-realvocab"); }
    std::string error_of(const DownloadRequest& r, const DownloadCallbacks& cb = {}) {
        try {
            download_model(r, cb);
        } catch (const Cancelled&) {
            return "cancelled";
        } catch (const std::exception& e) {
            return e.what();
        }
        return "";
    }
    void expect_identical_to_fixture(const fs::path& dir) {
        const fs::path model = fixtures_dir() / "models/bart-tiny-realvocab", tok = fixtures_dir() / "tokenizer/bart";
        EXPECT_EQ(slurp(dir / "model.safetensors"), slurp(model / "model.safetensors"));
        EXPECT_EQ(slurp(dir / "config.json"), slurp(model / "config.json"));
        EXPECT_EQ(slurp(dir / "tokenizer.json"), slurp(tok / "tokenizer.json"));
        EXPECT_EQ(slurp(dir / "merges.txt"), slurp(tok / "merges.txt"));
    }

    FakeHub hub_;
    fs::path root_;
};

TEST_F(ModelDownload, FetchesOnlyWhatPrecisNeedsVerifiesItAndTheModelLoads) {
    DownloadRequest r = request();
    r.token = "hf_secret";
    std::vector<DownloadProgress> seen;
    DownloadCallbacks cb;
    cb.progress = [&](const DownloadProgress& p) { seen.push_back(p); };
    const DownloadResult result = download_model(r, cb);

    EXPECT_EQ(result.dir, model_dir());
    EXPECT_EQ(result.commit, hub_.commit(kRepo));
    EXPECT_EQ(entries_of(model_dir()),
              (std::vector<std::string>{"config.json", "generation_config.json", "merges.txt", "model.safetensors",
                                        "precis-source.json", "tokenizer.json", "vocab.json"}));
    expect_identical_to_fixture(model_dir());
    // safetensors preferred over the .bin; nothing Precis does not read is fetched
    EXPECT_FALSE(hub_.requested("pytorch_model.bin"));
    EXPECT_FALSE(hub_.requested("tf_model.h5"));
    EXPECT_FALSE(hub_.requested("README.md"));
    EXPECT_FALSE(hub_.requested("onnx"));
    EXPECT_TRUE(hub_.requested("/api/models/precis-test/bart-tiny-realvocab/revision/main?blobs=true"));
    // the token goes to the Hub, never to the storage it redirects to
    for (const FakeHubRequest& q : hub_.requests()) {
        if (q.path.startsWith("/lfs/"))
            EXPECT_TRUE(q.authorization.isEmpty()) << q.path.constData();
        else
            EXPECT_EQ(q.authorization, "Bearer hf_secret") << q.path.constData();
    }
    // only the finished model is left: no hidden download folder, no lock
    EXPECT_EQ(entries_of(root_), std::vector<std::string>{"bart-tiny-realvocab"});
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back().done, seen.back().total);
    EXPECT_EQ(result.bytes, seen.back().total);

    auto model = Model::load(model_dir());
    ASSERT_NE(model->tokenizer(), nullptr);
    EXPECT_EQ(model->config().architecture, "BartForConditionalGeneration");
    const ModelInfo info = describe_model(model_dir());
    EXPECT_TRUE(info.usable) << info.problem.toStdString();
    EXPECT_EQ(info.task, "summarization");
    EXPECT_EQ(info.repo, kRepo);
    EXPECT_EQ(info.input_tokens, 128);
}

TEST_F(ModelDownload, ADroppedConnectionResumesWithRangeToIdenticalBytes) {
    hub_.drop_connection_once("model.safetensors", 1'500'000);
    const DownloadResult result = download_model(request());
    EXPECT_TRUE(hub_.ranged_request_for("model.safetensors"));
    EXPECT_GE(result.resumed_transfers, 1);
    expect_identical_to_fixture(model_dir());
}

TEST_F(ModelDownload, ACancelledSlowDownloadInstallsNothingAndTheNextRunResumes) {
    hub_.set_pace(64 * 1024, 20);
    DownloadCallbacks cb;
    bool into_weights = false;  // a megabyte into model.safetensors (fetched last)
    cb.progress = [&](const DownloadProgress& p) {
        into_weights = p.file == "model.safetensors" && p.done > p.total - 2'500'000;
    };
    cb.should_abort = [&] { return into_weights; };
    EXPECT_EQ(error_of(request(), cb), "cancelled");
    EXPECT_FALSE(fs::exists(model_dir()));
    for (const ModelInfo& m : installed_models(root_)) ADD_FAILURE() << "installed: " << m.name.toStdString();
    EXPECT_TRUE(fs::exists(staging() / "model.safetensors.partial"));  // kept for the next run

    hub_.set_pace(0, 0);
    const DownloadResult result = download_model(request());
    EXPECT_TRUE(hub_.ranged_request_for("model.safetensors"));
    EXPECT_GE(result.resumed_transfers, 1);
    EXPECT_LT(result.bytes_fetched, result.bytes);
    expect_identical_to_fixture(model_dir());
    EXPECT_FALSE(fs::exists(staging()));
}

TEST_F(ModelDownload, ACorruptedByteIsAChecksumErrorAndNothingIsInstalled) {
    hub_.corrupt_byte("model.safetensors", 123'456);
    const std::string e = error_of(request());
    EXPECT_NE(e.find("Checksum mismatch for model.safetensors"), std::string::npos) << e;
    EXPECT_NE(e.find("discarded"), std::string::npos) << e;
    EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 0);
    EXPECT_FALSE(fs::exists(model_dir()));
    EXPECT_FALSE(fs::exists(staging() / "model.safetensors"));
    EXPECT_FALSE(fs::exists(staging() / "model.safetensors.partial"));
}

TEST_F(ModelDownload, AGatedRepoWithoutATokenAsksForHfToken) {
    hub_.require_token(kRepo, "hf_good");
    std::string e = error_of(request());
    EXPECT_NE(e.find("gated or private"), std::string::npos) << e;
    EXPECT_NE(e.find("set HF_TOKEN"), std::string::npos) << e;
    EXPECT_NE(e.find("401"), std::string::npos) << e;
    EXPECT_FALSE(fs::exists(model_dir()));

    DownloadRequest with_token = request();
    with_token.token = "hf_good";
    EXPECT_EQ(download_model(with_token).dir, model_dir());
}

TEST_F(ModelDownload, AMissingRepoOrRevisionIsNotFound) {
    DownloadRequest r = request();
    r.repo = "precis-test/no-such-model";
    std::string e = error_of(r);
    EXPECT_NE(e.find("precis-test/no-such-model was not found"), std::string::npos) << e;
    EXPECT_NE(e.find("404"), std::string::npos) << e;
    r = request();
    r.revision = "v9";
    e = error_of(r);
    EXPECT_NE(e.find("has no revision 'v9'"), std::string::npos) << e;
    EXPECT_TRUE(entries_of(root_).empty() || entries_of(root_) == std::vector<std::string>{});
}

TEST_F(ModelDownload, AnUnreachableHubSaysSoInOneSentence) {
    QTcpServer closed;
    ASSERT_TRUE(closed.listen(QHostAddress::LocalHost, 0));
    const quint16 port = closed.serverPort();
    closed.close();  // nothing listens there now
    DownloadRequest r = request();
    r.endpoint = QStringLiteral("http://127.0.0.1:%1").arg(port);
    const std::string e = error_of(r);
    EXPECT_NE(e.find("Cannot reach 127.0.0.1"), std::string::npos) << e;
    EXPECT_NE(e.find("offline?"), std::string::npos) << e;
}

TEST_F(ModelDownload, NotEnoughDiskSpaceStopsBeforeFetchingWeights) {
    DownloadRequest r = request();
    r.assume_free_bytes = 1000;
    const std::string e = error_of(r);
    EXPECT_NE(e.find("Not enough disk space"), std::string::npos) << e;
    EXPECT_FALSE(hub_.requested("/lfs/"));
    EXPECT_FALSE(fs::exists(model_dir()));
}

TEST_F(ModelDownload, AWriteThatFailsMidFileIsOneSentenceAndInstallsNothing) {
    // A full disk, as the process sees it: writes past 2 MB fail (EFBIG instead of ENOSPC).
    struct rlimit old_limit {};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    struct rlimit small = old_limit;
    small.rlim_cur = 2'000'000;
    auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    const std::string e = error_of(request());
    setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    EXPECT_NE(e.find("Cannot write"), std::string::npos) << e;
    EXPECT_NE(e.find("is the disk full?"), std::string::npos) << e;
    EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 0);
    EXPECT_FALSE(fs::exists(model_dir()));
}

TEST_F(ModelDownload, OfflineModeRefusesToDownload) {
    qputenv("HF_HUB_OFFLINE", "1");
    const std::string e = error_of(request());
    qunsetenv("HF_HUB_OFFLINE");
    EXPECT_NE(e.find("HF_HUB_OFFLINE is set"), std::string::npos) << e;
    EXPECT_TRUE(hub_.requests().empty());
}

TEST_F(ModelDownload, AnInstalledNameIsNotOverwritten) {
    download_model(request());
    const std::string e = error_of(request());
    EXPECT_NE(e.find("already installed"), std::string::npos) << e;
    EXPECT_NE(e.find("--name"), std::string::npos) << e;
}

TEST_F(ModelDownload, APlainBartIsConvertedToLsgAfterDownloadWhenAsked) {
    DownloadRequest r = request();
    r.convert_lsg = 1024;
    const DownloadResult result = download_model(r);
    EXPECT_TRUE(result.converted);
    EXPECT_EQ(result.dir, root_ / "bart-tiny-realvocab-lsg-1024");
    const ModelInfo info = describe_model(result.dir);
    EXPECT_TRUE(info.usable) << info.problem.toStdString();
    EXPECT_TRUE(info.attention.startsWith("LSG")) << info.attention.toStdString();
    EXPECT_EQ(info.input_tokens, 1024);
    EXPECT_EQ(info.repo, kRepo);
    EXPECT_EQ(entries_of(root_), std::vector<std::string>{"bart-tiny-realvocab-lsg-1024"});  // the plain download is gone
    EXPECT_NE(Model::load(result.dir)->tokenizer(), nullptr);
}

TEST(ModelCatalog, ListsTheCuratedModelsRecommendedFirst) {
    const auto entries = load_catalog(source_dir() / "resources/models/catalog.json");
    ASSERT_FALSE(entries.empty());
    EXPECT_TRUE(entries.front().recommended);
    std::set<std::string> repos;
    for (const CatalogEntry& e : entries) {
        repos.insert(e.repo.toStdString());
        EXPECT_FALSE(e.task.isEmpty()) << e.repo.toStdString();
        EXPECT_GT(e.input_tokens, 0) << e.repo.toStdString();
    }
    for (const char* want :
         {"ccdv/lsg-bart-base-4096-arxiv", "ccdv/lsg-bart-base-4096-pubmed", "ccdv/lsg-bart-base-4096-multinews",
          "ccdv/lsg-bart-base-4096-booksum", "ccdv/lsg-bart-base-4096-mediasum", "ccdv/lsg-bart-base-4096-wcep",
          "ccdv/lsg-bart-base-16384-arxiv", "ccdv/lsg-bart-base-16384-pubmed", "ccdv/lsg-bart-base-16384-multinews",
          "ccdv/lsg-bart-base-16384-mediasum", "facebook/bart-large-cnn", "facebook/bart-large-xsum",
          "sshleifer/distilbart-cnn-12-6", "facebook/bart-large-mnli", "valhalla/distilbart-mnli-12-1"})
        EXPECT_TRUE(repos.count(want)) << want;
}

// A HuggingFace cache as huggingface_hub lays it out: blobs/ named by hash, snapshots/<commit>/
// with relative symlinks into blobs/, refs/main naming the commit.
fs::path make_cache_entry(const fs::path& cache, const std::string& repo_folder, const std::vector<fs::path>& files) {
    const std::string commit = "0123456789abcdef0123456789abcdef01234567";
    const fs::path repo = cache / repo_folder;
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "snapshots" / commit);
    fs::create_directories(repo / "refs");
    std::ofstream(repo / "refs" / "main") << commit;
    for (const fs::path& f : files) {
        const QByteArray bytes = slurp(f);
        const std::string blob = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().toStdString();
        QFile out(QString::fromStdString((repo / "blobs" / blob).string()));
        EXPECT_TRUE(out.open(QIODevice::WriteOnly));
        out.write(bytes);
        fs::create_symlink(fs::path("../../blobs") / blob, repo / "snapshots" / commit / f.filename());
    }
    return repo / "snapshots" / commit;
}

TEST(HfCache, ModelsInTheSnapshotLayoutAreFoundAndUsedInPlace) {
    const fs::path home = scratch_dir("hf-cache"), cache = home / "hub";
    const fs::path model = fixtures_dir() / "models/bart-tiny-realvocab", tok = fixtures_dir() / "tokenizer/bart";
    if (!fs::exists(model / "model.safetensors")) GTEST_SKIP() << "fixture model not found";
    const fs::path snap = make_cache_entry(cache, "models--precis-test--tiny",
                                           {model / "config.json", model / "model.safetensors", tok / "tokenizer.json"});
    make_cache_entry(cache, "models--precis-test--config-only", {model / "config.json"});  // weights never fetched
    fs::create_directories(cache / "datasets--someone--data");

    const auto found = cached_models(cache);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].repo, "precis-test/tiny");
    EXPECT_EQ(found[0].name, "precis-test/tiny");
    EXPECT_EQ(found[0].commit, "0123456789abcdef0123456789abcdef01234567");
    EXPECT_EQ(found[0].dir, snap);
    EXPECT_TRUE(found[0].in_hf_cache);
    EXPECT_EQ(found[0].task, "summarization");
    EXPECT_EQ(found[0].input_tokens, 128);
    EXPECT_EQ(found[0].attention, "full");
    EXPECT_EQ(found[0].size_bytes, qint64(fs::file_size(model / "config.json") + fs::file_size(model / "model.safetensors") +
                                          fs::file_size(tok / "tokenizer.json")));
    auto loaded = Model::load(found[0].dir);  // in place, through the symlinks
    EXPECT_NE(loaded->tokenizer(), nullptr);

    // With nothing installed, it is the default; and it can be chosen by its repo id.
    const fs::path data = home / "data", config = home / "config";
    qputenv("HF_HUB_CACHE", QByteArray::fromStdString(cache.string()));
    qputenv("XDG_DATA_HOME", QByteArray::fromStdString(data.string()));
    qputenv("XDG_CONFIG_HOME", QByteArray::fromStdString(config.string()));
    EXPECT_EQ(user_default_model(), snap);
    set_default_model("precis-test/tiny");
    EXPECT_EQ(default_model_name(), "precis-test/tiny");
    EXPECT_EQ(model_folder_for("precis-test/tiny"), snap);
    EXPECT_THROW(set_default_model("precis-test/config-only"), Error);
    EXPECT_THROW(remove_installed_model("precis-test/tiny"), Error);  // the cache is not ours to delete
    EXPECT_TRUE(fs::exists(snap / "model.safetensors"));
    qunsetenv("HF_HUB_CACHE");
    qunsetenv("XDG_DATA_HOME");
    qunsetenv("XDG_CONFIG_HOME");
}

// ---- the command line -------------------------------------------------------------

struct CliRun {
    int code = -1;
    std::string out, err;
};

CliRun precis_cli(const std::string& args, const std::string& env) {
    const fs::path dir = scratch_dir("model-cli");
    const std::string cmd = env + " '" + (binary_dir() / "bin/precis").string() + "' " + args + " >'" +
                            (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    auto read = [](const fs::path& p) {
        std::ifstream f(p);
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    r.out = read(dir / "out");
    r.err = read(dir / "err");
    return r;
}

TEST_F(ModelDownload, CommandLineDownloadsListsSummarizesWithItAndRemovesIt) {
    const fs::path home = scratch_dir("model-cli-home");
    const std::string env = "HF_ENDPOINT=" + hub_.endpoint().toStdString() + " XDG_DATA_HOME=" + (home / "data").string() +
                            " XDG_CONFIG_HOME=" + (home / "config").string() + " HF_HOME=" + (home / "hf").string() +
                            " PRECIS_MODEL=";
    CliRun r = precis_cli("model download " + kRepo.toStdString() + " --name tiny", env);
    ASSERT_EQ(r.code, 0) << r.err;
    const fs::path dir = home / "data/precis/models/tiny";
    EXPECT_EQ(r.out, dir.string() + "\n");
    EXPECT_NE(r.err.find("downloaded " + kRepo.toStdString()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tiny is now the default model"), std::string::npos) << r.err;
    expect_identical_to_fixture(dir);

    r = precis_cli("model list", env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("* tiny"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("summarization"), std::string::npos) << r.out;
    r = precis_cli("model default", env);
    EXPECT_EQ(r.out, dir.string() + "\n");

    // The downloaded model summarizes, named or as the default (never the random test model).
    const std::string sample = (source_dir() / "resources/samples/the-quiet-work-of-rivers.txt").string();
    r = precis_cli("summarize --max-length 12 --model " + dir.string() + " " + sample, env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(r.out.empty());
    r = precis_cli("summarize --json --max-length 12 " + sample, env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("RANDOM"), std::string::npos) << r.err;
    // --model also takes the names `model list` shows, as from_pretrained takes a repo id.
    r = precis_cli("summarize --max-length 12 --model tiny " + sample, env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(r.out.empty());
    r = precis_cli("summarize --model no-such-model " + sample, env);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("--model no-such-model: no such model folder, and no installed or HuggingFace-cached model"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

    r = precis_cli("model download precis-test/nothing-here", env);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("was not found"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

    // HF_TOKEN from the environment, as huggingface_hub reads it
    hub_.add_repo("precis-test/gated", fixture_hub_files());
    hub_.require_token("precis-test/gated", "hf_good");
    r = precis_cli("model download precis-test/gated", env);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("set HF_TOKEN"), std::string::npos) << r.err;
    r = precis_cli("model download precis-test/gated", env + " HF_TOKEN=hf_good");
    EXPECT_EQ(r.code, 0) << r.err;

    r = precis_cli("model catalog", env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("ccdv/lsg-bart-base-4096-arxiv"), std::string::npos);

    r = precis_cli("model remove tiny", env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(fs::exists(dir));
    r = precis_cli("model default", env);  // the chosen one is gone: the first installed folder
    EXPECT_EQ(r.out, (home / "data/precis/models/gated").string() + "\n") << r.err;
    r = precis_cli("model remove gated", env);
    ASSERT_EQ(r.code, 0) << r.err;
    r = precis_cli("model default", env);
    EXPECT_NE(r.code, 0);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) {
    // Hub settings, caches and user folders of the developer never leak into the tests.
    const std::filesystem::path home = precis::test::scratch_dir("model-download-home");
    for (const char* v : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_ENDPOINT", "HF_HUB_OFFLINE", "HF_HUB_CACHE",
                          "HUGGINGFACE_HUB_CACHE", "HF_TOKEN_PATH", "PRECIS_MODEL", "http_proxy", "https_proxy",
                          "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"})
        qunsetenv(v);
    qputenv("HF_HOME", QByteArray::fromStdString((home / "hf").string()));
    qputenv("XDG_CACHE_HOME", QByteArray::fromStdString((home / "cache").string()));
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
