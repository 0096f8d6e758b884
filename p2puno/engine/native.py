"""An optional compiled build of the engine (mypyc), and the choice between it and the pure
Python modules at import time.

    python -m p2puno.engine.build_native            # build it (needs mypy, which ships mypyc,
                                                    # and a C compiler); ~30 s
    python -m p2puno.engine.build_native --status   # which engine an import loads, and why
    python -m p2puno.engine.build_native --clean    # remove the build

The build compiles ``cards``, ``actions``, ``options`` and ``game`` unchanged into
``p2puno/engine/_native/`` (ignored by git), with a stamp of the sources it was made from and
of the Python it was made for. ``import p2puno.engine`` loads the compiled modules only when
that stamp matches the sources now on disk; otherwise (no build, sources edited since, another
Python) it loads the pure-Python ones, which are the reference: the same source, the same
rules. ``scripts/demo`` and ``scripts/test`` build it when mypyc and a C compiler are at hand
(so the game, the simulator and CI run it), and nothing needs it: without a compiler the pure
modules run. ``P2PUNO_ENGINE=pure`` always loads the pure modules; ``P2PUNO_ENGINE=native``
requires the build and fails the import without it::

    P2PUNO_ENGINE=pure .venv/bin/pytest -q tests/engine tests/test_bots.py

Both behave identically (same events, same digests: tests/engine/test_native.py plays the same
seeded games on both); the compiled one is 2-3x faster.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import sysconfig
from collections.abc import Iterator

MODULES = ("cards", "actions", "options", "game")
HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE_DIR = os.path.join(HERE, "_native")
_GROUP = "p2puno.engine.native"  # mypyc's shared library becomes p2puno.engine.native__mypyc


def _suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def stamp(src_dir: str = HERE) -> str:
    """What a build is valid for: these sources, this Python's extension ABI."""
    h = hashlib.sha256(
        f"p2puno-engine-native/1 {sys.implementation.cache_tag} {_suffix()}".encode()
    )
    for m in MODULES:
        with open(os.path.join(src_dir, m + ".py"), "rb") as f:
            data = f.read()
        h.update(f"\0{m}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def problem(src_dir: str = HERE, native_dir: str = NATIVE_DIR) -> str | None:
    """Why the compiled build cannot be used (None: it can)."""
    try:
        with open(os.path.join(native_dir, "STAMP")) as f:
            built = f.read().strip()
    except OSError:
        return "no compiled build (python -m p2puno.engine.build_native builds one)"
    if built != stamp(src_dir):
        return "the compiled build does not match these sources or this Python: rebuild it"
    missing = [
        m
        for m in (*MODULES, "native__mypyc")
        if not os.path.exists(os.path.join(native_dir, m + _suffix()))
    ]
    if missing:
        return f"the compiled build lacks {', '.join(missing)}: rebuild it"
    return None


def select(path: list[str]) -> bool:
    """Called by ``p2puno/engine/__init__.py`` with its ``__path__`` before it imports the
    engine's modules: put the compiled build first on it if it is to be used."""
    mode = os.environ.get("P2PUNO_ENGINE", "auto")
    if mode not in ("auto", "pure", "native"):
        raise ImportError(f"P2PUNO_ENGINE must be auto, pure or native, not {mode!r}")
    if mode == "pure":
        return False
    why = problem()
    if why is None:
        path.insert(0, NATIVE_DIR)
        return True
    if mode == "native":
        raise ImportError(f"P2PUNO_ENGINE=native: {why}")
    return False


@contextlib.contextmanager
def _quiet(on: bool) -> Iterator[None]:
    """Silence the compilers' output (file descriptors 1 and 2) while on."""
    if not on:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def build(verbose: bool = False) -> str:
    """Compile the engine into NATIVE_DIR; return what happened. Raises on failure (the pure
    modules stay in use)."""
    import shutil
    import tempfile

    from mypyc.build import mypycify  # mypy ships mypyc (a test dependency)
    from setuptools import Distribution  # type: ignore[import-untyped]

    root = os.path.dirname(os.path.dirname(HERE))  # the directory holding p2puno/
    want = stamp()
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="p2puno-native-") as tmp:
        lib = os.path.join(tmp, "lib")
        os.chdir(root)
        try:
            with _quiet(not verbose):
                exts = mypycify(
                    [os.path.join("p2puno", "engine", m + ".py") for m in MODULES],
                    opt_level="3",
                    target_dir=os.path.join(tmp, "c"),
                    group_name=_GROUP,
                    verbose=verbose,
                )
                args = ["build_ext", "--build-lib", lib, "--build-temp", os.path.join(tmp, "o")]
                dist = Distribution({"ext_modules": exts, "script_args": args})
                dist.parse_command_line()
                dist.run_commands()
        finally:
            os.chdir(cwd)
        if stamp() != want:
            raise RuntimeError("the sources changed during the build; run it again")
        built = os.path.join(lib, "p2puno", "engine")
        shutil.rmtree(NATIVE_DIR, ignore_errors=True)
        os.makedirs(NATIVE_DIR)
        with open(os.path.join(NATIVE_DIR, ".gitignore"), "w") as f:
            f.write("# built by python -m p2puno.engine.build_native\n*\n")
        for name in sorted(os.listdir(built)):
            shutil.copy2(os.path.join(built, name), os.path.join(NATIVE_DIR, name))
        with open(os.path.join(NATIVE_DIR, "STAMP"), "w") as f:
            f.write(want + "\n")  # last: a build without its stamp is never loaded
    return f"built {', '.join(MODULES)} into {NATIVE_DIR}"


def clean() -> str:
    import shutil

    shutil.rmtree(NATIVE_DIR, ignore_errors=True)
    return f"removed {NATIVE_DIR}"
