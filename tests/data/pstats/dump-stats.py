"""Prints what pstats.Stats reads from a file, one function a line, tab
separated: file, line, function, cc, nc, tottime, cumtime (repr: every
digit), then the number of callers, sorted; and the total time last."""
import pstats
import sys

st = pstats.Stats(sys.argv[1])
for (file, line, func), (cc, nc, tt, ct, callers) in sorted(st.stats.items()):
    print("\t".join([file, str(line), func, str(cc), str(nc), repr(tt), repr(ct), str(len(callers))]))
print("total_tt\t" + repr(st.total_tt))
