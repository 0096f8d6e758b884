# Shared by scripts/demo and scripts/test: make (or reuse) ./.venv and install the project.
# Sourced, not run. Re-installs only when pyproject.toml changed since the last install.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
py="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
stamp="$venv/.installed-$(sha256sum "$root/pyproject.toml" | cut -c1-16)-$1"
if [ ! -e "$stamp" ]; then
  echo "setting up $venv (once, a minute or two; pip's output in $venv/install.log)" >&2
  what="$root[native]"
  [ "$1" = test ] && what="$root[test]"
  : >"$venv/install.log"
  # every line of pip's to the log; what it fetches, one short line each, to the terminal (a
  # new user read one line and then nothing for two minutes)
  progress() {
    local line name
    while IFS= read -r line; do
      printf '%s\n' "$line" >>"$venv/install.log"
      case "$line" in
        "Collecting pip"*) echo "  updating pip" >&2 ;;
        Collecting*"(from p2puno"* | Processing*"(from p2puno"*)
          name="${line#* }"; name="${name##*/}"; name="${name%% *}"
          printf '  fetching %s\n' "$(printf '%s' "$name" | sed 's/[-_][0-9].*\.whl$//; s/[<>=!~;].*//')" >&2 ;;
        "Installing collected packages: "*)
          name="${line#*: }"; name="${name//[^,]/}"
          [ -n "$name" ] && printf '  installing %s packages\n' "$(( ${#name} + 1 ))" >&2 ;;
      esac
    done
    return 0  # (pip's own status is the pipeline's: pipefail)
  }
  if ! { "$venv/bin/python" -m pip install --upgrade pip &&
         "$venv/bin/python" -m pip install -e "$what"; } 2>&1 | progress; then
    tail -30 "$venv/install.log" >&2
    echo "pip install failed: see $venv/install.log" >&2
    exit 1
  fi
  touch "$stamp"
fi
# The compiled engine (p2puno/engine/native.py): built where mypyc (in the native and test
# extras) and a C compiler are at hand, and rebuilt when the engine's sources change; else the
# pure-Python engine, the same rules, is used. P2PUNO_BUILD_NATIVE=0 skips the build.
if [ "${P2PUNO_BUILD_NATIVE:-1}" != 0 ] && "$venv/bin/python" -c 'import mypyc' 2>/dev/null &&
   ! "$venv/bin/python" -c 'import sys; from p2puno.engine import native as n; sys.exit(n.problem() is not None)' 2>/dev/null; then
  echo "building the compiled engine (once per engine change; ~30 s)" >&2
  if ! "$venv/bin/python" -m p2puno.engine.build_native >"$venv/native-build.log" 2>&1; then
    cat "$venv/native-build.log" >&2
    echo "(the pure-Python engine will be used)" >&2
  fi
fi
# Bytecode, written once here: every node is a process of its own, and where
# PYTHONDONTWRITEBYTECODE is set (as on these machines) each one compiled every module of the
# project from source as it started, 0.15-0.2 s of CPU a process (the tests and the demo start
# hundreds). compileall writes it all the same, and does nothing when it is up to date.
"$venv/bin/python" -m compileall -q "$root/p2puno" "$root/tests" "$root/scripts" >/dev/null || true
