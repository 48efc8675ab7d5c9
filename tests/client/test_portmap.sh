#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_portmap: `wizwar host` behind a real home router asks it to forward its port, in three network
# namespaces made for this run: a home LAN (10.77.1.0/24), the router (Debian's miniupnpd, UPnP-IGD and
# NAT-PMP, with nftables NAT between its two sides) and the outside (11.77.0.0/24: miniupnpd refuses a
# private or reserved address on its outside, and with no route out of the namespaces nothing leaves the
# machine). For each method (WIZWAR_PORTMAP=upnp, then natpmp):
#  1. `host --headless` in the LAN prints its LAN join line at once, then the router's public one;
#     miniupnpd's nftables chains hold the forward; a bot in the LAN and a bot outside, joining through
#     the router's public address with the fingerprint of that line, play a whole duel.
#  2. SIGTERM: the host removes the mapping before it exits (the chains are empty, NAT-PMP's lease gone).
# Then, with miniupnpd stopped: the host says in one line that no router answered and why, names the way
# that works (a `wizwar server`), and a bot in the LAN still plays a duel with it; --no-upnp asks nothing
# and says nothing of it; `server --upnp` maps its port too and removes it on SIGTERM (SIGHUP reloads a server).
# Not root (no namespaces): exit 77, a skip (CI runs as root, where it must run).
set -u
WIZWAR="${1:?usage: test_portmap.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"

