# SPDX-License-Identifier: MIT
# lan_lib.sh: two network namespaces joined by a veth pair, each with its own D-Bus system bus and
# avahi-daemon, for the LAN discovery test and benchmark (sourced). Names are unique per run; lan_down
# (set as the EXIT trap by lan_up) stops every process started and deletes the namespaces.
#   lan_up            make it: $LAN_A and $LAN_B (namespaces), $LAN_IP_A / $LAN_IP_B, $LAN_T (temp dir)
#   in_a CMD... / in_b CMD...   run CMD in that namespace, on its bus (DBUS_SYSTEM_BUS_ADDRESS)
#   lan_bg NAME ns CMD...       the same in the background, output in $LAN_T/NAME.out, pid kept for lan_down
# Nothing touches the machine's own network: the veth pair lives only in the two namespaces.

lan_pids=()

# Not root (or no ip, no avahi): a skip, with the reason.
lan_need() {
	local p
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP not root: network namespaces need root (CI runs this as root)"
		exit 77
	fi
	for p in ip nsenter dbus-daemon avahi-daemon avahi-browse avahi-publish unshare; do
		command -v "$p" >/dev/null || { echo "1..0 # SKIP $p not installed (bash .ci/deps test)"; exit 77; }
	done
}

lan_down() {
	local p
	[ -S "${LAN_T:-/nonexistent}/tmux" ] && tmux -S "$LAN_T/tmux" kill-server 2>/dev/null
	for p in "${lan_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	sleep 0.2
	for p in "${lan_pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	lan_pids=()
	[ -n "${LAN_A:-}" ] && ip netns del "$LAN_A" 2>/dev/null
	[ -n "${LAN_B:-}" ] && ip netns del "$LAN_B" 2>/dev/null
	[ -n "${LAN_T:-}" ] && [ -z "${LAN_KEEP:-}" ] && rm -rf "$LAN_T"
	return 0
}

in_ns() {
	local ns=$1 side=$2
	shift 2
	# nsenter, not `ip netns exec`, which forks: the pid kept must be the program's, for kill.
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$LAN_T/$side/bus XDG_STATE_HOME=$LAN_T/$side/state \
		nsenter --net="/run/netns/$ns" -- "$@"
}
in_a() { in_ns "$LAN_A" A "$@"; }
in_b() { in_ns "$LAN_B" B "$@"; }

# lan_bg NAME A|B CMD...: in the background; its pid in $LAN_T/NAME.pid and in lan_pids.
lan_bg() {
	local name=$1 side=$2 ns
	shift 2
	[ "$side" = A ] && ns=$LAN_A || ns=$LAN_B
	# A simple command, not a function: $! is then the program's own pid (nsenter execs it).
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$LAN_T/$side/bus XDG_STATE_HOME=$LAN_T/$side/state \
		nsenter --net="/run/netns/$ns" -- "$@" >"$LAN_T/$name.out" 2>&1 &
	lan_pids+=($!)
	echo $! >"$LAN_T/$name.pid"
}

# lan_stop NAME: SIGTERM, then wait for it (a host withdraws its announcement as it stops).
lan_stop() {
	local p
	p=$(cat "$LAN_T/$1.pid")
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	return 0
}

