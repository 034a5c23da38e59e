#!/usr/bin/env python3
"""Fuzz cudasync's command line from its own definition.

Reads `cudasync --cli-spec` (every command, option, accepted value and range, walked from CLI11
at run time, so a new option is fuzzed without an edit here), draws argument vectors from it:
valid values, values just outside a range, hostile ones (empty, huge, negative, not UTF-8, very
long, unicode, control characters), options repeated, misplaced, without their value, unknown
ones, --json in every form. Runs each under a wall-clock timeout and a memory limit, in parallel,
and fails on

  - a signal (a crash, an abort, a sanitizer's abort) or a sanitizer report on stderr,
  - a timeout,
  - an exit code outside 0, 1, 2, 3, 77,
  - a --json run without exactly one valid document where one is due (the document's exit code
    must be the process's), or a --json run that cannot deliver one exiting 0,
  - a non-zero exit with nothing on stderr,
  - a usage error (exit 2) that does not say what is accepted.

A share of the runs (--surfaces) fuzz what surrounds the command line, each with its own
expectation: a hostile progress state (fields of the wrong type, counts past 32 bits, garbage,
a file over the 16 MiB bound, a FIFO) under a course command, which must neither fail internally
nor lose the state (it is kept as it was or set aside); two outputs that are one file under two
names (./x, a symlink, a hard link), refused naming both options without destroying the file; a
FIFO that no process reads as an output, refused rather than waited on; an option given an empty
value, refused saying what is accepted.

Every failure prints its argv as a shell command line, to reproduce it. The seed is fixed
(--seed, default 1); CUDASYNC_FUZZ_SEED overrides it. Exit 0 all good, 1 failures, 77 skipped
(the GPU variant without a GPU).
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import resource
import shlex
import shutil
import sqlite3
import signal
import subprocess
import sys
import tempfile
import threading
import time

ALLOWED_EXITS = {0, 1, 2, 3, 77}
SKIP = 77

# Paths that must not exist are relative ("missing/x"): every run has a fresh folder of its own as
# its working directory, so no other process on the machine can create them.
HOSTILE = [
    "", " ", "-1", "-0", "0", "1", "+1", "2147483647", "2147483648", "-2147483649", "4294967296",
    "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
    "99999999999999999999999999999999", "1e9", "1.5", "0x10", "0xffffffff", "nan", "inf", "-inf",
    " 1", "1 ", "01", "1,2", ",", ",,", "=", "-", "--", "'", '"', "\\", "%s%n", "$(id)", "`id`",
    "\t", "\n", "\x1b[31m", "\x7f", "é", "ü½€", "😀", "\u202e", "１２", "\ufeff",
    "\udcff", "x\udcc3", "\udcc0\udcaf",  # bytes that are not UTF-8 (surrogateescape: 0xff, 0xc3, 0xc0 0xaf)
    "a" * 300, "9" * 5000, "lane<" + "9" * 40, "/dev/full", "missing/x", ".", "..",
]
# For options whose accepted values the spec cannot say (a check written as a lambda).
COMMON_WORDS = ["0", "1", "2", "3", "7", "16", "31", "32", "33", "64", "96", "128", "1024", "4096", "65536",
                "1048576", "16777216", "0xffffffff", "0xffff0000", "32,64", "64,128", "0,1", "even", "odd", "true",
                "false", "random", "tid", "lane<3", "lane>=8", "lane%2", "lane==0"]


def os_arg(s):
    """An argv element as bytes: surrogate escapes stand for bytes that are not UTF-8."""
    return s.encode("utf-8", "surrogateescape")


def shell_line(argv):
    """The argv as a bash command line, $'...' where a byte needs it."""
    out = []
    for a in argv:
        b = os_arg(a)
        if b and all(32 < c < 127 and chr(c) not in "'\"\\$`!*?[]{}()<>|&;#~ " for c in b):
            out.append(b.decode())
        elif all(32 <= c < 127 for c in b) and b"'" not in b:
            out.append("'" + b.decode() + "'")
        else:
            out.append("$'" + "".join(chr(c) if 32 <= c < 127 and chr(c) not in "'\\" else "\\x%02x" % c
                                      for c in b) + "'")
    return " ".join(out)


class Spec:
    def __init__(self, spec):
        self.globals = [o for o in spec["options"] if not o.get("positional")]
        self.commands = [c for c in spec["commands"] if not c.get("hidden")]
        self.after_command = spec.get("options_after_command", True)


def names_of(o):
    return ["--" + n for n in o.get("long", [])] + ["-" + n for n in o.get("short", [])]


def in_range_values(o, rng):
    r = o.get("range")
    if not r:
        return []
    lo, hi = r["min"], r["max"]
    if isinstance(lo, float) or isinstance(hi, float):
        return [str(lo), str(hi)]
    vals = [lo, hi, (lo + hi) // 2, lo + 1 if lo < hi else lo]
    if hi - lo > 4:
        vals.append(rng.randint(lo, min(hi, lo + 4096)))
    return [str(v) for v in vals]


def edge_values(o):
    r = o.get("range")
    if not r or isinstance(r["min"], float) or isinstance(r["max"], float):
        return []
    lo, hi = r["min"], r["max"]
    return [str(v) for v in (lo - 1, hi + 1, hi * 2 + 1, -hi, hi + 2 ** 32)]


def value_for(o, rng, hostile_share):
    """One value for an option: accepted (mostly), at an edge, or hostile."""
    if rng.random() < hostile_share:
        if rng.random() < 0.3 and edge_values(o):
            return rng.choice(edge_values(o))
        return rng.choice(HOSTILE)
    values = o.get("values") or []
    choices = list(values) + in_range_values(o, rng)
    if not choices:
        choices = COMMON_WORDS
    v = rng.choice(choices)
    if o.get("delimiter") and values and rng.random() < 0.3:
        v = o["delimiter"].join(rng.sample(values, min(len(values), rng.randint(1, 3))))
    return v


def render_option(o, rng, hostile_share, json_file):
    """The tokens of one option, in a form drawn at random: --name VALUE, --name=VALUE, -s VALUE."""
    names = names_of(o)
    if not names:
        return []
    name = rng.choice(names)
    if o.get("optional_value"):  # --json or --json=FILE
        r = rng.random()
        if r < 0.55:
            return [name]
        if r < 0.85:
            return [name + "=" + json_file]
        return [name + "=" + rng.choice(["", "/dev/full", "missing/dir/x.json", ".", "x\udcff.json"])]
    if not o.get("takes_value"):
        if rng.random() < 0.03:
            return [name + "=" + rng.choice(["1", "0", "yes", "", "\udcff"])]
        return [name]
    v = value_for(o, rng, hostile_share)
    if rng.random() < 0.03:
        return [name]  # the value left out
    if name.startswith("--") and rng.random() < 0.3:
        return [name + "=" + v]
    return [name, v]


def pick_options(options, rng, most):
    usable = [o for o in options if names_of(o)]
    if not usable:
        return []
    k = rng.randint(0, most)
    picked = []
    for _ in range(k):
        o = rng.choice(usable)
        rare = o.get("hidden") or any(n in ("--help", "-h", "--version", "--cli-spec") for n in names_of(o))
        if rare and rng.random() > 0.05:
            continue
        picked.append(o)
    return picked


def draw(spec, rng, backend, json_file, force_model):
    """One argument vector (without the program)."""
    hostile_share = rng.choice([0.0, 0.0, 0.1, 0.3])
    r = rng.random()
    command = None
    lessons = [c for c in spec.commands if c.get("lesson")]
    tools = [c for c in spec.commands if not c.get("lesson")]
    if r < 0.72 and lessons:
        command = rng.choice(lessons)
    elif r < 0.95 and tools:
        command = rng.choice(tools)
    before, after = [], []
    for o in pick_options(spec.globals, rng, 3):
        toks = render_option(o, rng, hostile_share, json_file)
        (after if command and spec.after_command and rng.random() < 0.5 else before).extend(toks)
    middle = []
    if command:
        positionals = [o for o in command["options"] if o.get("positional")]
        for p in positionals:
            if rng.random() < 0.9:
                middle.append(value_for(p, rng, hostile_share))
        for o in pick_options([o for o in command["options"] if not o.get("positional")], rng, 4):
            middle.extend(render_option(o, rng, hostile_share, json_file))
    if rng.random() < 0.35 and "--json" not in " ".join(before + after + middle):
        after.append("--json" if rng.random() < 0.7 else "--json=" + json_file)
    argv = before + ([command["name"]] if command else []) + middle + after
    # Structural mutations: repeat, drop, insert unknown words, "--", a second command.
    if rng.random() < 0.15 and argv:
        i = rng.randrange(len(argv))
        argv.insert(rng.randrange(len(argv) + 1), argv[i])
    if rng.random() < 0.05 and argv:
        del argv[rng.randrange(len(argv))]
    if rng.random() < 0.05:
        argv.insert(rng.randrange(len(argv) + 1), rng.choice(["--frobnicate", "-Z", "stray", "--", "--=x", "-"]))
    if rng.random() < 0.03 and spec.commands:
        argv.append(rng.choice(spec.commands)["name"])
    if rng.random() < 0.03:
        rng.shuffle(argv)
    if backend == "gpu":
        argv += ["--backend", "gpu"]
    elif force_model or rng.random() < 0.9:
        argv += ["--backend", "model"]  # the last --backend counts: the runs stay on the model
    return argv


# ---------------------------------------------------------------- surfaces beyond the argv

STATE_HEAD = b'{"format":"cudasync-progress","version":1,"lessons":{"warp-primitives":{"shfl-src-lane-modulo":'


def record_state(record):
    return STATE_HEAD + record + b"}}}"


# (name, bytes, corrupt): what the progress file of cudasync before the database (progress.json)
# may hold. "corrupt" ones must be set aside, never lost; the others are states cudasync reads (a
# count at its largest must stay there) and brings into the database.
HOSTILE_STATES = [
    ("solved-string", record_state(b'{"solved":"yes"}'), True),
    ("last-right-number", record_state(b'{"last_right":1}'), True),
    ("answer-null", record_state(b'{"last_answer":null}'), True),
    ("when-number", record_state(b'{"when":5}'), True),
    ("attempts-string", record_state(b'{"attempts":"many"}'), True),
    ("attempts-float", record_state(b'{"attempts":1.5}'), True),
    ("attempts-1e20", record_state(b'{"attempts":1e20}'), True),
    ("attempts-negative", record_state(b'{"attempts":-1}'), True),
    ("attempts-2^31", record_state(b'{"attempts":2147483648}'), True),
    ("attempts-3e9", record_state(b'{"attempts":3000000000}'), True),
    ("attempts-2^64", record_state(b'{"attempts":18446744073709551616}'), True),
    ("attempts-largest", record_state(b'{"solved":false,"last_right":false,"attempts":2147483647,'
                                      b'"last_answer":"1","when":""}'), False),
    ("record-array", record_state(b'[]'), True),
    ("lessons-number", b'{"format":"cudasync-progress","version":1,"lessons":7}', True),
    ("version-0", b'{"format":"cudasync-progress","version":0,"lessons":{}}', True),
    ("version-newer", b'{"format":"cudasync-progress","version":99,"lessons":{}}', False),
    ("not-json", b"{not json", True),
    ("empty", b"", True),
    ("not-utf8", b"\xff\xfe garbage", True),
    ("nested", b"[" * 100000 + b"]" * 100000, True),
    ("random", None, True),  # bytes drawn from the run's seed
    ("over-the-bound", "sparse", True),  # 16 MiB + 1 byte, sparse
    ("fifo", "fifo", False),
    ("folder", "folder", False),
]


def sqlite_file(*statements):
    """The bytes of a SQLite database made by `statements`: another program's, or a newer cudasync's."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "db")
        c = sqlite3.connect(path)
        for st in statements:
            c.execute(st)
        c.commit()
        c.close()
        with open(path, "rb") as f:
            return f.read()


