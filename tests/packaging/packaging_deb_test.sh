#!/usr/bin/env bash
# packaging_deb_test: builds the .deb from the binaries already in the build tree (cpack,
# into a scratch folder: nothing in the build tree is rebuilt or overwritten), checks its
# control fields and file list, unpacks it into a scratch root and runs the installed
# precis from there, and validates the desktop entry, AppStream metadata and man page.
#
# usage: packaging_deb_test.sh BUILD_DIR SOURCE_DIR CPACK VERSION APP_ID FIXTURES_DEFAULT
# ($PRECIS_FIXTURES, when set, replaces FIXTURES_DEFAULT.) Exit 77: skipped.
set -euo pipefail

BUILD_DIR=$1 SOURCE_DIR=$2 CPACK=$3 VERSION=$4 APP_ID=$5 FIXTURES=${PRECIS_FIXTURES:-$6}

failures=0
skipped=()
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok:   $*"; }
have() { command -v "$1" >/dev/null 2>&1; }

if ! have dpkg-deb; then
  echo "SKIP: dpkg-deb is not installed (Debian's dpkg); no .deb to check" >&2
  exit 77
fi

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/precis-packaging-test.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# --- build the package ------------------------------------------------------------
echo "== cpack (from $BUILD_DIR)"
if ! "$CPACK" --config "$BUILD_DIR/CPackConfig.cmake" -B "$SCRATCH/out" >"$SCRATCH/cpack.log" 2>&1; then
  cat "$SCRATCH/cpack.log" >&2
  echo "FAIL: cpack could not build the package (is the build tree built?)" >&2
  exit 1
