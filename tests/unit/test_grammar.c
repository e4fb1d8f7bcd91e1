/* test_grammar.c — Check tests for the RainerScript front end (lexer,
 * parser, AST) and the script compiler/executor.
 *
 * action_exec() and ruleset_exec_sync() are stubbed here to record calls;
 * properties come from the real prop.c (messages are built by hand).
 * Threading: single-threaded.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json.h>
#include "ast.h"
#include "msg.h"
#include "prop.h"
#include "script.h"

/* ---- stubs of the core, recording calls ---- */
#include "script_stubs.h"

/* ---- parser tests ---- */

START_TEST(t_objects)
{
	int nerr = 0;
	struct cfg_tree *t = parse(
		"# comment\n"
		"GLOBAL(workDirectory=\"/var/x\" maxMessageSize=\"64k\")\n"
		"module(load=\"imtcp\" /* c */ MaxSessions=\"100\")\n"
		"input(type=\"imtcp\" port=[\"514\", \"515\"])\n"
		"template(name=\"t1\" type=\"list\") {\n"
		"  property(name=\"msg\")\n  constant(value=\"\\n\")\n}\n"
		"template(name=\"t2\" type=\"string\" string=\"%msg%\\n\")\n"
		"ruleset(name=\"rs\") { action(type=\"omfile\" file=\"/x\") }\n"
		"ruleset(name=\"empty\") {}\n"
		"main_queue(queue.size=\"10\")\n"
		"timezone(id=\"CET\" offset=\"+01:00\")\n"
		"parser(name=\"p\" type=\"pmrfc3164\")\n"
		"lookup_table(name=\"l\" file=\"/f\")\n"
		"dyn_stats(name=\"d\" x=`echo a$HOME`)\n", &nerr);
	ck_assert_msg(t != NULL, "%s", errbuf);
	struct cfg_obj *o = t->objs;
	ck_assert_int_eq(o->type, CFG_OBJ_GLOBAL);
	ck_assert_int_eq(o->pos.line, 2);
	ck_assert_str_eq(o->pos.file, "test.conf");
	ck_assert_str_eq(o->params->name, "workdirectory");
	ck_assert_str_eq(o->params->val.str, "/var/x");
	ck_assert_str_eq(cfg_obj_param(o, "maxmessagesize")->val.str, "64k");
	o = o->next;
	ck_assert_int_eq(o->type, CFG_OBJ_MODULE);
	ck_assert_str_eq(cfg_obj_param(o, "maxsessions")->val.str, "100");
	o = o->next;
	ck_assert_int_eq(o->type, CFG_OBJ_INPUT);
	struct cfg_param *p = cfg_obj_param(o, "port");
	ck_assert(p->val.is_array);
	ck_assert_int_eq(p->val.n_arr, 2);
	ck_assert_str_eq(p->val.arr[1], "515");
	o = o->next;
	ck_assert_int_eq(o->type, CFG_OBJ_TEMPLATE);
	ck_assert_int_eq(o->body->type, CFG_OBJ_PROPERTY);
	ck_assert_int_eq(o->body->next->type, CFG_OBJ_CONSTANT);
	ck_assert_str_eq(o->body->next->params->val.str, "\n");
	ck_assert_int_eq(o->body->next->pos.line, 7);
	o = o->next;
	ck_assert_str_eq(cfg_obj_param(o, "string")->val.str, "%msg%\n");
	o = o->next;
	ck_assert_int_eq(o->type, CFG_OBJ_RULESET);
	ck_assert_int_eq(o->script->type, STMT_ACTION);
	o = o->next;
	ck_assert_int_eq(o->type, CFG_OBJ_RULESET);
	ck_assert_ptr_null(o->script);
	o = o->next;
	ck_assert_int_eq(o->type, CFG_OBJ_MAIN_QUEUE);
	ck_assert_int_eq(o->next->type, CFG_OBJ_TIMEZONE);
	ck_assert_int_eq(o->next->next->type, CFG_OBJ_PARSER);
	ck_assert_int_eq(o->next->next->next->type, CFG_OBJ_LOOKUP_TABLE);
	o = o->next->next->next->next;
	ck_assert_int_eq(o->type, CFG_OBJ_DYN_STATS);
	p = cfg_obj_param(o, "x");
	ck_assert(p->val.is_backtick);
	char want[512];
	snprintf(want, sizeof(want), "a%s", getenv("HOME") ? getenv("HOME") : "");
	ck_assert_str_eq(p->val.str, want);
	cfg_tree_free(t);
}
END_TEST

