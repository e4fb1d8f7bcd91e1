#!/bin/bash
# config_errors.sh - broken configurations: `-N1 -f CONF` must exit non-zero
# and name the file and line of the error ("FILE:LINE:" for sluiced; rsyslogd
# as the daemon under test says "file FILE, on or before line N:") plus the
# words that tell the user what is wrong. A valid config must pass -N1.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

[ -x "$DUT" ] || skip "$DUT_NAME not found at $DUT"
NCASES=0

# expect_error NAME ERRFILE SL_LINE RS_LINE SL_WORDS RS_WORDS < CONF
#   (RS_LINE "skip": rsyslogd accepts the config; checked for sluiced only)
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
	if [ "$DUT_NAME" = rsyslogd ] && [ "$rs_line" = skip ]; then
		return 0  # rsyslogd accepts this one (see doc/migrating.md)
	fi
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

# 13. a binary parameter takes exactly "on" or "off"
expect_error c13_onoff "" 3 3 'sync.*"on" or "off".*yes' "sync" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
action(type="omfile" file="$TESTDIR/x.log" sync="yes")
EOF

# 14. a number parameter with a bad number
expect_error c14_number "" 2 2 "maxsessions.*not.a.proper.number.*12x" "maxsessions" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT" maxSessions="12x")
action(type="omfile" file="$TESTDIR/x.log")
EOF

