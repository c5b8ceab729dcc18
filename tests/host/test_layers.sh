#!/bin/bash
# tools/layers.py finds what it exists to find: an include of a higher
# layer's header, a call into a higher layer, files of one layer calling
# each other in a circle, a file outside the layer folders; and passes a
# tree that keeps the rule. tools/funclen.py finds a function over its
# limit. TAP on stdout.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
n=0 rc=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; rc=1; fi; }

# tree NAME: a small layered tree that keeps the rule, built into NAME.obj
tree() {
	mkdir -p "$t/$1"/{core,dev,bo,move,policy,uapi}
	echo 'int mvgal_core(int x);' >"$t/$1/core/mvgal_c.h"
	echo 'int mvgal_core(int x) { return x + 1; }' >"$t/$1/core/mvgal_c.c"
	echo 'int mvgal_dev(int x);' >"$t/$1/dev/mvgal_d.h"
	printf '#include "core/mvgal_c.h"\nint mvgal_dev(int x) { return mvgal_core(x); }\n' >"$t/$1/dev/mvgal_d.c"
	echo 'int mvgal_bo(int x);' >"$t/$1/bo/mvgal_b.h"
	printf '#include "dev/mvgal_d.h"\nint mvgal_bo(int x) { return mvgal_dev(x); }\n' >"$t/$1/bo/mvgal_b.c"
	printf '#include "bo/mvgal_b.h"\nint mvgal_uapi(int x) { return mvgal_bo(x); }\n' >"$t/$1/uapi/mvgal_u.c"
}
build() {
	local f
	(cd "$t/$1" && for f in $(find . -name '*.c'); do
		mkdir -p "../$1.obj/$(dirname "$f")"
		gcc -c -I. "$f" -o "../$1.obj/${f%.c}.o" || exit 1
	done)
}
check() { python3 "$top/tools/layers.py" "$t/$1" "$t/$1.obj" 2>/dev/null; }

tree good && build good
out=$(check good); ok $? "a tree that keeps the rule passes"
test -z "$out"; ok $? "... and prints nothing"

tree up_include
printf '#include "move/mvgal_m.h"\n' >>"$t/up_include/dev/mvgal_d.c"
echo 'int mvgal_move(int x);' >"$t/up_include/move/mvgal_m.h"
out=$(python3 "$top/tools/layers.py" "$t/up_include" 2>/dev/null)
test $? = 1 && echo "$out" | grep -q '^dev/mvgal_d.c:3: includes move/mvgal_m.h (move is above dev)$'
ok $? "an include of a higher layer's header fails, named with its line"

tree up_call
echo 'int mvgal_move(int x) { return x; }' >"$t/up_call/move/mvgal_m.c"
printf 'int mvgal_move(int x);\nint mvgal_dev2(int x) { return mvgal_move(x); }\n' >"$t/up_call/dev/mvgal_d2.c"
build up_call
out=$(check up_call)
test $? = 1 && echo "$out" | grep -q '^dev/mvgal_d2.c: uses mvgal_move of move/mvgal_m.c (move is above dev)$'
ok $? "a call into a higher layer fails, read from the objects"

tree circle
printf 'int mvgal_p2(int x);\nint mvgal_p1(int x) { return x ? mvgal_p2(x - 1) : 0; }\n' >"$t/circle/policy/mvgal_p1.c"
printf 'int mvgal_p1(int x);\nint mvgal_p2(int x) { return mvgal_p1(x); }\n' >"$t/circle/policy/mvgal_p2.c"
build circle
out=$(check circle)
test $? = 1 && echo "$out" | grep -q '^files call each other in a circle: policy/mvgal_p1.c, policy/mvgal_p2.c$'
ok $? "two files of one layer calling each other fail"

tree stray
echo 'int mvgal_stray;' >"$t/stray/mvgal_stray.c"
out=$(python3 "$top/tools/layers.py" "$t/stray" 2>/dev/null)
test $? = 1 && echo "$out" | grep -q '^mvgal_stray.c: not inside a layer folder'
ok $? "a file outside the layer folders fails"

# tools/funclen.py: an 81-line function fails, an 80-line one passes.
mkdir -p "$t/len/uapi"
long() { # NAME BODY-LINES
	printf 'int %s(int x)\n{\n' "$1"
	for i in $(seq 1 "$2"); do echo "	x++;"; done
	printf '	return x;\n}\n\n'
}
{ long mvgal_fits 76; long mvgal_too_long 77; } >"$t/len/uapi/mvgal_l.c"
out=$(python3 "$top/tools/funclen.py" "$t/len" 80 2>/dev/null)
test $? = 1 && test "$out" = "uapi/mvgal_l.c:82-162: mvgal_too_long() is 81 lines (at most 80)"
ok $? "tools/funclen.py names the one function over 80 lines, with its lines"

echo "1..$n"
exit $rc
