#!/bin/bash
# privdrop.sh - $PrivDropToUser / $PrivDropToGroup (and global()
# privDrop.*): sluiced binds its listener as root, then runs as the given
# user and group; messages still arrive and are written (into a directory
# the unprivileged user may write).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to drop privileges"
id nobody >/dev/null 2>&1 || skip "no user nobody"
NUID=$(id -u nobody)
NGID=$(getent group nogroup | cut -d: -f3)
[ -n "$NGID" ] || skip "no group nogroup"
OUTDIR="$TESTDIR/out"
mkdir -p "$OUTDIR"
chown nobody:nogroup "$OUTDIR"
chmod 755 "$TESTDIR"
for form in legacy rainerscript; do
	OUT="$OUTDIR/$form.log"
	if [ "$form" = legacy ]; then
		drop='$PrivDropToUser nobody
$PrivDropToGroup nogroup'
	else
		drop='global(privDrop.user.name="nobody" privDrop.group.name="nogroup")'
	fi
	cat >"$TESTDIR/$form.conf" <<EOF
$drop
module(load="imtcp")
template(name="t" type="string" string="%msg%\n")
input(type="imtcp" port="$PORT" address="127.0.0.1")
action(type="omfile" file="$OUT" template="t")
EOF
	start_dut "$TESTDIR/$form.conf"
	uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$DAEMON_PID/status")
	gids=$(awk '/^Gid:/ {print $2, $3, $4, $5}' "/proc/$DAEMON_PID/status")
	[ "$uids" = "$NUID $NUID $NUID $NUID" ] ||
		fail "expected every uid of sluiced to be $NUID ($form), got $uids"
	[ "$gids" = "$NGID $NGID $NGID $NGID" ] ||
		fail "expected every gid of sluiced to be $NGID ($form), got $gids"
	printf '<13>Mar  1 01:00:00 h p: msg %s %d\n' "$form" 1 "$form" 2 >"$TESTDIR/in.txt"
	send_file "$TESTDIR/in.txt"
	wait_lines "$OUT" 2 30
	stop_daemon
	got=$(cat "$OUT")
	[ "$got" = " msg $form 1
 msg $form 2" ] || fail "expected the two messages in $OUT ($form), got: $got"
	owner=$(stat -c %U "$OUT")
	[ "$owner" = nobody ] || fail "expected $OUT to be created by nobody, got $owner"
	PORT=$(get_free_port)
done
log "ok: privileges dropped to nobody:nogroup after binding (legacy and RainerScript)"
exit 0