fi
grep -i 'warning' "$SCRATCH/cpack.log" >&2 || true
shopt -s nullglob
debs=("$SCRATCH"/out/precis_"$VERSION"_*.deb)
shopt -u nullglob
if ((${#debs[@]} != 1)); then
  ls -l "$SCRATCH/out" >&2
  echo "FAIL: expected one precis_${VERSION}_<arch>.deb" >&2
  exit 1
fi
DEB=${debs[0]}
ok "built $(basename "$DEB") ($(du -k "$DEB" | cut -f1) KiB)"

# --- control fields ---------------------------------------------------------------
field() { dpkg-deb -f "$DEB" "$1"; }
[[ $(field Package) == precis ]] && ok "Package: precis" || fail "Package is '$(field Package)', not precis"
[[ $(field Version) == "$VERSION" ]] && ok "Version: $VERSION" || fail "Version is '$(field Version)', not $VERSION"
[[ $(field Architecture) == "$(dpkg --print-architecture)" ]] && ok "Architecture: $(field Architecture)" ||
  fail "Architecture is '$(field Architecture)'"
for f in Maintainer Section Priority Description; do
  [[ -n $(field $f) ]] && ok "$f: $(field $f | head -1)" || fail "no $f field"
done
# Extended description: every line one space in (two or more would make it verbatim).
if field Description | tail -n +2 | grep -v '^ [^ ]' >&2; then fail "badly indented Description lines"; else ok "Description lines"; fi
DEPENDS=$(field Depends)
echo "Depends: $DEPENDS"
# One regular expression per library the executable links (or loads: the xcb plugin).
for dep in 'libqt6core6' 'libqt6gui6' 'libqt6widgets6' 'libpoppler-qt6-3' 'libsqlite3-0' \
           'libopenblas0[a-z0-9-]*|libblas3' 'libsentencepiece0' 'libpcre2-8-0' 'libgomp1' \
           'libstdc\+\+6' 'libc6' 'qt6-qpa-plugins' 'libqt6svg6'; do
  if grep -Eq "(^|, )($dep)( |,|$)" <<<"$DEPENDS"; then ok "Depends on $dep"; else fail "Depends lacks $dep"; fi
done
if grep -qi 'cuda\|nvidia' <<<"$DEPENDS"; then fail "Depends names CUDA or NVIDIA packages"; else ok "no CUDA in Depends"; fi

# --- file list --------------------------------------------------------------------
dpkg-deb -c "$DEB" >"$SCRATCH/contents"
expected=(
  ./usr/bin/precis
  ./usr/libexec/precis/precis-pdf-reader
  ./usr/share/applications/precis.desktop
  "./usr/share/metainfo/$APP_ID.metainfo.xml"
  ./usr/share/man/man1/precis.1.gz
  ./usr/share/doc/precis/user-guide.html
  ./usr/share/icons/hicolor/scalable/apps/precis.svg
)
for size in 16 22 24 32 48 64 128 256 512; do expected+=("./usr/share/icons/hicolor/${size}x${size}/apps/precis.png"); done
for f in "$SOURCE_DIR"/resources/samples/*; do
  [[ -f $f ]] && expected+=("./usr/share/precis/samples/$(basename "$f")")
done
for f in "$BUILD_DIR"/samples/*.pdf; do  # the sample essay as a PDF, made by the build
  [[ -f $f ]] && expected+=("./usr/share/precis/samples/$(basename "$f")")
done
if [[ -d $SOURCE_DIR/resources/models ]]; then
  while IFS= read -r f; do expected+=("./usr/share/precis/models/${f#"$SOURCE_DIR"/resources/models/}"); done \
    < <(find "$SOURCE_DIR/resources/models" -type f ! -name '.*')
fi
missing=0
for f in "${expected[@]}"; do
  awk '{print $6}' "$SCRATCH/contents" | grep -qxF -- "$f" || { fail "package lacks $f"; missing=1; }
done
((missing)) || ok "package holds the ${#expected[@]} expected files"
ls "$SOURCE_DIR"/resources/samples/*.txt >/dev/null 2>&1 || fail "no resources/samples/*.txt to ship"
awk '{print $6}' "$SCRATCH/contents" | grep -Ev '^\./($|usr/)' && fail "files outside /usr" || ok "everything under /usr"
awk '$2 != "root/root"' "$SCRATCH/contents" | grep . && fail "files not owned by root/root" || ok "owned by root/root"
grep -E ' \./usr/bin/precis$' "$SCRATCH/contents" | grep -q '^-rwxr-xr-x' && ok "/usr/bin/precis is 0755" ||
  fail "/usr/bin/precis is not -rwxr-xr-x"
grep -E ' \./usr/libexec/precis/precis-pdf-reader$' "$SCRATCH/contents" | grep -q '^-rwxr-xr-x' &&
  ok "/usr/libexec/precis/precis-pdf-reader is 0755" || fail "/usr/libexec/precis/precis-pdf-reader is not -rwxr-xr-x"

# --- unpack and run ---------------------------------------------------------------
ROOT=$SCRATCH/root
dpkg-deb -x "$DEB" "$ROOT"
PRECIS=$ROOT/usr/bin/precis
if have readelf; then
  needed=$(readelf -d "$PRECIS" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  echo "NEEDED: $needed"
  if grep -Eqi 'cuda|cublas|nvrtc' <<<"$needed"; then fail "precis links CUDA libraries dynamically"; else ok "no CUDA library linked dynamically"; fi
fi
READER=$ROOT/usr/libexec/precis/precis-pdf-reader
for exe in "$PRECIS" "$READER"; do
  if ldd "$exe" | grep -q 'not found'; then ldd "$exe" | grep 'not found' >&2; fail "unresolved libraries: $exe"; else ok "ldd resolves every library of ${exe#"$ROOT"}"; fi
  if file "$exe" | grep -q 'not stripped'; then fail "${exe#"$ROOT"} is not stripped"; else ok "${exe#"$ROOT"} stripped"; fi
done

mkdir -p "$SCRATCH/home" "$SCRATCH/data" "$SCRATCH/config" "$SCRATCH/cache"
run_precis() {
  env -u PRECIS_MODEL HOME="$SCRATCH/home" XDG_DATA_HOME="$SCRATCH/data" XDG_CONFIG_HOME="$SCRATCH/config" \
    XDG_CACHE_HOME="$SCRATCH/cache" QT_QPA_PLATFORM=offscreen OMP_NUM_THREADS=1 "$@"
}
if out=$(run_precis "$PRECIS" --version 2>&1); then
  echo "$out" | sed 's/^/    /'
  grep -Eq "^precis $VERSION \(git [^)]+\)$" <<<"$out" && ok "--version names $VERSION and the git revision" ||
    fail "--version does not print 'precis $VERSION (git ...)'"
  grep -q '^backends: cpu' <<<"$out" && ok "--version lists the backends" || fail "--version does not list the backends"
  grep -qxF "pdf reader: $(realpath "$READER")" <<<"$out" && ok "--version names the installed PDF reader beside it" ||
    fail "--version does not name $READER as its PDF reader"
else
  echo "$out" >&2
  fail "precis --version exited non-zero"
fi

# A PDF, read by the installed precis-pdf-reader (a small hand-made one: Poppler rebuilds
# its missing cross-reference table).
pdf_body='BT /F1 12 Tf 72 700 Td (Rivers shape their valleys slowly, grain by grain.) Tj 0 -16 Td (Floods spread fine silt over the plain and build fertile soil.) Tj ET'
printf '%%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj\n4 0 obj << /Length %d >> stream\n%s\nendstream endobj\n5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\ntrailer << /Root 1 0 R >>\n%%%%EOF\n' \
  "${#pdf_body}" "$pdf_body" >"$SCRATCH/rivers.pdf"
if run_precis "$PRECIS" summarize "$SCRATCH/rivers.pdf" >"$SCRATCH/pdf.txt" 2>"$SCRATCH/pdf.err" &&
   grep -q 'valleys slowly' "$SCRATCH/pdf.txt" && ! grep -q 'read inside Precis' "$SCRATCH/pdf.err"; then
  ok "summarized a PDF read by the installed PDF reader"
else
  cat "$SCRATCH/pdf.err" "$SCRATCH/pdf.txt" >&2
  fail "the installed precis did not summarize a PDF through its PDF reader"
fi

sample=$(ls "$ROOT"/usr/share/precis/samples/*.txt 2>/dev/null | head -1 || true)
if [[ -z $sample ]]; then
  fail "no sample .txt installed under /usr/share/precis/samples"
elif [[ ! -f $FIXTURES/models/bart-tiny-realvocab/config.json ]]; then
  skipped+=("summarize (no test model in $FIXTURES; set PRECIS_FIXTURES)")
else
  # 1. No model installed: an extractive summary of the sample, never the random test
  #    model (even with the fixtures in reach), and one line saying so.
  if run_precis env PRECIS_FIXTURES="$FIXTURES" "$PRECIS" summarize "$sample" \
       >"$SCRATCH/summary.txt" 2>"$SCRATCH/summary.err" && [[ -s $SCRATCH/summary.txt ]]; then
    ok "summarize $(basename "$sample") with no model: $(head -c 80 "$SCRATCH/summary.txt" | tr '\n' ' ')..."
    grep -q 'extractive summary' "$SCRATCH/summary.err" && ! grep -q 'WARNING' "$SCRATCH/summary.err" &&
      ok "said the summary is extractive; no test model" || fail "summarize with no model did not say it is extractive"
    while IFS= read -r line; do
      grep -qF -- "$line" "$sample" || fail "extractive summary line is not a sentence of the sample: $line"
    done <"$SCRATCH/summary.txt"
  else
    cat "$SCRATCH/summary.err" >&2
    fail "precis summarize $sample failed or printed nothing"
  fi
  # 2. A model in <root>/usr/share/precis/models: found next to the executable, as the
  #    bundled default model will be once one ships (no fixtures in reach this time).
  if [[ ! -d $SOURCE_DIR/resources/models ]]; then
    m=$ROOT/usr/share/precis/models/tiny
    mkdir -p "$m"
    cp "$FIXTURES"/models/bart-tiny-realvocab/* "$m/"
    cp "$FIXTURES"/tokenizer/bart/{tokenizer.json,vocab.json,merges.txt} "$m/"
    if run_precis env PRECIS_FIXTURES="$SCRATCH/no-fixtures" "$PRECIS" summarize "$sample" --max-length 24 --json \
         >"$SCRATCH/bundled.json" 2>"$SCRATCH/bundled.err" &&
       grep -q '"test_model":false' "$SCRATCH/bundled.json"; then
      ok "found the bundled model in <root>/usr/share/precis/models"
    else
      cat "$SCRATCH/bundled.err" "$SCRATCH/bundled.json" >&2
      fail "the installed precis did not find a model in <root>/usr/share/precis/models"
    fi
    rm -rf "$ROOT/usr/share/precis/models"
  fi
fi

# --- validators -------------------------------------------------------------------
DESKTOP=$ROOT/usr/share/applications/precis.desktop
METAINFO=$ROOT/usr/share/metainfo/$APP_ID.metainfo.xml
if have desktop-file-validate; then
  if desktop-file-validate "$DESKTOP"; then ok "desktop-file-validate"; else fail "desktop-file-validate"; fi
else
  skipped+=("desktop-file-validate: not installed (desktop-file-utils)")
fi
grep -qx 'Exec=precis %F' "$DESKTOP" && grep -qx 'Icon=precis' "$DESKTOP" &&
  grep -q '^MimeType=.*application/pdf' "$DESKTOP" && ok "desktop entry: Exec, Icon, MimeType" ||
  fail "desktop entry lacks Exec=precis %F, Icon=precis or MimeType"
if have appstreamcli; then
  if appstreamcli validate --no-net "$METAINFO"; then ok "appstreamcli validate"; else fail "appstreamcli validate"; fi
else
  skipped+=("appstreamcli validate: not installed (appstream)")
fi
grep -q "<release version=\"$VERSION\"" "$METAINFO" && ok "metainfo names release $VERSION" ||
  fail "metainfo has no <release version=\"$VERSION\">"
grep -q '<launchable type="desktop-id">precis.desktop</launchable>' "$METAINFO" && ok "metainfo launches precis.desktop" ||
  fail "metainfo does not launch precis.desktop"

MAN=$ROOT/usr/share/man/man1/precis.1.gz
if gzip -t "$MAN"; then
  zcat "$MAN" | grep -q "^\.TH PRECIS 1 .*\"precis $VERSION\"" && ok "man page is for $VERSION" ||
    fail "man page .TH does not say precis $VERSION (packaging/precis.1)"
  # Every command that `precis help` lists has its entry in the man page.
  commands=$(run_precis "$PRECIS" help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | sort -u)
  [[ -n $commands ]] || fail "could not read the commands from 'precis help'"
  for cmd in $commands; do
    zcat "$MAN" | grep -Eq "^\.BI? \"?$cmd\b" || fail "man page has no entry for '$cmd' (packaging/precis.1)"
  done
  ok "man page documents: $(echo $commands)"
  # ... and every option the command-line parser accepts (app/cli/*.cpp), read in the
  # formatted page (the source escapes each hyphen).
  if have groff; then
    page=$(zcat "$MAN" | groff -man -Tascii -P-c -P-b -P-u -P-o 2>/dev/null)
    undocumented=()
    for opt in $(grep -rhoE '"--[a-z][a-z-]*"' "$SOURCE_DIR"/app/cli/*.cpp | tr -d '"' | sort -u); do
      [[ $opt == --child || $opt == --child-share ]] && continue  # internal: bench runs itself per measurement
      grep -qE -- "$opt([^a-z-]|\$)" <<<"$page" || undocumented+=("$opt")
    done
    ((${#undocumented[@]} == 0)) && ok "man page documents every option of app/cli" ||
      fail "man page lacks ${undocumented[*]} (packaging/precis.1)"
  fi
  if have groff; then
    warnings=$(zcat "$MAN" | groff -man -Tutf8 -ww -z 2>&1 || true)
    [[ -z $warnings ]] && ok "groff reads the man page without warnings" || { echo "$warnings" >&2; fail "groff warnings"; }
  fi
else
  fail "man page is not valid gzip"
fi
if have file; then
  for size in 16 22 24 32 48 64 128 256 512; do
    file "$ROOT/usr/share/icons/hicolor/${size}x${size}/apps/precis.png" | grep -q "PNG image data, $size x $size" ||
      fail "icon ${size}x${size} is not a ${size}x${size} PNG"
  done
  ok "icons are PNGs of their sizes"
fi

echo
if ((failures)); then
  echo "packaging_deb_test: $failures check(s) failed" >&2
  exit 1
fi
if ((${#skipped[@]})); then
  printf 'SKIP: %s\n' "${skipped[@]}" >&2
  echo "(bash packaging/install-deps.sh installs the tools)" >&2
  exit 77
fi
echo "packaging_deb_test: all checks passed"
