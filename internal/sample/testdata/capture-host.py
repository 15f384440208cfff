#!/usr/bin/env python3
"""capture-host.py DIR TICKS: copy the host files the samplers read into
DIR/tick-N/{proc,sys}, one tick a second, with the start time in
DIR/tick-N/time. /proc/net/tcp* are left out (they list this host's peers)."""
import os, sys, time
out, n = sys.argv[1], int(sys.argv[2])
files = ['proc/stat', 'proc/loadavg', 'proc/softirqs', 'proc/interrupts', 'proc/meminfo', 'proc/vmstat',
         'proc/diskstats', 'proc/net/dev', 'proc/net/snmp', 'proc/net/netstat', 'proc/net/sockstat',
         'proc/pressure/cpu', 'proc/pressure/memory', 'proc/pressure/io']
files += ['sys/devices/system/node/%s/numastat' % d for d in sorted(os.listdir('/sys/devices/system/node')) if d.startswith('node')]
for i in range(n + 1):
    t0 = time.time()
    data = {}
    for f in files:
        try: data[f] = open('/' + f, 'rb').read()
        except OSError: pass
    root = os.path.join(out, 'tick-%d' % i)
    for f, b in data.items():
        os.makedirs(os.path.dirname(os.path.join(root, f)), exist_ok=True)
        open(os.path.join(root, f), 'wb').write(b)
    open(os.path.join(root, 'time'), 'w').write('%.9f\n' % t0)
    time.sleep(max(0, 1 - (time.time() - t0)))
