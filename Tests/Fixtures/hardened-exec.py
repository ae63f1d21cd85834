#!/usr/bin/env python3
"""Runs a program under the restrictions of systemd/breezed.service, without systemd, for tests.

usage: hardened-exec.py WRITABLE_FOLDER PROGRAM [ARGUMENTS...]   (as root)

- ProtectSystem=strict: a private mount namespace where / is read-only and only WRITABLE_FOLDER is writable;
- NoNewPrivileges=yes;
- MemoryDenyWriteExecute=yes: prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN), what systemd uses on kernels that
  have it (6.3 and later);
- SystemCallFilter=@system-service ~@privileged @resources, SystemCallArchitectures=native: a seccomp allow-list
  built from `systemd-analyze syscall-filter`. The calls the unit takes away (@privileged, @resources) fail with
  EPERM as under the unit (libdispatch's setpriority does, and is ignored); any call outside @system-service
  kills the process, stricter than the unit's EPERM, so that a call the daemon needs cannot go unnoticed.
"""
import ctypes
import os
import signal
import subprocess
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_MDWE = 65
PR_MDWE_REFUSE_EXEC_GAIN = 1
SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000
CLONE_NEWNS = 0x00020000


def expand(name, seen):
    if name in seen:
        return set()
    seen.add(name)
    if not name.startswith("@"):
        return {name}
    out = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True, check=True)
    calls = set()
    for line in out.stdout.splitlines()[1:]:
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        calls |= expand(item, seen)
    return calls


def main():
    folder, program, arguments = sys.argv[1], sys.argv[2], sys.argv[2:]
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    libc = ctypes.CDLL(None, use_errno=True)

    service = expand("@system-service", set())
    refused = expand("@privileged", set()) | expand("@resources", set())
    allowed = service - refused

    if libc.unshare(CLONE_NEWNS) != 0:
        sys.exit("unshare: %s" % os.strerror(ctypes.get_errno()))
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    subprocess.run(["mount", "--bind", folder, folder], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", "/"], check=True)

    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        sys.exit("no_new_privs: %s" % os.strerror(ctypes.get_errno()))
    if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
        sys.exit("PR_SET_MDWE: %s (kernel 6.3 or later needed)" % os.strerror(ctypes.get_errno()))

    seccomp = ctypes.CDLL("libseccomp.so.2")
    seccomp.seccomp_init.restype = ctypes.c_void_p
    seccomp.seccomp_init.argtypes = [ctypes.c_uint32]
    seccomp.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    seccomp.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    seccomp.seccomp_load.argtypes = [ctypes.c_void_p]
    context = seccomp.seccomp_init(SCMP_ACT_KILL_PROCESS)
    for name in sorted(allowed):
        number = seccomp.seccomp_syscall_resolve_name(name.encode())
        if number < 0:
            continue  # not a call on this architecture
        if seccomp.seccomp_rule_add(context, SCMP_ACT_ALLOW, number, 0) != 0:
            sys.exit("seccomp_rule_add %s failed" % name)
    for name in sorted(refused):
        number = seccomp.seccomp_syscall_resolve_name(name.encode())
        if number < 0:
            continue
        if seccomp.seccomp_rule_add(context, SCMP_ACT_ERRNO | 1, number, 0) != 0:  # EPERM
            sys.exit("seccomp_rule_add %s failed" % name)
    if seccomp.seccomp_load(context) != 0:
        sys.exit("seccomp_load failed")
    os.execv(program, arguments)


main()
