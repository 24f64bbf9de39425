"""Run N seeded OpInfo programs (minitorch vs torch) and report the mismatches.

    .venv/bin/python tests/opinfo_report.py -n 2000                 # seeds 0..1999, writes opinfo_report.json
    .venv/bin/python tests/opinfo_report.py --seed 123 -v           # one program, with its mismatch in full
    .venv/bin/python tests/opinfo_report.py -n 500 --ops exp,sum    # only these ops
    .venv/bin/python tests/opinfo_report.py -n 20000 --start 100000 --update-lists   # reclassify the CI lists

Prints the mismatch rate by kind, the top ops per kind (with a one-line repro each), and the namespace coverage;
the JSON file holds every mismatch.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opinfo  # noqa: E402

KINDS = ('value', 'dtype', 'shape', 'stride', 'alias', 'grad', 'error-class', 'minitorch-raised', 'minitorch-did-not-raise',
         'crash', 'hang')

MODULES = {  # which part of minitorch an op's mismatch most likely points at
    'unary': 'pointwise ops', 'binary': 'pointwise ops', 'ternary': 'pointwise ops', 'convert': 'pointwise ops',
    'reduction': 'reductions', 'scan': 'reductions', 'matmul': 'reductions', 'sort': 'reductions',
    'view': 'views/autograd', 'join': 'views/autograd', 'indexing': 'views/autograd', 'inplace': 'views/autograd',
    'query': 'views/autograd', 'creation': 'creation',
}


SEVERITY = ('value', 'dtype', 'shape', 'alias', 'grad', 'stride', 'crash', 'hang', 'minitorch-raised', 'error-class',
            'minitorch-did-not-raise')


def _on_cuda(m) -> bool: return ' cuda |' in m.repro.split('|')[0] + '|'


def module_of(op: str, cuda_only: bool = False) -> str:
    "The part of minitorch a mismatch of `op` most likely points at."
    if cuda_only: return 'cuda'
    if op.startswith('chain: '): return 'views/autograd'
    info = opinfo.OPS.get(op)
    if info is None: return 'views/autograd'
    if info.name.startswith('nn.'): return 'nn'
    return MODULES.get(info.kind, 'other')


def run(seeds, ops=None, timeout=10.0, chain_p=0.4, cuda_p=0.02, check_grad=True, progress=False):
    "Run the programs of `seeds`; (number of programs, mismatches, seconds)."
    infos = opinfo.op_list(ops) if ops else None
    mismatches, t0 = [], time.time()
    for k, seed in enumerate(seeds):
        prog = opinfo.draw_program(seed, infos, chain_p=chain_p, cuda_p=cuda_p)
        mismatches += opinfo.run_program(prog, timeout=timeout, check_grad=check_grad)
        if progress and k % 200 == 199:
            print(f"  {k + 1} programs, {len(mismatches)} mismatches, {time.time() - t0:.0f}s", file=sys.stderr)
    return len(seeds), mismatches, time.time() - t0


def summarize(n: int, mismatches: list, top: int = 5) -> str:
    lines = [f"{n} programs, {len(mismatches)} with a mismatch ({100 * len(mismatches) / max(n, 1):.1f}%)", '']
    by_kind = collections.Counter(m.kind for m in mismatches)
    lines.append(f"{'kind':26s} {'count':>6s} {'rate':>7s}  ops")
    for k in KINDS:
        ops = {m.op for m in mismatches if m.kind == k}
        lines.append(f"{k:26s} {by_kind.get(k, 0):6d} {100 * by_kind.get(k, 0) / max(n, 1):6.2f}%  {len(ops)}")
    for k in KINDS:
        ms = [m for m in mismatches if m.kind == k]
        if not ms: continue
        lines += ['', f"== {k}: top ops"]
        for name, c in collections.Counter(m.op for m in ms).most_common(top):
            ex = next(m for m in ms if m.op == name)
            lines.append(f"  {c:4d}  {name}: {ex.detail[:160]}")
            lines.append(f"        repro: {ex.repro[:220]}")
    return '\n'.join(lines)


def concrete(mismatches: list, n: int = 40) -> str:
    """One line per (op, kind), grouped by module: wrong results (value, dtype, shape, alias, grad) before error
    disagreements, the most frequent first, each with its shortest repro (a single op when there is one)."""
    by = collections.defaultdict(list)
    for m in mismatches: by[(m.op, m.kind)].append(m)
    groups = collections.defaultdict(list)
    for (op, kind), ms in by.items():
        cuda_only = all(_on_cuda(m) for m in ms)
        ex = min(ms, key=lambda m: (_on_cuda(m) and not cuda_only, m.repro.count(' > '), len(m.repro)))
        groups[module_of(op, cuda_only)].append((SEVERITY.index(kind) if kind in SEVERITY else 99, -len(ms), ex))
    for g in groups.values(): g.sort(key=lambda t: t[:2])
    picked, k = collections.defaultdict(list), 0
    while k < n and any(groups.values()):            # round robin, so that every module shows up
        for mod in sorted(groups):
            if groups[mod] and k < n:
                picked[mod].append(groups[mod].pop(0)); k += 1
    out = []
    for mod in sorted(picked):
        out.append(f"-- {mod}")
        for _, c, ex in picked[mod]:
            out.append(f"  [{ex.kind}] x{-c} {ex.op}: {ex.detail[:150]} || {ex.repro[:220]}")
    return '\n'.join(out)


def coverage_text() -> str:
    cov = opinfo.coverage()
    lines = ['namespace coverage (public callables torch also has):']
    for ns, c in cov.items():
        lines.append(f"  {ns:14s} {c['covered']:4d}/{c['total']:<4d} covered; {len(c['not_ops'])} are not ops; "
                     f"no entry: {', '.join(c['missing'][:40])}{' ...' if len(c['missing']) > 40 else ''}")
    return '\n'.join(lines)


HARD = ('value', 'dtype', 'shape', 'stride', 'alias', 'grad', 'crash', 'hang')


def write_lists(mismatch_sets: list, path: str, keep: bool = False) -> tuple[int, int]:
    """Rewrite CLEAN / KNOWN_FAILING in tests/test_opinfo.py: an op is failing if it has a hard mismatch in any set
    (or, with `keep`, if it is listed as failing already)."""
    import re
    import test_opinfo
    fail = dict(test_opinfo.KNOWN_FAILING) if keep else {}
    for ms in mismatch_sets:
        for m in ms:
            if m.kind in HARD and m.op in opinfo.OPS and m.op not in fail:
                fail[m.op] = f"{m.kind}: {m.detail[:110]} | {m.repro[:150]}"
    clean = sorted(n for n in opinfo.OPS if n not in fail)
    s = open(path).read()
    kf = 'KNOWN_FAILING = {\n' + ''.join(f"    {n!r}:\n        {r!r},\n" for n, r in sorted(fail.items())) + '}\n'
    lines, cur = [], '   '
    for n in clean:
        item = f" {n!r},"
        if len(cur) + len(item) > 116: lines.append(cur); cur = '   '
        cur += item
    lines.append(cur)
    cl = 'CLEAN = [\n' + '\n'.join(lines) + '\n]\n'
    s = re.sub(r"KNOWN_FAILING = \{\n.*?\n\}\n", lambda _: kf, s, flags=re.S)
    s = re.sub(r"CLEAN = \[\n.*?\n\]\n", lambda _: cl, s, flags=re.S)
    open(path, 'w').write(s)
    return len(clean), len(fail)


def update_lists(long_ms: list, rounds: int = 20, keep: bool = False) -> None:
    """Reclassify the ops from a long run's mismatches, then run the CI fast slice over the clean ops and move every
    op it catches to KNOWN_FAILING, until the slice is clean (the slice draws depend on the clean list)."""
    import importlib
    import test_opinfo
    path = test_opinfo.__file__
    sets = [long_ms]
    print('lists: %d clean, %d known failing' % write_lists(sets, path, keep))
    for _ in range(rounds):
        importlib.reload(test_opinfo)
        n, ms, _ = run(range(test_opinfo.FAST_N), test_opinfo.CLEAN, chain_p=test_opinfo.FAST_CHAIN_P, cuda_p=0.0)
        hard = [m for m in ms if m.kind in HARD]
        print(f"  fast slice: {len(hard)} hard mismatches")
        if not hard: break
        importlib.reload(test_opinfo)
        print('lists: %d clean, %d known failing' % write_lists([ms], path, keep=True))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('-n', type=int, default=2000, help='number of programs (seeds start..start+n-1)')
    ap.add_argument('--start', type=int, default=0)
    ap.add_argument('--seed', type=int, default=None, help='run this one program and print it')
    ap.add_argument('--ops', type=str, default=None, help='comma-separated op names')
    ap.add_argument('--timeout', type=float, default=10.0, help='seconds per program (signal.alarm)')
    ap.add_argument('--chain-p', type=float, default=0.4, help='probability that a program is a chain')
    ap.add_argument('--cuda-p', type=float, default=0.02, help='share of programs on cuda (when available)')
    ap.add_argument('--top', type=int, default=5)
    ap.add_argument('--concrete', type=int, default=40, help='how many concrete mismatches to list')
    ap.add_argument('--json', type=str, default='opinfo_report.json')
    ap.add_argument('--update-lists', action='store_true',
                    help='rewrite CLEAN / KNOWN_FAILING in tests/test_opinfo.py from this run (then the CI slice)')
    ap.add_argument('-v', action='store_true')
    a = ap.parse_args(argv)
    ops = a.ops.split(',') if a.ops else None
    if a.seed is not None:
        prog = opinfo.draw_program(a.seed, opinfo.op_list(ops) if ops else None, a.chain_p, a.cuda_p)
        ms = opinfo.run_program(prog, a.timeout)
        print(prog.repro())
        for m in ms: print(f"[{m.kind}] {m.op}: {m.detail}")
        if not ms: print('agree')
        return 0
    n, ms, dt = run(range(a.start, a.start + a.n), ops, a.timeout, a.chain_p, a.cuda_p, progress=a.v)
    print(summarize(n, ms, a.top))
    print(f"\n{dt:.1f}s ({1000 * dt / max(n, 1):.1f} ms/program)\n")
    print(f"== the top {a.concrete} concrete mismatches by module")
    print(concrete(ms, a.concrete))
    print()
    print(coverage_text())
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'programs': n, 'seconds': dt, 'start': a.start,
                       'rate_by_kind': {k: sum(m.kind == k for m in ms) / max(n, 1) for k in KINDS},
                       'coverage': opinfo.coverage(),
                       'mismatches': [m.__dict__ for m in ms]}, f, indent=1)
        print(f"\nwrote {a.json}")
    if a.update_lists:
        update_lists(ms)
    return 0


if __name__ == '__main__':
    sys.exit(main())
