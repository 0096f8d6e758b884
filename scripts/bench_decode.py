"""What decoding one entry costs: honest entries, and the worst inputs a peer can send.

    .venv/bin/python scripts/bench_decode.py                 # against HEAD's decoder
    .venv/bin/python scripts/bench_decode.py --rev HEAD~3 --repeat 9 --players 2,10

Two decoders in one run, measured in turn (the load on a shared box drifts): this tree's
``p2puno/wire/canonical.py`` ("new") and the one at ``--rev`` ("old", read with ``git show``
and loaded under another module name), each with its own tree's entry cap
(``MAX_ENTRY_SIZE`` in ``p2puno/log/entry.py``). Best of ``--repeat`` for every figure.

- Honest entries: every entry of whole games (``LocalTable``, every house rule, ``--players``
  seats, to ``--target``): mean microseconds per entry over all of them, and the largest.
- Worst inputs: each built as large as the cap lets it be (old cap for the old decoder, new
  cap for the new one; when the caps differ, the old decoder at the new cap too, which shows
  what the cap alone does). "int limit 0" rows run with ``sys.set_int_max_str_digits(0)``
  (as ``PYTHONINTMAXSTRDIGITS=0`` would), once each: the old decoder may take seconds.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from p2puno.engine import Options  # noqa: E402
from p2puno.log import entry as new_entry  # noqa: E402
from p2puno.session.harness import LocalTable  # noqa: E402
from p2puno.wire import canonical as new_canonical  # noqa: E402
from p2puno.wire.testing import keys_object  # noqa: E402


def _git_show(rev: str, path: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, check=True
    )
    return out.stdout.decode("utf-8")


def _old_canonical(rev: str) -> ModuleType:
    source = _git_show(rev, "p2puno/wire/canonical.py")
    spec = importlib.util.spec_from_loader("old_canonical", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_canonical"] = module  # (enum and dataclasses look their module up)
    exec(compile(source, f"{rev}:p2puno/wire/canonical.py", "exec"), module.__dict__)
    return module


def _arith(node: ast.AST) -> int:
    """An integer expression of literals, + and * (``256 * 1024``), without eval."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Add | ast.Pow):
        a, b = _arith(node.left), _arith(node.right)
        return (
            a * b
            if isinstance(node.op, ast.Mult)
            else a + b
            if isinstance(node.op, ast.Add)
            else a**b
        )
    raise ValueError(f"not a plain integer expression: {ast.dump(node)}")


def _old_entry_cap(rev: str) -> int:
    tree = ast.parse(_git_show(rev, "p2puno/log/entry.py"))
    for node in tree.body:
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == "MAX_ENTRY_SIZE"
            and node.value is not None
        ):
            return _arith(node.value)
    raise ValueError(f"no MAX_ENTRY_SIZE in {rev}:p2puno/log/entry.py")


# ------------------------------------------------------------------ inputs


def _fill(head: bytes, item: bytes, tail: bytes, cap: int, sep: bytes = b",") -> bytes:
    n = (cap - len(head) - len(tail) + len(sep)) // (len(item) + len(sep))
    data = head + sep.join([item] * n) + tail
    assert len(data) <= cap
    return data


ATTACKS: dict[str, Callable[[int], bytes]] = {
    "one object, keys shuffled": lambda c: keys_object(c, "shuffled"),
    "one object, last two keys swapped": lambda c: keys_object(c, "last two swapped"),
    "one object, keys in order (valid)": lambda c: keys_object(c, "in order"),
    "one object, e-acute keys shuffled": lambda c: keys_object(c, "shuffled", "\u00e9"),
    "one object, e-acute keys in order (valid)": lambda c: keys_object(c, "in order", "\u00e9"),
    "one object, astral and U+FFFF keys shuffled": lambda c: keys_object(
        c, "shuffled", "\U0001f600\uffff"
    ),
    "one object, one key repeated": lambda c: _fill(b"{", b'"a":0', b"}", c),
    "small integers (valid)": lambda c: _fill(b"[", b"0", b"]", c),
    "small integers, a space before ]": lambda c: _fill(b"[", b"0", b" ]", c),
    "small integers, then x": lambda c: _fill(b"[", b"0", b"]x", c),
    "small integers after an escape (valid)": lambda c: _fill(b'["\\n",', b"0", b"]", c),
    "small integers after an e-acute (valid)": lambda c: _fill(
        '["\u00e9",'.encode(), b"0", b"]", c
    ),
    "small integers ending ,-0,1.5]": lambda c: _fill(b"[", b"0", b",-0,1.5]", c),
    "16-digit integers (valid)": lambda c: _fill(b"[", b"9007199254740991", b"]", c),
    "17-digit integers": lambda c: _fill(b"[", b"1" * 17, b"]", c),
    "4,300-digit integers": lambda c: _fill(b"[", b"1" * 4300, b"]", c),
    "empty strings (valid)": lambda c: _fill(b"[", b'""', b"]", c),
    "true (valid)": lambda c: _fill(b"[", b"true", b"]", c),
    "one string of escaped quotes (valid)": lambda c: _fill(b'"', b'\\"', b'"', c, b""),
    "1,023 objects, then small integers (valid)": lambda c: _fill(
        b"[" + b"{}," * 1023, b"0", b"]", c
    ),
}
UNLIMITED: dict[str, Callable[[int], bytes]] = {
    "int limit 0: one integer as long as the cap": lambda c: b"[" + b"1" * (c - 2) + b"]",
    "int limit 0: 4,300-digit integers": lambda c: _fill(b"[", b"1" * 4300, b"]", c),
}


