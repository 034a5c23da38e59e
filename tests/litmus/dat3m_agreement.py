#!/usr/bin/env python3
"""cudasync's PTX model beside Dat3M's: every PTX litmus test that dartagnan's
PTXv6_0-expected.csv lists is judged with `cudasync litmus FILE --json`, and whether its condition
holds as written is compared with the CSV's expected result (1: holds, 0: does not). A test outside
cudasync's subset (a loop, a register barrier id, a thread count, a proxy) is counted apart.

  python3 tests/litmus/dat3m_agreement.py --binary build/ci/src/cudasync --dat3m ~/Dat3M

Exit 0 when no test disagrees, 1 when one does, 77 (skipped) without a Dat3M checkout
(CUDASYNC_DAT3M or --dat3m)."""
import argparse
import json
import os
import re
import subprocess
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--binary", required=True)
    p.add_argument("--dat3m", default=os.environ.get("CUDASYNC_DAT3M", ""))
    a = p.parse_args()
    csv = os.path.join(a.dat3m, "dartagnan/src/test/resources/PTXv6_0-expected.csv")
    if not a.dat3m or not os.path.exists(csv):
        print("dat3m_agreement: no Dat3M checkout (set CUDASYNC_DAT3M to one): skipped")
        return 77
    agree, disagree, outside = [], [], []
    for line in open(csv):
        line = line.strip()
        if not line:
            continue
        name, expected = line.rsplit(",", 1)
        r = subprocess.run([a.binary, "litmus", os.path.join(a.dat3m, name), "--json", "--backend", "model"],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            reason = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
            outside.append((name, reason))
            continue
        facts = json.loads(r.stdout)["report"]["sections"]["model"]["facts"]
        holds = 1 if facts["condition-holds"]["value"] == "yes" else 0
        (agree if holds == int(expected) else disagree).append((name, holds, int(expected)))
    for name, got, want in disagree:
        print(f"DISAGREE {name}: cudasync {got}, Dat3M {want}")
    reasons = {}
    for name, why in outside:
        m = re.search(r"\.litmus:\d+:\d+: (.*)", why)
        key = (m.group(1) if m else why)[:80]
        reasons[key] = reasons.get(key, 0) + 1
    for why, n in sorted(reasons.items(), key=lambda x: -x[1]):
        print(f"outside the subset ({n}): {why}")
    total = len(agree) + len(disagree) + len(outside)
    print(f"dat3m_agreement: {total} tests of PTXv6_0-expected.csv: {len(agree)} agree, "
          f"{len(disagree)} disagree, {len(outside)} outside cudasync's subset")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
