#!/usr/bin/env bash
# Real MCP clients against a listening server: the official Python SDK 2.3 and the MCP Inspector
# CLI 2.12, which `npm test` does not run, and the TypeScript SDK v1 1.32 again (npm test runs
# it in test/e2e/mcp-clients.test.ts), each registering, connecting at directory:read, meeting
# the 403 insufficient_scope and stepping up through the consent page; v1 and the Inspector
# also meet a business refusal and read its text (test/clients/harness.ts, docs/mcp.md#clients-tested).
#
#   scripts/test-clients.sh
#
# Python: a venv outside the tracked tree (CLIENTS_VENV, default node_modules/.cache/…), made
# with the machine's python3 (3.11: the pinned compiled wheels are CPython 3.11) and filled only
# from test/clients/python/requirements.txt, every package pinned by sha256 (--require-hashes);
# pip uses the machine's own index configuration. It is rebuilt when that file changes.
# Inspector: Node 22 and the Inspector from the npm registry (npx -y), non-interactive.
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python3}"
venv="${CLIENTS_VENV:-node_modules/.cache/consulta-test-clients/venv}"
requirements=test/clients/python/requirements.txt
inspector='["npx","-y","-p","node@22","-p","@modelcontextprotocol/inspector@2.12.0","--","mcp-inspector"]'

case "$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" in
  3.11) ;;
  *) echo "test-clients: $python is not Python 3.11, which the pinned wheels need (set PYTHON)" >&2; exit 1 ;;
esac

wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$wanted" ]; then
  echo "test-clients: making the Python venv in $venv"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
  # --retries 0: an index this machine cannot reach is skipped at once instead of retried.
  "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 0 --require-hashes --no-deps -r "$requirements"
  echo "$wanted" > "$venv/.requirements.sha256"
fi
echo "test-clients: Python SDK $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))'), Inspector $(npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 -- mcp-inspector --version 2>/dev/null | tail -1)"

CLIENTS_PYTHON="$(cd "$venv" && pwd)/bin/python" CLIENTS_INSPECTOR="$inspector" \
  node --import tsx --test --test-reporter=spec --test-timeout=900000 test/clients/harness.ts
