"""A throwaway PostgreSQL server from Debian's `postgresql` package, for tests and benchmarks.

`throwaway_postgres()` runs initdb and postgres from /usr/lib/postgresql/*/bin in a fresh
temporary folder, on a private port and a private unix-socket folder, as an unprivileged user
when this process is root (initdb refuses root), and removes it all afterwards. It yields a
`postgresql://` URL over that socket. `missing()` says why it cannot run here, or None.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time

UNPRIVILEGED = "nobody"


def binaries():
    """The newest installed PostgreSQL's bin folder, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[-3]) if p.split("/")[-3].isdigit() else 0)
    return os.path.dirname(found[-1]) if found else None


def missing():
    """Why a throwaway server cannot start here (None when it can)."""
    if binaries() is None:
        return ("PostgreSQL binaries are not installed (/usr/lib/postgresql/*/bin): "
                "apt-get install -y postgresql (.ci/run does)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser: initdb cannot be run as an unprivileged user"
    return None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_user(argv):
    return ["runuser", "-u", UNPRIVILEGED, "--", *argv] if os.geteuid() == 0 else argv


@contextlib.contextmanager
def throwaway_postgres(max_connections: int = 200):
    """Start a private PostgreSQL server; yield its URL; stop it and remove its folder."""
    bin_dir = binaries()
    assert bin_dir is not None, missing()
    root = tempfile.mkdtemp(prefix="burgee-pg-")
    data, sockets, log = (os.path.join(root, name) for name in ("data", "sock", "log"))
    os.mkdir(sockets, 0o700)
    if os.geteuid() == 0:
        import pwd
        user = pwd.getpwnam(UNPRIVILEGED)
        os.chmod(root, 0o700)
        for path in (root, sockets):
            os.chown(path, user.pw_uid, user.pw_gid)
    port = free_port()
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    started = False
    try:
        subprocess.run(_as_user([f"{bin_dir}/initdb", "-D", data, "-U", "postgres", "-A", "trust",
                                 "-E", "UTF8", "--locale=C", "--no-sync"]),
                       check=True, capture_output=True, env=env, cwd=root, timeout=120)
        options = (f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
                   f"-c synchronous_commit=off -c full_page_writes=off "
                   f"-c max_connections={max_connections}")
        subprocess.run(_as_user([f"{bin_dir}/pg_ctl", "-D", data, "-l", log, "-o", options,
                                 "-w", "-t", "120", "start"]),
                       check=True, capture_output=True, env=env, cwd=root, timeout=150)
        started = True
        url = f"postgresql://postgres@/postgres?host={sockets}&port={port}"
        _wait_ready(url)
        yield url
    except subprocess.CalledProcessError as error:
        text = error.stdout.decode(errors="replace") + error.stderr.decode(errors="replace")
        if os.path.exists(log):
            with open(log, errors="replace") as handle:
                text += handle.read()
        raise RuntimeError(f"the throwaway PostgreSQL did not start: {text}") from None
    finally:
        if started:
            subprocess.run(_as_user([f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "-w",
                                     "stop"]), capture_output=True, env=env, cwd=root,
                           timeout=120)
        shutil.rmtree(root, ignore_errors=True)


def _wait_ready(url, timeout=60.0):
    import psycopg
    deadline = time.monotonic() + timeout
    while True:
        try:
            psycopg.connect(url, connect_timeout=5).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