# (name, bytes, corrupt): what the progress database (progress.db) may hold.
HOSTILE_DATABASES = [
    ("db-garbage", None, True),
    ("db-header-only", b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\x00" * 80, True),
    ("db-other-program", sqlite_file("CREATE TABLE notes (text TEXT)", "INSERT INTO notes VALUES ('mine')"), True),
    ("db-newer", sqlite_file("PRAGMA application_id = 1668637811", "PRAGMA user_version = 99",
                             "CREATE TABLE exercise (x INTEGER)"), False),
    ("db-empty", b"", False),  # an empty file is an empty database: a fresh start
    ("db-fifo", "fifo", False),
    ("db-folder", "folder", False),
]
OUTPUT_OPTIONS = ["--json", "--html", "--markdown", "--csv"]
# Names of one file: "report" itself, then spelled another way, a symlink and a hard link.
ALIASES = ["./report", "sub/../report", "link", "hard"]
CHEAP_COMMANDS = [["list"], ["devices"], ["warp-primitives", "--part", "ballot", "--backend", "model"],
                  ["explain", "lock"]]
# What a finished run must not leave beside the database: SQLite's journal of an unfinished change.
TEMPORARY = re.compile(r"^progress\.db-(journal|wal|shm)$")


def recorded_attempts(d):
    """warp-primitives 1's attempts in the state folder `d`: from the database, or from progress.json
    where no run has brought it in yet; None when neither can say."""
    try:
        if os.path.exists(os.path.join(d, "progress.db")):
            c = sqlite3.connect("file:%s?mode=ro" % os.path.join(d, "progress.db"), uri=True)
            row = c.execute("SELECT attempts FROM exercise WHERE lesson = 'warp-primitives' AND "
                            "exercise = 'shfl-src-lane-modulo'").fetchone()
            c.close()
            return row[0] if row else None
        with open(os.path.join(d, "progress.json"), "rb") as f:
            return json.loads(f.read())["lessons"]["warp-primitives"]["shfl-src-lane-modulo"]["attempts"]
    except (sqlite3.Error, OSError, ValueError, KeyError, TypeError):
        return None


class Surface:
    """One run beyond the argv: prepare() sets its folder up, inspect() says what went wrong."""

    def __init__(self, kind, argv, **facts):
        self.kind = kind
        self.argv = argv
        self.facts = facts

    def state_dir(self, workdir):
        return os.path.join(workdir, "state", "cudasync")

    def prepare(self, workdir):
        if self.kind == "state":
            d = self.state_dir(workdir)
            os.makedirs(d)
            path = os.path.join(d, self.facts["file"])
            text = self.facts["text"]
            if text == "fifo":
                os.mkfifo(path)
            elif text == "folder":
                os.makedirs(path)
            elif text == "sparse":
                with open(path, "wb") as f:
                    f.write(STATE_HEAD)
                    f.truncate((16 << 20) + 1)
            else:
                with open(path, "wb") as f:
                    f.write(text)
        elif self.kind == "alias":
            with open(os.path.join(workdir, "report"), "wb") as f:
                f.write(b"an earlier report")
            os.symlink("report", os.path.join(workdir, "link"))
            os.link(os.path.join(workdir, "report"), os.path.join(workdir, "hard"))
            os.makedirs(os.path.join(workdir, "sub"))
        elif self.kind == "fifo":
            os.mkfifo(os.path.join(workdir, "f"))

    def env(self, workdir, env):
        if self.kind != "state":
            return env
        return dict(env, XDG_STATE_HOME=os.path.join(workdir, "state"))

    def inspect(self, workdir, r):
        """Problems with run `r` (exit code, stderr) given what this surface expects."""
        if r["timed_out"] or r["code"] < 0:
            return []  # already a failure of its own
        out = []
        err = r["err"]
        if self.kind == "state":
            if b"internal error" in err:
                out.append("state %s: internal error" % self.facts["name"])
            out += self.state_kept(workdir, r)
        elif self.kind == "alias":
            a, b = self.facts["options"]
            if r["code"] != 2:
                out.append("outputs %s and %s are one file, yet exit %d" % (a, b, r["code"]))
            for o in (a, b):
                if os.fsencode(o.split("=")[0]) not in err:
                    out.append("outputs that are one file: stderr does not name %s" % o)
            report = os.path.join(workdir, "report")
            with open(report, "rb") as f:
                text = f.read()
            if not any(o.startswith("--json=") for o in (a, b)) and text != b"an earlier report":
                out.append("outputs that are one file: the file was changed (%d bytes)" % len(text))
        elif self.kind == "fifo":
            if r["code"] != 2:
                out.append("a FIFO without a reader as %s, yet exit %d" % (self.facts["option"], r["code"]))
        elif self.kind == "empty":
            if r["code"] != 2:
                out.append("%s with an empty value, yet exit %d" % (self.facts["option"], r["code"]))
            elif os.fsencode(self.facts["option"]) not in err:
                out.append("%s with an empty value: stderr does not name it" % self.facts["option"])
        return out

    def state_kept(self, workdir, r):
        d = self.state_dir(workdir)
        text = self.facts["text"]
        if text in ("fifo", "folder") or not os.path.isdir(d):
            return []
        names = os.listdir(d)
        left = [n for n in names if TEMPORARY.match(n)]
        out = ["state %s: temporaries left behind: %s" % (self.facts["name"], left)] if left else []
        if "--reset" in self.argv:
            return out
        kept = [os.path.join(d, n) for n in names
                if n in ("progress.json", "progress.db") or n.startswith(("progress.json.corrupt-", "progress.db.corrupt-"))]
        if self.facts["corrupt"]:
            if text == "sparse":
                found = any(os.path.getsize(k) == (16 << 20) + 1 for k in kept)
            else:
                found = False
                for k in kept:
                    with open(k, "rb") as f:
                        found = found or f.read() == text
            if not found:
                out.append("state %s: the corrupt state was lost (neither kept nor set aside)" % self.facts["name"])
        elif self.facts["name"] == "db-newer":
            with open(os.path.join(d, "progress.db"), "rb") as f:
                if f.read() != text:
                    out.append("state db-newer: a newer cudasync's database was changed")
        elif self.facts["name"] == "attempts-largest" and r["code"] in (0, 1):
            attempts = recorded_attempts(d)
            if attempts != 2147483647:
                out.append("state attempts-largest: attempts became %r" % (attempts,))
        return out


def command_named(spec, name):
    return next((c for c in spec.commands if c["name"] == name), None)


def positional_values(command, name):
    for o in (command or {}).get("options", []):
        if o.get("positional") and o.get("name") == name:
            return o.get("values") or []
    return []


def draw_surface(spec, rng):
    """One run of a surface beyond the argv, with what it must give."""
    kind = rng.choice(["state", "state", "alias", "fifo", "empty"])
    if kind == "state":
        file = rng.choice(["progress.json", "progress.db"])
        name, text, corrupt = rng.choice(HOSTILE_STATES if file == "progress.json" else HOSTILE_DATABASES)
        if text is None:
            text = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        lessons = positional_values(command_named(spec, "check"), "lesson") or ["warp-primitives"]
        lesson = rng.choice(lessons)
        argv = rng.choice([["progress"], ["list"], [], ["exercise"], ["exercise", lesson],
                           ["check", lesson, "1", rng.choice(COMMON_WORDS)],
                           ["check", "warp-primitives", "1", "0"], ["progress", "--reset"]])
        if rng.random() < 0.3:
            argv = argv + ["--json"]
        return Surface("state", argv + ["--backend", "model"], name=name, text=text, corrupt=corrupt, file=file)
    if kind == "alias":
        first, second = rng.sample(OUTPUT_OPTIONS, 2)
        names = rng.sample(["report"] + ALIASES, 2)
        options = [first + "=" + names[0], second + "=" + names[1]]
        return Surface("alias", rng.choice(CHEAP_COMMANDS) + options, options=options)
    if kind == "fifo":
        option = rng.choice(OUTPUT_OPTIONS)
        return Surface("fifo", rng.choice(CHEAP_COMMANDS) + [option + "=f"], option=option)
    # Commands without a required argument: its absence would be the error, not the empty value.
    command = rng.choice([c for c in spec.commands
                          if not any(o.get("positional") and o.get("required") for o in c["options"])])
    options = [o for o in command["options"] + spec.globals
               if names_of(o) and o.get("takes_value") and not o.get("optional_value") and not o.get("hidden")]
    o = rng.choice(options)
    name = "--" + o["long"][0] if o.get("long") else names_of(o)[0]
    empty = [name + "="] if name.startswith("--") and rng.random() < 0.5 else [name, ""]
    return Surface("empty", [command["name"], "--backend", "model"] + empty, option=name)


def json_target(argv):
    """What the binary must do with --json: None, "-", a file name, or "" (--json= : no file).
    The last --json wins; nothing after "--" counts."""
    target = None
    for a in argv:
        if a == "--":
            break
        if a == "--json":
            target = "-"
        elif a.startswith("--json="):
            target = a[len("--json="):]
    return target


class Limits:
    def __init__(self, memory_mb, sanitized):
        self.memory = memory_mb * 1024 * 1024
        self.sanitized = sanitized

    def __call__(self):  # in the child, before exec
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
        if self.memory and not self.sanitized:  # ASan reserves terabytes of address space
            resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))


