#!/bin/bash
# pack-results.sh DIR... - the size rule of bench/README.md ("Keeping
# results") applied to result folders: every file of DIR (subfolders too)
# that is not Markdown and is longer than MAX lines (default 100) moves into
# DIR/raw.tar.xz under its own path; what the archive already holds stays
# (a file of the same path is replaced by the plain one).  Lossless: the
# figures a README quotes from a raw log are found with
#   tar xJf DIR/raw.tar.xz PATH
# The archive is reproducible (sorted, owner 0, mtime 0), so packing the
# same files twice gives the same bytes.  Prints what moved; `git add -A
# DIR` records it.
set -euo pipefail
MAX=${MAX:-100}
[ $# -gt 0 ] || { echo "usage: scripts/pack-results.sh bench/results/<date>-<device>..." >&2; exit 2; }
for d in "$@"; do
  d=$(cd "$d" && pwd)
  big=()
  while IFS= read -r f; do
    [ "$(wc -l < "$d/$f")" -gt "$MAX" ] && big+=("$f")
  done < <(cd "$d" && find . -type f ! -name '*.md' ! -name 'raw.tar.xz' -printf '%P\n' | sort)
  if [ ${#big[@]} -eq 0 ]; then
    echo "$d: no file over $MAX lines"
    continue
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  [ -f "$d/raw.tar.xz" ] && tar xJf "$d/raw.tar.xz" -C "$tmp"
  (cd "$d" && cp --parents "${big[@]}" "$tmp/")
  (cd "$tmp" && find . -type f -printf '%P\n' | sort |
    tar cf - --owner=0 --group=0 --numeric-owner --mtime=@0 --no-recursion -T - |
    xz -9 > "$d/raw.tar.xz.tmp")
  mv "$d/raw.tar.xz.tmp" "$d/raw.tar.xz"
  (cd "$d" && rm -f "${big[@]}")
  find "$d" -type d -empty -delete
  rm -rf "$tmp"
  trap - EXIT
  echo "$d: ${#big[@]} file(s) into raw.tar.xz ($(du -k "$d/raw.tar.xz" | cut -f1) KiB): ${big[*]}"
done
