#!/usr/bin/env python3
"""The YAML subset reader (src/common/yaml.c, through tests/yaml2json) against PyYAML.

Every accepted snippet below must give the same tree as yaml.safe_load (keys compared as
strings: the reader's keys are always strings). The snippets avoid the places where
PyYAML's YAML 1.1 and the reader's YAML 1.2 core schema disagree on purpose (yes/no/on/off,
leading-zero octals, 1.5e3 without an exponent sign, mixed-case True). Every rejected
snippet must fail with TSCHED_E_PARSE naming its line; PyYAML is not asked about those
(it accepts most of them: they are outside the subset, not bad YAML).
usage: yaml_check.py YAML2JSON   (exit 77 when PyYAML is missing)
"""
import json
import os
import subprocess
import sys
import tempfile

ACCEPTED = [
    "a: 1\n",
    "# comment\n---\na: b  # trailing comment\n...\n# after the end\n",
    "- 1\n- two\n- 3.25\n- -4\n- +5\n- true\n- false\n- TRUE\n- null\n- ~\n-\n",
    "a:\n  b:\n    c: d\n  e: f\ng: h\n",
    "a:\n- x\n- y\nb: z\n",
    "a:\n    - x\n    -   y\n",
    "- a: 1\n  b: 2\n- c: 3\n",
    "- - 1\n  - 2\n- - 3\n",
    "- \n  a: 1\n",
    "s: 'it''s'\nd: \"q\\\"x\\\\y\\tz\\u00e9\\U0001F600\\x41\"\n",
    "k: [4, 16, 'a b', \"c\", d e]\nempty: []\ntrail: [1, 2, ]\n",
    "\"quoted key\": 1\n'single key': 2\nkey with spaces: 3\n",
    "url: http://example.com/x#y\ncolon: a:b\nhash: a#b\n",
    "nvidia.com/gpu: \"8\"\nexample.com/rack: r1\n",
    "e:\nf: \n",
    "\ufeffa: 1\r\nb:\r\n  - c\r\n",
    "n: -0\nm: 12345678901234\nr: .5\nq: 2.\n",
    "x: -a\n",
    "- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n      - switch: blk1\n"
    "        children: rk[1-2]\n      - switch: rk1\n        nodes: gpu[01-04]\n"
    "- topology: nvlink\n  block:\n    block_sizes: [4, 8]\n    blocks:\n      - block: nvl1\n"
    "        nodes: gpu[01-04]\n      - block: nvl2\n        nodes: gpu[05-08]\n",
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Topology\nmetadata:\n  name: \"default\"\nspec:\n"
    "  levels:\n  - nodeLabel: \"cloud.provider.com/topology-block\"\n"
    "  - nodeLabel: \"cloud.provider.com/topology-rack\"\n  - nodeLabel: \"kubernetes.io/hostname\"\n",
    "",
    "# only a comment\n",
    "plain\n",
    "  a: 1\n  b: 2\n",
]

REJECTED = [  # (text, line named in the message)
    ("a: &x 1\n", 1),
    ("a: *x\n", 1),
    ("a: !!str 1\n", 1),
    ("a: {b: 1}\n", 1),
    ("a: |\n  text\n", 1),
    ("a: >\n  text\n", 1),
    ("a: b\n  c\n", 2),
    ("a: \"b\n  c\"\n", 1),
    ("a: 'b\n  c'\n", 1),
    ("a:\n\tb: 1\n", 2),
    ("---\na: 1\n---\nb: 2\n", 3),
    ("a: 1\n...\nb: 2\n", 3),
    ("%YAML 1.2\n---\na: 1\n", 1),
    ("a: 1\na: 2\n", 2),
    ("a: [1, [2]]\n", 1),
    ("a: [1, {b: 2}]\n", 1),
    ("a: [1,\n  2]\n", 1),
    ("a: [1,, 2]\n", 1),
    ("? a\n: 1\n", 1),
    ("a: b: c\n", 1),
    ("- a\n - b\n", 2),
    ("a:\n  b: 1\n c: 2\n", 3),
    ("a: 1\n- b\n", 2),
    ("a: \"\\q\"\n", 1),
    ("a: \"\\u0000\"\n", 1),
    ("a: \"x\" y\n", 1),
    ("key: - a\n", 1),
    ("a: \x01\n", 1),
    ("a: \xff\n", 1),
]


def run(tool, text, tmp):
    path = os.path.join(tmp, "in.yaml")
    with open(path, "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
    r = subprocess.run([tool, path], capture_output=True, text=True)
    return r.returncode, r.stdout.strip()


def norm(v):
    if isinstance(v, dict):
        return {str(k): norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v


def main():
    tool = sys.argv[1]
    try:
        import yaml
    except ImportError:
        print("SKIP: PyYAML (python3-yaml) is not installed")
        return 77
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for text in ACCEPTED:
            rc, out = run(tool, text, tmp)
            want = norm(yaml.safe_load(text.lstrip("\ufeff")))
            if rc != 0:
                print(f"FAIL: rejected {text!r}: {out}")
                fails += 1
                continue
            got = json.loads(out)
            if got != want:
                print(f"FAIL: {text!r}: reader {got!r}, PyYAML {want!r}")
                fails += 1
        for text, line in REJECTED:
            raw = text.encode("latin-1") if "\xff" in text else text
            rc, out = run(tool, raw, tmp)
            if rc == 0 or not out.startswith("error 3: ") or f"line {line}:" not in out:
                print(f"FAIL: {text!r} should be rejected naming line {line}: {out}")
                fails += 1
            elif "\n" in out:
                print(f"FAIL: {text!r}: message on more than one line")
                fails += 1
    print(f"{len(ACCEPTED)} accepted and {len(REJECTED)} rejected snippets, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
