#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# unit: dist/wizwar-server.service as meson configures it (ExecStart the build's own program) passes
# `systemd-analyze verify`, and `systemd-analyze security --offline=true` rates its exposure under 2.0
# (docs/server.md, "The service unit"); and dist/server.conf, every setting in it uncommented, is a file the
# server takes: it names only real options, each once.
# Usage: unit.sh UNIT WIZWAR CONF
set -u
UNIT="${1:?usage: unit.sh UNIT WIZWAR CONF}"
W="${2:?}"
CONF="${3:?}"
command -v systemd-analyze > /dev/null || { echo "1..0 # SKIP systemd-analyze is missing (Debian's systemd package)"; exit 77; }
TMP="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-unit.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
n=0
failed=0
check() { # check NAME CMD...: ok or not ok, and the command's output as comments when not ok
	local name="$1" out
	shift
	n=$((n + 1))
	if out="$("$@" 2>&1)"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' <<<"$out"
		failed=1
	fi
}
# The unit's file name is its name: verify under the name it is installed as. --man=no: its
# Documentation= names a man page that is installed only by `meson install`.
cp "$UNIT" "$TMP/wizwar-server.service"
check "systemd-analyze verify" systemd-analyze verify --man=no "$TMP/wizwar-server.service"
grep -q '^ExecStart=.*wizwar server --config ' "$TMP/wizwar-server.service" || check "ExecStart runs wizwar server --config" false
check "systemd-analyze security --offline=true: exposure under 2.0" \
	systemd-analyze security --offline=true --threshold=20 "$TMP/wizwar-server.service"
score="$(systemd-analyze security --offline=true "$TMP/wizwar-server.service" 2>&1 | grep -oE 'exposure level for [^:]*: [0-9.]+' | grep -oE '[0-9.]+$')"
echo "# exposure $score"
# The threshold check is not a test that cannot fail: a unit without its hardening is over it.
mkdir -p "$TMP/soft"
grep -vE '^(ProtectSystem|PrivateDevices|CapabilityBoundingSet|SystemCallFilter|PrivateUsers|ProtectKernel[A-Za-z]*|RestrictNamespaces|DynamicUser)=' \
	"$TMP/wizwar-server.service" > "$TMP/soft/wizwar-server.service"
check "the same unit stripped of its hardening is over the threshold" \
	bash -c '! systemd-analyze security --offline=true --threshold=20 "$1" > /dev/null 2>&1' _ "$TMP/soft/wizwar-server.service"

# The example configuration: every "#name value" line uncommented is a file the server starts with (the
# command line over it: a free port on loopback, and a password file that exists).
sed -E 's/^#([a-z][a-z0-9-]*( |$))/\1/' "$CONF" > "$TMP/all.conf"
chmod 600 "$TMP/all.conf"
echo "pw for the test" > "$TMP/pw"
settings=$(grep -cE '^[a-z]' "$TMP/all.conf")
XDG_STATE_HOME="$TMP/state" "$W" server --config "$TMP/all.conf" --bind 127.0.0.1 --port 0 --password-file "$TMP/pw" \
	--log-dir "$TMP/logs" > /dev/null 2> "$TMP/srv.err" &
srv=$!
for _ in $(seq 100); do grep -q 'listening on' "$TMP/srv.err" && break; kill -0 $srv 2>/dev/null || break; sleep 0.1; done
check "dist/server.conf with its $settings settings uncommented starts a server" grep -q 'listening on' "$TMP/srv.err"
[ "$settings" -ge 14 ] || check "dist/server.conf shows every option ($settings settings)" false
kill -TERM $srv 2>/dev/null
wait $srv
sed 's/^/# /' "$TMP/srv.err" | head -5
echo "1..$n"
exit $failed
