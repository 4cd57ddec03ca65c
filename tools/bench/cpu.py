"""CPU accounting from /proc for the benchmark harness.

/proc/<pid>/stat fields 14-17 are utime, stime, cutime, cstime in clock
ticks; cutime/cstime cover children the process has already waited for,
so summing all four over a live process tree counts every finished and
running process of a server exactly once."""
import os

TICK = os.sysconf("SC_CLK_TCK")


def parse_stat(text):
    """(pid, ppid, cpu ticks incl. waited-for children) from the text of a
    /proc/<pid>/stat file.  The command name may contain spaces and
    parentheses, so fields are counted from the last ')'."""
    pid = int(text.split(" ", 1)[0])
    rest = text[text.rindex(")") + 2:].split()
    # rest[0] is field 3 (state): utime is field 14 -> rest[11]
    ppid = int(rest[1])
    ticks = sum(int(x) for x in rest[11:15])
    return pid, ppid, ticks


def read_all_stats():
    """{pid: (ppid, ticks)} for every process we can read."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                pid, ppid, ticks = parse_stat(f.read())
        except (OSError, ValueError, IndexError):
            continue
        out[pid] = (ppid, ticks)
    return out


def process_tree(root, stats=None):
    """ROOT and all its descendants, parents first."""
    stats = stats if stats is not None else read_all_stats()
    children = {}
    for pid, (ppid, _ticks) in stats.items():
        children.setdefault(ppid, []).append(pid)
    order, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        if pid in stats:
            order.append(pid)
            todo.extend(sorted(children.get(pid, [])))
    return order


def tree_cpu_seconds(root):
    stats = read_all_stats()
    return sum(stats[p][1] for p in process_tree(root, stats)) / TICK
