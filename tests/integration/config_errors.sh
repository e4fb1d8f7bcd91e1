#!/bin/bash
# config_errors.sh - broken configurations: `-N1 -f CONF` must exit non-zero
# and name the file and line of the error ("FILE:LINE:" for sluiced; rsyslogd
# as the daemon under test says "file FILE, on or before line N:") plus the
# words that tell the user what is wrong. A valid config must pass -N1.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

[ -x "$DUT" ] || skip "$DUT_NAME not found at $DUT"
NCASES=0

# expect_error NAME ERRFILE SL_LINE RS_LINE SL_WORDS RS_WORDS < CONF
#   ERRFILE  file the error must be reported in ("" = the config itself)
#   SL_LINE  line sluiced must report; RS_LINE the line rsyslogd reports
#            ("-" when rsyslogd names no line for this error)
#   *_WORDS  space-separated EREs (case-insensitive), each must occur
expect_error() {
	local name=$1 errfile=$2 sl_line=$3 rs_line=$4 sl_words=$5 rs_words=$6
	local conf out rc w line words
	# files are numbered, not named: the path must not contain the words
	NCASES=$((NCASES + 1))
	conf="$TESTDIR/case$NCASES.conf"
	cat >"$conf"
	[ -n "$errfile" ] || errfile=$conf
	out=$(check_config "$conf")
	rc=$?
	printf '%s\n' "$out" >"$conf.out"
	[ "$rc" != 0 ] || fail "$name: expected -N1 to exit non-zero, got 0 with output: $out"
	# (rsyslogd 8.2302 itself segfaults on case 7 after reporting it)
	[ "$rc" -lt 128 ] || [ "$DUT_NAME" = rsyslogd ] || fail "$name: expected -N1 to exit with an error, got a crash (status $rc): $out"
	if [ "$DUT_NAME" = rsyslogd ]; then
		line=$rs_line words=$rs_words
		if [ "$line" != - ]; then
			grep -qF "file $errfile, on or before line $line:" <<<"$out" ||
				fail "$name: expected 'file $errfile, on or before line $line:', got: $out"
		fi
	else
		line=$sl_line words=$sl_words
		grep -qF "$errfile:$line:" <<<"$out" ||
			fail "$name: expected '$errfile:$line:' in the output, got: $out"
	fi
	for w in $words; do
		grep -qiE -- "$w" <<<"$out" ||
			fail "$name: expected the error to mention /$w/, got: $out"
	done
}

# 1. unknown parameter, with a suggestion of the right name
expect_error c1_param "" 5 5 "tempalte template" "tempalte" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT" ruleset="r")
ruleset(name="r") {
	action(type="omfile" file="$TESTDIR/x.log"
	       tempalte="RSYSLOG_FileFormat")
}
EOF

# 2. unknown module (rsyslogd names no line for this one)
expect_error c2_module "" 3 - "imnosuchmodule" "imnosuchmodule" <<EOF
module(load="imtcp")

module(load="imnosuchmodule")
input(type="imtcp" port="$PORT")
action(type="omfile" file="$TESTDIR/x.log")
EOF

# 3. unknown template
expect_error c3_tpl "" 3 3 "NoSuchTemplate" "NoSuchTemplate" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
action(type="omfile" file="$TESTDIR/x.log" template="NoSuchTemplate")
EOF

# 4. missing required parameter: imtcp input without port
expect_error c4_port "" 3 3 "port (required|missing)" "port required" <<EOF
module(load="imtcp")
# a comment line
input(type="imtcp" address="127.0.0.1")
action(type="omfile" file="$TESTDIR/x.log")
EOF

# 5. syntax error: a second else
expect_error c5_syntax "" 5 5 "syntax|unexpected else" "syntax else" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
if \$msg contains "x" then {
	action(type="omfile" file="$TESTDIR/x.log")
} else else {
	stop
}
EOF

# 6. unterminated string: reported where the string starts
expect_error c6_string "" 3 3 "unterminated|string" "invalid.character" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
if \$msg contains "abc then {
	stop
}
EOF

# 7. unknown function
expect_error c7_func "" 4 4 "nosuchfunc" "nosuchfunc" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")

if nosuchfunc(\$msg) == "a" then {
	action(type="omfile" file="$TESTDIR/x.log")
}
EOF

# 8. call of an unknown ruleset (rsyslogd reports the line after)
expect_error c8_call "" 6 7 "nosuchruleset" "nosuchruleset" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
ruleset(name="a") {
	action(type="omfile" file="$TESTDIR/x.log")
}
call nosuchruleset
EOF

# 9. unknown property in a string template (rsyslogd reports the line after)
expect_error c9_prop "" 3 4 "nosuchprop" "nosuchprop" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
template(name="t" type="string" string="%msg% %nosuchprop%\n")
action(type="omfile" file="$TESTDIR/x.log" template="t")
EOF

# 10. invalid value for a size parameter
expect_error c10_value "" 4 4 "queue.size" "queue.size" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
action(type="omfile" file="$TESTDIR/x.log"
       queue.size="lots")
EOF

# 11. error inside an included file names that file and its line
cat >"$TESTDIR/included.part" <<EOF
# included
action(type="omfile" file="$TESTDIR/x.log" tempalte="x")
EOF
expect_error c11_include "$TESTDIR/included.part" 2 2 "tempalte" "tempalte" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
include(file="$TESTDIR/included.part")
EOF

# 12. unknown output module type
expect_error c12_action "" 3 3 "omnosuch" "omnosuch" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
action(type="omnosuch" file="$TESTDIR/x.log")
EOF

# and a valid config passes the check
cat >"$TESTDIR/good.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT" ruleset="r")
template(name="t" type="string" string="%msg%\n")
ruleset(name="r") {
	if \$programname == "a" then {
		action(type="omfile" file="$TESTDIR/a.log" template="t")
	} else {
		action(type="omfile" file="$TESTDIR/b.log")
	}
}
EOF
out=$(check_config "$TESTDIR/good.conf")
rc=$?
[ "$rc" = 0 ] || fail "good.conf: expected -N1 to exit 0, got $rc with output: $out"
log "ok: $NCASES broken configs rejected with file and line by $DUT_NAME"
exit 0
