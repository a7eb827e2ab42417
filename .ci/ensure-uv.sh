# Sourced by the README's commands: puts uv on PATH, installing it from PyPI into .tools/
# when the machine has none. Needs only python3 (>= 3.11) with venv.
if ! command -v uv >/dev/null 2>&1; then
    _root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    if [ ! -x "$_root/.tools/bin/uv" ]; then
        echo "installing uv into $_root/.tools (from PyPI)" >&2
        python3 -m venv "$_root/.tools" && "$_root/.tools/bin/pip" install --quiet "uv>=0.9,<0.14" || {
            echo "could not install uv: need python3 >= 3.11 with the venv module and access to PyPI" >&2
            exit 1
        }
    fi
    export PATH="$_root/.tools/bin:$PATH"
fi
