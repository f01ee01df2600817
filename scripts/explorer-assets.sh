#!/usr/bin/env bash
# Refreshes explorer/assets from the npm packages pinned in
# explorer/package-lock.json: GraphiQL's standalone (UMD) build and CSS,
# React and ReactDOM's production UMD builds, each file unmodified, with
# its package's LICENSE. The copies are committed, so building tonql needs
# no npm; run this only to change a version (edit explorer/package.json,
# `npm install --package-lock-only` there, then this script).
set -euo pipefail
cd "$(dirname "$0")/.."
src=explorer
dst=explorer/assets
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# npm ci in a scratch folder: no node_modules in the tree for go ./... to
# walk into.
cp "$src/package.json" "$src/package-lock.json" "$work/"
npm ci --prefix "$work" --no-audit --no-fund --ignore-scripts
nm="$work/node_modules"

rm -rf "$dst"
mkdir -p "$dst"
copy() { cp "$nm/$1" "$dst/$2"; }
copy graphiql/graphiql.min.js graphiql.min.js
copy graphiql/graphiql.min.css graphiql.min.css
copy graphiql/LICENSE LICENSE.graphiql
copy react/umd/react.production.min.js react.production.min.js
copy react/LICENSE LICENSE.react
copy react-dom/umd/react-dom.production.min.js react-dom.production.min.js
copy react-dom/LICENSE LICENSE.react-dom

# Which version each file came from, for the page's footer and for review.
{
  for p in graphiql react react-dom; do
    printf '%s %s\n' "$p" "$(node -p "require('$nm/$p/package.json').version")"
  done
} > "$dst/VERSIONS"
ls -l "$dst"
