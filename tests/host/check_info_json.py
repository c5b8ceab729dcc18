#!/usr/bin/env python3
"""Parses `mvgal-info --json` output (stdin) with a real JSON parser and
checks it against what the guest was given (tests/host/info-json.conf)
and what the module reports. Prints TAP lines; exit status 1 on failure."""
import json
import sys

if len(sys.argv) > 1:
    print(__doc__)
    print("usage: mvgal-info --attach --json | %s" % sys.argv[0])
    sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)

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
# Modules without the migration engine lack "sessions" and "migration"
# (and the sections below).
check("json: ABI, caps, chunk size, GPUs",
      d["abi_version"] == 2 and d["library_abi_version"] == 2
      and d["caps"] == ["syncobj", "gpu-attach", "sessions", "migration",
                        "write-watch", "eviction", "place-fd"]
      and d["chunk_size"] == 65536
      and d["gpu_count"] == 4 and d["max_gpus"] == 8)
check("json: module settings",
      d["module"] == {"enable_memory_migration": True, "enable_dmabuf": True,
                      "stats_interval": 1})
c = d["config"]
check("json: config file values",
      c["path"] == "/etc/mvgal/mvgal.conf" and c["status"] == "loaded"
      and c["core"] == {"enable_memory_migration": True,
                        "enable_dmabuf": False, "stats_interval": 7}
      and [g["memory_limit_mb"] for g in c["gpu"]] == [64, 64, 64, 128, 0, 0, 0, 0]
      and c["dri"]["enable_prime"] is True
      and c["policy"] == {"evict_policy": 0, "prefetch": True,
                          "mirror_window_ms": 1000, "mirror_start_reads": 8,
                          "mirror_stop_writes": 4, "mirror_hold_windows": 2,
                          "graphics_replicate_mb": 64})
check("json: quotes and backslashes survive escaping",
      c["dri"]["device_pattern"] == '/dev/dri/\\car[d"]*')

gpus = d["gpus"]
check("json: four GPUs, pools sized by [gpu_N] memory_limit_mb",
      [g["index"] for g in gpus] == [0, 1, 2, 3]
      and [g["pool"]["size"] >> 20 for g in gpus] == [64, 64, 64, 128]
      and all(g["pool"]["used"] == 0 and g["state"] == "idle" for g in gpus))
virtio = [g for g in gpus if g["driver"] == "virtio_gpu"]
vgem = [g for g in gpus if g["driver"] == "vgem"]
check("json: identity and topology",
      len(virtio) == 3 and len(vgem) == 1
      and all(g["bus"] == "pci" and g["pci_vendor"] == 0x1af4 for g in virtio)
      and sorted((g["root"], g["numa_node"] if g["numa_node"] is not None else -1)
                 for g in virtio)
      == [("pci0000:00", -1), ("pci0000:20", 0), ("pci0000:40", 1)]
      and vgem[0]["bus"] == "platform" and vgem[0]["slot"] == "vgem"
      and vgem[0]["numa_node"] is None)
h = d["heap"]
check("json: heap regions and NUMA nodes",
      [r["kind"] for r in h["regions"]] == ["system", "pool", "pool", "pool", "pool"]
      and all(r["total"] == r["used"] + r["free"] for r in h["regions"] + h["nodes"])
      and [r["total"] for r in h["regions"][1:]] == [g["pool"]["size"] for g in gpus]
      and [n["numa_node"] for n in h["nodes"]] == [0, 1]
      and sum(n["total"] for n in h["nodes"]) == h["regions"][0]["total"])
paths = {(p["src"], p["dst"]): p for p in d["paths"]}
vg = vgem[0]["index"]
check("json: 12 paths; vgem uses virtio-gpu pools in place, not the reverse",
      len(paths) == 12
      and all(paths[(v["index"], vg)]["method"] == "in-place" for v in virtio)
      and all(paths[(vg, v["index"])]["method"] == "cpu-copy"
              and not paths[(vg, v["index"])]["methods"]["in-place"]["possible"]
              and paths[(vg, v["index"])]["import_error"] == 19 for v in virtio)
      and all(not p["methods"]["p2p"]["possible"] for p in paths.values()))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def int_map(v, keys):
    return isinstance(v, dict) and sorted(v) == sorted(keys) \
        and all(is_int(x) for x in v.values())


