#!/usr/bin/env python3
"""Issue 24: the stage tables of emsolve runs side by side.

    stage_table.py LABEL=OUTDIR:LOG [LABEL=OUTDIR:LOG ...]

For each run: summary.json's "stages_s" (this tree) or, for a run of the
code before the stage table, the same stages read from its time_s and its
-v log lines; the silent gaps of the log (two consecutive lines more than
0.5 s apart, the second stating no duration that covers the gap: what
tests/app/test_stages.py forbids); unknowns, nnz(L) and GFlop of the
direct factor (the full system or pmg's coarse set)."""
import json
import re
import sys

STAGES = ["parse", "mesh", "setup", "dofmap", "assembly", "operator", "ordering", "symbolic",
          "numeric", "pc_setup", "solve", "post", "farfield", "writing", "other", "total",
          "overlapped"]
LINE = re.compile(r"^\[\s*(\d+\.\d+)s\] (.*)$")
DUR = re.compile(r"(\d+(?:\.\d+)?) s\b")


def num(pat, text, conv=float, last=False):
    m = re.findall(pat, text)
    return conv(m[-1] if last else m[0]) if m else None


def silent(text):
    gaps, t_prev = [], 0.0
    for raw in text.splitlines():
        m = LINE.match(raw)
        if not m:
            continue
        t, line = float(m.group(1)), m.group(2)
        g = t - t_prev
        if g > 0.5:
            d = max([float(x) for x in DUR.findall(line)] or [0.0])
            if d < g - 0.5:
                gaps.append((g - d, line[:60]))
        t_prev = t
    return gaps


def old_stages(s, log):
    """The stages of a run before the table: time_s and the -v lines."""
    t = s.get("time_s", {})
    st = {k: None for k in STAGES}
    st["parse"] = num(r"parsed in (\d+\.\d+) s", log)
    st["mesh"] = t.get("mesh")
    st["assembly"] = t.get("assembly")
    st["operator"] = t.get("operator")
    st["ordering"] = sum(float(x) for x in re.findall(r"direct: \w+ ordering (\d+\.\d+) s", log)) or None
    st["symbolic"] = sum(float(x) for x in re.findall(r"; symbolic (\d+\.\d+) s", log)) or None
    st["numeric"] = sum(float(x) for x in re.findall(r"numeric factorization (\d+\.\d+) s", log)) or None
    pc = t.get("preconditioner_setup")
    if pc is not None:
        st["pc_setup"] = pc - sum(st[k] or 0 for k in ("ordering", "symbolic", "numeric"))
    st["solve"] = t.get("solve")
    ff = sum(float(x) for x in re.findall(r"far field: \d+ faces, (\d+\.\d+) s", log))
    st["farfield"] = ff or None
    if t.get("post") is not None:
        st["post"] = t["post"] - ff
    st["total"] = t.get("total")
    return st


def run(spec):
    label, rest = spec.split("=", 1)
    out, logf = rest.split(":", 1)
    try:
        log = open(logf, errors="replace").read()
    except OSError:
        log = ""
    try:
        s = json.load(open(out + "/summary.json"))
    except (OSError, ValueError):
        s = {}
    st = s.get("stages_s") or old_stages(s, log)
    n = num(r"order \d: (\d+) unknowns", log, int)
    nnzl = num(r"nnz\(L\) = (\d+)", log, int)
    gf = num(r"nnz\(L\) = \d+ .*?, (\d+\.\d+) GFlop", log)
    nsv = num(r"\((\d+) rows as (\d+) supervariables\)", log, str)
    return label, st, silent(log), n, nnzl, gf, s.get("exit_code")


def fmt(v):
    return "-" if v is None else f"{v:8.2f}"


runs = [run(a) for a in sys.argv[1:]]
print(f"{'stage (s)':12s}" + "".join(f"{r[0]:>14s}" for r in runs))
for k in STAGES:
    print(f"{k:12s}" + "".join(f"{fmt(r[1].get(k)):>14s}" for r in runs))
print(f"{'unknowns':12s}" + "".join(f"{r[3] or '-':>14}" for r in runs))
print(f"{'nnz(L)':12s}" + "".join(f"{r[4] or '-':>14}" for r in runs))
print(f"{'GFlop':12s}" + "".join(f"{r[5] or '-':>14}" for r in runs))
print(f"{'exit code':12s}" + "".join(f"{str(r[6]):>14}" for r in runs))
for r in runs:
    g = r[2]
    print(f"{r[0]}: {len(g)} silent gap(s) over 0.5 s, {sum(x[0] for x in g):.1f} s unexplained"
          + "".join(f"\n    {x[0]:6.2f} s before '{x[1]}'" for x in sorted(g, reverse=True)[:4]))
