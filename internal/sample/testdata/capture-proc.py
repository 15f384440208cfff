#!/usr/bin/env python3
"""capture-proc.py PID DIR TICKS: copy /proc/PID/{stat,status,limits}, the
names of /proc/PID/fd (as empty files) and task/*/{stat,status,schedstat}
into DIR/tick-N/proc/PID, one tick a second, with the capture start time in
DIR/tick-N/time. One process, no forks, so a tick is read within a few ms."""
import os, sys, time
pid, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def copy(src, dst):
    try:
        with open(src, 'rb') as f: data = f.read()
    except OSError: return
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, 'wb') as f: f.write(data)
for i in range(n + 1):
    t0 = time.time()
    root = os.path.join(out, 'tick-%d' % i)
    base = os.path.join(root, 'proc', pid)
    files = {}
    for f in ('stat', 'status', 'limits'):
        files[f] = open('/proc/%s/%s' % (pid, f), 'rb').read()
    fds = os.listdir('/proc/%s/fd' % pid)
    for tid in os.listdir('/proc/%s/task' % pid):
        for f in ('stat', 'status', 'schedstat'):
            try: files['task/%s/%s' % (tid, f)] = open('/proc/%s/task/%s/%s' % (pid, tid, f), 'rb').read()
            except OSError: pass
    for k, v in files.items():
        os.makedirs(os.path.dirname(os.path.join(base, k)), exist_ok=True)
        open(os.path.join(base, k), 'wb').write(v)
    os.makedirs(os.path.join(base, 'fd'), exist_ok=True)
    for fd in fds: open(os.path.join(base, 'fd', fd), 'wb').close()
    open(os.path.join(root, 'time'), 'w').write('%.9f\n' % t0)
    open(os.path.join(out, 'pid'), 'w').write(pid + '\n')
    time.sleep(max(0, 1 - (time.time() - t0)))
