#!/bin/bash
# doc_params.sh - the parameter tables in doc/modules/params/*.md are what
# tools/sluice-doc prints from the modules' own tables today: a parameter
# added, renamed or given another default without `make doc-params` fails
# here (the diff says what changed). Every module this build has must have
# a page, and every hand-written doc/modules/NAME.md must link its table
# (tools/doc-links.sh -c).
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

DOC="$top_builddir/tools/sluice-doc"
require_tool sluice-doc "$DOC"
PDIR="$srcdir/doc/modules/params"
[ -d "$PDIR" ] || fail "expected $PDIR (make doc-params), got none"
mkdir -p "$TESTDIR/params"
n=0
for so in "$top_builddir"/plugins/*/.libs/*.so; do
	name=$(basename "$so" .so)
	[ -f "$PDIR/$name.md" ] || fail "expected a page $PDIR/$name.md for module $name (run make doc-params)"
done
for page in "$PDIR"/*.md; do
	name=$(basename "$page" .md)
	if [ "$name" != omfile ] && [ ! -f "$top_builddir/plugins/$name/.libs/$name.so" ]; then
		continue # not built here (optional library missing)
	fi
	"$DOC" -o "$TESTDIR/params" "$name" || fail "expected sluice-doc to document $name, got status $?"
	diff -u "$page" "$TESTDIR/params/$name.md" >&2 ||
		fail "expected $page to match the module's table (run make doc-params), got the diff above"
	n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "expected at least 10 module pages checked, got $n"
# every hand-written page links its table; doc/modules/index.md lists them
"$BASH" "$srcdir/tools/doc-links.sh" -c "$srcdir/doc/modules" ||
	fail "expected doc/modules/*.md and index.md to link the generated tables (run make doc-params), got the diff above"
log "$n module parameter pages up to date"