START_TEST(t_legacy)
{
	int nerr = 0;
	struct cfg_tree *t = parse(
		"$FileOwner root\n"
		"$ActionQueueType LinkedList\n"
		"*.*;auth,authpriv.none\t\t-/var/log/syslog\n"
		"mail.info /var/log/mail;Tpl\n"
		"& @@host:514\n"
		"kern.=err;kern.!=crit @host\n"
		":msg, !contains, \"a \\\"q\\\"\" /var/log/x\n"
		"*.emerg :omusrmsg:*\n"
		"local7.* ~\n"
		"user.warn root,bob\n"
		"*.* stop\n"
		":programname, isequal, \"sshd\" stop\n"
		"$RuleSet remote\n"
		"*.* |/pipe\n"
		"$RuleSet RSYSLOG_DefaultRuleset\n"
		"mail,news.crit /n\n", &nerr);
	ck_assert_msg(t != NULL, "%s", errbuf);
	struct cfg_obj *o = t->objs;
	ck_assert_int_eq(o->type, CFG_OBJ_LEGACY);
	ck_assert_str_eq(o->legacy_name, "fileowner");
	ck_assert_str_eq(cfg_obj_param(o, "value")->val.str, "root");
	ck_assert_str_eq(o->next->legacy_name, "actionqueuetype");
	unsigned aq_seq = o->next->seq;
	struct script_stmt *s = t->script;
	ck_assert_int_eq(s->type, STMT_PRIFILT);
	ck_assert_int_eq(s->pri_mask[0], 0xff);
	ck_assert_int_eq(s->pri_mask[4], 0);
	ck_assert_int_eq(s->pri_mask[10], 0);
	ck_assert_int_eq(s->pri_mask[24], 0xff);
	ck_assert_int_eq(s->then_->type, STMT_ACTION);
	ck_assert_str_eq(cfg_obj_param(s->then_->obj, "legacy")->val.str, "-/var/log/syslog");
	ck_assert_uint_gt(s->then_->obj->seq, aq_seq);
	s = s->next;
	ck_assert_int_eq(s->pri_mask[2], 0x7f);
	ck_assert_str_eq(cfg_obj_param(s->then_->obj, "legacy")->val.str, "/var/log/mail;Tpl");
	ck_assert_str_eq(cfg_obj_param(s->then_->next->obj, "legacy")->val.str, "@@host:514");
	s = s->next;
	ck_assert_int_eq(s->pri_mask[0], 1 << 3);
	ck_assert_str_eq(cfg_obj_param(s->then_->obj, "legacy")->val.str, "@host");
	s = s->next;
	ck_assert_int_eq(s->type, STMT_PROPFILT);
	ck_assert_str_eq(s->name, "msg");
	ck_assert(s->propfilt_negate);
	ck_assert_int_eq(s->propfilt_op, PROPFILT_CONTAINS);
	ck_assert_str_eq(s->propfilt_value, "a \"q\"");
	s = s->next;
	ck_assert_str_eq(cfg_obj_param(s->then_->obj, "legacy")->val.str, ":omusrmsg:*");
	s = s->next;
	ck_assert_str_eq(cfg_obj_param(s->then_->obj, "legacy")->val.str, "~");
	s = s->next;
	ck_assert_int_eq(s->pri_mask[1], 0x1f);
	ck_assert_str_eq(cfg_obj_param(s->then_->obj, "legacy")->val.str, "root,bob");
	s = s->next;
	ck_assert_int_eq(s->then_->type, STMT_STOP);
	s = s->next;
	ck_assert_int_eq(s->type, STMT_PROPFILT);
	ck_assert_int_eq(s->propfilt_op, PROPFILT_ISEQUAL);
	ck_assert_int_eq(s->then_->type, STMT_STOP);
	s = s->next;
	ck_assert_int_eq(s->pri_mask[7], 0x07);
	ck_assert_int_eq(s->pri_mask[2], 0x07);
	ck_assert_int_eq(s->pri_mask[3], 0);
	ck_assert_ptr_null(s->next);
	/* $RuleSet remote made a ruleset holding the pipe action */
	for (o = t->objs; o && o->type != CFG_OBJ_RULESET; o = o->next)
		;
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(cfg_obj_param(o, "name")->val.str, "remote");
	ck_assert_str_eq(cfg_obj_param(o->script->then_->obj, "legacy")->val.str, "|/pipe");
	cfg_tree_free(t);
}
END_TEST

