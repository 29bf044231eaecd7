#!/usr/bin/env bash
# Lints the web app's JavaScript (Sources/SketchwiseServer/Web/*.js: plain ES modules that browsers
# run as they are) with ESLint and .eslintrc.json: eslint:recommended, plus no-use-before-define,
# which catches a let or const read above its declaration (a temporal-dead-zone trap). Any finding,
# warning or error, fails. ESLint is Debian's: `sudo apt-get install eslint`
# (scripts/install-deps.sh --test installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v eslint >/dev/null; then
  echo "lint-js: eslint is not installed; run 'sudo apt-get install eslint' (or scripts/install-deps.sh --test)" >&2
  exit 1
fi
# Debian's eslint finds its modules in /usr/share/nodejs, where Debian's node looks by itself but a
# node from elsewhere (NodeSource's, say) does not.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
eslint --no-eslintrc --config .eslintrc.json --ext .js --max-warnings 0 Sources/SketchwiseServer/Web
echo "lint-js: no findings"
