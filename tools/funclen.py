#!/usr/bin/env python3
"""No function of mvgal.ko over a length a reader takes in at once (make lint).

    tools/funclen.py SRC_DIR [MAX_LINES]

Kernel style opens a function body with "{" alone in column 0 and closes
it with "}" in column 0; a function's length counts from the first line of
its signature to that closing brace. Prints the functions over MAX_LINES
(80 unless given), longest first, and exits 1 if there is any.
"""
import os
import re
import sys


def functions(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        if line != "{":
            continue
        # The signature: back to the line after a blank line, a
        # preprocessor line, the end of a comment or a statement.
        start = i - 1
        while start > 0:
            prev = lines[start - 1]
            if (not prev.strip() or prev.startswith("#") or
                    prev.rstrip().endswith(("*/", ";", "}"))):
                break
            start -= 1
        end = next((j for j in range(i + 1, len(lines))
                    if lines[j].startswith("}")), len(lines) - 1)
        m = re.search(r"(\w+)\s*\(", " ".join(lines[start:i]))
        yield (m.group(1) if m else "?"), start + 1, end + 1


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    src = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) == 3 else 80
    long_ones, n = [], 0
    for root, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith(".c"):
                continue
            path = os.path.join(root, name)
            for fn, a, b in functions(path):
                n += 1
                if b - a + 1 > limit:
                    long_ones.append((b - a + 1, fn,
                                      os.path.relpath(path, src), a, b))
    for length, fn, rel, a, b in sorted(long_ones, reverse=True):
        print(f"{rel}:{a}-{b}: {fn}() is {length} lines (at most {limit})")
    print(f"# funclen: {n} functions, {len(long_ones)} over {limit} lines",
          file=sys.stderr)
    sys.exit(1 if long_ones else 0)


if __name__ == "__main__":
    main()
