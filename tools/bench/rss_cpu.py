#!/usr/bin/env python3
# rss_cpu.py -- alternate modules on one command and report CPU and peak RSS:
#
#   tools/bench/rss_cpu.py N MODDIR... -- CMD...
#
# Runs CMD N times per module (LD_LIBRARY_PATH=MODDIR), the modules in
# turn, and prints per module the min and median of user+sys CPU (from
# wait4, microsecond resolution: /usr/bin/time rounds to 10 ms, too
# coarse for 0.3 s rows) and the range of ru_maxrss (kB).
import sys,os,subprocess,statistics
i=sys.argv.index('--'); n=int(sys.argv[1]); mods=sys.argv[2:i]; cmd=sys.argv[i+1:]
res={m:[] for m in mods}
for k in range(n):
    for m in mods:
        p=subprocess.Popen(cmd,stdout=subprocess.DEVNULL,env=dict(os.environ,LD_LIBRARY_PATH=m))
        _,st,ru=os.wait4(p.pid,0)
        res[m].append((ru.ru_utime+ru.ru_stime,ru.ru_maxrss))
for m in mods:
    c=[x[0] for x in res[m]]; r=[x[1] for x in res[m]]
    print('%-40s cpu min %.3f med %.3f  RSS %d-%d kB'%(m,min(c),statistics.median(c),min(r),max(r)))
