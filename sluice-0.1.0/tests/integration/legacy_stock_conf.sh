#!/bin/bash
# legacy_stock_conf.sh - Debian 12's stock /etc/rsyslog.conf, unchanged
# except for paths: /var/log and the spool dir point into the test dir,
# imuxsock listens on a socket in the test dir (SysSock.Name), imklog is
# dropped when /dev/kmsg cannot be read, and an imtcp input is added to
# inject messages. Checks `-N1`, then a real run: messages of several
# facilities (over TCP, and one through the unix socket with logger) must
# land in exactly the files the stock selectors name, with the stock
# $FileCreateMode 0640 and $FileGroup adm.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

[ "$DUT_NAME" = sluiced ] || skip "sluiced only (rsyslogd would need /dev/log)"
[ -r /etc/rsyslog.conf ] || skip "no /etc/rsyslog.conf"
grep -q '^\*\.\*;auth,authpriv.none' /etc/rsyslog.conf || skip "not Debian's stock rsyslog.conf"

L=$TESTDIR/log
mkdir -p "$L" "$TESTDIR/spool" "$TESTDIR/rsyslog.d"
SOCK=$TESTDIR/log.sock
user=root group=adm
if [ "$(id -u)" != 0 ] || ! getent group adm >/dev/null; then
	user=$(id -un) group=$(id -gn)
fi
rewrite() {
	sed -e "s|/var/log/|$L/|g" \
	    -e "s|/var/spool/rsyslog|$TESTDIR/spool|g" \
	    -e "s|/etc/rsyslog.d/|$TESTDIR/rsyslog.d/|g" \
	    -e "s|^module(load=\"imuxsock\")|module(load=\"imuxsock\" SysSock.Name=\"$SOCK\")|" \
	    -e "s|^\\\$FileOwner root|\\\$FileOwner $user|" \
	    -e "s|^\\\$FileGroup adm|\\\$FileGroup $group|"
}
rewrite </etc/rsyslog.conf >"$TESTDIR/rsyslog.conf"
for f in /etc/rsyslog.d/*.conf; do
	[ -f "$f" ] && rewrite <"$f" >"$TESTDIR/rsyslog.d/$(basename "$f")"
done
if ! timeout 2 dd if=/dev/kmsg of=/dev/null bs=16k count=1 iflag=nonblock 2>/dev/null; then
	sed -i 's|^module(load="imklog")|# imklog dropped: /dev/kmsg unreadable|' "$TESTDIR/rsyslog.conf"
	log "imklog dropped: /dev/kmsg is not readable"
fi
grep -q "SysSock.Name=\"$SOCK\"" "$TESTDIR/rsyslog.conf" ||
	fail "expected the copied config to load imuxsock, got: $(head -20 "$TESTDIR/rsyslog.conf")"
grep -q '^\*\.emerg[[:space:]]*:omusrmsg:\*' "$TESTDIR/rsyslog.conf" ||
	fail "expected the stock :omusrmsg:* line in the copy"
cat >>"$TESTDIR/rsyslog.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
EOF

out=$("$SLUICED" -N1 -f "$TESTDIR/rsyslog.conf" 2>&1) ||
	fail "expected -N1 to accept the stock config, got: $out"
# the unchanged stock file itself must pass too (modules and params known)
out=$("$SLUICED" -N1 -f /etc/rsyslog.conf 2>&1) ||
	fail "expected -N1 -f /etc/rsyslog.conf to pass, got: $out"

start_sluiced "$TESTDIR/rsyslog.conf"
T=stk$$
# <PRI>: auth.info 38, authpriv.notice 85, cron.info 78, kern.info 6,
# mail.info 22, user.notice 13, daemon.info 30, local7.debug 191
cat >"$TESTDIR/in.txt" <<EOF
<38>Jan  1 10:00:00 h1 app: $T auth
<85>Jan  1 10:00:00 h1 app: $T authpriv
<78>Jan  1 10:00:00 h1 app: $T cron
<6>Jan  1 10:00:00 h1 app: $T kern
<22>Jan  1 10:00:00 h1 app: $T mail
<13>Jan  1 10:00:00 h1 app: $T user
<30>Jan  1 10:00:00 h1 app: $T daemon
<191>Jan  1 10:00:00 h1 app: $T local7
EOF
send_file "$TESTDIR/in.txt"
if command -v logger >/dev/null; then
	logger -u "$SOCK" -t stocktest -p local3.info "$T local3 via socket" ||
		fail "expected logger to write to $SOCK"
	n_sock=1
else
	n_sock=0
fi

# count FILE: lines of this run in FILE
count() { grep -c "$T" "$L/$1" 2>/dev/null || echo 0; }
want_syslog=$((6 + n_sock))
for ((i = 0; i < 100; i++)); do
	[ "$(count syslog)" -ge "$want_syslog" ] && [ "$(count auth.log)" -ge 2 ] && break
	sleep 0.2
done
stop_daemon

check() {
	local f=$1 n=$2 got
	got=$(count "$f")
	[ "$got" = "$n" ] || fail "$f: expected $n lines of this run, got $got: $(grep "$T" "$L/$f" 2>/dev/null)"
}
check syslog "$want_syslog"
check auth.log 2
check cron.log 1
check kern.log 1
check mail.log 1
check user.log 1
grep -q "$T auth" "$L/syslog" && fail "syslog: expected no auth message (auth,authpriv.none)"
grep -q "app: $T kern" "$L/kern.log" || fail "kern.log: expected the kern message, got: $(cat "$L/kern.log")"
if [ "$n_sock" = 1 ]; then
	grep -q "stocktest: $T local3 via socket" "$L/syslog" ||
		fail "syslog: expected the message sent through $SOCK, got: $(grep "$T" "$L/syslog")"
fi
# Debian 12's file sets no default template: RSYSLOG_FileFormat
grep -qE "^[0-9]{4}-01-01T10:00:00(\.[0-9]+)?[+-][0-9]{2}:[0-9]{2} h1 app: $T mail\$" "$L/mail.log" ||
	fail "mail.log: expected RSYSLOG_FileFormat, got: $(cat "$L/mail.log")"
for f in syslog auth.log mail.log; do
	m=$(stat -c %a "$L/$f") g=$(stat -c %G "$L/$f")
	[ "$m" = 640 ] || fail "$f: expected mode 640 (\$FileCreateMode 0640), got $m"
	[ "$g" = "$group" ] || fail "$f: expected group $group (\$FileGroup), got $g"
done
log "ok: stock rsyslog.conf checked and run ($(count syslog) lines in syslog)"
exit 0
