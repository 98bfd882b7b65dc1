#!/usr/bin/python3
"""Parse the JSON written by post_sample (em_json_*) with Python's strict
json reader and compare it with what post_sample.c wrote: nesting, escaping
of quotes, backslashes and control characters, UTF-8 kept and invalid bytes
replaced, non-finite numbers as null, doubles exact and integers exact.

usage: check_json.py POST_SAMPLE
"""
import json
import math
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def no_constants(name):  # NaN / Infinity are not JSON
    raise ValueError(f"non-JSON constant {name}")


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ)
    env.setdefault("LSAN_OPTIONS",
                   f"suppressions={os.environ.get('EM_SOURCE_DIR', '')}/tests/lsan.supp")
    r = subprocess.run([sys.argv[1], "json", tmp], env=env)
    if r.returncode != 0:
        print(f"FAIL: {sys.argv[1]} json returned {r.returncode}")
        sys.exit(1)
    raw = open(os.path.join(tmp, "doc.json"), "rb").read()
    check(sorted(os.listdir(tmp)) == ["doc.json"], f"files: {os.listdir(tmp)}")

text = raw.decode("utf-8")  # must be valid UTF-8
doc = json.loads(text, parse_constant=no_constants)

# what post_sample.c wrote, in order
controls = "".join(chr(c) for c in range(1, 32)) + "\x7f"
expect = {
    "name": "emsolve",
    "quote": 'say "hi"',
    "backslash": "C:\\dir\\file /x",
    "controls": controls,
    "utf8": "\u00b5-\u03a9-\U0001F600",
    "bad_utf8": "a\ufffd b\ufffd( c\ufffd\ufffd\ufffd d\ufffd\ufffd",
    "tab\tkey\"": 1,
    "numbers": [0.1, 1 / 3, -0.0, 1e-300, 5e-324, sys.float_info.max, 3.0, -2.5e20, 123456789.0,
                1e21, 2 / 3 * 1e-7],
    "nonfinite": [None, None, None],
    "ints": [0, -1, 2**63 - 1, -2**63, 9007199254740993],
    "bools": [True, False, True],
    "null_string": None,
    "empty_object": {},
    "empty_array": [],
    "deep": None,  # checked below
    "objects": [{"k0": 0}, {"k1": 1}, {"k2": 2}],
    "auto_closed": {"list": [1.5]},
}
check(list(doc.keys()) == list(expect.keys()), f"keys {list(doc.keys())}")
for k, v in expect.items():
    if k in ("deep", "numbers"):
        continue
    check(doc.get(k) == v and type(doc.get(k)) is type(v), f"{k!r}: {doc.get(k)!r}, expected {v!r}")

nums = doc["numbers"]
check(len(nums) == len(expect["numbers"]), "numbers: count")
for got, want in zip(nums, expect["numbers"]):
    check(type(got) is float and got == want and math.copysign(1, got) == math.copysign(1, want),
          f"number {got!r} != {want!r}")
for short in ("0.1,", "3.0,", "-0.0,", "123456789.0,", "1e+21"):
    check(short in text, f"number not in its short form: {short}")
for i in doc["ints"]:
    check(type(i) is int, f"int {i!r} is not an integer")

d, depth = doc["deep"], 2  # the top-level object is depth 1
while isinstance(d, list):
    check(len(d) == 1, f"deep: {len(d)} elements at depth {depth}")
    d, depth = d[0], depth + 1
check(d == 42 and depth - 1 == 31, f"deep: {d!r} at depth {depth - 1}, expected 42 at 31")

# escapes written as JSON escapes, no raw control characters in the file
check(not any(ord(c) < 0x20 and c != "\n" for c in text), "raw control character in the file")
check('"tab\\tkey\\"": 1' in text, "key escaping")
check('"controls": "\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e'
      in text, "control characters not in their short escapes")

print(f"check_json: {len(failures)} failures")
sys.exit(1 if failures else 0)
