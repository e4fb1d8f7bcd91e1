#!/bin/sh
# build.sh - builds the libFuzzer harnesses of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) straight from the sources under
# test, not from the gcc-built libsluice: every core source is compiled
# once into OUTDIR/obj/ (again only when it is newer than its object),
# then each harness is linked. Used by `make fuzz` and by
# tests/integration/fuzz_smoke.sh.
#
# usage: tests/fuzz/build.sh OUTDIR [HARNESS...]
#   HARNESS  parser, template, config, framing (default: all four)
# env: CLANG (default clang), srcdir and top_builddir (default: the tree
#      this script is in; top_builddir holds config.h and the generated
#      grammar/lexer.c and grammar/rainerscript.c), FUZZ_CFLAGS (replaces
#      the default -g -O1 -fsanitize=... flags).
# exit: 0 built, 1 a compile failed, 77 clang or its libFuzzer is missing.
set -eu

OUT=${1:?usage: build.sh OUTDIR [HARNESS...]}
shift
HARNESSES=${*:-parser template config framing}
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$srcdir}
CLANG=${CLANG:-clang}
FLAGS=${FUZZ_CFLAGS:--g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined}
LINKFLAGS="-fsanitize=fuzzer,address,undefined"

command -v "$CLANG" >/dev/null 2>&1 || { echo "build.sh: $CLANG not found" >&2; exit 77; }
mkdir -p "$OUT/obj"
probe="$OUT/obj/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; return (int)n * 0; }' >"$probe"
"$CLANG" $LINKFLAGS "$probe" -o "$OUT/obj/probe" 2>/dev/null ||
	{ echo "build.sh: $CLANG cannot link -fsanitize=fuzzer (libclang-rt-*-dev missing?)" >&2; exit 77; }

pc() { pkg-config "$@" libestr libfastjson libpcre2-8 zlib 2>/dev/null || true; }
CPPFLAGS="-I$top_builddir -I$srcdir/runtime -I$srcdir/grammar -I$top_builddir/grammar $(pc --cflags)"
LIBS="$(pc --libs) -lpthread -lm"
[ -n "$(pc --libs)" ] || LIBS="-lestr -lfastjson -lpcre2-8 -lz -lpthread -lm"

# what the parser, template and config harnesses run on
CORE="runtime/parser.c runtime/datetime.c runtime/msg.c runtime/glbl.c runtime/util.c
 plugins/pmrfc3164/pmrfc3164.c plugins/pmrfc5424/pmrfc5424.c runtime/prop.c
 runtime/template.c runtime/template_parse.c runtime/strgen.c grammar/ast.c runtime/param.c"
GEN="grammar/lexer.c grammar/rainerscript.c"
SCRIPT="runtime/script.c runtime/script_func.c runtime/script_regex.c runtime/lookup.c
 runtime/msgvar.c"

# obj SRC: compile one source (srcdir, else top_builddir) once; prints the object
obj() {
	src=$srcdir/$1
	[ -f "$src" ] || src=$top_builddir/$1
	o="$OUT/obj/$(echo "$1" | tr / _ | sed 's/\.c$/.o/')"
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$0" -nt "$o" ] ||
		[ -n "$(find "$srcdir/runtime" "$srcdir/grammar" "$top_builddir/grammar" \
			"$srcdir/plugins/pmrfc3164" "$srcdir/plugins/pmrfc5424" "$top_builddir/config.h" \
			-name '*.h' -newer "$o" 2>/dev/null | head -n1)" ]; then
		# shellcheck disable=SC2086
		"$CLANG" $FLAGS $CPPFLAGS -c "$src" -o "$o" || return 1
	fi
	echo "$o"
}

# objs SRC...: the objects of several sources (an object is rebuilt when
# its source, this script or any header of the core is newer)
objs() {
	for s in "$@"; do
		obj "$s" || return 1
	done
}

for h in $HARNESSES; do
	case $h in
	parser | template) srcs="$CORE $GEN" ;;
	config) srcs="$CORE $GEN $SCRIPT" ;;
	framing) srcs="runtime/framing.c" ;;
	*) echo "build.sh: unknown harness '$h'" >&2; exit 1 ;;
	esac
	# shellcheck disable=SC2086
	list=$(objs $srcs) || { echo "build.sh: compiling the sources of $h failed" >&2; exit 1; }
	# shellcheck disable=SC2086
	"$CLANG" $FLAGS -Wall -Wextra $LINKFLAGS $CPPFLAGS "$srcdir/tests/fuzz/fuzz_$h.c" $list $LIBS \
		-o "$OUT/fuzz_$h" || { echo "build.sh: linking fuzz_$h failed" >&2; exit 1; }
done