START_TEST(t_precedence)
{
	int nerr = 0;
	struct cfg_tree *t = parse("if 1 or 0 and 0 then stop\n"
				   "if not 1 == 2 then stop\n"
				   "if 1 + 2 * 3 == 7 & \"\" then stop\n", &nerr);
	ck_assert_msg(t != NULL, "%s", errbuf);
	struct expr *e = t->script->cond;
	/* and/or same precedence, left assoc: (1 or 0) and 0 */
	ck_assert_int_eq(e->type, EXPR_AND);
	ck_assert_int_eq(e->l->type, EXPR_OR);
	e = t->script->next->cond;
	/* not binds tighter than == : (not 1) == 2 */
	ck_assert_int_eq(e->type, EXPR_EQ);
	ck_assert_int_eq(e->l->type, EXPR_NOT);
	e = t->script->next->next->cond;
	ck_assert_int_eq(e->type, EXPR_EQ);
	ck_assert_int_eq(e->r->type, EXPR_CONCAT);
	ck_assert_int_eq(e->l->type, EXPR_ADD);
	ck_assert_int_eq(e->l->r->type, EXPR_MUL);
	cfg_tree_free(t);
	ck_assert_str_eq(eval("1 or 0 and 0"), "0");
	ck_assert_str_eq(eval("1 + 2 & 3"), "\"33\"");
	ck_assert_str_eq(eval("2 + 3 * 4"), "14");
	ck_assert_str_eq(eval("(2 + 3) * 4"), "20");
	ck_assert_str_eq(eval("-2 * -3"), "6");
	ck_assert_str_eq(eval("\"a\" & 1 == 1"), "0");
}
END_TEST

START_TEST(t_statements)
{
	int nerr = 0;
	struct cfg_tree *t = parse(
		"if $msg contains \"x\" then {\n"
		"  set $!a!b = 1;\n"
		"} else if $msg startswith 'y' then\n"
		"  unset $!a;\n"
		"else { reset $.v = \"z\"; }\n"
		"foreach ($.i in $!arr) do { call rs }\n"
		"call_indirect \"rs\" & \"2\";\n"
		"continue\n"
		"action(type=\"omfile\" file=\"/f\") & stop\n", &nerr);
	ck_assert_msg(t != NULL, "%s", errbuf);
	struct script_stmt *s = t->script;
	ck_assert_int_eq(s->type, STMT_IF);
	ck_assert_int_eq(s->pos.line, 1);
	ck_assert_int_eq(s->then_->type, STMT_SET);
	ck_assert_str_eq(s->then_->var, "$!a!b");
	ck_assert_int_eq(s->then_->pos.line, 2);
	ck_assert_int_eq(s->else_->type, STMT_IF);
	ck_assert_int_eq(s->else_->then_->type, STMT_UNSET);
	ck_assert_int_eq(s->else_->else_->type, STMT_RESET);
	s = s->next;
	ck_assert_int_eq(s->type, STMT_FOREACH);
	ck_assert_str_eq(s->var, "$.i");
	ck_assert_int_eq(s->then_->type, STMT_CALL);
	ck_assert_str_eq(s->then_->name, "rs");
	s = s->next;
	ck_assert_int_eq(s->type, STMT_CALL_INDIRECT);
	s = s->next;
	ck_assert_int_eq(s->type, STMT_CONTINUE);
	s = s->next;
	ck_assert_int_eq(s->type, STMT_ACTION);
	ck_assert_int_eq(s->next->type, STMT_STOP);
	cfg_tree_free(t);
}
END_TEST

