#!/usr/bin/env python3
"""The mutation test of the kernel exercises (ctest label `mutation`).

Each exercise's reference answer (tests/kernel_exercises/<lesson>/<id>.cu, never shipped) must pass
the checker; then every mutant of its synchronisation must fail it:

  delete      a barrier, fence or __syncwarp statement removed (its line left empty)
  narrow      a scope made one step narrower: __threadfence_system -> __threadfence ->
              __threadfence_block, thread_scope_system -> _device -> _block, .sys -> .gpu -> .cta
  relax       acquire / release / acq_rel / seq_cst made relaxed (C++ orders and PTX qualifiers)
  mask        a full warp mask 0xffffffff narrowed to 0x0000ffff
  count       a named barrier's thread count one warp smaller (bar.sync 1, 64 -> 1, 32)
  diverge     a barrier moved into a branch that half the threads take

A mutant that passes is a survivor, and fails the test unless tests/kernel_exercises/equivalent.json
lists it (lesson, id, mutant) with the reason it is equivalent (the program is still right); a
listed mutant that is killed fails the test too, so the list stays true.

  mutate.py --binary build/ci/src/cudasync [--backend model|gpu] [--seeds N] [--report FILE.md]

With --backend gpu every reference runs with --seed 1, 2, ..., N (each check runs three seeds on the
GPU and the first on the PTX model too), and its GPU values must equal the PTX model's on every one
(the fact model-agrees); mutants run once. Exit 0 when every reference passes and every mutant is
killed or listed; 1 otherwise; 77 when the binary cannot check kernels here (no NVRTC), saying why.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REFERENCES = os.path.join(ROOT, "tests", "kernel_exercises")
EQUIVALENT = os.path.join(REFERENCES, "equivalent.json")

# (operator, pattern, replacement or None to delete the statement). Patterns match within one line.
# An inline-PTX statement: asm volatile("bar.sync %0, %1;" :: ... : "memory"); (the string may hold ';').
ASM_BARRIER = r"asm\s+volatile\s*\(\s*\"(?:bar|barrier)\.(?:[^\"\\]|\\.)*\"[^;]*\)\s*;"
BARRIERS = [
    r"__syncthreads\s*\(\s*\)\s*;",
    r"__syncwarp\s*\([^;]*\)\s*;",
    r"__threadfence(_block|_system)?\s*\(\s*\)\s*;",
    r"cuda::atomic_thread_fence\s*\([^;]*\)\s*;",
    ASM_BARRIER,
    r"asm\s+volatile\s*\(\s*\"(?:fence|membar)\.(?:[^\"\\]|\\.)*\"[^;]*\)\s*;",
]
NARROW = [
    (r"__threadfence_system\s*\(", "__threadfence("),
    (r"__threadfence\s*\(", "__threadfence_block("),
    (r"thread_scope_system", "thread_scope_device"),
    (r"thread_scope_device", "thread_scope_block"),
    (r"\.sys\b", ".gpu"),
    (r"\.gpu\b", ".cta"),
]
RELAX = [
    (r"memory_order_(acquire|release|acq_rel|seq_cst)", "memory_order_relaxed"),
    # ld/st/atom/red only: a fence has no relaxed form (deleting it is the fence's mutant).
    (r"\b(ld|st|atom|red)\.(acquire|release|acq_rel)\b", r"\1.relaxed"),
]
MASK = [(r"0xffffffff", "0x0000ffff")]
DIVERGE = [
    (r"__syncthreads\s*\(\s*\)\s*;", "if (threadIdx.x % 2 == 0) __syncthreads();"),
    (r"__syncwarp\s*\(([^;]*)\)\s*;", r"if (threadIdx.x % 2 == 0) __syncwarp(\1);"),
    ("(" + ASM_BARRIER + ")", r"if (threadIdx.x % 2 == 0) \1"),
]
# A named barrier's thread count one warp smaller: "r"(64) -> "r"(32) in a bar statement.
COUNT = [(r"(\"(?:bar|barrier)\.[^\"]*\"[^;]*\"r\"\()(\d+)(\))", None)]


def code_part(line):
    """The line without a // comment (mutants change code, not comments)."""
    at = line.find("//")
    return line if at < 0 else line[:at]