METHODS = ["in-place", "p2p", "cpu-copy", "staging"]
if "migration" in d["caps"]:
    s = d.get("stats")
    check("json: stats counters",
          isinstance(s, dict)
          and all(is_int(s.get(k)) for k in
                  ("scheduled", "completed", "failed", "cancelled",
                   "queue_depth", "sessions", "busy", "cpu_faults", "drained",
                   "numa_moved"))
          and int_map(s.get("jobs"), ["high", "normal", "low"])
          and int_map(s.get("bytes"), METHODS)
          and int_map(s.get("copies"), METHODS)
          and int_map(s.get("prefetch"),
                      ["issued", "hits", "misses", "cancelled"]))
    tp = d.get("transfer_paths")
    locs = ["host"] + ["gpu%d" % g["index"] for g in gpus]

    def path_ok(p):
        return (isinstance(p, dict) and p.get("src") in locs
                and p.get("dst") in locs and p["src"] != p["dst"]
                and isinstance(p.get("methods"), list)
                and all(m in METHODS for m in p["methods"])
                and p.get("chosen_64k") in METHODS + ["none"]
                and p.get("chosen_64m") in METHODS + ["none"]
                and isinstance(p.get("forced"), bool)
                and int_map(p.get("latency_ns"), p["methods"])
                and int_map(p.get("bandwidth"), p["methods"])
                and isinstance(p.get("calibrated"), bool))
    check("json: transfer paths for every ordered pair of host and GPUs",
          isinstance(tp, list) and all(path_ok(p) for p in tp)
          and sorted((p["src"], p["dst"]) for p in tp)
          == sorted((a, b) for a in locs for b in locs if a != b))
    # --attach as root calibrates after attaching.
    check("json: --attach calibrated every path",
          d.get("paths_calibrated") is True
          and all(p["calibrated"] for p in tp or []))
else:
    check("json: no stats or transfer paths without the migration engine",
          "stats" not in d and "transfer_paths" not in d
          and "paths_calibrated" not in d)
if "buffers" in d and "sessions" in d["caps"]:
    check("json: per-buffer residency",
          all(isinstance(b.get("valid"), dict)
              and isinstance(b.get("owned"), dict)
              and "host" in b["valid"] and sorted(b["valid"]) == sorted(b["owned"])
              and all(is_int(v) for v in list(b["valid"].values())
                      + list(b["owned"].values()))
              and is_int(b.get("sessions")) and is_int(b.get("chunk_size"))
              for b in d["buffers"]))
if "eviction" in d["caps"]:
    def eviction_ok(g):
        e = g.get("eviction")
        return (isinstance(e, dict) and e.get("policy") in ("predict", "lru")
                and e.get("budget") == g["pool"]["size"]
                and all(is_int(e.get(k)) for k in
                        ("evictions", "evicted_bytes", "written_back",
                         "refusals", "placements"))
                and isinstance(e.get("order"), list)
                and len(e["order"]) == min(e["placements"], 32))
    check("json: per-pool budget, eviction counters and order",
          all(eviction_ok(g) for g in gpus))
if "buffers" in d and "eviction" in d["caps"]:
    check("json: per-buffer advice, replicas and pins",
          all(isinstance(b.get("advice"), dict)
              and b["advice"].get("workload") in
              ("none", "graphics", "compute", "ai")
              and all(is_int(b.get(k)) for k in
                      ("mirrored", "mirror_changes", "pinned"))
              for b in d["buffers"]))
if "buffers" in d and "write-watch" in d["caps"]:
    check("json: per-buffer write-watch figures",
          all(is_int(b.get(k)) for b in d["buffers"]
              for k in ("cpu_written", "handoffs", "refused")))

for name, ok in results:
    print("%s - %s" % ("ok" if ok else "not ok", name))
sys.exit(0 if all(ok for _, ok in results) else 1)