START_TEST(t_include)
{
	char dir[] = "/tmp/sluice_inclXXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[256], cfg[1024];
	snprintf(path, sizeof(path), "%s/b.conf", dir);
	FILE *f = fopen(path, "w");
	fputs("\n\nmodule(load=\"b\")\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	f = fopen(path, "w");
	fputs("module(load=\"a\")\n", f);
	fclose(f);
	snprintf(cfg, sizeof(cfg),
		 "include(file=\"%s/*.conf\")\n"
		 "module(load=\"c\")\n"
		 "$IncludeConfig %s/b.conf\n"
		 "include(text=\"module(load=\\\"t\\\")\")\n"
		 "include(file=\"/nonexistent/x.conf\" mode=\"optional\")\n"
		 "module(load=\"d\")\n", dir, dir);
	int nerr = 0;
	struct cfg_tree *t = parse(cfg, &nerr);
	ck_assert_msg(t != NULL, "%s", errbuf);
	const char *want[] = { "a", "b", "c", "b", "t", "d" };
	int lines[] = { 1, 3, 2, 3, 1, 6 };
	int i = 0;
	for (struct cfg_obj *o = t->objs; o; o = o->next, i++) {
		ck_assert_int_lt(i, 6);
		ck_assert_str_eq(cfg_obj_param(o, "load")->val.str, want[i]);
		ck_assert_int_eq(o->pos.line, lines[i]);
	}
	ck_assert_int_eq(i, 6);
	snprintf(path, sizeof(path), "%s/b.conf", dir);
	ck_assert_str_eq(t->objs->next->pos.file, path);
	ck_assert_str_eq(t->objs->next->next->pos.file, "test.conf");
	cfg_tree_free(t);
	snprintf(cfg, sizeof(cfg), "\ninclude(file=\"%s/missing.conf\")\n", dir);
	char msg[512];
	snprintf(msg, sizeof(msg), "test.conf:2: include file '%s/missing.conf' not found", dir);
	expect_error(cfg, msg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(t_debian_conf)
{
	int nerr = 0;
	struct cfg_tree *t = cfg_parse_file("/etc/rsyslog.conf", &nerr);
	if (access("/etc/rsyslog.conf", R_OK) != 0)
		return;
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(nerr, 0);
	cfg_tree_free(t);
}
END_TEST

/* ---- errors ---- */

START_TEST(t_errors)
{
	expect_error("module(load=\"x\")\nif $msg == \"a\" stop\n",
		     "test.conf:2: syntax error at 'stop': unexpected function name, expected 'then' or an operator");
	expect_error("\n\nactoin(type=\"omfile\")\n",
		     "test.conf:3: unknown object 'actoin' (expected global, module, input, action, template, "
		     "ruleset, main_queue, timezone, parser, lookup_table, dyn_stats, percentile_stats or include)");
	expect_error("module(load=\"x)\n",
		     "test.conf:1: unterminated string (missing closing quote): '\"x)'");
	expect_error("\n/* never closed\n", "test.conf:2: unterminated comment (missing '*/')");
	expect_error("set $!a = 1\nstop\n",
		     "test.conf:2: syntax error at 'stop': unexpected function name, expected ';' or an operator");
	expect_error("if $nosuchprop == 1 then stop\n", "test.conf:1: unknown property '$nosuchprop'");
	expect_error("\nif nofunc(1) then stop\n", "test.conf:2: unknown function 'nofunc'");
	expect_error("if strlen(1, 2) then stop\n", "test.conf:1: function 'strlen' expects 1 argument, got 2");
	expect_error("call nosuch\n", "test.conf:1: call: unknown ruleset 'nosuch'");
	expect_error("if re_match($msg, \"(\") then stop\n",
		     "test.conf:1: re_match(): cannot compile regex '(': Unmatched ( or \\(");
	expect_error("foo.info /x\n", "test.conf:1: unknown facility 'foo' in selector 'foo.info'");
	expect_error("mail.bad /x\n", "test.conf:1: unknown severity 'bad' in selector 'mail.bad'");
	expect_error("set $msg = 1;\n",
		     "test.conf:1: '$msg' is not a variable: only $!..., $.... and $/... can be used here");
	expect_error("if \"\\d\" then stop\n", "test.conf:1: invalid escape sequence '\\d' in string");
	expect_error("ruleset(name=\"r\") {\n  module(load=\"x\")\n}\n",
		     "test.conf:2: object 'module()' is not permitted inside a ruleset or block (only at the top level)");
	expect_error(":msg, foo, \"x\" /f\n",
		     "test.conf:1: unknown property filter operation 'foo' (expected contains, isequal, "
		     "startswith, regex, ereregex or isempty)");
	expect_error("if 1 == 1 then {\n stop\n", "test.conf:3: syntax error: unexpected end of file");
	int nerr = 0;
	ck_assert_ptr_null(cfg_parse_file("/nonexistent/sluice.conf", &nerr));
	ck_assert_int_eq(nerr, 1);
}
END_TEST

/* ---- execution ---- */

START_TEST(t_exec_filters)
{
	struct msg *m = mk_msg("sshd[12]: Failed password for root", 4, 6, "sshd[12]:");
	const char *cfg =
		"if $programname == \"sshd\" and re_match($msg, \"Failed password|Invalid user\") then "
		"action(name=\"ssh\" type=\"x\")\n"
		"if $programname == [\"cron\", \"sshd\"] then action(name=\"arr\" type=\"x\")\n"
		"if $msg contains_i \"FAILED\" then action(name=\"ci\" type=\"x\")\n"
		"if $msg startswith \"x\" then action(name=\"no\" type=\"x\") else action(name=\"else\" type=\"x\")\n"
		"auth.info action(name=\"pri\" type=\"x\")\n"
		"auth.=notice action(name=\"no2\" type=\"x\")\n"
		"*.*;auth.none action(name=\"no3\" type=\"x\")\n"
		":msg, contains, \"password\" action(name=\"pf\" type=\"x\")\n"
		"& action(name=\"amp\" type=\"x\")\n"
		":msg, !contains, \"password\" action(name=\"no4\" type=\"x\")\n"
		":programname, regex, \"^ss.d$\" action(name=\"bre\" type=\"x\")\n"
		":programname, ereregex, \"^(ssh|x)d$\" action(name=\"ere\" type=\"x\")\n"
		":msg, isempty, \"\" action(name=\"no5\" type=\"x\")\n"
		"if prifilt(\"auth,authpriv.*\") then action(name=\"pf2\" type=\"x\")\n"
		"if $syslogseverity <= 6 then action(name=\"sev\" type=\"x\")\n"
		"stop\n"
		"action(name=\"after_stop\" type=\"x\")\n";
	ck_assert_str_eq(run(cfg, m), "ssh;arr;ci;else;pri;pf;amp;bre;ere;pf2;sev;");
	msg_release(m);
}
END_TEST

START_TEST(t_exec_vars)
{
	struct msg *m = mk_msg("app: x", 1, 5, "app:");
	const char *cfg =
		"set $!a!b = \"v\";\n"
		"set $!n = 5 * 2;\n"
		"set $.l = $!a;\n"
		"set $!arr = parse_json('[\"p\",\"q\"]', '$!list');\n"
		"foreach ($.i in $!list) do { set $!last = $.i; }\n"
		"if exists($!a!b) and not exists($!zz) then action(name=\"ex\" type=\"x\")\n"
		"if $!n == 10 and $!n > 9 then action(name=\"num\" type=\"x\")\n"
		"if $.l!b == \"v\" then action(name=\"copy\" type=\"x\")\n"
		"unset $!a!b;\n"
		"if not exists($!a!b) then action(name=\"unset\" type=\"x\")\n";
	ck_assert_str_eq(run(cfg, m), "ex;num;copy;unset;");
	ck_assert_str_eq(fjson_object_to_json_string_ext(m->json, FJSON_TO_STRING_PLAIN),
			 "{\"a\":{},\"n\":10,\"list\":[\"p\",\"q\"],\"arr\":0,\"last\":\"q\"}");
	msg_release(m);
}
END_TEST

START_TEST(t_exec_call_stop)
{
	int nerr = 0;
	struct cfg_tree *rt = parse("action(name=\"in_rs\" type=\"x\")\nstop\n", &nerr);
	ck_assert_ptr_nonnull(rt);
	n_rsets = 1;
	snprintf(rsets[0].name, sizeof(rsets[0].name), "sub");
	rsets[0].script = rt->script;
	n_acts = 32;
	script_compile(rt->script, &resolver, &nerr);
	struct msg *m = mk_msg("a: b", 1, 5, "a:");
	ck_assert_str_eq(run("call sub\naction(name=\"after\" type=\"x\")\n", m), "call:sub;in_rs;");
	ck_assert_str_eq(run("call_indirect \"s\" & \"ub\";\n", m), "call:sub;in_rs;");
	msg_release(m);
	script_release(rt->script);
	cfg_tree_free(rt);
	n_rsets = 0;
}
END_TEST

START_TEST(t_functions)
{
	ck_assert_str_eq(eval("\"10\" < \"9\""), "0");
	ck_assert_str_eq(eval("\"abc\" < \"abd\""), "1");
	ck_assert_str_eq(eval("\"abc\" == 0"), "0");
	ck_assert_str_eq(eval("7 / 2"), "3");
	ck_assert_str_eq(eval("-5 / 2"), "-2");
	ck_assert_str_eq(eval("7 % 0"), "0");
	ck_assert_str_eq(eval("010 + 0x10"), "24");
	ck_assert_str_eq(eval("strlen($msg)"), "12");
	ck_assert_str_eq(eval("tolower(\"AbC\")"), "\"abc\"");
	ck_assert_str_eq(eval("substring(\"abcdef\", 2, 2)"), "\"cd\"");
	ck_assert_str_eq(eval("substring(\"abc\", 5, 1)"), "\"\"");
	ck_assert_str_eq(eval("substring(\"abcdef\", 1, -1)"), "\"bcdef\"");
	ck_assert_str_eq(eval("\"[\" & ltrim(\"  a  \") & \"][\" & rtrim(\"  a  \") & \"]\""), "\"[a  ][  a]\"");
	ck_assert_str_eq(eval("cnum(\"0x1F\") & \",\" & cnum(\"-3\") & \",\" & cnum(\" 5\") & cnum(\"42abc\")"),
			 "\"21,-3,042\"");
	ck_assert_str_eq(eval("cstr(12)"), "\"12\"");
	ck_assert_str_eq(eval("int2hex(255) & \"|\" & int2hex(-1)"), "\"ff|ffffffffffffffff\"");
	ck_assert_str_eq(eval("re_extract(\"abc123def456\", \"([0-9]+)\", 1, 1, \"none\")"), "\"456\"");
	ck_assert_str_eq(eval("re_extract(\"abc\", \"([0-9]+)\", 0, 1, \"none\")"), "\"none\"");
	ck_assert_str_eq(eval("re_match_i(\"ABC\", '^abc$')"), "1");
	ck_assert_str_eq(eval("field(\"a,b,c\", 44, 2) & \"|\" & field(\"a b\", \" \", 5) & \"|\" & field(\"abc\", 44, 1)"),
			 "\"b|***FIELD NOT FOUND***|abc\"");
	ck_assert_str_eq(eval("replace(\"aaa\", \"a\", \"bb\")"), "\"bbbbbb\"");
	ck_assert_str_eq(eval("wrap(\"a\\\"b\", \"\\\"\", \"\\\\\")"), "\"\\\"a\\\\b\\\"\"");
	ck_assert_str_eq(eval("wrap(\"ab\", \"'\")"), "\"'ab'\"");
	ck_assert_str_eq(eval("ipv42num(\"1.2.3.4\") & \"|\" & ipv42num(\"1.2.3\") & \"|\" & num2ipv4(16909060) & \"|\" & num2ipv4(-1)"),
			 "\"16909060|-1|1.2.3.4|-1\"");
	ck_assert_str_eq(eval("format_time(0, \"date-rfc3339\") & \"|\" & format_time(1700000000, \"date-rfc3164\") & \"|\" & format_time(\"x\", \"date-rfc3339\")"),
			 "\"1970-01-01T00:00:00Z|Nov 14 22:13:20|x\"");
	ck_assert_str_eq(eval("is_time(\"2023-01-01T00:00:00Z\") & is_time(\"xx\") & is_time(\"1700000000\", \"date-unix\")"),
			 "\"101\"");
	ck_assert_str_eq(eval("parse_json(\"{bad\", '$!pq') & script_error()"), "\"11\"");
	ck_assert_str_eq(eval("-\"3\""), "-3");
	ck_assert_str_eq(eval("\"b\" == [\"a\",\"b\"]"), "1");
	ck_assert_str_eq(eval("random(1)"), "0");
	ck_assert_str_eq(eval("getenv(\"SLUICE_NO_SUCH_VAR\")"), "\"\"");
	ck_assert_str_eq(eval("previous_action_suspended()"), "0");
	ck_assert_str_eq(eval("\"2abc\" and \"1\""), "1");
	ck_assert_str_eq(eval("\"abc\" or \"\""), "0");
}
END_TEST

/* Syntax-error recovery: after an error the parser resumes at the next
 * top-level object or statement, so one run reports all three errors,
 * each at its own line, and counts them. */
START_TEST(t_error_recovery)
{
	int nerr = 0;
	struct cfg_tree *t = parse("set $.a = ;\n"
				   "action(type=\"omfile\" file=\"/tmp/x\")\n"
				   "if then stop\n"
				   "template(name=\"a\" type=\"string\" string=\"x\")\n"
				   "set $.b = 1 +;\n", &nerr);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(nerr, 3);
	ck_assert_ptr_nonnull(strstr(errbuf, "test.conf:1: syntax error at ';'"));
	ck_assert_ptr_nonnull(strstr(errbuf, "test.conf:3: syntax error at 'then'"));
	ck_assert_ptr_nonnull(strstr(errbuf, "test.conf:5: syntax error at ';'"));
	ck_assert_ptr_null(strstr(errbuf, "test.conf:2:"));
	ck_assert_ptr_null(strstr(errbuf, "test.conf:4:"));
	/* and a config without errors still parses */
	t = parse("set $.a = 1;\n", &nerr);
	ck_assert_ptr_nonnull(t);
	cfg_tree_free(t);
}
END_TEST

/* Selector decoding with '!' as rsyslog 8.2302 does it
 * (tests/diff/configs/prifilt_negate.conf checks it against rsyslogd). */
START_TEST(t_prifilt_negate)
{
	uint8_t m[25];
	char err[256];
	ck_assert(cfg_decode_prifilt("local0.!warning", m, err, sizeof(err)));
	for (int i = 0; i < 25; i++)
		ck_assert_int_eq(m[i], 0);
	ck_assert(cfg_decode_prifilt("*.*;local0.!warning", m, err, sizeof(err)));
	ck_assert_int_eq(m[16], 0xe0); /* notice, info, debug */
	ck_assert_int_eq(m[0], 0xff);
	ck_assert(cfg_decode_prifilt("mail.*;mail.!=info", m, err, sizeof(err)));
	ck_assert_int_eq(m[2], 0xbf);
	ck_assert(cfg_decode_prifilt("local1.!none", m, err, sizeof(err)));
	ck_assert_int_eq(m[17], 0xff);
	ck_assert_int_eq(m[16], 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grammar");
	TCase *tc = tcase_create("all");
	tcase_add_test(tc, t_objects);
	tcase_add_test(tc, t_legacy);
	tcase_add_test(tc, t_precedence);
	tcase_add_test(tc, t_statements);
	tcase_add_test(tc, t_include);
	tcase_add_test(tc, t_debian_conf);
	tcase_add_test(tc, t_errors);
	tcase_add_test(tc, t_exec_filters);
	tcase_add_test(tc, t_exec_vars);
	tcase_add_test(tc, t_exec_call_stop);
	tcase_add_test(tc, t_functions);
	tcase_add_test(tc, t_error_recovery);
	tcase_add_test(tc, t_prifilt_negate);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