lan_daemons() {
	local side=$1 ns=$2 ifc=$3
	mkdir -p "$LAN_T/$side/state"
	# A system bus of its own: the avahi-daemon of this side owns org.freedesktop.Avahi on it, and
	# every process of the side finds it through DBUS_SYSTEM_BUS_ADDRESS.
	cat >"$LAN_T/$side/bus.conf" <<-EOF
		<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
		 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
		<busconfig>
		  <type>system</type>
		  <listen>unix:path=$LAN_T/$side/bus</listen>
		  <auth>EXTERNAL</auth>
		  <policy context="default">
		    <allow user="*"/>
		    <allow own="*"/>
		    <allow send_type="method_call"/>
		    <allow send_type="signal"/>
		    <allow send_requested_reply="true" send_type="method_return"/>
		    <allow send_requested_reply="true" send_type="error"/>
		    <allow receive_type="method_call"/>
		    <allow receive_type="signal"/>
		    <allow receive_type="method_return"/>
		    <allow receive_type="error"/>
		  </policy>
		</busconfig>
	EOF
	# IPv4 only, on the veth alone: the test's link and nothing else.
	cat >"$LAN_T/$side/avahi.conf" <<-EOF
		[server]
		host-name=ww$side$LAN_ID
		use-ipv4=yes
		use-ipv6=no
		allow-interfaces=$ifc
		ratelimit-interval-usec=1000000
		ratelimit-burst=1000
		[publish]
		publish-hinfo=no
		publish-workstation=no
	EOF
	lan_bg "dbus$side" "$side" dbus-daemon --config-file="$LAN_T/$side/bus.conf" --nofork --nopidfile
	local i
	for ((i = 0; i < 100; i++)); do
		[ -S "$LAN_T/$side/bus" ] && break
		sleep 0.05
	done
	[ -S "$LAN_T/$side/bus" ] || { echo "not ok - dbus-daemon of $side did not start: $(cat "$LAN_T/dbus$side.out")"; exit 1; }
	# avahi-daemon keeps its pid file and socket in /run/avahi-daemon: a private /run (a mount
	# namespace of its own) lets two run at once, and leaves the machine's /run alone.
	lan_bg "avahi$side" "$side" unshare -m sh -c "mount -t tmpfs tmpfs /run && mkdir /run/avahi-daemon &&
		exec avahi-daemon -f $LAN_T/$side/avahi.conf --no-drop-root --no-chroot --no-rlimits"
}

lan_up() {
	LAN_ID=$$$RANDOM
	LAN_ID=${LAN_ID:0:9}
	LAN_A=wwlanA$LAN_ID
	LAN_B=wwlanB$LAN_ID
	LAN_T=$(mktemp -d /tmp/wizwar-lan.XXXXXX)
	trap lan_down EXIT
	trap 'exit 1' INT TERM
	# A /24 of its own per run, in 10.x: the two namespaces have no other route.
	local net=$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))
	LAN_IP_A=10.$net.1
	LAN_IP_B=10.$net.2
	ip netns add "$LAN_A" && ip netns add "$LAN_B" || { echo "not ok - cannot create network namespaces"; exit 1; }
	ip link add "wla$LAN_ID" type veth peer name "wlb$LAN_ID" &&
		ip link set "wla$LAN_ID" netns "$LAN_A" && ip link set "wlb$LAN_ID" netns "$LAN_B" &&
		ip -n "$LAN_A" addr add "$LAN_IP_A/24" dev "wla$LAN_ID" && ip -n "$LAN_B" addr add "$LAN_IP_B/24" dev "wlb$LAN_ID" &&
		ip -n "$LAN_A" link set "wla$LAN_ID" up multicast on && ip -n "$LAN_B" link set "wlb$LAN_ID" up multicast on &&
		ip -n "$LAN_A" link set lo up && ip -n "$LAN_B" link set lo up ||
		{ echo "not ok - cannot make the veth pair"; exit 1; }
	lan_daemons A "$LAN_A" "wla$LAN_ID"
	lan_daemons B "$LAN_B" "wlb$LAN_ID"
	local i s
	for s in A B; do
		for ((i = 0; i < 100; i++)); do
			grep -q "Server startup complete" "$LAN_T/avahi$s.out" 2>/dev/null && break
			sleep 0.05
		done
		grep -q "Server startup complete" "$LAN_T/avahi$s.out" ||
			{ echo "not ok - avahi-daemon of $s did not start:"; sed 's/^/# /' "$LAN_T/avahi$s.out"; exit 1; }
	done
}

# lan_seen_b FILTER: the resolved _wizwar._tcp services ns B sees now (avahi-browse -t -r -p), lines with FILTER.
lan_seen_b() {
	in_b timeout 10 avahi-browse -t -r -p "_wizwar._tcp" 2>/dev/null | grep '^=' | grep -F -- "$1"
}
