#!/usr/bin/env python3
"""Runs a command as a child subreaper and prints its wall time and the CPU (user + sys) of every
process it started, Chromium's renderers and zygote included (orphans are reparented here and
reaped, so none is left out of RUSAGE_CHILDREN). Usage: suite-cpu.py LABEL command args..."""
import ctypes, os, resource, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
label, cmd = sys.argv[1], sys.argv[2:]
load = os.getloadavg()[0]
t0 = time.time()
p = subprocess.Popen(cmd)
code = None
while True:
    try:
        pid, status = os.wait()
        if pid == p.pid: code = os.waitstatus_to_exitcode(status)
    except ChildProcessError:
        break
wall = time.time() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"CPU {label}: wall {wall:.1f} s, user {ru.ru_utime:.1f} s, sys {ru.ru_stime:.1f} s, cpu {ru.ru_utime + ru.ru_stime:.1f} s, exit {code}, load {load:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
sys.exit(code or 0)
