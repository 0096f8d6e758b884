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
  echo "setting up $venv (once; pip output in $venv/install.log)" >&2
  what="$root"
  [ "$1" = test ] && what="$root[test]"
  if ! { "$venv/bin/python" -m pip install --upgrade pip &&
         "$venv/bin/python" -m pip install -e "$what"; } >"$venv/install.log" 2>&1; then
    tail -30 "$venv/install.log" >&2
    echo "pip install failed: see $venv/install.log" >&2
    exit 1
  fi
  touch "$stamp"
fi
