#!/usr/bin/env python3
"""Parses mvgal-info's JSON output (stdin) with a real JSON parser and
checks it against what the guest was given (tests/host/info-json.conf)
and what the module reports. The input is one JSON document per line, as
tests/run-check.sh captures them in the guest:

  1.  mvgal-info --attach --json: the full report, right after attaching
  2.  mvgal-info --stats --buffers --json, while mvgal_stress holds
      buffers and moves them
  3-5 mvgal-info --watch 1 --count 3 --json: three samples, under the
      same workload
  6.  mvgal-info --watch --count 1 --json: one sample, at the module's
      stats_interval (the config's [core], which --attach applied)

Prints TAP lines; exit status 1 on failure."""
import json
import sys

if len(sys.argv) > 1:
    print(__doc__)
    print("usage: (the lines above) | %s" % sys.argv[0])
    sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)

text = sys.stdin.read()
lines = [line for line in text.splitlines() if line.strip()]
results = []


def check(name, cond):
    """@cond: a value, or a function called here, so that a member missing
    or of the wrong type fails the check rather than ending the script."""
    if callable(cond):
        try:
            cond = cond()
        except (KeyError, IndexError, TypeError, AttributeError,
                ValueError, ZeroDivisionError) as e:
            print("# %s: %s: %r" % (name, type(e).__name__, e))
            cond = False
    results.append((name, bool(cond)))


try:
    d = json.loads(lines[0] if lines else "")
    check("mvgal-info --json is valid JSON", True)
except ValueError as e:
    print("not ok - mvgal-info --json is valid JSON: %s" % e)
    for line in text.splitlines()[:20]:
        print("#   " + line)
    sys.exit(1)

# The documents after the full report; None for a line that is not JSON
# (the checks that need it then fail).
more = []
for n, line in enumerate(lines[1:], start=2):
    try:
        more.append(json.loads(line))
    except ValueError as e:
        more.append(None)
        print("# line %d: %s: %s" % (n, e, line[:200]))
check("json: 6 documents (report, --buffers, 3 + 1 --watch samples), each valid",
      len(more) == 5 and None not in more)

check("json: driver name and version",
      d["driver"]["name"] == "mvgal" and d["driver"]["version"] == "0.1.0"
      and d["driver"]["node"].startswith("/dev/dri/renderD"))
# Modules without the migration engine lack "sessions" and "migration"
# (and the sections below).
check("json: ABI, caps, chunk size, GPUs",
      d["abi_version"] == 2 and d["library_abi_version"] == 2
      and d["caps"] == ["syncobj", "gpu-attach", "sessions", "migration",
                        "write-watch", "eviction", "uring",
                        "sync-syncobjs", "stats", "mark-overwrite",
                        "userptr-mirror", "mark-home-held"]
      and d["chunk_size"] == 65536
      and d["gpu_count"] == 4 and d["max_gpus"] == 8)
# The boot step (--attach) set the module parameters from [core].
check("json: module settings are the config file's [core]",
      d["module"] == {"enable_memory_migration": True, "enable_dmabuf": False,
                      "stats_interval": 7})
c = d["config"]
check("json: config file values",
      c["path"] == "/etc/mvgal/mvgal.conf" and c["status"] == "loaded"
      and c["core"] == {"enable_memory_migration": True,
                        "enable_dmabuf": False, "stats_interval": 7}
      and [g["memory_limit_mb"] for g in c["gpu"]] == [64, 64, 64, 128, 0, 0, 0, 0]
      and c["gpu_named"] == [{"name": 'no-such"device', "memory_limit_mb": 72}]
      and c["dri"]["enable_prime"] is True
      and c["policy"] == {"evict_policy": 0, "prefetch": True,
                          "mirror_window_ms": 1000, "mirror_start_reads": 8,
                          "mirror_stop_writes": 4, "mirror_hold_windows": 2,
                          "graphics_replicate_mb": 64})
check("json: quotes and backslashes survive escaping",
      c["dri"]["device_pattern"] == '/dev/dri/\\car[d"]*')