def run_one(binary, argv, workdir, timeout, limits, env, wrapper, surface=None):
    os.makedirs(workdir, exist_ok=True)
    if surface:
        surface.prepare(workdir)
        env = surface.env(workdir, env)
    cmd = [os.fsencode(x) for x in wrapper] + [os.fsencode(binary)] + [os_arg(a) for a in argv]
    started = time.monotonic()
    p = subprocess.Popen(cmd, cwd=workdir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, preexec_fn=limits, env=env)
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
    files = {}
    target = json_target(argv)
    if target not in (None, "", "-"):
        path = os.path.join(workdir, os_arg(target).decode("utf-8", "surrogateescape"))
        try:
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    files[target] = f.read()
        except OSError:
            pass
    r = {"code": p.returncode, "out": out, "err": err, "timed_out": timed_out,
         "seconds": time.monotonic() - started, "file": files.get(target),
         "undeliverable": surface is not None and surface.kind == "fifo"}
    r["surface"] = surface.inspect(workdir, r) if surface else []
    shutil.rmtree(workdir, ignore_errors=True)
    return r


SANITIZER_MARKS = re.compile(rb"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
                             rb"ERROR SUMMARY: [1-9]|Invalid __global__|Invalid __shared__")


class Checker:
    def __init__(self, schema_path, validate_every):
        self.validator = None
        self.validated = 0
        self.validate_every = validate_every
        self.seen_kinds = set()
        self.lock = threading.Lock()
        try:
            import jsonschema
            with open(schema_path) as f:
                self.validator = jsonschema.Draft202012Validator(json.load(f))
        except ImportError:
            print("fuzz: python3-jsonschema missing: documents are parsed, not validated", file=sys.stderr)

    def document_problem(self, text, code, index):
        """Why `text` is not exactly one valid document for a run that exited `code` ("" if it is)."""
        if not text:
            return "no JSON document"
        try:
            doc = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            return "not exactly one JSON document (%s)" % e
        if not isinstance(doc, dict) or next(iter(doc), None) != "schema_version":
            return "not a cudasync document"
        if "error" in doc:
            if doc["error"].get("exit_code") != code:
                return "the error document says exit %s, the run exited %s" % (doc["error"].get("exit_code"), code)
            kind = "error"
        else:
            summary = doc.get("report", {}).get("summary", {})
            if summary.get("checks_failed", 0) > 0 and code != 1:
                return "a failed check, but exit %s" % code
            kind = doc.get("report", {}).get("command", "?")
        if self.validator is not None:
            # Error documents are small and all validated; reports of each command at first, then a sample
            # (a lesson's report takes the validator a tenth of a second).
            with self.lock:
                do = kind == "error" or kind not in self.seen_kinds or index % self.validate_every == 0
                self.seen_kinds.add(kind)
            if do:
                errors = sorted(self.validator.iter_errors(doc), key=str)
                with self.lock:
                    self.validated += 1
                if errors:
                    return "breaks schema/report-v2.json: %s" % errors[0].message[:300]
        return ""

    def problems(self, argv, r, index):
        out = []
        code = r["code"]
        if r["timed_out"]:
            out.append("timeout")
        elif code < 0:
            out.append("signal %s" % signal.Signals(-code).name)
        elif code not in ALLOWED_EXITS:
            out.append("exit code %d" % code)
        if SANITIZER_MARKS.search(r["err"]):
            out.append("sanitizer report")
        if code != 0 and not r["err"].strip() and not r["timed_out"]:
            out.append("non-zero exit with an empty stderr")
        if code == 2 and b"accepted" not in r["err"]:
            out.append("a usage error that does not say what is accepted")
        out += r.get("surface", [])
        if r["timed_out"] or code < 0:
            return out
        target = json_target(argv)
        if target is None:
            return out
        deliverable = target not in ("", "/dev/full", "missing/dir/x.json", "missing/x", ".", "..") and \
            not r.get("undeliverable")
        if deliverable:
            text = r["out"] if target == "-" else r["file"]
            why = self.document_problem(text or b"", code, index)
            if why:
                out.append("--json: " + why)
        elif code == 0:
            out.append("--json target %r cannot take a document, yet exit 0" % target)
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--runs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per run")
    ap.add_argument("--bench-timeout", type=float, default=240.0,
                    help="seconds for a run with bench or --bench on the GPU backend (a whole sweep)")
    ap.add_argument("--memory-mb", type=int, default=4096, help="address-space limit per run (not under ASan)")
    ap.add_argument("--budget", type=float, default=100.0, help="seconds for all runs; the rest is skipped, and said")
    ap.add_argument("--backend", choices=["model", "gpu"], default="model")
    ap.add_argument("--sanitized", action="store_true", help="the binary is built with ASan/UBSan")
    ap.add_argument("--validate-every", type=int, default=25, help="validate every Nth report against the schema")
    ap.add_argument("--memcheck", type=int, default=0,
                    help="GPU: run this many of the argvs under compute-sanitizer --tool memcheck too")
    ap.add_argument("--show", type=int, default=20, help="failures printed in full")
    ap.add_argument("--surfaces", type=float, default=0.08,
                    help="share of the runs that fuzz the progress state, output files, FIFOs and empty values")
    args = ap.parse_args()
    seed = int(os.environ.get("CUDASYNC_FUZZ_SEED", args.seed))
    binary = os.path.abspath(args.binary)

    env = dict(os.environ)
    env.pop("CUDASYNC_FUZZ_SEED", None)
    env["NO_COLOR"] = "1"
    # `check` records answers in the student's progress state: keep it out of the real home.
    state_home = tempfile.mkdtemp(prefix="cudasync_fuzz_state_")
    env["XDG_STATE_HOME"] = state_home
    env["ASAN_OPTIONS"] = "abort_on_error=1:detect_leaks=1:hard_rss_limit_mb=%d:allocator_may_return_null=0" % (
        args.memory_mb)
    env["UBSAN_OPTIONS"] = "halt_on_error=1:abort_on_error=1:print_stacktrace=1"
    env["LSAN_OPTIONS"] = "exitcode=1"

    spec_run = subprocess.run([binary, "--cli-spec"], capture_output=True, env=env, timeout=60)
    if spec_run.returncode != 0:
        print("fuzz: `cudasync --cli-spec` failed (exit %d):\n%s" % (spec_run.returncode, spec_run.stderr.decode(
            errors="replace")))
        return 1
    spec = Spec(json.loads(spec_run.stdout))

    listing = subprocess.run([binary, "list", "--json"], capture_output=True, env=env, timeout=120)
    try:
        gpu = json.loads(listing.stdout)["report"]["sections"]["lessons"]["facts"]["gpu"]
    except (ValueError, KeyError):
        gpu = {"value": "none", "note": "`cudasync list --json` did not say"}
    have_gpu = gpu.get("value") != "none"
    if args.backend == "gpu" and not have_gpu:
        print("fuzz: skipped: no usable GPU here (%s); the GPU variant needs one" % gpu.get("note", ""))
        return SKIP
    if args.backend == "gpu":
        args.memory_mb = 0  # a CUDA context reserves more address space than any limit worth setting
        args.jobs = min(args.jobs, 4)  # one GPU: a few processes at a time

    rng = random.Random(seed)
    # Without a GPU a few runs keep the backend they drew (auto is the model then); with one, every
    # run of the model variant stays on the model, under the memory limit.
    # A share of the runs, in place of argvs (the run time stays the same), fuzz what surrounds the
    # command line; on the GPU variant every run stays on the GPU, so none do.
    surfaces = [None] * args.runs
    argvs = []
    for i in range(args.runs):
        if args.backend == "model" and rng.random() < args.surfaces:
            surfaces[i] = draw_surface(spec, rng)
            argvs.append(surfaces[i].argv)
        else:
            argvs.append(draw(spec, rng, args.backend, "out%d.json" % i, have_gpu))
    checker = Checker(args.schema, args.validate_every)
    limits = Limits(args.memory_mb, args.sanitized)
    root = tempfile.mkdtemp(prefix="cudasync_fuzz_")
    started = time.monotonic()
    results = [None] * len(argvs)
    skipped = 0

    def timeout_for(argv):
        # A GPU sweep (`bench`, `--bench`) runs for tens of seconds by design (cg-reduce's alone is
        # ~30 s on an H100): it gets the sweep's time; every other run keeps --timeout.
        if args.backend == "gpu" and any(a in ("bench", "--bench") for a in argv):
            return max(args.timeout, args.bench_timeout)
        return args.timeout

    def task(i):
        if time.monotonic() - started > args.budget:
            return i, None
        return i, run_one(binary, argvs[i], os.path.join(root, str(i)), timeout_for(argvs[i]), limits, env, [],
                          surfaces[i])

    print("fuzz: seed %d (CUDASYNC_FUZZ_SEED to change), %d argvs, %d jobs, %s backend, timeout %.0f s, "
          "memory %s%s" % (seed, len(argvs), args.jobs, args.backend, args.timeout,
                           "%d MiB" % args.memory_mb if args.memory_mb else "not limited",
                           " (ASan rss limit)" if args.sanitized and args.memory_mb else ""), flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for i, r in pool.map(task, range(len(argvs))):
            results[i] = r
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(state_home, ignore_errors=True)
    elapsed = time.monotonic() - started

    failures = []
    counts = {"signal": 0, "timeout": 0, "exit": 0, "document": 0, "stderr": 0, "sanitizer": 0, "unclear": 0,
              "surface": 0}
    exits = {}
    internal = {}  # "internal error" messages (exit 1): a bug, or memory a lesson did not budget
    check_failures = []  # the other exit 1 runs: a failed check (on a GPU, worth a look), with its [FAIL] line
    usage_total = usage_unclear = 0
    unclear = {}  # the start of each message that does not say what is accepted -> (count, an argv)
    slowest = (0.0, None)
    for i, (argv, r) in enumerate(zip(argvs, results)):
        if r is None:
            skipped += 1
            continue
        exits[r["code"]] = exits.get(r["code"], 0) + 1
        if r["seconds"] > slowest[0]:
            slowest = (r["seconds"], argv)
        if r["code"] == 1 and b"internal error" in r["err"]:
            line = r["err"].decode("utf-8", "replace").strip().splitlines()[-1].replace("cudasync: error: ", "")
            n, example = internal.get(line[:80], (0, argv))
            internal[line[:80]] = (n + 1, example)
        elif r["code"] == 1:
            fails = [l.strip() for l in (r["out"] or b"").decode("utf-8", "replace").splitlines() if "[FAIL]" in l]
            check_failures.append((argv, fails[0] if fails else "a failed check (see the run's report)"))
        if r["code"] == 2:
            usage_total += 1
            if b"accepted" not in r["err"]:
                usage_unclear += 1
                line = r["err"].decode("utf-8", "replace").strip().splitlines()[-1]
                key = line.replace("cudasync: error: ", "")[:48]
                n, example = unclear.get(key, (0, argv))
                unclear[key] = (n + 1, example)
        ps = checker.problems(argv, r, i)
        for p in ps:
            key = ("timeout" if p == "timeout" else "signal" if p.startswith("signal") else
                   "exit" if p.startswith("exit code") else "sanitizer" if p.startswith("sanitizer") else
                   "unclear" if p.startswith("a usage error") else
                   "surface" if p in r.get("surface", []) else
                   "stderr" if "stderr" in p else "document")
            counts[key] += 1
        if ps:
            failures.append((argv, ps, r, surfaces[i]))

    for argv, ps, r, surface in failures[:args.show]:
        print("\nFAIL: %s" % "; ".join(ps))
        if surface:
            facts = {k: (v if not isinstance(v, bytes) else v[:120]) for k, v in surface.facts.items()}
            print("  surface: %s %s (set up in the run's folder; the state under XDG_STATE_HOME=./state)" % (
                surface.kind, facts))
        print("  reproduce: %s %s" % (shlex.quote(binary), shell_line(argv)))
        print("  exit %s after %.1f s; stderr (last 600 bytes):\n    %s" % (
            r["code"], r["seconds"], r["err"][-600:].decode("utf-8", "replace").replace("\n", "\n    ")))
    if len(failures) > args.show:
        print("\n... and %d more failures" % (len(failures) - args.show))

    ran = len(argvs) - skipped
    memchecked = memcheck_errors = 0
    sanitizer = shutil.which("compute-sanitizer") or shutil.which(
        "compute-sanitizer", path="/usr/local/cuda/bin:/usr/local/cuda/compute-sanitizer")
    if args.memcheck and args.backend == "gpu" and not sanitizer:
        print("fuzz: compute-sanitizer not found: the memcheck sample is left out")
    if args.memcheck and args.backend == "gpu" and sanitizer:
        sample = random.Random(seed + 1).sample(range(len(argvs)), min(args.memcheck, len(argvs)))
        memcheck_deadline = time.monotonic() + args.budget
        for i in sample:
            if time.monotonic() > memcheck_deadline:
                print("fuzz: memcheck sample cut at %d of %d argvs by the %.0f s budget" % (memchecked, len(sample),
                                                                                        args.budget))
                break
            r = run_one(binary, argvs[i], os.path.join(tempfile.gettempdir(), "cudasync_memcheck_%d" % i),
                        max(args.timeout, 120), Limits(0, True), env,
                        [sanitizer, "--tool", "memcheck", "--target-processes", "application-only",  # as scripts/gpu.sh
                         "--error-exitcode", "99", "--print-limit", "5",
                         # Lessons provoke API errors on purpose (deadlock-demo's cooperative launch
                         # past co-residency returns error 720, and says so); memory errors still count.
                         "--report-api-errors", "no"])
            memchecked += 1
            if r["code"] == 99 or r["timed_out"] or r["code"] < 0:
                memcheck_errors += 1
                failures.append((argvs[i], ["compute-sanitizer memcheck"], r, None))
                print("\nFAIL (memcheck, exit %s): compute-sanitizer --tool memcheck %s %s\n    %s" % (
                    r["code"], shlex.quote(binary), shell_line(argvs[i]), r["err"][-1200:].decode("utf-8", "replace")))

    print("\nfuzz: seed %d: %d runs in %.1f s (%d skipped for the %.0f s budget), %d with --json; "
          "signals %d, timeouts %d, bad exit codes %d, document problems %d, empty stderr %d, sanitizer reports %d, "
          "usage errors without 'accepted' %d"
          % (seed, ran, elapsed, skipped, args.budget, sum(1 for a in argvs if json_target(a) is not None),
             counts["signal"], counts["timeout"], counts["exit"], counts["document"], counts["stderr"],
             counts["sanitizer"], counts["unclear"]))
    kinds = {}
    for surface, r in zip(surfaces, results):
        if surface and r is not None:
            kinds[surface.kind] = kinds.get(surface.kind, 0) + 1
    print("fuzz: surfaces beyond the argv %s (progress states, outputs that are one file, FIFOs without a reader, "
          "empty values); problems %d" % (dict(sorted(kinds.items())), counts["surface"]))
    print("fuzz: exit codes %s; %d reports validated against the schema; slowest run %.2f s: %s" % (
        dict(sorted(exits.items())), checker.validated, slowest[0],
        shell_line(slowest[1]) if slowest[1] else "-"))
    print("fuzz: usage errors (exit 2) %d, of which %d do not say what is accepted" % (usage_total, usage_unclear))
    for key, (n, argv) in sorted(unclear.items(), key=lambda kv: -kv[1][0])[:10]:
        print("  %5d  %s...  e.g. %s" % (n, key, shell_line(argv)[:160]))
    print("fuzz: internal errors (exit 1, not counted as failures) %d" % sum(n for n, _ in internal.values()))
    for key, (n, argv) in sorted(internal.items(), key=lambda kv: -kv[1][0])[:10]:
        print("  %5d  %s  e.g. %s" % (n, key, shell_line(argv)[:160]))
    print("fuzz: runs with a failed check (exit 1, not counted as failures) %d" % len(check_failures))
    for argv, line in check_failures[:10]:
        print("  %s\n      %s" % (shell_line(argv)[:160], line[:150]))
    if memchecked:
        print("fuzz: compute-sanitizer memcheck on %d argvs: %d with errors" % (memchecked, memcheck_errors))
    if failures:
        print("fuzz: FAILED: %d argvs (each above: reproduce with the command shown)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
