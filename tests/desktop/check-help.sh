#!/bin/sh
# Copyright 2026 The Flamediff developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# check-help.sh YELP_CHECK HELPDIR PAGE...
# yelp-check's links, orphans, ids and media commands report problems only
# by printing them: fail on any output. Also fail when a page in HELPDIR is
# not in the build's list of pages (it would be validated but not installed).
yelp_check=$1; dir=$2; shift 2
status=0
for cmd in links orphans ids media; do
  out=$("$yelp_check" "$cmd" "$dir" 2>&1)
  if [ -n "$out" ]; then
    echo "FAIL: yelp-check $cmd $dir:"
    echo "$out"
    status=1
  else
    echo "ok: yelp-check $cmd"
  fi
done
for page in "$dir"/*.page; do
  name=$(basename "$page")
  case " $* " in
    *" $name "*) ;;
    *) echo "FAIL: $name is in $dir but not in help/meson.build's help_pages"; status=1 ;;
  esac
done
exit $status
