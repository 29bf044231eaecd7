#!/usr/bin/env bash
# Checks the Swift code (Sources, Tests, Package.swift) against .swift-format with the
# toolchain's swift-format (`swift format`, Swift 6.3).
#
#   scripts/format-check.sh            # CI: every rule .swift-format enables, plus no tabs and no
#                                      # trailing white space; fails on any finding
#   scripts/format-check.sh --layout   # also the pretty printer's layout (indentation, line
#                                      # breaks): advisory for now, see below
#
# The rules are checked with `swift format lint --strict`, and so is the line length (140
# columns, [LineLength]). Its pretty printer cannot be turned off in lint, and much of the code is
# laid out by hand (aligned continuation lines, one-line guards) in ways it would rewrite; so its
# other layout findings ([Indentation], [AddLines], [RemoveLine], [Spacing], [TrailingComma])
# are filtered out unless --layout is given. New files, and files with a line too long, can be
# laid out with `swift format --in-place FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
layout=false
case "${1:-}" in
  --layout) layout=true ;;
  "") ;;
  *) sed -n '2,8p' "$0" >&2; exit 2 ;;
esac
paths=(Sources Tests Package.swift)
layout_findings='\[(Indentation|AddLines|RemoveLine|Spacing|TrailingComma)\]'

status=0
output=$(swift format lint --strict --configuration .swift-format --recursive "${paths[@]}" 2>&1) || true
if $layout; then
  findings=$output
else
  findings=$(grep -vE "$layout_findings" <<<"$output" || true)
fi
if [ -n "$findings" ]; then
  echo "$findings"
  status=1
fi

# Tabs and trailing white space, which the filtered layout findings would otherwise hide.
if whitespace=$(git ls-files -- '*.swift' | xargs grep -nE "$(printf '\t')| +\$"); then
  echo "$whitespace" | sed 's/$/: tab or trailing white space/'
  status=1
fi

if [ $status -eq 0 ]; then
  echo "format-check: ok ($(git ls-files -- '*.swift' | wc -l) Swift files)"
fi
exit $status
