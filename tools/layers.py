#!/usr/bin/env python3
"""The layering rule of mvgal.ko, checked (make lint).

    tools/layers.py SRC_DIR [OBJ_DIR]

kernel/ is split into layers, one folder each, lowest first:

    core < dev < bo < move < policy < uapi

A file may include the headers of, and call the functions of, its own
layer and the layers below it, never one above. Within a layer, files may
not call each other in a circle. SRC_DIR is the repository's kernel/;
OBJ_DIR, when given, holds the module's objects built from it (kbuild's
output, same relative paths): calls are read from their symbol tables
(nm: what each object defines and what it leaves undefined), so calls
through static inlines and macros count where they land. Prints one line
per violation and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

LAYERS = ["core", "dev", "bo", "move", "policy", "uapi"]
RANK = {name: i for i, name in enumerate(LAYERS)}


def layer_of(rel):
    """Layer of a path relative to kernel/, or None outside the layers."""
    top = rel.split("/", 1)[0]
    return top if top in RANK and "/" in rel else None


def sources(src):
    for root, _, names in os.walk(src):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(root, n), src)


def include_violations(src):
    bad = []
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for rel in sources(src):
        me = layer_of(rel)
        if me is None:
            bad.append(f"{rel}: not inside a layer folder ({', '.join(LAYERS)})")
            continue
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                m = inc.match(line)
                if not m:
                    continue
                target = m.group(1)
                if "/" not in target:
                    # A header next to the file, same layer.
                    target = os.path.join(os.path.dirname(rel), target)
                them = layer_of(os.path.normpath(target))
                if them is not None and RANK[them] > RANK[me]:
                    bad.append(f"{rel}:{no}: includes {m.group(1)} "
                               f"({them} is above {me})")
    return bad


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRV":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def call_violations(objdir):
    objs = {}
    for root, _, names in os.walk(objdir):
        for n in names:
            if not n.endswith(".o") or n.endswith(".mod.o"):
                continue
            rel = os.path.relpath(os.path.join(root, n), objdir)
            if layer_of(rel):
                objs[rel[:-2]] = symbols(os.path.join(root, n))
    owner = {}
    for name, (defined, _) in objs.items():
        for s in defined:
            owner[s] = name
    bad, edges = [], {}
    for name, (_, undefined) in sorted(objs.items()):
        me = layer_of(name)
        for s in sorted(undefined):
            callee = owner.get(s)
            if callee is None or callee == name:
                continue
            them = layer_of(callee)
            if RANK[them] > RANK[me]:
                bad.append(f"{name}.c: uses {s} of {callee}.c "
                           f"({them} is above {me})")
            elif them == me:
                edges.setdefault(name, set()).add(callee)
    # Circles among the files of one layer (Tarjan's strongly connected
    # components; any with more than one file is a circle).
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(objs):
        if v not in index:
            visit(v)
    for comp in comps:
        bad.append("files call each other in a circle: " +
                   ", ".join(c + ".c" for c in comp))
    return bad, len(objs)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    src = sys.argv[1]
    bad = include_violations(src)
    nobj = 0
    if len(sys.argv) == 3:
        more, nobj = call_violations(sys.argv[2])
        bad += more
    for line in bad:
        print(line)
    print(f"# layers: {len(list(sources(src)))} files, {nobj} objects, "
          f"{len(bad)} violations", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
