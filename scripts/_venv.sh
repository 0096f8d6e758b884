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
  "$venv/bin/python" -m pip install --quiet --upgrade pip >/dev/null
  if [ "$1" = test ]; then
    "$venv/bin/python" -m pip install --quiet -e "$root[test]"
  else
    "$venv/bin/python" -m pip install --quiet -e "$root"
  fi
  touch "$stamp"
fi