# 15. unterminated comment: sluiced names the line where it starts
#     (rsyslogd silently drops the rest of the file)
expect_error c15_comment "" 3 - "unterminated.comment" "no.active.actions" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
/* this comment is never closed
action(type="omfile" file="$TESTDIR/x.log")
EOF

# 16. wrong number of arguments to a function
expect_error c16_args "" 3 3 "strlen.*1.argument" "strlen" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
if strlen() == 1 then {
	action(type="omfile" file="$TESTDIR/x.log")
}
EOF

# 17. misspelt property in an expression
expect_error c17_property "" 4 4 "msgg" "msgg" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")

if \$msgg == "a" then {
	action(type="omfile" file="$TESTDIR/x.log")
}
EOF

# 18. the same ruleset twice
expect_error c18_dupruleset "" 6 - "ruleset.'r'.*twice" "ruleset.'r'.specified.more.than.once" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT" ruleset="r")
ruleset(name="r") {
	action(type="omfile" file="$TESTDIR/x.log")
}
ruleset(name="r") {
	action(type="omfile" file="$TESTDIR/y.log")
}
EOF

# 19. include() of a file that does not exist
expect_error c19_include "" 3 3 "nonexistent.conf.*not.found" "nonexistent.conf" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
include(file="$TESTDIR/nonexistent.conf")
action(type="omfile" file="$TESTDIR/x.log")
EOF

# 20. selector with an unknown facility
expect_error c20_facility "" 3 - "unknown.facility.'mial'" "unknown.facility.name" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
mial.info	$TESTDIR/x.log
EOF

# 21. selector with an unknown severity
expect_error c21_severity "" 4 - "unknown.severity.'infox'" "unknown.priority.name" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
*.info	$TESTDIR/x.log
mail.infox	$TESTDIR/y.log
EOF

# 22. an unknown legacy directive
expect_error c22_directive "" 3 - "unknown.config.file.command.'.fooddirective'" "FoodDirective" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
\$FoodDirective on
*.*	$TESTDIR/x.log
EOF

# 23. action() without type=
expect_error c23_notype "" 3 3 "type=" "type.*required" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
action(file="$TESTDIR/x.log")
EOF

# 24. input() of a module that was not loaded
expect_error c24_notloaded "" 2 - "imtcp.*not.loaded" "imtcp.*unknown" <<EOF
# no module(load="imtcp")
input(type="imtcp" port="$PORT")
action(type="omfile" file="$TESTDIR/x.log")
EOF

# 25. misspelt global() parameter, with a suggestion
expect_error c25_global "" 2 2 "workdirectroy.*did.you.mean.'workDirectory'" "workDirectroy" <<EOF
module(load="imtcp")
global(workDirectroy="$TESTDIR")
input(type="imtcp" port="$PORT")
action(type="omfile" file="$TESTDIR/x.log")
EOF

# 26. legacy file mode that is not octal with a leading 0
expect_error c26_filemode "" 3 - "filecreatemode.*file.mode" "must.be.octal" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
\$FileCreateMode 644
*.*	$TESTDIR/x.log
EOF

# 27. legacy action queue of an unknown type: reported at the directive
expect_error c27_actqueue "" 4 - "queue.type.'Bogus'" "unknown.actionqueue.parameter:.Bogus" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
*.*	$TESTDIR/y.log
\$ActionQueueType Bogus
*.*	$TESTDIR/x.log
EOF

# 28. legacy pipe action: not supported, and said so
expect_error c28_pipe "" 3 skip "pipe.*not.supported" "" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
daemon.*	|$TESTDIR/xconsole
EOF

# 29. extra words after a legacy directive's value
expect_error c29_extra "" 3 - "extra.characters.*'xyz'" "extra.characters.in.config.line.ignored:.'xyz'" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
\$FileCreateMode 0640 xyz
*.*	$TESTDIR/x.log
EOF

# 30. misspelt module() parameter, with a suggestion
expect_error c30_modparam "" 1 1 "maxsesions.*did.you.mean.'maxSessions'" "maxsesions" <<EOF
module(load="imtcp" maxSesions="5")
input(type="imtcp" port="$PORT")
action(type="omfile" file="$TESTDIR/x.log")
EOF

# 31. $ModLoad of an unknown module
expect_error c31_modload "" 2 - "imnosuch" "imnosuch" <<EOF
module(load="imtcp")
\$ModLoad imnosuch
input(type="imtcp" port="$PORT")
*.*	$TESTDIR/x.log
EOF

# 32. legacy action with an unknown template
expect_error c32_legacytpl "" 3 - "template.'NoSuchTpl'" "NoSuchTpl" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
*.*	$TESTDIR/x.log;NoSuchTpl
EOF

# 33. a legacy binary directive with yes instead of on
expect_error c33_legacybool "" 3 - 'actionfileenablesync.*"on" or "off".*yes' "must.be.on.or.off,.but.is.'yes'" <<EOF
module(load="imtcp")
input(type="imtcp" port="$PORT")
\$ActionFileEnableSync yes
*.*	$TESTDIR/x.log
EOF

# 34. legacy number directive with letters
expect_error c34_legacynum "" 2 - "actionresumeinterval.*not.a.proper.number" "invalid.number" <<EOF
*.*	$TESTDIR/y.log
\$ActionResumeInterval abc
*.*	$TESTDIR/x.log
EOF

# 35. a legacy directive of a module that is not loaded
expect_error c35_notloadeddir "" 1 - "unknown.config.file.command.'.inputtcpserverrun'" "InputTCPServerRun" <<EOF
\$InputTCPServerRun $PORT
\$ModLoad imtcp
*.*	$TESTDIR/x.log
EOF

# 36. omkafka confirmDelivery with a value it does not know (sluice only)
if [ -e "$top_builddir/plugins/omkafka/omkafka.la" ]; then
expect_error c36_kafkaconfirm "" 3 skip 'confirmDelivery.*"transaction", "async" or "auto".*sometimes' "" <<EOF
module(load="omkafka")
action(type="omkafka" topic="t"
       confirmDelivery="sometimes")
EOF
fi

# 37. omfile uncachedWrites with a value it does not know (sluice only)
expect_error c37_uncached "" 2 skip 'uncachedWrites must be "off", "behind", "auto", "on" or "direct".*sometimes' "" <<EOF
action(type="omfile" file="$TESTDIR/x.log"
       uncachedWrites="sometimes")
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
