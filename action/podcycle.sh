#!/usr/bin/env bash
# The steps of the GitHub Action (action.yml at the repository's root), kept in a script so that
# they can be run, and tested, outside GitHub:
#
#   podcycle.sh install   installs podcycle for this machine into $PODCYCLE_HOME (default
#                         $RUNNER_TEMP/podcycle): the release archive, its SHA-256 checked, else
#                         built from source with cargo; puts it on $GITHUB_PATH
#   podcycle.sh check     runs the recommended CI invocation (docs/ci.md): on a pull request the
#                         base branch's configuration and baseline, `--isolated`; prints the
#                         findings in the log, writes SARIF and the job summary
#   podcycle.sh target    prints the release target of this machine
#
# Inputs come from the environment (action.yml maps its inputs to these):
#   PODCYCLE_VERSION    install: `X.Y.Z`, `latest`, `source`, or empty for the action's own version
#   PODCYCLE_PATHS      check: what to check, split on white space (default `.`)
#   PODCYCLE_FORMAT     check: the format of the findings in the log (default `github`)
#   PODCYCLE_FAIL_ON    check: `--fail-on` (default: the configuration's, else `warning`)
#   PODCYCLE_SARIF      check: where to write the SARIF log (default $RUNNER_TEMP/podcycle.sarif)
# and GitHub's own: GITHUB_EVENT_NAME, GITHUB_BASE_REF, RUNNER_TEMP, GITHUB_STEP_SUMMARY,
# GITHUB_PATH, GITHUB_OUTPUT, GITHUB_ACTION_PATH, GITHUB_ACTION_REF, GITHUB_ACTION_REPOSITORY.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
repository=${GITHUB_ACTION_REPOSITORY:-podcycle/podcycle}
[ -n "$repository" ] || repository=podcycle/podcycle

fail() {
  echo "::error title=podcycle::$*" >&2
  exit 2
}

# The release target for this runner: Linux gets the static musl build, which runs on any libc.
target() {
  local os arch
  os=$(uname -s)
  arch=$(uname -m)
  case "$os/$arch" in
    Linux/x86_64) echo x86_64-unknown-linux-musl ;;
    Linux/aarch64 | Linux/arm64) echo aarch64-unknown-linux-musl ;;
    Darwin/x86_64) echo x86_64-apple-darwin ;;
    Darwin/arm64) echo aarch64-apple-darwin ;;
    MINGW*/x86_64 | MSYS*/x86_64 | CYGWIN*/x86_64) echo x86_64-pc-windows-msvc ;;
    *) echo "" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  else
    shasum -a 256 "$1" | cut -d ' ' -f 1
  fi
}

