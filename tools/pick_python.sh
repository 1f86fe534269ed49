#!/usr/bin/env bash
# Print the interpreter `make` builds .venv with: $PYTHON if set, else the newest python3.x on PATH
# that runs (a pyenv shim of an inactive version does not), is 3.11 or newer and can create a venv
# (Debian splits ensurepip into python3.x-venv). Exit 1 with the reason when there is none.
set -u
ok() { "$1" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1; }
if [ -n "${PYTHON:-}" ]; then
  if ok "$PYTHON"; then echo "$PYTHON"; exit 0; fi
  echo "error: PYTHON=$PYTHON is not a working Python >= 3.11 with venv (python3.x-venv on Debian)" >&2
  exit 1
fi
for p in $(compgen -c python3. | grep -E '^python3\.[0-9]+$' | sort -u -t. -k2,2nr) python3; do
  if ok "$p"; then echo "$p"; exit 0; fi
done
echo "error: no Python >= 3.11 with venv found on PATH (apt-get install python3 python3-venv, or set PYTHON=...)" >&2
exit 1