gpus = d["gpus"]
check("json: four GPUs, pools sized by [gpu_N] memory_limit_mb, in system RAM (guest RAM), not movable",
      [g["index"] for g in gpus] == [0, 1, 2, 3]
      and [g["pool"]["size"] >> 20 for g in gpus] == [64, 64, 64, 128]
      and all(g["pool"]["used"] == 0 and g["state"] == "idle" for g in gpus)
      # The test bed's pools are guest RAM, pinned, never moved.
      and all(g["pool"]["memory"] == "system" and g["pool"]["movable"] is False
              and g["pool"]["moves"] == 0 for g in gpus))
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
# GET_HEAP says where each region is, pools as GPU_INFO does.
check("json: heap regions say where they are; pools as their GPUs' pool memory and flags",
      all(r["memory"] == "system" for r in h["regions"] + h["nodes"])
      and [(r["memory"], r["peer2peer"], r["movable"]) for r in h["regions"][1:]]
      == [(g["pool"]["memory"], g["pool"]["peer2peer"], g["pool"]["movable"])
          for g in gpus])
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
if "stats" in d["caps"]:
    s = d.get("stats")
    check("json: stats counters",
          isinstance(s, dict)
          and all(is_int(s.get(k)) for k in
                  ("scheduled", "completed", "failed", "cancelled",
                   "queue_depth", "sessions", "busy", "cpu_faults", "drained",
                   "numa_moved", "staged_writes", "end_fences"))
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

# --- 2: --stats --buffers, while mvgal_stress holds its buffers ---
bd = more[0] if more and isinstance(more[0], dict) else {}
bufs = bd.get("buffers")
# The per-buffer checks below need buffers: an absent or empty list fails
# each of them rather than letting all() pass over nothing.
if not isinstance(bufs, list):
    bufs = []
check("json: --buffers lists the live buffers (mvgal_stress's)", bufs)
if "stats" in d["caps"]:
    s2 = bd.get("stats")
    check("json: --stats --buffers has the counters, none lower than before",
          lambda: isinstance(s2, dict) and isinstance(s, dict)
          and all(is_int(s2.get(k)) and s2[k] >= s[k] for k in
                  ("scheduled", "completed", "failed", "cancelled",
                   "sessions", "busy", "cpu_faults", "drained", "numa_moved",
                   "staged_writes", "end_fences"))
          and int_map(s2.get("bytes"), METHODS)
          and all(s2["bytes"][m] >= s["bytes"][m] for m in METHODS))
SHARING = ("none", "exclusive", "concurrent", "cross-vendor", "dma-buf")
gpu_locs = set("gpu%d" % g["index"] for g in gpus)


def buffer_ok(b):
    return (all(is_int(b.get(k)) for k in
                ("id", "uid", "pid", "size", "flags", "bytes_read",
                 "bytes_written", "access_total"))
            and (b.get("gpu") is None or is_int(b["gpu"]))
            and b.get("sharing") in SHARING
            and isinstance(b.get("access_count"), list)
            and len(b["access_count"]) == 8
            and all(is_int(v) for v in b["access_count"])
            and b["access_total"] == sum(b["access_count"])
            and isinstance(b.get("resident"), dict)
            and is_int(b["resident"].get("host"))
            and isinstance(b["resident"].get("gpu"), list)
            and len(b["resident"]["gpu"]) == 8
            and all(is_int(v) for v in b["resident"]["gpu"]))


check("json: per-buffer identity, statistics and residency",
      lambda: bufs and all(buffer_ok(b) for b in bufs))


def chunks(b):
    return -(-b["size"] // d["chunk_size"])


def residency_ok(b):
    v, o = b.get("valid"), b.get("owned")
    # Every location shown holds at most the buffer, holds alone at
    # most what it holds, and every attached GPU is shown.
    return (isinstance(v, dict) and isinstance(o, dict)
            and "host" in v and sorted(v) == sorted(o)
            and set(v) <= set(["host"] + ["gpu%d" % g for g in range(8)])
            and gpu_locs <= set(v)
            and all(is_int(v[k]) and is_int(o[k]) and o[k] <= v[k] <= b["size"]
                    for k in v)
            and sum(o.values()) <= b["size"]
            and is_int(b.get("sessions"))
            and b.get("chunk_size") == d["chunk_size"])


if "sessions" in d["caps"]:
    check("json: per-buffer residency (valid and owned bytes per location, sessions)",
          lambda: bufs and all(isinstance(b, dict) and residency_ok(b) for b in bufs))
if "eviction" in d["caps"]:
    check("json: per-buffer advice, replicas and pins",
          lambda: bufs and all(isinstance(b.get("advice"), dict)
                       and b["advice"].get("workload") in
                       ("none", "graphics", "compute", "ai")
                       and (b["advice"].get("preferred") is None
                            or b["advice"]["preferred"] in range(8))
                       and b["advice"].get("accessed_by") in range(256)
                       and is_int(b["advice"].get("read_mostly"))
                       and b["advice"]["read_mostly"] <= b["size"]
                       and all(is_int(b.get(k)) for k in
                               ("mirrored", "mirror_changes", "pinned"))
                       and b["mirrored"] < 256 and b["pinned"] < 256
                       for b in bufs))
if "write-watch" in d["caps"]:
    # cpu_written and refused count chunks (each once), handoffs events.
    check("json: per-buffer write-watch figures",
          lambda: bufs and all(all(is_int(b.get(k)) for k in
                           ("cpu_written", "handoffs", "refused"))
                       and b["cpu_written"] <= chunks(b)
                       and b["refused"] <= chunks(b)
                       for b in bufs))

# --- 3-5: --watch 1 --count 3 --json under the same workload ---
samples = [x for x in more[1:4] if isinstance(x, dict)]
SAMPLE_KEYS = {"sample", "time", "interval_s", "elapsed_s", "sessions_per_s",
               "bytes_per_s", "evictions_per_s", "cpu_faults_per_s",
               "prefetch", "gpus"}
GPU_KEYS = {"index", "state", "pool_used", "pool_size", "budget",
            "evictions_per_s"}
evicts = "eviction" in d["caps"]


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0


def watch_gpu_ok(w, g):
    return (isinstance(w, dict) and set(w) == GPU_KEYS
            and w["index"] == g["index"]
            and w["state"] in ("idle", "active")
            and w["pool_size"] == g["pool"]["size"]
            and is_int(w["pool_used"]) and w["pool_used"] <= w["pool_size"]
            and (is_int(w["budget"]) and w["budget"] <= w["pool_size"]
                 if evicts else w["budget"] is None)
            and (w["evictions_per_s"] is None or is_num(w["evictions_per_s"])))


def sample_ok(x, interval=1):
    p = x.get("prefetch")
    return (set(x) == SAMPLE_KEYS
            and is_int(x["time"]) and x["interval_s"] == interval
            and is_num(x["elapsed_s"]) and x["elapsed_s"] > 0
            and is_num(x["sessions_per_s"]) and is_num(x["cpu_faults_per_s"])
            and int_map(x["bytes_per_s"], METHODS)
            and (is_num(x["evictions_per_s"]) if evicts
                 else x["evictions_per_s"] is None)
            and isinstance(p, dict) and set(p) == {"hits", "misses", "hit_rate"}
            and is_int(p["hits"]) and is_int(p["misses"])
            and (p["hit_rate"] is None if p["hits"] + p["misses"] == 0 else
                 is_num(p["hit_rate"]) and abs(p["hit_rate"] - p["hits"]
                                               / (p["hits"] + p["misses"])) < 0.001)
            and isinstance(x["gpus"], list) and len(x["gpus"]) == len(gpus)
            and all(watch_gpu_ok(w, g) for w, g in zip(x["gpus"], gpus)))


check("json: --watch --count 3 gave samples 1, 2, 3, in time order",
      lambda: [x.get("sample") for x in samples] == [1, 2, 3]
      and all(is_int(x.get("time")) for x in samples)
      and [x["time"] for x in samples] == sorted(x["time"] for x in samples))
check("json: each --watch sample has exactly the documented keys, rates and per-GPU pools",
      lambda: samples and all(sample_ok(x) for x in samples))
check("json: a --watch sample shows sessions or bytes moving under the workload",
      lambda: any(isinstance(x.get("sessions_per_s"), (int, float))
          and (x["sessions_per_s"] > 0
               or any(v > 0 for v in (x.get("bytes_per_s") or {}).values()))
          for x in samples))

# --- 6: --watch without SECONDS ---
x = more[4] if len(more) > 4 and isinstance(more[4], dict) else {}
# The first sample's deadline is one interval after the first read, and
# its second read comes after the deadline.
check("json: --watch without SECONDS samples every stats_interval seconds (7, set by --attach from [core])",
      lambda: d["module"]["stats_interval"] == 7 and x.get("sample") == 1
      and sample_ok(x, 7) and x["elapsed_s"] >= 7)

for name, ok in results:
    print("%s - %s" % ("ok" if ok else "not ok", name))
sys.exit(0 if all(ok for _, ok in results) else 1)
