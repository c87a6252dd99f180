#!/bin/sh
# Runs inside the guest:
#   guest-fuzz.sh FUZZER RUNDIR [--no-trinity]
# the probe PMU fuzzer and Debian's trinity on the system calls that open
# probe events and create classic BPF images, as root and as nobody.
# FUZZ_CALLS (100000) calls each, FUZZ_SEED (1) for the fuzzer.
set -u
fuzz=$1 run=$2
calls=${FUZZ_CALLS:-100000} seed=${FUZZ_SEED:-1}

"$fuzz" -n "$calls" -s "$seed" >"$run/fuzz-root.txt" 2>&1
echo "probe_fuzz as root exited $?" >>"$run/guest-info"
"$fuzz" -n "$calls" -s "$seed" -u >"$run/fuzz-nobody.txt" 2>&1
echo "probe_fuzz as nobody exited $?" >>"$run/guest-info"
[ "${3:-}" != --no-trinity ] || exit 0

# trinity opens files of /proc, /sys and /dev for its pool of fds: run it
# in a scratch directory, with only the calls named here: perf_event_open,
# then, when TRINITY_FILTER_CALLS is set, socket and setsockopt, which
# attach classic socket filters, on IPv4 sockets only and with one victim
# file instead of /proc and /sys (its pool then takes seconds, not minutes);
# off by default: on the debug kernel under TCG, 2,000 such calls had not
# finished after 8 minutes.  Not seccomp(): a filter that kills a
# trinity child makes it fork a new one, too slowly under emulation (the
# stress installs seccomp filters instead).
mkdir -p "$run/trinity" && cd "$run/trinity" || exit 1
for who in root nobody; do
	as=
	[ "$who" = root ] || as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# Debian's trinity 1.9 sometimes segfaults while it makes its socket
	# cache, before its first call (seen on the stock kernel too, 1 run
	# in 10): once, that is tried again.
	for try in 1 2; do
		timeout 900 $as trinity --dangerous -q -l off -C 2 -N "$calls" -c perf_event_open \
			>"$run/trinity-perf-$who.txt" 2>&1
		status=$?
		[ "$status" = 139 ] && [ "$try" = 1 ] &&
			tail -n 2 "$run/trinity-perf-$who.txt" | grep -q 'socket cachefile' || break
		echo "trinity perf_event_open as $who: segfault making its socket cache, again" >>"$run/guest-info"
	done
	echo "trinity perf_event_open as $who exited $status" >>"$run/guest-info"
	[ "${TRINITY_FILTER_CALLS:-0}" -gt 0 ] || continue
	mkdir -p victims && echo victim >victims/file
	timeout 900 $as trinity --dangerous -q -l off -C 2 -N "$TRINITY_FILTER_CALLS" \
		-P PF_INET -V victims --disable-fds=pipes,perf,epoll,eventfd,pseudo,timerfd,memfd,drm,testfile \
		-c socket -c setsockopt >"$run/trinity-filters-$who.txt" 2>&1
	echo "trinity socket/setsockopt as $who exited $?" >>"$run/guest-info"
done
