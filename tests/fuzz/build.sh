#!/bin/sh
# build.sh - builds the libFuzzer harnesses of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) straight from the sources under
# test, not from the gcc-built libsluice: every core source is compiled
# into OUTDIR/obj/libcore.a (again only when it or a header changed), and
# each harness is linked with what it needs of it. Used by `make fuzz` and by
# tests/integration/fuzz_smoke.sh.
#
# usage: tests/fuzz/build.sh OUTDIR [HARNESS...]
#   HARNESS  parser, template, config, framing (default: all four)
# env: CLANG (default clang), srcdir and top_builddir (default: the tree
#      this script is in; top_builddir holds config.h and the generated
#      grammar/lexer.c and grammar/rainerscript.c), FUZZ_CFLAGS (replaces
#      the default -g -O1 -fsanitize=... flags), FUZZ_JOBS (parallel
#      compiles, default 2).
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
# One build at a time in OUTDIR (`make fuzz` and fuzz_smoke.sh of parallel
# `make check` runs share it); every product is written to a temporary
# name and renamed, so a harness that is running or being linked never
# sees a half-written file.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$OUT/obj/.lock"
	flock 9
fi
probe="$OUT/obj/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; return (int)n * 0; }' >"$probe"
"$CLANG" $LINKFLAGS "$probe" -o "$OUT/obj/probe" 2>/dev/null ||
	{ echo "build.sh: $CLANG cannot link -fsanitize=fuzzer (libclang-rt-*-dev missing?)" >&2; exit 77; }

pc() { pkg-config "$@" libestr libfastjson libpcre2-8 zlib 2>/dev/null || true; }
gcry=$(pkg-config --libs libgcrypt 2>/dev/null || true)
CPPFLAGS="-DHAVE_CONFIG_H -DSLUICE_PKGLIBDIR=\"/nonexistent\" -DSLUICE_SYSCONFDIR=\"/nonexistent\" -pthread
 -I$top_builddir -I$srcdir/runtime -I$srcdir/grammar -I$top_builddir/grammar $(pc --cflags)"
LIBS="$(pc --libs) $gcry -lpthread -lm"
[ -n "$(pc --libs)" ] || LIBS="-lestr -lfastjson -lpcre2-8 -lz -lpthread -lm"

# The core the parser, template and config harnesses run on, as an
# archive: every source of runtime/ but the gnutls stream driver, the RFC
# parsers, the grammar. The linker takes from it only the objects a
# harness needs, so a new dependency inside the core needs no change
# here; fuzz_config.c's stubs of action_exec() and ruleset_exec_sync()
# keep action.c and ruleset.c (and what hangs on them) out.
core_srcs() {
	(cd "$srcdir" && ls runtime/*.c plugins/pmrfc3164/*.c plugins/pmrfc5424/*.c grammar/ast.c) |
		grep -v netstrm_gtls
	echo grammar/lexer.c
	echo grammar/rainerscript.c
}

# obj SRC: compile one source (srcdir, else top_builddir) unless its object
# is newer than it, than this script and than every header of the core
obj() {
	src=$srcdir/$1
	[ -f "$src" ] || src=$top_builddir/$1
	o="$OUT/obj/$(echo "$1" | tr / _ | sed 's/\.c$/.o/')"
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$0" -nt "$o" ] ||
		[ -n "$(find "$srcdir/runtime" "$srcdir/grammar" "$top_builddir/grammar" \
			"$srcdir/plugins/pmrfc3164" "$srcdir/plugins/pmrfc5424" "$top_builddir/config.h" \
			-name '*.h' -newer "$o" 2>/dev/null | head -n1)" ]; then
		# shellcheck disable=SC2086
		"$CLANG" $FLAGS $CPPFLAGS -c "$src" -o "$o.tmp" || { rm -f "$o.tmp"; return 1; }
		mv -f "$o.tmp" "$o"
	fi
}

# the archive, compiling FUZZ_JOBS (default 2) sources at a time
core_lib() {
	lib=$OUT/obj/libcore.a
	rm -f "$OUT/obj/failed"
	n=0
	for s in $(core_srcs); do
		{ obj "$s" || echo "$s" >>"$OUT/obj/failed"; } &
		n=$((n + 1))
		if [ "$n" -ge "${FUZZ_JOBS:-2}" ]; then
			wait
			n=0
		fi
	done
	wait
	if [ -f "$OUT/obj/failed" ]; then
		echo "build.sh: compiling $(tr '\n' ' ' <"$OUT/obj/failed")failed" >&2
		return 1
	fi
	rm -f "$lib.tmp"
	# shellcheck disable=SC2046
	ar rcs "$lib.tmp" $(for s in $(core_srcs); do echo "$OUT/obj/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')"; done)
	mv -f "$lib.tmp" "$lib"
}

for h in $HARNESSES; do
	case $h in
	parser | template | config)
		if [ -z "${core_done:-}" ]; then
			core_lib || exit 1
			core_done=1
		fi
		with="$OUT/obj/libcore.a" ;;
	framing)
		# the framer alone (the harness brings its own sl_log)
		obj runtime/framing.c || exit 1
		with="$OUT/obj/runtime_framing.o" ;;
	*) echo "build.sh: unknown harness '$h'" >&2; exit 1 ;;
	esac
	# shellcheck disable=SC2086
	"$CLANG" $FLAGS -Wall -Wextra $LINKFLAGS $CPPFLAGS "$srcdir/tests/fuzz/fuzz_$h.c" $with $LIBS \
		-o "$OUT/fuzz_$h.tmp" || { echo "build.sh: linking fuzz_$h failed" >&2; exit 1; }
	mv -f "$OUT/fuzz_$h.tmp" "$OUT/fuzz_$h"
done
