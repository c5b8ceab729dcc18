#!/usr/bin/env python3
"""Parses `mvgal-info --json` output (stdin) with a real JSON parser and
checks it against what the guest was given (tests/host/info-json.conf)
and what the module reports. Prints TAP lines; exit status 1 on failure."""
import json
import sys

text = sys.stdin.read()
results = []


def check(name, cond):
    results.append((name, bool(cond)))


try:
    d = json.loads(text)
    check("mvgal-info --json is valid JSON", True)
except ValueError as e:
    print("not ok - mvgal-info --json is valid JSON: %s" % e)
    for line in text.splitlines()[:20]:
        print("#   " + line)
    sys.exit(1)

check("json: driver name and version",
      d["driver"]["name"] == "mvgal" and d["driver"]["version"] == "0.1.0"
      and d["driver"]["node"].startswith("/dev/dri/renderD"))
check("json: ABI, caps, chunk size, GPUs",
      d["abi_version"] == 1 and d["library_abi_version"] == 1
      and d["caps"] == ["syncobj"] and d["chunk_size"] == 65536
      and d["gpu_count"] == 0 and d["max_gpus"] == 8)
check("json: module settings",
      d["module"] == {"enable_memory_migration": True, "enable_dmabuf": True,
                      "stats_interval": 1})
c = d["config"]
check("json: config file values",
      c["path"] == "/etc/mvgal/mvgal.conf" and c["status"] == "loaded"
      and c["core"] == {"enable_memory_migration": True,
                        "enable_dmabuf": False, "stats_interval": 7}
      and [g["memory_limit_mb"] for g in c["gpu"]] == [0, 0, 0, 256, 0, 0, 0, 0]
      and c["dri"]["enable_prime"] is True)
check("json: quotes and backslashes survive escaping",
      c["dri"]["device_pattern"] == '/dev/dri/"quoted"\\back*')

for name, ok in results:
    print("%s - %s" % ("ok" if ok else "not ok", name))
sys.exit(0 if all(ok for _, ok in results) else 1)
