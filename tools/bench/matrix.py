"""The benchmark matrix: which operations run over which access methods,
the client-side options of each cache configuration, and the command
line of every cell.  Pure data and string building, no I/O, so that it can
be unit-tested.

Operations (as in the published FSFS 7 measurements):
  log          svn log -v --limit N URL              (file, svn, http)
  export       svn export -q URL <tmpfs dir>          (file, svn, http)
  null-log     svnbench null-log -v URL               (file, svn, http)
  null-export  svnbench null-export URL               (file, svn, http)
  dump         svnadmin dump -q REPO > /dev/null      (local)
  load         svnadmin load -q NEWREPO < dump file   (local)
"""
from collections import namedtuple

REPOS = ("f6", "f6p", "f7", "f7p")
REPO_SPEC = {  # name: (compatible-version, shard size, packed)
    "f6": ("1.8", 1000, False), "f6p": ("1.8", 100, True),
    "f7": ("1.9", 1000, False), "f7p": ("1.9", 100, True),
}
OPS = ("log", "export", "null-log", "null-export", "dump", "load")
LOCAL_OPS = ("dump", "load")
ACCESS = ("file", "svn", "http")
CACHES = ("slow", "medium", "fast")
TEMPS = ("cold", "hot")
MODULES = ("stock", "fsfs7")

# In-process cache size (MB) of clients and svnadmin per configuration;
# None = the built-in default.
CLIENT_CACHE_MB = {"slow": None, "medium": 256, "fast": 1024}

Cell = namedtuple("Cell", "module repo op access cache temp")


def op_access(op, accesses):
    """The access methods OP runs over, given the selected ACCESSES."""
    return ("local",) if op in LOCAL_OPS else tuple(accesses)


def op_temps(op, temps):
    """Load reads a dump file and writes a new repository: there is no hot
    repository to speak of, so it only runs cold (dump file evicted)."""
    return tuple(t for t in temps if op != "load" or t == "cold")


def cells(modules, repos, ops, accesses, caches, temps, load_caches=None):
    """Every cell of the matrix, in a stable order grouped so that one
    server start serves a whole (module, repo, access, cache) group."""
    out = []
    for module in modules:
        for repo in repos:
            for access in tuple(accesses) + ("local",):
                for cache in caches:
                    for op in ops:
                        if access not in op_access(op, accesses):
                            continue
                        if op == "load" and load_caches is not None \
                                and cache not in load_caches:
                            continue
                        for temp in op_temps(op, temps):
                            out.append(Cell(module, repo, op, access, cache,
                                            temp))
    return out


def svn_cache_args(cache, access):
    """Options that set the svn client's in-process cache (file:// only:
    over the network the server's cache is what counts)."""
    mb = CLIENT_CACHE_MB[cache]
    if access != "file" or mb is None:
        return []
    return ["--config-option", "config:miscellany:memory-cache-size=%d" % mb]


def command(cell, url, repo_path, env):
    """argv of CELL's operation and the file to feed as stdin (or None).
    URL serves the client operations, REPO_PATH is the repository (dump)
    or the dump file (load).  ENV is a dict with: svnbench (path),
    log_limit, export_dir, config_dir, load_target (a fresh repository)."""
    mb = CLIENT_CACHE_MB[cell.cache]
    nocfg = ["--non-interactive", "--config-dir", env["config_dir"]]
    if cell.op == "log":
        return (["svn", "log", "-v", "--limit", str(env["log_limit"]), url]
                + nocfg + svn_cache_args(cell.cache, cell.access), None)
    if cell.op == "export":
        return (["svn", "export", "-q", "--force", url, env["export_dir"]]
                + nocfg + svn_cache_args(cell.cache, cell.access), None)
    sb_cache = (["-M", str(mb)] if mb is not None and cell.access == "file"
                else [])
    sb_cfg = ["--config-dir", env["config_dir"]]
    if cell.op == "null-log":
        return ([env["svnbench"], "null-log", "-v", url] + sb_cache + sb_cfg,
                None)
    if cell.op == "null-export":
        return ([env["svnbench"], "null-export", url] + sb_cache + sb_cfg,
                None)
    admin_cache = ["-M", str(mb)] if mb is not None else []
    if cell.op == "dump":
        return (["svnadmin", "dump", "-q", repo_path] + admin_cache, None)
    if cell.op == "load":
        return (["svnadmin", "load", "-q", env["load_target"]] + admin_cache,
                repo_path)
    raise ValueError("unknown operation %r" % cell.op)


def preset(name):
    """Matrix selections of the named modes."""
    if name == "quick":
        return dict(repos=REPOS, ops=OPS[:5], accesses=ACCESS,
                    caches=("slow", "fast"), temps=TEMPS, reps=3,
                    load_caches=None, log_limit=1000)
    if name == "full":
        return dict(repos=REPOS, ops=OPS, accesses=ACCESS, caches=CACHES,
                    temps=TEMPS, reps=3, load_caches=("slow",),
                    log_limit=1000)
    raise ValueError("unknown mode %r" % name)
