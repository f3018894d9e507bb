#!/bin/sh
# Remakes the pstats fixtures with the system python3 (3.11, Debian 12):
# cProfile and profile runs of app.py, and for each what pstats.Stats
# reads from it (dump-stats.py), the figures tests/test-pstats.c must
# equal. Run from /tmp so no worktree path ends up in the files.
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/flamediff-pstats
rm -rf "$work" && mkdir -p "$work" && cp "$here/app.py" "$work"
cd "$work"
/usr/bin/python3 -m cProfile -o baseline.pstats app.py 2000 > /dev/null
/usr/bin/python3 -m cProfile -o current.pstats app.py 3000 > /dev/null
# the pure-Python profile module; not with -m: that stores the script's
# code object in a key, which only Python itself can read back
/usr/bin/python3 -c "import profile, app; profile.run('app.main(500)', 'profile.pstats')" > /dev/null
for f in baseline current profile; do
  cp "$work/$f.pstats" "$here/"
  (cd / && /usr/bin/python3 "$here/dump-stats.py" "$here/$f.pstats") > "$here/$f.expected"
done
rm -rf "$work"
