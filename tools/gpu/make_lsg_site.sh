#!/usr/bin/env bash
# Makes build-ct2/hf-site, the site folder that bundle.sh packs for run.sh's "lsgref" phase:
# transformers 4.36.2, huggingface_hub 0.20.3 and ccdv-ai's lsg_converter at the commits
# ../shared/bench/ct2/hf_site.py's header pins, taken from git snapshots of the three public
# repositories (third-party code: kept under build-ct2/, never committed), then hf_site.py's
# setup-env (symlinks, dist-info stubs, a stand-in for safetensors).
#
#   make_lsg_site.sh TRANSFORMERS.git HUB.git CONVERTER.git [SITE]
#
# TRANSFORMERS.git: a git directory holding commit a7cab3c2 (tag v4.36.2; the fork
# tianhua2/my_huggingface has it, the full huggingface/transformers is large to fetch);
# HUB.git: huggingface/huggingface_hub (2cff4056, v0.20.3); CONVERTER.git:
# ccdv-ai/convert_checkpoint_to_lsg (c56734b2). SITE defaults to <repo>/build-ct2/hf-site.
# Needs /usr/bin/python3 with numpy (python3-numpy); running the reference also needs
# python3-torch here, or the GPU machine's torch there.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# -ge 3 ] || { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
TRANSFORMERS_GIT=$1 HUB_GIT=$2 CONVERTER_GIT=$3
SITE=${4:-$ROOT/build-ct2/hf-site}
SRC=$(dirname "$SITE")/hf-src
HF_SITE_PY=$ROOT/../shared/bench/ct2/hf_site.py

TRANSFORMERS_COMMIT=a7cab3c283312b8d4de5df3bbe719971e24f4281
HUB_COMMIT=2cff405655a58e91e68d2486a3d699e25fadc65b
CONVERTER_COMMIT=c56734b2da192cbe78bc072644d738ce957902ed

die() { echo "make_lsg_site.sh: $*" >&2; exit 1; }
[ -f "$HF_SITE_PY" ] || die "no $HF_SITE_PY (../shared beside the checkout)"
for pair in "$TRANSFORMERS_GIT $TRANSFORMERS_COMMIT" "$HUB_GIT $HUB_COMMIT" "$CONVERTER_GIT $CONVERTER_COMMIT"; do
    set -- $pair
    [ "$(git --git-dir="$1" cat-file -t "$2" 2>/dev/null)" = commit ] || die "$1 does not hold commit $2"
done

# Only the packages are taken: transformers' and the hub's src/, the converter's lsg_converter/.
rm -rf "$SRC" "$SITE"
mkdir -p "$SRC/transformers" "$SRC/hub" "$SRC/lsg"
git --git-dir="$TRANSFORMERS_GIT" archive "$TRANSFORMERS_COMMIT" src | tar -x -C "$SRC/transformers"
git --git-dir="$HUB_GIT" archive "$HUB_COMMIT" src | tar -x -C "$SRC/hub"
git --git-dir="$CONVERTER_GIT" archive "$CONVERTER_COMMIT" lsg_converter | tar -x -C "$SRC/lsg"
/usr/bin/python3 "$HF_SITE_PY" setup-env --site "$SITE" --transformers-src "$SRC/transformers/src" \
    --hub-src "$SRC/hub/src" --lsg-src "$SRC/lsg"
[ -d "$SITE/lsg_converter/bart" ] && [ -d "$SITE/transformers" ] || die "setup-env left no usable site at $SITE"
echo "LSG reference site: $SITE (bundle.sh packs it; lsg_reference_parity.py checks it against precis forward)"
