"""Build, inspect or remove the optional compiled engine (see :mod:`p2puno.engine.native`).

python -m p2puno.engine.build_native            # build it (mypyc and a C compiler)
python -m p2puno.engine.build_native --status   # which engine an import loads, and why
python -m p2puno.engine.build_native --clean    # remove the build
"""

from __future__ import annotations

import sys

import p2puno.engine as engine
from p2puno.engine import native


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--status" in args:
        why = native.problem()
        print(f"loaded: {'compiled (mypyc)' if engine.NATIVE else 'pure Python'}")
        print(f"compiled build: {why or 'usable, in ' + native.NATIVE_DIR}")
        return 0
    if "--clean" in args:
        print(native.clean())
        return 0
    try:
        print(native.build(verbose="-v" in args))
    except (Exception, SystemExit) as e:  # no mypy, no C compiler, a compile error
        print(f"build failed ({type(e).__name__}: {e}; -v shows the compiler output)")
        print(f"the engine loaded now: {'compiled' if native.problem() is None else 'pure Python'}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