def mutants(text):
    """Every single-site mutant of `text`: (name, mutated text)."""
    lines = text.split("\n")
    out = []
    seen = set()

    def add(name, i, new_line):
        if new_line == lines[i]:
            return
        m = lines[:i] + [new_line] + lines[i + 1:]
        body = "\n".join(m)
        if body in seen:
            return
        seen.add(body)
        out.append((f"{name}@{i + 1}", body))

    for i, line in enumerate(lines):
        code = code_part(line)
        rest = line[len(code):]
        for pattern in BARRIERS:
            for m in re.finditer(pattern, code):
                add("delete", i, code[:m.start()] + code[m.end():] + rest)
        for m in re.finditer(COUNT[0][0], code):
            n = int(m.group(2))
            if n > 32:
                add("count", i, code[:m.start(2)] + str(n - 32) + code[m.end(2):] + rest)
        for op, table in (("narrow", NARROW), ("relax", RELAX), ("mask", MASK), ("diverge", DIVERGE)):
            for pattern, repl in table:
                for m in re.finditer(pattern, code):
                    new = code[:m.start()] + m.expand(repl) + code[m.end():]
                    add(op, i, new + rest)
    return out


def exercise_numbers():
    """{(lesson, id): number} of every kernel row of the lessons' manifests."""
    numbers = {}
    lessons = os.path.join(ROOT, "lessons")
    for lesson in sorted(os.listdir(lessons)):
        manifest = os.path.join(lessons, lesson, "lesson.json")
        if not os.path.isfile(manifest):
            continue
        with open(manifest, encoding="utf-8") as f:
            doc = json.load(f)
        for row in doc.get("exercises", []):
            if "kernel" in row:
                numbers[(lesson, row["id"])] = row["number"]
    return numbers


SECONDS = []  # the wall time of every check, for the summary


def check(binary, lesson, number, path, backend, seed, state):
    started = time.monotonic()
    try:
        return check_once(binary, lesson, number, path, backend, seed, state)
    finally:
        SECONDS.append((time.monotonic() - started, f"{lesson} {number} {os.path.basename(path)} seed {seed}"))


