"""What the python checks of the CLI tests share (tests/cli/040, 041):
running vanalyze on one file and comparing its figures with an oracle's.

Import it after putting tests/ on sys.path; VANALYZE must be set (lib.sh
exports it)."""
import json
import os
import subprocess

REL = 1e-9


def run_vanalyze(i, path, args=()):
    """vanalyze --quiet --json out-I.json ARGS PATH: (the report's single
    rank or None, a list of problems, stderr as text)."""
    out = "out-%d.json" % i
    p = subprocess.run([os.environ["VANALYZE"], "--quiet", "--json", out] + list(args) + [path],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    err = p.stderr.decode("utf-8", "replace")
    rank, problems = None, []
    if p.returncode != 0:
        problems.append("vanalyze exit status %d" % p.returncode)
    if any(s in err for s in ("Sanitizer", "runtime error:")):
        problems.append("sanitizer report")
    try:
        with open(out, "rb") as f:
            rep = json.loads(f.read().decode("utf-8"))
        ranks = rep.get("ranks")
        if isinstance(ranks, list) and len(ranks) == 1 and isinstance(ranks[0], dict):
            rank = ranks[0]
        else:
            problems.append("report does not hold exactly one rank")
    except (OSError, ValueError) as exc:
        problems.append("no readable report: %s" % exc)
    return rank, problems, err


def show(v, limit=160):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= limit else s[:limit] + "..."


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def same(a, b, rel=REL):
    """a (vanalyze) agrees with b (oracle): ints exact, floats to a relative
    rel (an int is accepted for a float), None only with None, anything
    else equal and of the same type."""
    if b is None:
        return a is None
    if isinstance(b, (bool, str)):
        return type(a) is type(b) and a == b
    if is_int(b):
        return is_int(a) and a == b
    if isinstance(b, float):
        if not (is_int(a) or isinstance(a, float)):
            return False
        return abs(a - b) <= rel * max(abs(a), abs(b))
    return a == b
