#!/bin/bash
# legacy_forms.sh - an rsyslog configuration written only in the legacy
# forms: $ModLoad, $InputTCPServerRun, $template, $ActionFileDefaultTemplate,
# $FileCreateMode / $Umask (binding to the actions after them), selector
# lines (*.info;mail.none, mail.=err, local0.!warning, auth,authpriv.*),
# -/path, /path;Template, ?DynaFile, a property filter with the discard
# action ~, "& action", $ActionQueueType binding to the next action only.
# Checks every output file line by line and the file modes. Run with
# SLUICE_DUT=rsyslogd it proves the expectations against rsyslog itself.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

D=$TESTDIR/out
mkdir -p "$D"
cat >"$TESTDIR/legacy.conf" <<EOF
\$ModLoad imtcp
\$InputTCPServerRun $PORT
\$template T,"%syslogfacility-text%.%syslogseverity-text%%msg%\n"
\$template DynT,"$D/dyn-%programname%.log"
\$ActionFileDefaultTemplate T
\$Umask 0000
\$FileCreateMode 0600
*.info;mail.none;auth.none;syslog.none	$D/all.log
mail.*				-$D/mail.log
mail.=err			$D/mailerr.log;T
local0.*;local0.!warning	$D/l0low.log
\$ActionQueueType LinkedList
auth,authpriv.*			$D/auth.log
:msg, contains, "drop"		~
local1.*			$D/l1.log
&				$D/l1copy.log
\$FileCreateMode 0644
local2.*			?DynT
EOF

if [ "$DUT_NAME" = sluiced ]; then
	# the queue binds to the auth.log action only (5th of the file)
	out=$("$SLUICED" -d -N1 -f "$TESTDIR/legacy.conf" 2>&1) ||
		fail "expected -N1 to accept the legacy config, got: $out"
	nq=$(grep -c 'config: action .*queue LinkedList' <<<"$out")
	[ "$nq" = 1 ] || fail "expected exactly 1 action with a LinkedList queue, got $nq: $out"
	grep -q "config: action action-4: module omfile template T queue LinkedList" <<<"$out" ||
		fail "expected the 5th action (auth.log) to have the queue, got: $out"
fi

start_dut "$TESTDIR/legacy.conf"
# <PRI>: mail.info 22, mail.err 19, auth.info 38, authpriv.notice 85,
# local0.debug 135, local0.err 131, local1.info 142, local2.info 150,
# user.notice 13, kern.warning 4, user.info 14
cat >"$TESTDIR/in.txt" <<'EOF'
<22>Jan  1 10:00:00 h1 app: m1 mail info
<19>Jan  1 10:00:00 h1 app: m2 mail err
<38>Jan  1 10:00:00 h1 app: m3 auth info
<85>Jan  1 10:00:00 h1 app: m4 authpriv notice
<135>Jan  1 10:00:00 h1 app: m5 local0 debug
<131>Jan  1 10:00:00 h1 app: m6 local0 err
<142>Jan  1 10:00:00 h1 app: m7 local1 info
<142>Jan  1 10:00:00 h1 app: m8 local1 drop me
<150>Jan  1 10:00:00 h1 dynprog: m9 local2 info
<13>Jan  1 10:00:00 h1 app: m10 user notice
<4>Jan  1 10:00:00 h1 app: m11 kern warning
<14>Jan  1 10:00:00 h1 app: m12 user drop
EOF
send_file "$TESTDIR/in.txt"
wait_lines "$D/all.log" 8 20
wait_lines "$D/l1copy.log" 1 20
wait_lines "$D/dyn-dynprog.log" 1 20
stop_daemon

# expect FILE LINES...: FILE holds exactly these lines.
expect() {
	local f=$1 got want
	shift
	want=$(printf '%s\n' "$@")
	got=$(cat "$D/$f" 2>/dev/null)
	[ "$got" = "$want" ] || fail "$f: expected
$want
got
$got"
}
expect all.log "authpriv.notice m4 authpriv notice" "local0.err m6 local0 err" \
	"local1.info m7 local1 info" "local1.info m8 local1 drop me" \
	"local2.info m9 local2 info" "user.notice m10 user notice" \
	"kern.warning m11 kern warning" "user.info m12 user drop"
expect mail.log "mail.info m1 mail info" "mail.err m2 mail err"
expect mailerr.log "mail.err m2 mail err"
expect l0low.log "local0.debug m5 local0 debug"
expect auth.log "auth.info m3 auth info" "authpriv.notice m4 authpriv notice"
expect l1.log "local1.info m7 local1 info"
expect l1copy.log "local1.info m7 local1 info"
expect dyn-dynprog.log "local2.info m9 local2 info"

mode() { stat -c %a "$D/$1"; }
[ "$(mode all.log)" = 600 ] || fail "all.log: expected mode 600 (\$FileCreateMode 0600), got $(mode all.log)"
[ "$(mode l1copy.log)" = 600 ] || fail "l1copy.log: expected mode 600, got $(mode l1copy.log)"
[ "$(mode dyn-dynprog.log)" = 644 ] ||
	fail "dyn-dynprog.log: expected mode 644 (the later \$FileCreateMode 0644), got $(mode dyn-dynprog.log)"
log "ok: legacy selectors, actions and directives on $DUT_NAME"
exit 0
