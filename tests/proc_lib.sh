# SPDX-License-Identifier: MIT
# proc_lib.sh: for the tests that drive whole processes without a terminal (sourced). The test defines
# fail() (it prints what it needs and exits 1) before it calls these. The tmux tests have tmux_lib.sh.

# wait_re REGEX FILE SECS: until FILE matches (grep -E), else fail.
wait_re() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "waited $3 s for /$1/ in $(basename "$2")"
}

# count REGEX FILE: how many lines match.
count() { grep -cE -- "$1" "$2"; }