# ------------------------------------------------------------------ timing


def _once(
    decode: Callable[..., object], data: bytes, cap: int, error: type[Exception]
) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        decode(data, max_size=cap)
        code = "ok"
    except error as e:
        code = e.code.value  # type: ignore[attr-defined]
    return time.perf_counter() - start, code


def _honest(entries: list[bytes], sides: list[tuple[str, ModuleType, int]], repeat: int) -> None:
    largest = max(entries, key=len)
    best = {name: [1e9, 1e9] for name, _, _ in sides}
    for r in range(repeat):
        for name, mod, cap in sides if r % 2 == 0 else sides[::-1]:
            decode = mod.decode
            start = time.perf_counter()
            for raw in entries:
                decode(raw, max_size=cap)
            mid = time.perf_counter()
            for _ in range(20):
                decode(largest, max_size=cap)
            end = time.perf_counter()
            best[name][0] = min(best[name][0], (mid - start) / len(entries))
            best[name][1] = min(best[name][1], (end - mid) / 20)
    print(f"honest entries: {len(entries)}, largest {len(largest):,} bytes")
    for name, _, _ in sides:
        mean, big = best[name]
        print(f"  {name:4s} {mean * 1e6:8.1f} us/entry   largest {big * 1e6:8.1f} us")


def _row(label: str, runs: list[tuple[str, float, str]]) -> None:
    cells = "  ".join(f"{who} {t * 1e3:8.2f} ms {code:13s}" for who, t, code in runs)
    print(f"  {label:50s} {cells}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rev", default="HEAD", help="the old decoder's revision (default HEAD)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--players", default="2,4,10", help="honest games: seat counts")
    ap.add_argument("--target", type=int, default=100, help="honest games: points to win")
    ap.add_argument("--no-honest", action="store_true", help="skip the honest games")
    args = ap.parse_args(argv)

    old = _old_canonical(args.rev)
    old_cap, new_cap = _old_entry_cap(args.rev), new_entry.MAX_ENTRY_SIZE
    sides = [("old", old, old_cap), ("new", new_canonical, new_cap)]
    print(f"old: {args.rev}, entry cap {old_cap:,} bytes; new: this tree, {new_cap:,} bytes")

    if not args.no_honest:
        entries: list[bytes] = []
        for n in (int(x) for x in args.players.split(",")):
            opts = Options(n, progressive=True, seven_o=True, jump_in=True, target=args.target)
            table = LocalTable(opts, seed=f"bench-decode/{n}")
            table.run()
            entries += table.entries
        _honest(entries, sides, args.repeat)

    print("worst inputs (each as large as the cap; best of repeats, in turn)")
    for label, make in ATTACKS.items():
        plan = [("old", old, old_cap), ("new", new_canonical, new_cap)]
        if old_cap != new_cap:
            plan.insert(1, ("old@new cap", old, new_cap))
        inputs = [(who, mod, cap, make(cap)) for who, mod, cap in plan]
        best: dict[str, tuple[float, str]] = {}
        for r in range(args.repeat):
            for who, mod, cap, data in inputs if r % 2 == 0 else inputs[::-1]:
                took, code = _once(mod.decode, data, cap, mod.EncodingError)
                if who not in best or took < best[who][0]:
                    best[who] = (took, code)
        _row(label, [(who, *best[who]) for who, _, _, _ in inputs])
    with contextlib.suppress(AttributeError):
        limit = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            for label, make in UNLIMITED.items():
                runs = []
                for who, mod, cap in sides:
                    took, code = _once(mod.decode, make(cap), cap, mod.EncodingError)
                    runs.append((who, took, code))
                _row(label, runs)
        finally:
            sys.set_int_max_str_digits(limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
