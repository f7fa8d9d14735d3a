"""Real engines for the SQL parity tests, started by the session fixtures in ``conftest.py``.

* **PostgreSQL**: a throw-away cluster from the system's server binaries (Debian package
  ``postgresql``), made by ``initdb`` in a new temporary directory with a locale-aware ICU
  default collation (en-US), so that a missing ``COLLATE "C"`` fails a test here as it would on
  a production server; it listens on a Unix socket in that directory only (no TCP). As root
  the server runs as the ``postgres`` user the Debian package creates. The server is a direct
  child of the test process with a parent-death signal, so even a test run killed with SIGKILL
  leaves no server behind; the fixture's teardown sends SIGINT (fast shutdown) and removes
  the directory.
* **Spark**: a ``local[2]`` SparkSession (UI off, 2 shuffle partitions, bound to 127.0.0.1)
  from the ``pyspark`` dev dependency; needs Java 17+ (Debian ``openjdk-17-jre-headless``).
  Its JVM is a child of the test process and exits with it.

A missing prerequisite fails the tests that need it, with the install command in the message
(``.ci/run`` installs both): these tests never skip.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest

#: Seconds allowed for initdb, for the server to accept connections, and for it to stop.
PG_INIT_TIMEOUT = 120
PG_START_TIMEOUT = 60
PG_STOP_TIMEOUT = 30

PG_INSTALL = "apt-get install -y postgresql (server binaries in /usr/lib/postgresql/N/bin)"
JAVA_INSTALL = "apt-get install -y openjdk-17-jre-headless"

_DIR_PREFIX = "pr-pg-"
_OWNER = "owner.pid"


def missing(message: str) -> None:
    """A prerequisite is missing: fail (these tests must run wherever the suite runs)."""
    pytest.fail(f"{message} (.ci/run installs it)", pytrace=False)


# --------------------------------------------------------------------------------------------
# PostgreSQL


def find_postgres_bin() -> Path | None:
    """The newest server bin directory: ``$POLARS_RANK_PG_BIN``, else Debian's layout, else the
    directory of ``initdb`` on PATH."""
    override = os.environ.get("POLARS_RANK_PG_BIN")
    candidates = [override] if override else []
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
        reverse=True,
    )
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent))
    for candidate in candidates:
        if (Path(candidate) / "initdb").is_file() and (Path(candidate) / "postgres").is_file():
            return Path(candidate)
    return None


_PG_TYPES = {
    pl.String: "TEXT",
    pl.Int8: "INTEGER",
    pl.Int16: "INTEGER",
    pl.Int32: "INTEGER",
    pl.Int64: "BIGINT",
    pl.UInt8: "INTEGER",
    pl.UInt16: "INTEGER",
    pl.UInt32: "BIGINT",
    pl.Float32: "DOUBLE PRECISION",
    pl.Float64: "DOUBLE PRECISION",
}


def _quoted(name: str) -> str:
    """A PostgreSQL identifier, quoted as given."""
    return '"' + name.replace('"', '""') + '"'


#: Result types by PostgreSQL type OID (others come back as text).
def _pg_type(dtype: pl.DataType) -> str:
    """The PostgreSQL column type of a Polars dtype (lists and arrays of numbers: float8[])."""
    if isinstance(dtype, pl.List | pl.Array):
        return "DOUBLE PRECISION[]"
    return _PG_TYPES[dtype]


_POLARS_TYPES = {701: pl.Float64, 20: pl.Int64, 23: pl.Int32, 16: pl.Boolean, 25: pl.String}


@dataclass
class PostgresServer:
    """A running throw-away server; :meth:`load` a frame into a table, :meth:`query` it."""

    directory: Path
    process: subprocess.Popen
    version: str

    def connect(self) -> Any:
        import psycopg

        return psycopg.connect(
            host=str(self.directory), user="postgres", dbname="postgres", autocommit=True
        )

    def load(self, name: str, frame: pl.DataFrame) -> None:
        """(Re)create table ``name`` from a Polars frame with COPY (CSV through memory); the
        table's and the columns' names are quoted as given (any name PostgreSQL allows)."""
        columns = ", ".join(f"{_quoted(c)} {_pg_type(frame.schema[c])}" for c in frame.columns)
        name = _quoted(name)
        # arrays (feature vectors) as PostgreSQL's array literal text, {1.0,-2.0}
        lists = [c for c, t in frame.schema.items() if isinstance(t, pl.List | pl.Array)]
        frame = frame.with_columns(
            (
                "{"
                + pl.col(c).cast(pl.List(pl.Float64)).cast(pl.List(pl.String)).list.join(",")
                + "}"
            ).alias(c)
            for c in lists
        )
        with self.connect() as con, con.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS {name}")
            cur.execute(f"CREATE UNLOGGED TABLE {name} ({columns})")
            with cur.copy(f"COPY {name} FROM STDIN WITH (FORMAT csv)") as copy:
                for start in range(0, frame.height, 1_000_000):
                    chunk = frame.slice(start, 1_000_000)
                    copy.write(chunk.write_csv(include_header=False).encode())
            cur.execute(f"ANALYZE {name}")

    def query(self, sql: str) -> pl.DataFrame:
        """Run ``sql``; the result as a Polars frame with the server's column names and types."""
        with self.connect() as con, con.cursor() as cur:
            cur.execute(sql)
            schema = {d.name: _POLARS_TYPES.get(d.type_code, pl.String) for d in cur.description}
            rows = cur.fetchall()
        return pl.DataFrame(rows, schema=schema, orient="row")