def check_once(binary, lesson, number, path, backend, seed, state):
    env = dict(os.environ, XDG_STATE_HOME=state, COLUMNS="200")
    if seed != 1:
        env["CUDASYNC_KERNEL_SANITIZERS"] = ""  # compute-sanitizer once per reference, on its first seed
    cmd = [binary, "exercise", lesson, str(number), "--kernel", path, "--backend", backend,
           "--seed", str(seed), "--json", "-q"]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return 124, "the check did not end in 120 s"
    reason = ""
    try:
        doc = json.loads(p.stdout)
        reason = doc["report"]["sections"]["check"]["checks"]["answer-right"]["detail"]
        agrees = doc["report"]["sections"]["kernel"]["facts"].get("model-agrees")
        if p.returncode == 0 and agrees is not None and agrees["value"] != "yes":
            # A right answer whose GPU values the PTX model did not give: the model is wrong somewhere.
            return 5, "the PTX model's values differ from the GPU's: " + agrees.get("note", "")
    except (ValueError, KeyError, TypeError):
        reason = (p.stderr or p.stdout).strip().splitlines()[-1:] and (p.stderr or p.stdout).strip().splitlines()[-1]
    return p.returncode, reason


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--backend", default="model", choices=["model", "gpu"])
    ap.add_argument("--seeds", type=int, default=3, help="seeds each reference is checked on (3 per check)")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 2))
    ap.add_argument("--report", help="write the mutation table here (markdown)")
    ap.add_argument("--only", help="LESSON/ID: one exercise")
    args = ap.parse_args()

    numbers = exercise_numbers()
    with open(EQUIVALENT, encoding="utf-8") as f:
        equivalent = {(e["lesson"], e["id"], e["mutant"]): e["why"] for e in json.load(f)}
    references = []
    for lesson in sorted(os.listdir(REFERENCES)):
        folder = os.path.join(REFERENCES, lesson)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".cu"):
                ident = name[:-3]
                if args.only and args.only != f"{lesson}/{ident}":
                    continue
                if (lesson, ident) not in numbers:
                    print(f"FAIL {lesson}/{name}: no kernel exercise '{ident}' in lessons/{lesson}/lesson.json")
                    return 1
                references.append((lesson, ident, os.path.join(folder, name)))
    missing = sorted(set(numbers) - {(l, i) for l, i, _ in references})
    if missing and not args.only:
        print("FAIL kernel exercises without a reference answer: " + ", ".join(f"{l}/{i}" for l, i in missing))
        return 1

    failures = 0
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        state = os.path.join(scratch, "state")
        if references:
            lesson, ident, path = references[0]
            code, reason = check(args.binary, lesson, numbers[(lesson, ident)], path, args.backend, 1, state)
            if code in (3, 77):  # no usable GPU for --backend gpu, or no NVRTC: nothing to judge here
                print(f"SKIP: the checker cannot run here (exit {code}): {reason}")
                return 77
        jobs = []  # (kind, lesson, id, mutant name, path, seed)
        for lesson, ident, path in references:
            # On the GPU, every seed: each check runs seeds s..s+2 on the GPU, and the PTX model beside
            # it on seed s, whose values must equal the GPU's (model-agrees).
            seeds = list(range(1, args.seeds + 1)) if args.backend == "gpu" else [1]
            for seed in seeds:
                jobs.append(("reference", lesson, ident, "reference", path, seed))
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for name, body in mutants(text):
                mpath = os.path.join(scratch, f"{lesson}.{ident}.{name.replace('@', '_')}.cu")
                with open(mpath, "w", encoding="utf-8") as f:
                    f.write(body)
                jobs.append(("mutant", lesson, ident, name, mpath, 1))
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda j: (j, check(args.binary, j[1], numbers[(j[1], j[2])], j[4],
                                                         args.backend, j[5], state)), jobs))
        per = {}
        for (kind, lesson, ident, name, path, seed), (code, reason) in results:
            if code == 77:
                print(f"SKIP {lesson}/{ident} {name}: the checker cannot run here: {reason}")
                return 77
            s = per.setdefault((lesson, ident), {"mutants": 0, "killed": 0, "equivalent": 0, "survivors": [],
                                                 "reference": True})
            if kind == "reference":
                if code != 0:
                    s["reference"] = False
                    failures += 1
                    print(f"FAIL {lesson}/{ident}: the reference answer is judged wrong (seed {seed}, exit {code}): {reason}")
                continue
            s["mutants"] += 1
            listed = equivalent.get((lesson, ident, name))
            if code == 1:
                s["killed"] += 1
                if listed:
                    failures += 1
                    print(f"FAIL {lesson}/{ident} {name}: listed as equivalent but killed: {reason}")
            elif code == 0 and listed:
                s["equivalent"] += 1
            else:
                s["survivors"].append(name)
                failures += 1
                print(f"FAIL {lesson}/{ident} {name}: the mutant survives (exit {code}): {reason}")
    print(f"{'exercise':44} {'mutants':>7} {'killed':>6} {'equiv':>5} {'score':>6}")
    for (lesson, ident), s in sorted(per.items()):
        score = 100.0 * (s["killed"] + s["equivalent"]) / s["mutants"] if s["mutants"] else 100.0
        line = f"{lesson + '/' + ident:44} {s['mutants']:7} {s['killed']:6} {s['equivalent']:5} {score:5.0f}%"
        print(line)
        rows.append((lesson, ident, numbers[(lesson, ident)], s, score))
    total = sum(s["mutants"] for _, _, _, s, _ in rows)
    killed = sum(s["killed"] for _, _, _, s, _ in rows)
    equiv = sum(s["equivalent"] for _, _, _, s, _ in rows)
    summary = (f"mutation: {len(rows)} exercises, {total} mutants, {killed} killed, {equiv} equivalent, "
          f"{total - killed - equiv} surviving; references {'all pass' if all(s['reference'] for _, _, _, s, _ in rows) else 'FAIL'} "
          f"({args.backend}); a check took {min(SECONDS)[0]:.2f}-{max(SECONDS)[0]:.2f} s (the longest: "
          f"{max(SECONDS)[1]}), median {sorted(SECONDS)[len(SECONDS) // 2][0]:.2f} s, {args.jobs} at once")
    print(summary)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write("| exercise | mutants | killed | equivalent | score |\n|---|---|---|---|---|\n")
            for lesson, ident, number, s, score in rows:
                f.write(f"| {lesson} {number} `{ident}` | {s['mutants']} | {s['killed']} | {s['equivalent']} | {score:.0f} % |\n")
            f.write("\n" + summary + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
