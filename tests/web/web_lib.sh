# SPDX-License-Identifier: MIT
# web_lib.sh: sourced by the browser tests (test_web.sh, test_follow.sh): skip (77) unless node, chromium
# and the npm packages are there. Sets CHROMIUM; expects HERE (tests/web).
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if ! command -v node >/dev/null 2>&1 || [ ! -x "$CHROMIUM" ]; then
	echo "node or $CHROMIUM is not installed (.ci/deps test installs them): skipped"
	exit 77
fi
if [ ! -d "$HERE/node_modules/playwright-core" ]; then
	echo "tests/web/node_modules is missing: run \`npm ci\` in tests/web (.ci/deps test does): skipped"
	exit 77
fi