def _as_server_user(argv: list[str], user: str | None) -> list[str]:
    """``argv`` run as ``user`` (None: as we are) with SIGINT when this process dies, so that a
    killed test run cannot leave a server behind (setpriv execs: the pid is the server's)."""
    prefix = ["setpriv", "--pdeathsig=SIGINT"]
    if user is not None:
        prefix += [f"--reuid={user}", f"--regid={user}", "--clear-groups"]
    return [*prefix, "--", *argv]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_directories() -> None:
    """Remove the directories of earlier test runs killed before their teardown (their servers
    died with them); a directory whose owning process still runs is left alone."""
    for directory in Path(tempfile.gettempdir()).glob(f"{_DIR_PREFIX}*"):
        try:
            owner = int((directory / _OWNER).read_text())
        except (OSError, ValueError):
            continue  # not ours, or still being created
        if not _alive(owner):
            shutil.rmtree(directory, ignore_errors=True)


def start_postgres() -> PostgresServer:
    """initdb and start a server in a new temporary directory (see the module docstring)."""
    bindir = find_postgres_bin()
    if bindir is None:
        missing(f"PostgreSQL server binaries not found: {PG_INSTALL}")
    if shutil.which("setpriv") is None:
        missing("setpriv (util-linux) is needed to run the test server")
    user: str | None = None
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root
        user = "postgres"
        try:
            pw = pwd.getpwnam(user)
        except KeyError:
            missing(f"running as root but there is no 'postgres' user: {PG_INSTALL}")
    remove_stale_directories()
    directory = Path(tempfile.mkdtemp(prefix=_DIR_PREFIX))  # short: socket paths are short
    try:
        (directory / _OWNER).write_text(str(os.getpid()))
        if user is not None:
            os.chown(directory, pw.pw_uid, pw.pw_gid)
        initdb = [
            str(bindir / "initdb"),
            "-D", str(directory / "data"),
            "--auth=trust", "-U", "postgres", "--no-sync",
            "--encoding=UTF8", "--locale=C.UTF-8",
            "--locale-provider=icu", "--icu-locale=en-US",
        ]  # fmt: skip
        result = subprocess.run(
            _as_server_user(initdb, user),
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=PG_INIT_TIMEOUT,
        )
        if result.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{result.stdout}\n{result.stderr}")
        server = [
            str(bindir / "postgres"),
            "-D", str(directory / "data"),
            "-k", str(directory),
            "-c", "listen_addresses=",
            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
        ]  # fmt: skip
        with open(directory / "server.log", "ab") as log:
            process = subprocess.Popen(
                _as_server_user(server, user), cwd=directory, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + PG_START_TIMEOUT
        ready = [str(bindir / "pg_isready"), "-q", "-h", str(directory), "-U", "postgres"]
        while subprocess.run(ready, timeout=10).returncode != 0:
            if process.poll() is not None or time.monotonic() > deadline:
                stop_postgres(process)
                log_text = (directory / "server.log").read_text(errors="replace")
                raise RuntimeError(f"PostgreSQL did not start:\n{log_text[-4000:]}")
            time.sleep(0.05)
        version = subprocess.run(
            [str(bindir / "postgres"), "--version"], capture_output=True, text=True
        ).stdout.strip()
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    return PostgresServer(directory, process, version)


def stop_postgres(process: subprocess.Popen) -> None:
    """Fast shutdown (SIGINT); immediate (SIGQUIT) after the timeout; SIGKILL last."""
    for sig, wait in ((signal.SIGINT, PG_STOP_TIMEOUT), (signal.SIGQUIT, 10), (signal.SIGKILL, 10)):
        if process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


# --------------------------------------------------------------------------------------------
# Spark


def java_version() -> str | None:
    """``java -version``'s first line, or None when there is no Java."""
    home = os.environ.get("JAVA_HOME")
    java = shutil.which("java", path=os.path.join(home, "bin")) if home else None
    java = java or shutil.which("java")
    if java is None:
        return None
    result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    return (result.stderr or result.stdout).splitlines()[0] if result.returncode == 0 else None


def start_spark(cores: int = 2, partitions: int = 2, memory: str = "6g") -> Any:
    """A local SparkSession for tests: ``local[cores]``, UI off, loopback only. One session
    serves the whole run (thousands of stages); with a 2 GiB heap a hash aggregation of the
    recommender SQL once failed late in a CI run with AGGREGATE_OUT_OF_MEMORY, so the driver
    gets 6 GiB (the machine has 24): a full run failed the same way late at 4 GiB. The session
    also keeps the status of only its last few queries, since Spark's status store keeps each
    finished query's plan description (1000 by default) and the compiled recommender SQL's
    plans are large."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        missing("pyspark is not installed (a dev dependency: uv sync)")
    if java_version() is None:
        missing(f"Java 17+ is needed for Spark: {JAVA_INSTALL}")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # PySpark warns about pandas 3 on import; the engine moves data with Arrow, not pandas
    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
    session = (
        SparkSession.builder.master(f"local[{cores}]")
        .appName("polars_rank-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.default.parallelism", str(cores))
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.memory", memory)
        .config("spark.sql.ui.retainedExecutions", "10")
        .config("spark.ui.retainedJobs", "20")
        .config("spark.ui.retainedStages", "20")
        .config("spark.ui.retainedTasks", "200")
        .config("spark.ui.dagGraph.retainedRootRDDs", "20")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


class ClickHouseSession:
    """chDB's in-process ClickHouse (one per process), with :class:`PostgresServer`'s
    ``load`` / ``query``; ``nullable`` chooses whether loaded columns are ``Nullable``."""

    def __init__(self) -> None:
        from chdb import session

        self.directory = Path(tempfile.mkdtemp(prefix="pr-chdb-"))
        # in memory: chDB runs one embedded engine per process, on one path, which
        # engine="clickhouse" (without con) shares
        self.session = session.Session()

    def run(self, sql: str) -> None:
        """Run a statement (no result)."""
        self.session.query(sql)

    def load(self, name: str, frame: pl.DataFrame, *, nullable: bool = True) -> None:
        """(Re)create the Memory table ``name`` (quoted as given) from a Polars frame, through
        a Parquet file; its columns ``Nullable`` unless ``nullable`` is false."""
        path = self.directory / "load.parquet"
        frame.write_parquet(path)
        quoted = "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
        self.run(f"DROP TABLE IF EXISTS {quoted}")
        self.run(
            f"CREATE TABLE {quoted} ENGINE = Memory AS SELECT * FROM file('{path}', Parquet) "
            f"SETTINGS schema_inference_make_columns_nullable = {int(nullable)}"
        )

    def query(self, sql: str) -> pl.DataFrame:
        """Run ``sql``; the result as a Polars frame with ClickHouse's column names and types."""
        return pl.from_arrow(self.session.query(sql, "ArrowTable"))  # type: ignore[return-value]

    def close(self) -> None:
        self.session.close()
        shutil.rmtree(self.directory, ignore_errors=True)