fail() {
	echo "FAIL: $*"
	for f in "$TMPD"/*.err "$TMPD"/*.out "$TMPD"/miniupnpd.log; do
		[ -s "$f" ] && { echo "--- $(basename "$f"):"; tail -n 20 "$f"; }
	done
	exit 1
}
ok() { echo "ok - $*"; }
. "$HERE/../proc_lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "not root: cannot create the network namespaces this test needs: skipped"
	exit 77
fi
for c in ip nft tmux /usr/sbin/miniupnpd; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is missing (bash .ci/deps test installs it)"; exit 1; }
done

ID="$$$RANDOM"
ID="${ID:0:8}"
LAN="wwpm$ID-lan"
RTR="wwpm$ID-rtr"
OUT="wwpm$ID-out"
TMPD="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-portmap.XXXXXX")"
PIDS=()
TSOCK="wizwar-portmap-$ID"
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	tmux -L "$TSOCK" kill-server >/dev/null 2>&1
	ip netns del "$LAN" 2>/dev/null
	ip netns del "$RTR" 2>/dev/null
	ip netns del "$OUT" 2>/dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT INT TERM

# Not for a program run in the background: `&` on a function forks a shell, and $! would be that shell.
in_lan() { ip netns exec "$LAN" "$@"; }
in_rtr() { ip netns exec "$RTR" "$@"; }
in_out() { ip netns exec "$OUT" "$@"; }

# ---- the three networks ----
ip netns add "$LAN" && ip netns add "$RTR" && ip netns add "$OUT" || fail "cannot create namespaces"
# Each veth end is made inside its namespace: nothing appears on the machine's own network.
ip link add lan0 netns "$LAN" type veth peer name rlan0 netns "$RTR" || fail "veth LAN-router"
ip link add out0 netns "$OUT" type veth peer name rext0 netns "$RTR" || fail "veth router-outside"
in_lan ip addr add 10.77.1.2/24 dev lan0
in_rtr ip addr add 10.77.1.1/24 dev rlan0
in_rtr ip addr add 11.77.0.1/24 dev rext0
in_out ip addr add 11.77.0.2/24 dev out0
for ns in "$LAN" "$RTR" "$OUT"; do
	ip netns exec "$ns" ip link set lo up
done
in_lan ip link set lan0 up
in_rtr ip link set rlan0 up
in_rtr ip link set rext0 up
in_out ip link set out0 up
in_lan ip route add default via 10.77.1.1 # the home's way out, and SSDP's multicast
in_rtr sysctl -qw net.ipv4.ip_forward=1
# The outside has no route to 10.77.1.0/24: only the router's address, 11.77.0.1, leads in.

# The router's firewall and NAT, in the tables and chains miniupnpd fills (as /etc/miniupnpd/nft_init.sh
# makes them): forwarding is dropped but for what goes out, its answers and miniupnpd's own rules.
cat >"$TMPD/router.nft" <<'EOF'
table inet wwfilter {
	chain forward {
		type filter hook forward priority 0; policy drop;
		ct state established,related accept
		iifname "rlan0" oifname "rext0" accept
		jump miniupnpd
	}
	chain miniupnpd {
	}
}
table inet wwnat {
	chain prerouting {
		type nat hook prerouting priority -100; policy accept;
		jump prerouting_miniupnpd
	}
	chain postrouting {
		type nat hook postrouting priority 100; policy accept;
		jump postrouting_miniupnpd
		oifname "rext0" masquerade
	}
	chain prerouting_miniupnpd {
	}
	chain postrouting_miniupnpd {
	}
}
EOF
in_rtr nft -f "$TMPD/router.nft" || fail "nft rules of the router"

cat >"$TMPD/miniupnpd.conf" <<EOF
ext_ifname=rext0
listening_ip=rlan0
http_port=0
enable_upnp=yes
enable_natpmp=yes
secure_mode=yes
system_uptime=yes
min_lifetime=120
max_lifetime=86400
lease_file=$TMPD/leases
upnp_table_name=wwfilter
upnp_nat_table_name=wwnat
upnp_forward_chain=miniupnpd
upnp_nat_chain=prerouting_miniupnpd
upnp_nat_postrouting_chain=postrouting_miniupnpd
uuid=3b5a9c2e-7727-4c1e-9e77-$(printf '%012d' "${ID//[^0-9]/}")
allow 1024-65535 10.77.1.0/24 1024-65535
deny 0-65535 0.0.0.0/0 0-65535
EOF
MUPD=""
router_start() {
	ip netns exec "$RTR" /usr/sbin/miniupnpd -d -f "$TMPD/miniupnpd.conf" -P "$TMPD/miniupnpd.pid" >>"$TMPD/miniupnpd.log" 2>&1 &
	MUPD=$!
	PIDS+=("$MUPD")
	wait_re 'Listening for NAT-PMP' "$TMPD/miniupnpd.log" 10
}
router_stop() {
	kill -TERM "$MUPD"
	wait "$MUPD" 2>/dev/null
}
# The forwarding rules miniupnpd has made for the host's port, in the router's NAT chain.
mapped_rules() { in_rtr nft list chain inet wwnat prerouting_miniupnpd 2>/dev/null | grep -c "dport $1 .*dnat"; }

HOST=""
# host_start TAG ARGS...: `wizwar host --headless` in the LAN, port 7727 (its default, unique in its namespace),
# with WIZWAR_PORTMAP=$PM.
PM=both
host_start() {
	local tag="$1"
	shift
	ip netns exec "$LAN" env XDG_STATE_HOME="$TMPD/state-host" WIZWAR_PORTMAP="$PM" "$WIZWAR" host --headless \
		--log-dir "$TMPD/logs" "$@" >"$TMPD/$tag.out" 2>"$TMPD/$tag.err" &
	HOST=$!
	PIDS+=("$HOST")
	wait_re '^wizwar join 10\.77\.1\.2:7727#[a-z2-7]+$' "$TMPD/$tag.out" 10
}
# bot NS TAG ADDRESS: one duel, in the background (pid in BOT).
bot() {
	ip netns exec "$1" env XDG_STATE_HOME="$TMPD/state-$2" "$WIZWAR" bot "$3" --name "$2" --level easy \
		--think 0 --games 1 --seed 7 >"$TMPD/$2.out" 2>"$TMPD/$2.err" &
	BOT=$!
	PIDS+=("$BOT")
}
duel_ok() { # duel_ok TAG: the bot played a duel to its end and verified the host
	local i
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && fail "bot $2 still plays after 120 s"
	wait "$1" || fail "bot $2 exited $?"
	grep -qE '(won|lost|draw)' "$TMPD/$2.out" || fail "bot $2 did not finish a duel"
}

mkdir -p "$TMPD/logs"
router_start
ok "three namespaces ($LAN, $RTR, $OUT), miniupnpd on the router"

for method in upnp natpmp; do
	# ==== 1. the host maps its port; a bot outside joins through the router ====
	PM=$method
	host_start "host-$method"
	lan_line="$(head -1 "$TMPD/host-$method.out")"
	fp="${lan_line##*#}"
	wait_re "^wizwar join 11\.77\.0\.1:7727#$fp\$" "$TMPD/host-$method.out" 10
	want=UPnP-IGD
	[ "$method" = natpmp ] && want=NAT-PMP
	grep -qE "The router \\($want\\) forwards 11\\.77\\.0\\.1:7727 to port 7727 here, for [0-9]+ s at a time, renewed while this runs" \
		"$TMPD/host-$method.err" || fail "$method: the host did not say what the router forwards"
	ok "$method: the LAN line at once, then the router's public address (11.77.0.1:7727) in a second join line"
	[ "$(mapped_rules 7727)" -ge 1 ] || fail "$method: no DNAT rule for 7727 in miniupnpd's chain"
	ok "$method: miniupnpd's nftables chain forwards 7727 to the host"

	bot "$LAN" "lan-$method" "10.77.1.2:7727#$fp"
	lanbot=$BOT
	bot "$OUT" "out-$method" "11.77.0.1:7727#$fp"
	outbot=$BOT
	duel_ok "$outbot" "out-$method"
	duel_ok "$lanbot" "lan-$method"
	ok "$method: a bot outside joined through the router's public address, checked the fingerprint and played a whole duel"

	# ==== 2. SIGTERM removes the mapping ====
	kill -TERM "$HOST"
	wait "$HOST" || { cat "$TMPD/host-$method.err"; fail "$method: the host exited $? on SIGTERM"; }
	[ "$(mapped_rules 7727)" = 0 ] || fail "$method: the DNAT rule for 7727 is still there after the host stopped"
	in_rtr nft list chain inet wwfilter miniupnpd | grep -q "dport 7727" && fail "$method: the filter rule is left"
	ok "$method: SIGTERM: the host removed its mapping before it exited (miniupnpd's chains are empty)"
done

# ==== 2b. a hostile router: it sends the mapped port to another machine ====
# An impostor on the LAN (10.77.1.3, its own key) runs a host; the router, instead of the mapping it reported,
# forwards 7727 to it. The bot outside, given the real host's public line, is refused by the key check.
in_lan ip addr add 10.77.1.3/24 dev lan0
ip netns exec "$LAN" env XDG_STATE_HOME="$TMPD/state-impostor" "$WIZWAR" host --headless --no-upnp --bind 10.77.1.3 \
	--port 7729 --log-dir "$TMPD/logs" >"$TMPD/impostor.out" 2>"$TMPD/impostor.err" &
IMP=$!
PIDS+=("$IMP")
wait_re '^wizwar join 10\.77\.1\.3:7729#' "$TMPD/impostor.out" 10
PM=upnp
host_start host-real
lan_line="$(head -1 "$TMPD/host-real.out")"
fp="${lan_line##*#}"
wait_re "^wizwar join 11\.77\.0\.1:7727#$fp\$" "$TMPD/host-real.out" 10
in_rtr nft insert rule inet wwnat prerouting iifname rext0 tcp dport 7727 dnat ip to 10.77.1.3:7729 &&
	in_rtr nft insert rule inet wwfilter forward ip daddr 10.77.1.3 tcp dport 7729 accept || fail "nft: the hostile rule"
ip netns exec "$OUT" env XDG_STATE_HOME="$TMPD/state-victim" "$WIZWAR" bot "11.77.0.1:7727#$fp" --name victim \
	--games 1 --reconnect 1 >"$TMPD/victim.out" 2>"$TMPD/victim.err"
rc=$?
[ "$rc" != 0 ] || fail "the bot played with an impostor"
grep -q "THE SERVER'S KEY IS NOT THE ONE GIVEN: 11.77.0.1:7727 shows key" "$TMPD/victim.err" ||
	fail "the bot did not say the key is not the one given"
grep -q 'joins room' "$TMPD/impostor.err" && fail "the bot joined the impostor's room"
ok "hostile router: the port forwarded to an impostor; the bot outside refuses its key (exit $rc: $(tail -1 "$TMPD/victim.err"))"
in_rtr nft flush chain inet wwnat prerouting && in_rtr nft add rule inet wwnat prerouting jump prerouting_miniupnpd
kill -TERM "$HOST" "$IMP"
wait "$HOST" || fail "the host exited $? on SIGTERM"
wait "$IMP"

# ==== 3. server --upnp: mapped, and removed on SIGTERM (a server reloads on SIGHUP) ====
ip netns exec "$LAN" env XDG_STATE_HOME="$TMPD/state-srv" "$WIZWAR" server --upnp --port 7728 --log-dir "$TMPD/logs" \
	>"$TMPD/server.out" 2>"$TMPD/server.err" &
SRV=$!
PIDS+=("$SRV")
wait_re '^wizwar join 11\.77\.0\.1:7728#[a-z2-7]+ --new-room$' "$TMPD/server.out" 15
[ "$(mapped_rules 7728)" -ge 1 ] || fail "server --upnp: no DNAT rule for 7728"
ok "server --upnp: the router forwards its port, and the public join line (with --new-room) is printed"
kill -TERM "$SRV"
wait "$SRV" || fail "server exited $? on SIGTERM"
[ "$(mapped_rules 7728)" = 0 ] || fail "server --upnp: the mapping outlived SIGTERM"
ok "server --upnp: SIGTERM removes the mapping"

# ==== 4. no router: said in one line, and the LAN plays meanwhile ====
# miniupnpd stopped, and the router silent (its SSDP and NAT-PMP ports dropped, not refused): each method
# waits its 2 s, and the LAN bots join and play while it does.
router_stop
in_rtr nft -f - <<'EOF2' || fail "nft: the silent router"
table inet wwsilent {
	chain input {
		type filter hook input priority -10; policy accept;
		udp dport { 1900, 5351 } drop
	}
}
EOF2
PM=both
t0=$SECONDS
host_start host-none
lan_line="$(head -1 "$TMPD/host-none.out")"
fp="${lan_line##*#}"
bot "$LAN" lan-none "10.77.1.2:7727#$fp"
bot1=$BOT
bot "$LAN" lan-none2 "10.77.1.2:7727#$fp"
wait_re 'No port mapping \(UPnP-IGD: no router answered in 2\.0 s; NAT-PMP: the gateway 10\.77\.1\.1 did not answer in time\): players outside this network cannot reach this host\. The LAN works; from outside, meet at a `wizwar server` both players can reach' \
	"$TMPD/host-none.err" 15
[ $((SECONDS - t0)) -le 8 ] || fail "the router was given up on only after $((SECONDS - t0)) s (2 s a method)"
[ "$(grep -c 'No port mapping' "$TMPD/host-none.err")" = 1 ] || fail "said more than once"
[ "$(wc -l <"$TMPD/host-none.out")" = 1 ] || fail "a second join line without a router"
ok "no router: one line says why (both methods) and names a \`wizwar server\`; only the LAN join line"
grep -nE 'joins room host|No port mapping' "$TMPD/host-none.err" | head -1 | grep -q 'joins room host' ||
	fail "the LAN bots joined only after the router had been given up on"
duel_ok "$bot1" lan-none
duel_ok "$BOT" lan-none2
ok "no router: two bots in the LAN joined while the host still waited for the router, and played a whole duel"
kill -TERM "$HOST"
wait "$HOST" || fail "the host without a router exited $? on SIGTERM"
in_rtr nft delete table inet wwsilent

# ==== 5. --no-upnp: nothing asked, nothing said ====
router_start
asked="$(grep -c '10\.77\.1\.2' "$TMPD/miniupnpd.log")"
host_start host-off --no-upnp
sleep 3
grep -qiE 'router|port mapping' "$TMPD/host-off.err" && fail "--no-upnp still spoke of the router"
[ "$(mapped_rules 7727)" = 0 ] || fail "--no-upnp mapped the port"
[ "$(grep -c '10\.77\.1\.2' "$TMPD/miniupnpd.log")" = "$asked" ] || fail "--no-upnp: the router was asked"
kill -TERM "$HOST"
wait "$HOST"
ok "--no-upnp: no mapping asked for, and nothing said about it"
# ==== 6. the host on its terminal (tmux): the router's answer on screen, removed on Q and on SIGHUP ====
tm() { tmux -L "$TSOCK" -f /dev/null "$@"; }
screen_wait() { # screen_wait REGEX: until the pane shows it (10 s)
	local i
	for ((i = 0; i < 200; i++)); do
		tm capture-pane -p -J -t w >"$TMPD/screen" 2>/dev/null
		grep -qE -- "$1" "$TMPD/screen" && return 0
		sleep 0.05
	done
	cat "$TMPD/screen"
	fail "waited 10 s for /$1/ on the host's screen"
}
tm new-session -d -s keep -x 80 -y 24 "exec sleep 600"
for how in Q HUP; do
	tm new-session -d -s w -x 100 -y 30 "ip netns exec $LAN env XDG_STATE_HOME=$TMPD/state-host WIZWAR_PORTMAP=upnp \
		$WIZWAR host --name Hana --log-dir $TMPD/logs; echo EXIT=\$?; exec sleep 600"
	screen_wait 'The router \(UPnP-IGD\) forwards 11\.77\.0\.1:7727 to port 7727 here'
	screen_wait 'wizwar join 11\.77\.0\.1:7727#[a-z2-7]{26}'
	[ "$(mapped_rules 7727)" -ge 1 ] || fail "curses host: no DNAT rule for 7727"
	ok "host on a terminal ($how): the router's answer in its messages, the public join line on the share row"
	if [ "$how" = Q ]; then
		tm send-keys -t w Q
		screen_wait '^EXIT=0$'
		grep -qE '^wizwar join 11\.77\.0\.1:7727#[a-z2-7]{26}$' "$TMPD/screen" ||
			fail "the public join line is not printed again when the screen closes"
	else
		# The pane's shell runs `ip netns exec`, which becomes env, then wizwar: its one child.
		kill -HUP "$(ps -o pid= --ppid "$(tm display -p -t w '#{pane_pid}')")"
		screen_wait '^EXIT=[0-9]+$'
	fi
	[ "$(mapped_rules 7727)" = 0 ] || fail "curses host ($how): the mapping outlived the host"
	ok "host on a terminal, left with $how: the mapping is removed before it exits"
	tm kill-session -t w
done

echo "all port mapping tests passed"
