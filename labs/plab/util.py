"""util.py - small helpers over real tools, in the manner of Linux's
networking selftests (tools/testing/selftests/net/lib/py): cmd() runs a
command to its end, bkg() starts one in the background and ends it when
its block ends, defer() queues what must be undone, and every process
compare starts is tracked, with a line in the driver's journal, so that
the watchdog labs/pathlab started (labs/lib/proc.sh) can end it if we are
killed with SIGKILL.
"""

import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "labs", "lib")


class Fail(Exception):
    """A failure with a message for the screen; code is the exit status."""

    def __init__(self, msg, code=1):
        super().__init__(msg)
        self.code = code


class Usage(Fail):
    """A usage error: exit 2, the option named in the message."""

    def __init__(self, msg):
        super().__init__(msg, 2)


def say(*words, err=False, end="\n"):
    """Print one line at once (progress must show as it happens)."""
    stream = sys.stderr if err else sys.stdout
    print(*words, file=stream, flush=True, end=end)


class cmd:
    """Run COMM (a list, or a string for the shell) to its end.

    stdout and stderr are kept as text; fail=True raises Fail naming the
    command and its last words when it exits non-zero.
    """

    def __init__(self, comm, fail=True, timeout=None, stdin=None,
                 shell=False, env=None):
        self.comm = comm
        self.proc = subprocess.run(
            comm, shell=shell, capture_output=True, text=True,
            timeout=timeout, input=stdin, env=env)
        self.stdout = self.proc.stdout
        self.stderr = self.proc.stderr
        self.ret = self.proc.returncode
        if fail and self.ret != 0:
            words = comm if isinstance(comm, str) else " ".join(comm)
            last = (self.stderr or self.stdout).strip().splitlines()[-3:]
            raise Fail("%s: exit %d%s" % (words, self.ret,
                       (": " + " / ".join(last)) if last else ""))


def lib_call(script, func, *args, fail=True, timeout=None):
    """Call FUNC of the sourced shell library SCRIPT (topo.sh, deps.sh)."""
    return cmd(["bash", "-c", '. "$1" && shift && "$@"', "plab",
                os.path.join(LIB, script), func] + list(args),
               fail=fail, timeout=timeout)


def start_time(pid):
    """PID's start time in clock ticks since boot, or None when gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def alive(pid):
    """True if PID runs and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class Journal:
    """What compare started and set up, for the watchdog (proc.sh)."""

    def __init__(self, path=None):
        self.path = path if path is not None else os.environ.get(
            "PL_JOURNAL", "")

    def note(self, line):
        """Append one line (pid PID START, topo PREFIX, nf-here)."""
        if self.path:
            with open(self.path, "a") as f:
                f.write(line + "\n")


JOURNAL = Journal()
TRACKED = []


def track(proc):
    """Remember a started process: it is ended if compare ends early."""
    TRACKED.append(proc)
    JOURNAL.note("pid %d %s" % (proc.pid, start_time(proc.pid) or "?"))
    return proc


def end(proc, grace=3.0):
    """End PROC: TERM, KILL after GRACE s, then wait until it is gone."""
    if proc.poll() is not None:
        return proc.returncode
    try:
        proc.terminate()
        return proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        try:
            return proc.wait(2)
        except subprocess.TimeoutExpired:
            return None


def end_tracked():
    """End every tracked process still running (newest first)."""
    while TRACKED:
        end(TRACKED.pop())


class bkg:
    """Start COMM in the background, tracked; end it when the block ends.

    Output goes to the files named (or /dev/null); exit_wait=True waits
    for it to end by itself instead of ending it.
    """

    def __init__(self, comm, stdout=None, stderr=None, exit_wait=False,
                 env=None):
        self.comm = comm
        self.exit_wait = exit_wait
        out = open(stdout, "w") if stdout else subprocess.DEVNULL
        err = open(stderr, "w") if stderr else subprocess.DEVNULL
        try:
            self.proc = track(subprocess.Popen(
                comm, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                env=env))
        finally:
            for f in (out, err):
                if f is not subprocess.DEVNULL:
                    f.close()
        self.pid = self.proc.pid

    def wait(self, secs):
        """Wait up to SECS for it to end; its status, or None if it runs."""
        try:
            return self.proc.wait(secs)
        except subprocess.TimeoutExpired:
            return None

    def running(self):
        """True while it runs."""
        return self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, grace=5.0):
        """Send SIG and wait GRACE s; KILL if it is still there."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            if self.wait(grace) is None:
                self.proc.kill()
                self.wait(2)
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.exit_wait:
            self.wait(None)
        else:
            end(self.proc)
        if self.proc in TRACKED:
            TRACKED.remove(self.proc)


class defer:
    """Queue FUNC(*args) to undo something; run_all() undoes in reverse."""

    queue = []

    def __init__(self, func, *args):
        self.func = func
        self.args = args
        defer.queue.append(self)

    def cancel(self):
        """Forget it (it was undone already)."""
        if self in defer.queue:
            defer.queue.remove(self)

    def run(self):
        """Undo it now, once."""
        self.cancel()
        self.func(*self.args)

    @classmethod
    def run_all(cls):
        """Undo everything queued, newest first; an error does not stop it."""
        while cls.queue:
            try:
                cls.queue[-1].run()
            except Exception as e:  # one failed undo must not stop the rest
                say("pathlab: cleanup: %s" % e, err=True)


def wait_until(secs, test, period=0.05, while_alive=None):
    """Poll TEST() until it is true (True) or SECS pass (False); stop early
    when the process WHILE_ALIVE has ended."""
    t_end = time.monotonic() + secs
    while True:
        if test():
            return True
        if while_alive is not None and while_alive.poll() is not None:
            return test()
        if time.monotonic() >= t_end:
            return False
        time.sleep(period)


def tail(path, n=20, label=None):
    """The last N lines of file PATH, each prefixed '  LABEL: '."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()[-n:]
    except OSError:
        lines = []
    if not lines:
        return "  %s: (no output)" % (label or os.path.basename(path))
    return "\n".join("  %s: %s" % (label or os.path.basename(path), l)
                     for l in lines)
