#!/usr/bin/env python3
# rss_peak.py -- where is the peak RSS of a command, by owner?
#
#   RSS_SHIM=/path/rss_shim.so tools/bench/rss_peak.py MODDIR OUTPREFIX cmd...
#
# Runs CMD with LD_LIBRARY_PATH=MODDIR and rss_shim.c preloaded, stops it
# (SIGSTOP) at each new VmRSS high, and attributes the resident pages
# (/proc/PID/pagemap) of every live anonymous mapping and large malloc to
# an owner: for an APR block, the stack that created the pool that last
# allocated from it; a block on an APR allocator's free list (read from
# /proc/PID/mem) is FREE, named by its first mapper; malloc blocks (A) by
# their malloc stack.  Prints the breakdown at the highest stop to
# OUTPREFIX.txt (OUTPREFIX.log is the shim's log).  Symbols are the
# nearest `nm` symbol, so static functions of stripped libraries show
# as the exported function before them.
import subprocess,sys,os,re,time,signal,collections,struct,bisect
mod,outp=sys.argv[1],sys.argv[2]; cmd=sys.argv[3:]
log=outp+'.log'
env=dict(os.environ,LD_LIBRARY_PATH=mod,LD_PRELOAD=os.environ.get('RSS_SHIM',os.path.join(os.path.dirname(os.path.abspath(__file__)),'rss_shim.so')),MSHIM_OUT=log)
if os.path.exists(log): os.unlink(log)
p=subprocess.Popen(cmd,stdout=subprocess.DEVNULL,env=env)
pid=p.pid
def status():
    t=open('/proc/%d/status'%pid).read()
    return {k:int(v) for k,v in re.findall(r'^(Vm\w+|Rss\w+):\s+(\d+)',t,re.M)}
allocs=[]; live={}; owner={}; pools={}; lf=None; tail=b''
def read_log():
    global lf,tail
    if lf is None:
        try: lf=open(log,'rb')
        except FileNotFoundError: return
    data=tail+lf.read()
    lines=data.split(b'\n'); tail=lines.pop()
    ret=None
    for line in lines:
        f=line.decode().split()
        if len(f)<3: continue
        k=f[0]; a=int(f[1],16); l=int(f[2],16)
        if k in 'MA': live[a]=(l,k,tuple(int(x,16) for x in f[3:]))
        elif k=='F': live.pop(a,None)
        elif k=='C': allocs.append(a)
        elif k=='O': owner[a]=l
        elif k=='P': pools[a]=(l,tuple(int(x,16) for x in f[3:]))
        elif k=='I': ret='I'
        elif k=='U':
            for b in [b for b in live if live[b][1]=='M' and a<=b<a+l]: del live[b]
    return ret
def resident(a,l):
    s=a//4096; e=(a+l+4095)//4096
    with open('/proc/%d/pagemap'%pid,'rb',buffering=0) as pm:
        pm.seek(s*8); d=pm.read((e-s)*8)
    return sum(4 for i in range(0,len(d),8) if d[i+7]&0x80)
def freelists():
    fn={}
    with open('/proc/%d/mem'%pid,'rb',buffering=0) as mem:
        for al in allocs:
            try:
                mem.seek(al); ptrs=struct.unpack('<25Q',mem.read(200))
                if ptrs[0]>20: continue
                for n in ptrs[5:]:
                    k=0
                    while n and k<10000:
                        mem.seek(n); nx,ref,idx,fi=struct.unpack('<QQII',mem.read(24))
                        fn[n]=(idx+1)*4096; n=nx; k+=1
            except Exception as e: pass
    return fn
best=None; bestrss=0; started=False
while p.poll() is None:
    if not started:
        started=(read_log()=='I'); continue
    try: rss=status().get('VmRSS',0)
    except Exception: break
    if rss>bestrss+16:
        os.kill(pid,signal.SIGSTOP)
        try:
            t0=time.time()
            while open('/proc/%d/stat'%pid).read().split(')')[1].split()[0] not in 'Tt' and time.time()<t0+1: pass
            st=status(); read_log(); fn=freelists()
            regs=[(a,l,('FREE' if (k=='M' and a in fn) else k),(pools[owner[a]][1] if (k=='M' and a not in fn and owner.get(a) in pools) else stk),resident(a,l)) for a,(l,k,stk) in live.items()]
            maps=open('/proc/%d/maps'%pid).read()
            bestrss=st['VmRSS']; best=(st,regs,maps)
        except Exception as e: print('err',e,file=sys.stderr)
        os.kill(pid,signal.SIGCONT)
    time.sleep(0.0005)
p.wait()
st,regs,maps=best
mm=[]; base={}
for line in maps.splitlines():
    f=line.split()
    if len(f)>=6 and f[5].startswith('/'):
        a,b=[int(x,16) for x in f[0].split('-')]
        base.setdefault(f[5],a-int(f[2],16))
        if 'x' in f[1]: mm.append((a,b,f[5]))
symcache={}
def syms(lib):
    if lib in symcache: return symcache[lib]
    out=subprocess.run(['nm','-C','--defined-only',lib],capture_output=True,text=True).stdout
    if not out.strip(): out=subprocess.run(['nm','-D','-C','--defined-only',lib],capture_output=True,text=True).stdout
    L=[]
    for line in out.splitlines():
        f=line.split(None,2)
        if len(f)==3 and f[1] in 'tTwWiI': L.append((int(f[0],16),f[2]))
    L.sort(); symcache[lib]=L; return L
def sym(addr):
    for a,b,lib in mm:
        if a<=addr<b:
            o=addr-base[lib]; L=syms(lib); i=bisect.bisect_right(L,(o,'\xff'))-1
            return '%s:%s'%(os.path.basename(lib).split('.so')[0].replace('libsvn_',''),L[i][1] if i>=0 else hex(o))
    return hex(addr)
SKIP=('libapr-1:','libc:','mshim','rss_shim','subr-1:svn_pool_create_ex','subr-1:svn_stringbuf')
def key(stk):
    if os.environ.get('RAW'): return ' < '.join(sym(x) for x in stk[:12])
    names=[n for n in (sym(x) for x in stk) if not n.startswith(SKIP)]
    return ' < '.join(names[:int(os.environ.get('DEPTH','4'))])
agg=collections.defaultdict(lambda:[0,0,0])
for a,l,k,stk,r in regs:
    e=agg[(k,key(stk))]; e[0]+=r; e[1]+=l//1024; e[2]+=1
tot=sum(e[0] for e in agg.values())
byk=collections.Counter()
for (k,n),e in agg.items(): byk[k]+=e[0]
with open(outp+'.txt','w') as o:
    print('VmHWM %d VmRSS %d RssAnon %d RssFile %d; attributed anon %d kB %s (M: live anon mmap, FREE: on an APR free list, A: malloc>=16k)'%(st['VmHWM'],st['VmRSS'],st.get('RssAnon',0),st.get('RssFile',0),tot,dict(byk)),file=o)
    for (k,n),e in sorted(agg.items(),key=lambda x:-x[1][0]):
        if e[0]>=48: print('%7d kB res %7d kB size %4dx %-4s %s'%(e[0],e[1],e[2],k,n),file=o)
print(open(outp+'.txt').read())
