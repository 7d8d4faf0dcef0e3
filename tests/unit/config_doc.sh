#!/bin/sh
# docs/config.md must be what `rtm_info --config-doc` generates from every
# component's config rows, so the documented defaults cannot drift from the real ones.
# Regenerate with: rtm_info --config-doc > docs/config.md
set -u
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
env -u RTM_LOG_LEVEL "$top_builddir/rtm_info" --config-doc > "$tmp" || { echo "rtm_info --config-doc failed"; exit 1; }
if ! diff -u "$top_srcdir/docs/config.md" "$tmp"; then
    echo "FAIL: docs/config.md is out of date; regenerate it with: rtm_info --config-doc > docs/config.md"
    exit 1
fi
grep -q RTM_SHM_EAGER_LIMIT "$tmp" || { echo "FAIL: generated reference lacks RTM_SHM_EAGER_LIMIT"; exit 1; }
echo "docs/config.md matches the config rows"
