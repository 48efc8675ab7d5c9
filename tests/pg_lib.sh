# SPDX-License-Identifier: MIT
# pg_lib.sh: a real PostgreSQL for one test (sourced after proc_lib.sh's proc_init): initdb and pg_ctl from
# Debian's /usr/lib/postgresql/*/bin, its data and its socket in $TMP/pg, listening on 127.0.0.1 on a free port.
# Run as root (CI), the server runs as the `postgres` user (it refuses root). The test's EXIT trap calls
# pg_stop. The role `wizwar` (password $PG_PASS, scram over TCP) owns the database `wizwar`; PG_URI reaches it
# with the password from a passfile ($TMP/pgpass, 0600), PG_PORT is the port, pg_sql SQL runs psql as the
# superuser over the socket.

pg_bin() {
	local d
	for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && PG_BIN="$d"; done
	[ -n "${PG_BIN:-}" ] || command -v initdb >/dev/null && PG_BIN="${PG_BIN:-$(dirname "$(command -v initdb)")}"
	[ -n "${PG_BIN:-}" ]
}

pg_as() { # the command as the data folder's owner
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
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
	pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
		--no-sync --locale=C.UTF-8 -E UTF8 >"$TMP/pg-init.log" 2>&1 || { PROC_SHOW+=("$TMP/pg-init.log"); fail "initdb failed"; }
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
