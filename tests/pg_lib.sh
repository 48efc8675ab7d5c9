# SPDX-License-Identifier: MIT
# pg_lib.sh: a real PostgreSQL for one test (sourced after proc_lib.sh's proc_init): initdb and pg_ctl from
# Debian's /usr/lib/postgresql/*/bin, its data and its socket in $TMP/pg, listening on 127.0.0.1 on a free port.
# Run as root (CI), the server runs as the `postgres` user (it refuses root). The test's EXIT trap calls
# pg_stop. The role `wizwar` (password $PG_PASS, scram over TCP) owns the database `wizwar`; PG_URI reaches it
# with the password from a passfile ($TMP/pgpass, 0600), PG_PORT is the port, pg_sql SQL runs psql as the
# superuser over the socket.
# initdb takes seconds (up to 23 s on a loaded 2-core machine) and makes the same files every time: one data folder
# per build is made by the first test that asks (under flock, so that tests started in parallel wait for it rather
# than make their own) in $WIZWAR_BUILDDIR/pg-template/, and each test copies it (cp -a) and starts its own
# PostgreSQL on the copy: still a real server and a data folder of its own per test. Without WIZWAR_BUILDDIR (a
# test run by hand), or without flock, each test runs initdb itself.

pg_bin() {
	local d
	for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && PG_BIN="$d"; done
	[ -n "${PG_BIN:-}" ] || command -v initdb >/dev/null && PG_BIN="${PG_BIN:-$(dirname "$(command -v initdb)")}"
	[ -n "${PG_BIN:-}" ]
}

pg_as() { # the command as the data folder's owner
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# --wal-segsize=1: a first WAL segment of 1 MiB rather than 16, less to copy for each test.
PG_INITDB_ARGS="-U postgres --auth-local=trust --auth-host=scram-sha-256 --no-sync --locale=C.UTF-8 -E UTF8 --wal-segsize=1"

pg_initdb() { # pg_initdb DIR: a new data folder (DIR's parent writable by the folder's owner)
	# shellcheck disable=SC2086
	pg_as "$PG_BIN/initdb" -D "$1" $PG_INITDB_ARGS >"$TMP/pg-init.log" 2>&1 ||
		{ PROC_SHOW+=("$TMP/pg-init.log"); fail "initdb failed"; }
}

pg_data() { # pg_data DIR: the data folder, copied from the build's template (made first if need be)
	local root="${WIZWAR_BUILDDIR:-}/pg-template" key tpl t0=$SECONDS
	if [ -z "${WIZWAR_BUILDDIR:-}" ] || ! [ -d "$WIZWAR_BUILDDIR" ] || ! command -v flock >/dev/null; then
		pg_initdb "$1"
		echo "# PostgreSQL: initdb for this test alone ($((SECONDS - t0)) s)"
		return
	fi
	# One template per PostgreSQL version, initdb arguments and user: a build kept across an upgrade makes a new one.
	key="$({ "$PG_BIN/initdb" --version; echo "$PG_INITDB_ARGS"; id -u; } | cksum | cut -d' ' -f1)"
	tpl="$root/$key"
	mkdir -p "$root" || fail "cannot make $root"
	(
		flock 9 || exit 1
		[ -f "$tpl/ready" ] && exit 0
		# Made in the test's own PG_DIR (the `postgres` user's), then copied whole and renamed:
		# a template is complete, or absent.
		pg_initdb "$PG_DIR/template" || exit 1
		rm -rf "$tpl.new" && mkdir "$tpl.new" && cp -a "$PG_DIR/template" "$tpl.new/data" && touch "$tpl.new/ready" &&
			mv "$tpl.new" "$tpl" && rm -rf "$PG_DIR/template"
	) 9>"$root/lock" || fail "no PostgreSQL template in $root"
	cp -a "$tpl/data" "$1" || fail "could not copy the template $tpl/data"
	echo "# PostgreSQL: a copy of the build's initdb'd template ($((SECONDS - t0)) s)"
}

pg_start() {
	pg_bin || fail "no initdb (Debian's postgresql)"
	PG_DIR="$TMP/pg"
	PG_PASS="s3cret-$RANDOM$RANDOM"
	PG_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
	mkdir -p "$PG_DIR/sock"
	if [ "$(id -u)" -eq 0 ]; then
		chmod 711 "$TMP"
		chown -R postgres: "$PG_DIR"
	fi
	printf '%s\n' "$PG_PASS" > "$TMP/pgpw"
	[ "$(id -u)" -eq 0 ] && chown postgres: "$TMP/pgpw"
	pg_data "$PG_DIR/data"
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -t 20 start \
		-o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR/sock -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
		>"$TMP/pg-ctl.log" 2>&1 || { PROC_SHOW+=("$PG_DIR/log"); fail "PostgreSQL did not start"; }
	PG_UP=1
	{ PG_DB=postgres pg_sql "CREATE ROLE wizwar LOGIN PASSWORD '$PG_PASS';" &&
		PG_DB=postgres pg_sql "CREATE DATABASE wizwar OWNER wizwar;"; } >/dev/null || fail "could not make the role and the database"
	printf '127.0.0.1:%s:*:wizwar:%s\n' "$PG_PORT" "$PG_PASS" > "$TMP/pgpass"
	chmod 600 "$TMP/pgpass"
	PG_URI="postgresql://wizwar@127.0.0.1:$PG_PORT/wizwar?passfile=$TMP/pgpass"
}

pg_sql() { # SQL as the superuser, over the socket, one value a line
	pg_as "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PG_DIR/sock" -p "$PG_PORT" -U postgres -d "${PG_DB:-wizwar}" -c "$1"
}

pg_stop() {
	[ -n "${PG_UP:-}" ] || return 0
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	PG_UP=""
}
