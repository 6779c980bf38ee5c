#pragma once
// The HuggingFace Hub settings the Hub's own tools (huggingface_hub) read from the
// environment, read the same way here: the endpoint (HF_ENDPOINT), the token (HF_TOKEN,
// else the token file `huggingface-cli login` writes), offline mode (HF_HUB_OFFLINE) and
// the cache folders (HF_HOME, HF_HUB_CACHE).
#include <QString>

#include <filesystem>

namespace precis::models {

QString hub_endpoint();   // $HF_ENDPOINT without a trailing '/', else https://huggingface.co
QString hub_token();      // $HF_TOKEN, else $HUGGING_FACE_HUB_TOKEN, else $HF_TOKEN_PATH / $HF_HOME/token; empty if none
bool hub_offline();       // $HF_HUB_OFFLINE is 1/true/yes/on
std::filesystem::path hf_home();       // $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface
std::filesystem::path hf_hub_cache();  // $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE, else hf_home()/hub

}  // namespace precis::models