# The version to install: the one asked for, else the action's own when it is used at a release
# tag (`uses: podcycle/podcycle@v0.1.0`), else `source` (a branch or a commit: its own code).
wanted_version() {
  local version=${PODCYCLE_VERSION:-}
  version=${version#v}
  if [ -z "$version" ]; then
    case "${GITHUB_ACTION_REF:-}" in
      v[0-9]*.[0-9]*.[0-9]*) version=${GITHUB_ACTION_REF#v} ;;
      *) version=source ;;
    esac
  fi
  if [ "$version" = latest ]; then
    # The release page redirects to the newest tag.
    local url
    url=$(curl -fsSLI -o /dev/null -w '%{url_effective}' \
      "https://github.com/$repository/releases/latest") || fail "cannot find the latest release"
    version=${url##*/v}
  fi
  echo "$version"
}

# Builds podcycle with cargo: the action's own checkout when it is that version, else the tag.
build_from_source() {
  local version=$1 home=$2
  command -v cargo >/dev/null 2>&1 \
    || fail "no release archive to install, and cargo is not installed to build podcycle $version from source"
  local own
  own=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$here/Cargo.toml" | head -n 1)
  if [ "$version" = source ] || [ "$version" = "$own" ]; then
    echo "podcycle: building podcycle $own from source (cargo install --locked --path)"
    cargo install --quiet --locked --path "$here" --root "$home"
  else
    echo "podcycle: building podcycle $version from source (cargo install --locked --git)"
    cargo install --quiet --locked --git "https://github.com/$repository" --tag "v$version" \
      --root "$home" podcycle
  fi
}

install() {
  local version home triple
  version=$(wanted_version)
  home=${PODCYCLE_HOME:-$temp/podcycle}
  mkdir -p "$home/bin"
  triple=$(target)
  if [ "$version" != source ] && [ -n "$triple" ]; then
    local name archive base download
    name=podcycle-$version-$triple
    archive=$name.tar.gz
    [ "$triple" != x86_64-pc-windows-msvc ] || archive=$name.zip
    base=${PODCYCLE_RELEASES_URL:-https://github.com/$repository/releases/download}
    download=$(mktemp -d "$temp/podcycle-download.XXXXXX")
    if curl -fsSL --retry 3 -o "$download/$archive" "$base/v$version/$archive" \
      && curl -fsSL --retry 3 -o "$download/$archive.sha256" "$base/v$version/$archive.sha256"; then
      local expected actual
      expected=$(cut -d ' ' -f 1 < "$download/$archive.sha256")
      actual=$(sha256 "$download/$archive")
      # A checksum that does not match is an attack or a broken release: never fall back.
      [ "$expected" = "$actual" ] \
        || fail "the SHA-256 of $archive is $actual, its .sha256 file says $expected: not installed"
      echo "podcycle: $archive: SHA-256 $actual verified"
      (cd "$download" && if [ "${archive%.zip}" != "$archive" ]; then unzip -q "$archive"; else tar xzf "$archive"; fi)
      cp "$download/$name"/podcycle* "$home/bin/"
    else
      echo "podcycle: no release archive $archive of podcycle $version; building it from source"
      build_from_source "$version" "$home"
    fi
    rm -rf "$download"
  else
    build_from_source "$version" "$home"
  fi
  [ -z "${GITHUB_PATH:-}" ] || echo "$home/bin" >> "$GITHUB_PATH"
  "$home/bin/podcycle" --version
}

# Markdown for the job summary from text that is not ours: names in podcycle's findings and
# counts come from the pull request (a file's path, a remote resource's address), and no
# heading, link, image, HTML or table of its choosing may render.
#   md_text   every ASCII punctuation character escaped (CommonMark renders an escaped one as
#             itself: no emphasis, link, autolink, entity, HTML, heading, list or table);
#   md_code   a code span (nothing in one renders) whose fence is longer than any run of
#             backticks inside it, the only way out of one; its pipes escaped for a table's
#             cell, its line breaks made spaces;
#   md_block  a fenced code block, its fence longer than any run of backticks inside it.
# shellcheck disable=SC2016 # jq's code, not the shell's
markdown_defs='
  def oneline: tostring | gsub("[\r\n]+"; " ");
  def fence: "`" * ([([scan("`+") | length] | max // 0) + 1, 3] | max);
  def md_text: oneline | gsub("(?<c>[!-/:-@\\[-`{-~])"; "\\\(.c)");
  def md_code: oneline | gsub("\\|"; "\\|")
    | (("`" * (([scan("`+") | length] | max // 0) + 1))) as $fence
    | (if test("^`|`$") then " \(.) " else . end) as $text
    | "\($fence)\($text)\($fence)";
  def md_block: fence as $fence | "\($fence)text\n\(sub("\n$"; ""))\n\($fence)";
'

# Standard input as a Markdown code block.
markdown_block() {
  jq -Rrs "$markdown_defs"' md_block'
}

# Standard input, one line, as a Markdown code span.
markdown_code() {
  jq -Rrs "$markdown_defs"' sub("\n$"; "") | md_code'
}

# A table row per finding, at most 500 (a job summary holds 1 MiB).
markdown_findings() {
  jq -r --argjson limit 500 "$markdown_defs"'
    [.runs[].results[]] as $results
    | ($results[:$limit][]
      | (.locations[0].physicalLocation // {}) as $place
      | "| \({"error": "error", "warning": "warning", "note": "info"}[.level // "warning"] // .level | md_text) "
        + "| \(.ruleId | md_code) "
        + "| \("\($place.artifactLocation.uri // ""):\($place.region.startLine // 1):\($place.region.startColumn // 1)" | md_code) "
        + "| \(.message.text | md_text) |"),
      (if ($results | length) > $limit then "\n… and \(($results | length) - $limit) more in the SARIF log" else empty end)
  ' "$1"
}

check() {
  local report=${PODCYCLE_SARIF:-$temp/podcycle.sarif}
  local format=${PODCYCLE_FORMAT:-github}
  local summary=${GITHUB_STEP_SUMMARY:-/dev/null}
  # Renders are kept for the second run, outside the checkout.
  export PODCYCLE_CACHE_DIR=${PODCYCLE_CACHE_DIR:-$temp/podcycle-cache}
  # The base branch of a pull request; empty for a push, a schedule or a manual run, which
  # check the commit with its own configuration.
  local BASE="" FAIL_ON=${PODCYCLE_FAIL_ON:-} root="" config="" baseline=""
  case "${GITHUB_EVENT_NAME:-}" in
    pull_request | pull_request_target | merge_group) BASE=${GITHUB_BASE_REF:-} ;;
  esac
  local paths
  read -r -a paths <<< "${PODCYCLE_PATHS:-.}"
  [ ${#paths[@]} -gt 0 ] || paths=(.)

  # The recipe of docs/ci.md, the same lines in every CI (tests/it/docs.rs checks they are).
  # recipe: begin
  set -- --fail-on-unrendered
  if [ -n "$BASE" ]; then
    # A pull request: the base branch's configuration and baseline, and no ignore files.
    git rev-parse --verify --quiet "origin/$BASE^{commit}" >/dev/null \
      || git fetch --quiet --no-tags --depth=1 origin "+refs/heads/$BASE:refs/remotes/origin/$BASE"
    # Their copies go to new files outside the checkout, whose paths the pull request cannot
    # choose; the paths they name stay relative to the checkout's root.
    root=$(git rev-parse --show-toplevel)
    set -- "$@" --isolated --settings-root "$root"
    if git cat-file -e "origin/$BASE:.podcycle.yaml" 2>/dev/null; then
      config=$(mktemp)
      git cat-file blob "origin/$BASE:.podcycle.yaml" > "$config"
      set -- "$@" --config "$config"
    else
      echo "podcycle: note: $BASE has no .podcycle.yaml: default settings, and findings fail the check only once one is merged (podcycle init writes one)"
      FAIL_ON=${FAIL_ON:-never}
    fi
    if git cat-file -e "origin/$BASE:.podcycle-baseline.json" 2>/dev/null; then
      baseline=$(mktemp)
      git cat-file blob "origin/$BASE:.podcycle-baseline.json" > "$baseline"
      set -- "$@" --baseline "$baseline"
    else
      echo "podcycle: note: $BASE has no .podcycle-baseline.json: every finding is reported"
    fi
  elif [ -f .podcycle-baseline.json ]; then
    set -- "$@" --baseline .podcycle-baseline.json
  fi
  [ -z "$FAIL_ON" ] || set -- "$@" --fail-on "$FAIL_ON"
  # recipe: end

  # The findings in the log, in the format asked for; its exit status is the step's.
  local status=0
  podcycle check "$@" --format "$format" "${paths[@]}" || status=$?
  # The SARIF log: the renders of the first run come from the render cache.
  local sarif_status=0 stderr
  stderr=$(mktemp)
  podcycle check "$@" --format sarif --output "$report" "${paths[@]}" 2> "$stderr" || sarif_status=$?
  if [ "$sarif_status" -eq 2 ] || [ ! -s "$report" ]; then
    cat "$stderr" >&2
    fail "podcycle could not write the SARIF log $report"
  fi
  # The counts and what was not rendered, which the machine formats do not print themselves.
  local counts
  counts=$(grep -v '^podcycle: ' "$stderr" || true)
  case "$format" in
    full | concise) ;;
    *) [ -z "$counts" ] || echo "$counts" ;;
  esac

  {
    echo "### podcycle"
    echo
    if [ -n "$BASE" ]; then
      local base
      base=$(markdown_code <<< "$BASE")
      echo "Pull request into $base, checked with \`--isolated\` and its configuration and baseline:"
      [ -n "$config" ] || echo "- $base has no \`.podcycle.yaml\`: default settings; findings fail the check only once one is merged (\`podcycle init\` writes one)"
      [ -n "$baseline" ] || echo "- $base has no \`.podcycle-baseline.json\`: every finding is reported"
      echo
    fi
    [ -z "$counts" ] || { markdown_block <<< "$counts"; echo; }
    if [ "$(jq '[.runs[].results[]] | length' "$report")" -gt 0 ]; then
      echo "| severity | rule | location | finding |"
      echo "|---|---|---|---|"
      markdown_findings "$report"
    fi
  } >> "$summary"
  [ -z "${GITHUB_OUTPUT:-}" ] || {
    echo "sarif=$report"
    echo "findings=$(jq '[.runs[].results[]] | length' "$report")"
  } >> "$GITHUB_OUTPUT"
  rm -f "$stderr"
  [ -z "$config" ] || rm -f "$config"
  [ -z "$baseline" ] || rm -f "$baseline"
  return "$status"
}

case "${1:-}" in
  install) install ;;
  check) check ;;
  target) target ;;
  *) echo "usage: $0 install|check|target" >&2; exit 2 ;;
esac
