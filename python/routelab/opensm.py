"""A real subnet manager in the loop: OpenSM on an ibsim fabric.

`Subnet` starts ibsim on a fabric file (``ibsim -s -n FABRIC.net``)
and runs OpenSM once against it (``opensm -F CONF -o -e``, through
umad2sim), with any routing engine, OpenSM's ``file`` engine included, so
that routelab's tables can be deployed as OpenSM deploys them and read back
from the simulated switches (``ibroute``). `compare` puts OpenSM's
and routelab's tables for one engine side by side, and ``python -m
routelab.opensm OUT.md`` writes the comparison page of ``docs/``.

Needs Debian's ``opensm``, ``ibsim-utils`` and ``infiniband-diags``;
`ensure_tools` installs them with apt when run as root.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
PACKAGES = ("opensm", "ibsim-utils", "infiniband-diags")
_TOOLS = {
    "opensm": "opensm",
    "ibsim": "ibsim-utils",
    "ibroute": "infiniband-diags",
    "saquery": "infiniband-diags",
}
_counter = itertools.count()


def missing_tools() -> list[str]:
    """The packages whose programs are not installed."""
    missing = {pkg for tool, pkg in _TOOLS.items() if shutil.which(tool) is None}
    if not Path(UMAD2SIM).exists():
        missing.add("ibsim-utils")
    return sorted(missing)


def ensure_tools() -> str | None:
    """Installs the missing packages with apt when run as root; returns why
    they are still missing, or None when everything is there."""
    missing = missing_tools()
    if not missing:
        return None
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return (
            f"OpenSM tools missing ({', '.join(missing)}); install them with "
            f"'sudo apt-get install {' '.join(PACKAGES)}'"
        )
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", *PACKAGES],
    ):
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            return f"'{' '.join(cmd)}' failed: {run.stderr.strip()[-300:]}"
    missing = missing_tools()
    return f"still missing after apt-get: {', '.join(missing)}" if missing else None


class Subnet:
    """ibsim simulating ``fabric`` (a ``.net`` file), and OpenSM run against it.

    Use as a context manager; every OpenSM run shares one LID cache, so the
    LIDs stay the same from run to run."""

    def __init__(self, fabric: str | Path, workdir: str | Path):
        self.fabric = Path(fabric)
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.cache = self.dir / "cache"
        self.cache.mkdir(exist_ok=True)
        self.env = dict(
            os.environ,
            LD_PRELOAD=UMAD2SIM,
            IBSIM_SOCKNAME=f"rl{os.getpid()}x{next(_counter)}",
            OSM_CACHE_DIR=str(self.cache),
        )
        self.log = self.dir / "ibsim.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Subnet:
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                ["ibsim", "-s", "-n", str(self.fabric)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.env,
                cwd=self.dir,
            )
        deadline = time.monotonic() + 20
        while "simulator ready" not in self.log.read_text(errors="replace"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"ibsim did not start: {self.log.read_text()[-500:]}")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def ibsim_warnings(self) -> list[str]:
        return [ln for ln in self.log.read_text(errors="replace").splitlines() if "ibwarn" in ln]

    def opensm(self, name: str, engine: str, **conf: Any) -> Path:
        """Runs OpenSM once with ``routing_engine engine`` and the further
        ``conf`` options; returns the folder of its dumps (``opensm-lfts.dump``,
        ``opensm-subnet.lst``, ``osm.log``, a copy of ``guid2lid``)."""
        out = self.dir / name
        out.mkdir(exist_ok=True)
        lines = {
            "routing_engine": engine,
            "log_flags": "0x43",
            "dump_files_dir": str(out),
            **conf,
        }
        cfg = out / "opensm.conf"
        cfg.write_text("".join(f"{k} {v}\n" for k, v in lines.items()))
        run = subprocess.run(
            ["opensm", "-F", str(cfg), "-o", "-e", "-f", str(out / "osm.log")],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if run.returncode != 0 or not (out / "opensm-lfts.dump").exists():
            raise RuntimeError(
                f"opensm ({engine}) failed ({run.returncode}): {run.stdout[-500:]}"
                f"{(out / 'osm.log').read_text(errors='replace')[-1500:]}"
            )
        if (self.cache / "guid2lid").exists():
            shutil.copy(self.cache / "guid2lid", out / "guid2lid")
        return out

    @contextlib.contextmanager
    def sm(self, name: str, engine: str, **conf: Any) -> Iterator[Path]:
        """OpenSM running as the subnet's SM (not once), so that its SA answers
        queries (`path_records`) while the ``with`` block lasts; yields
        the folder of its dumps."""
        out = self.dir / name
        out.mkdir(exist_ok=True)
        lines = {"routing_engine": engine, "log_flags": "0x43", "dump_files_dir": str(out), **conf}
        cfg = out / "opensm.conf"
        cfg.write_text("".join(f"{k} {v}\n" for k, v in lines.items()))
        log = out / "osm.log"
        with open(out / "opensm.out", "w") as o:
            proc = subprocess.Popen(
                ["opensm", "-F", str(cfg), "-e", "-f", str(log)],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=o,
                stderr=subprocess.STDOUT,
            )
        try:
            deadline = time.monotonic() + 60
            stdout = out / "opensm.out"

            def up() -> bool:
                # Master, and the first sweep's dumps written.
                return (
                    "Entering MASTER state" in stdout.read_text(errors="replace")
                    and (out / "opensm-subnet.lst").exists()
                    and (out / "opensm-lfts.dump").exists()
                )

            while not up():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"opensm ({engine}) did not bring the subnet up")
                time.sleep(0.1)
            # The first sweep ends with "SUBNET UP" in the log once routes, SLs
            # and SL-to-VL tables are in place; the SA answers with them from
            # then on. Some engines' sweeps never log it: wait a while only.
            settle = time.monotonic() + 10
            while time.monotonic() < settle and "SUBNET UP" not in log.read_text(errors="replace"):
                time.sleep(0.1)
            time.sleep(0.5)
            cache = self.cache / "guid2lid"
            while not cache.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            if cache.exists():
                shutil.copy(cache, out / "guid2lid")
            yield out
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def path_records(self, net, switches: bool = False) -> str:
        """The path records the running SM's SA hands out between every pair
        of adapters of ``net`` (the fabric with the subnet's LIDs, e.g. read
        from ``opensm-subnet.lst``), and with ``switches`` of switch LIDs
        too, queried one pair at a time with ``saquery PR``, as an
        ``opensm-path-records.dump``: a block per source port with the SL of
        the path to every other."""
        nodes = list(net.terminals) + (list(net.switches) if switches else [])
        ends = [(net.nodes[t][3], net.nodes[t][2], net.nodes[t][1]) for t in nodes]
        is_switch = {net.nodes[x][3] for x in net.switches}

        def record(pair: tuple[int, int]) -> str:
            slid, dlid = pair
            # A query can time out on a busy machine (the simulated MADs
            # share it): ask again, backing off up to 1 s a try (about 8 s
            # in all), before calling the pair unreachable.
            for attempt in range(10):
                run = subprocess.run(
                    ["saquery", "PR", "--slid", str(slid), "--dlid", str(dlid)],
                    env=self.env,
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                f = dict(re.findall(r"^\s*(sl|mtu|rate)\.+(0x[0-9a-fA-F]+)", run.stdout, re.M))
                if run.returncode == 0 and "sl" in f:
                    break
                time.sleep(min(1.0, 0.2 * (attempt + 1)))
            if run.returncode != 0 or "sl" not in f:
                return f"0x{dlid:04x} : UNREACHABLE\n"
            mtu, rate = int(f["mtu"], 16) & 0x3F, int(f["rate"], 16) & 0x3F
            return f"0x{dlid:04x} : {int(f['sl'], 16)}  : {mtu}   : {rate}\n"

        pairs = [(s, d) for s, _, _ in ends for d, _, _ in ends if s != d]
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            got = dict(zip(pairs, pool.map(record, pairs), strict=True))
        out = []
        for slid, guid, desc in ends:
            kind, port = ("Switch", 0) if slid in is_switch else ("Channel Adapter", 1)
            out.append(
                f'{kind} 0x{guid:016x}, base LID {slid}, "{desc}", port {port}\n'
                "# LID  : SL : MTU : RATE\n"
            )
            out += [got[(slid, d)] for d, _, _ in ends if d != slid]
            out.append("\n")
        return "".join(out)

    def ibroute(self, lid: int) -> str:
        """What ``ibroute`` reads back from the switch with ``lid``."""
        run = subprocess.run(
            ["ibroute", str(lid)], env=self.env, capture_output=True, text=True, timeout=60
        )
        if run.returncode != 0:
            raise RuntimeError(f"ibroute {lid} failed: {run.stderr[-500:]}")
        return run.stdout


def pair_lanes(lanes_txt: str) -> dict[tuple[int, int], int]:
    """``(source LID, destination LID) -> lane`` of a ``lanes.txt``."""
    out = {}
    for ln in lanes_txt.splitlines():
        w = ln.split("#", 1)[0].split()
        if len(w) == 3:
            out[(int(w[0], 0), int(w[1], 0))] = int(w[2], 0)
    return out


def qos_policy(net, lanes_txt: str) -> str:
    """An OpenSM QoS policy (``qos_policy_file``) under which the SA hands
    out, for every pair of adapters of ``net`` (the fabric with the
    subnet's LIDs), and of switch LIDs where ``lanes.txt`` names them, the
    SL ``lanes.txt`` gives it: a port group per port, a QoS level per SL,
    and per source and SL one match rule naming the destinations. Pairs not
    named keep the default level, SL 0."""
    guid_of = {}
    for ln in net.to_guid2lid().splitlines():
        w = ln.split()
        if len(w) == 3:
            guid_of[int(w[1], 0)] = int(w[0], 16)
    lanes = pair_lanes(lanes_txt)
    # Adapters, and switches (port 0) where the lane table names them.
    named = {x for pair in lanes for x in pair if x in guid_of}
    term_lids = sorted({net.nodes[t][3] for t in net.terminals} | named)
    sls = sorted({sl for (s, d), sl in lanes.items() if s in guid_of and d in guid_of} | {0})
    out = ["# routelab: the SL of every pair of adapters, for OpenSM's qos_policy_file", ""]
    out.append("port-groups")
    for lid in term_lids:
        out += [
            "    port-group",
            f"        name: lid{lid}",
            f"        port-guid: 0x{guid_of[lid]:016x}",
            "    end-port-group",
        ]
    out += ["end-port-groups", "", "qos-levels"]
    # OpenSM requires the level named 'default': SL 0, for pairs not named.
    for sl in sls:
        name = "default" if sl == 0 else f"sl{sl}"
        out += ["    qos-level", f"        name: {name}", f"        sl: {sl}", "    end-qos-level"]
    out += ["end-qos-levels", "", "qos-match-rules"]
    for s in term_lids:
        by_sl: dict[int, list[int]] = {}
        for d in term_lids:
            sl = lanes.get((s, d), 0)
            if d != s and sl != 0:
                by_sl.setdefault(sl, []).append(d)
        for sl, dests in sorted(by_sl.items()):
            out += [
                "    qos-match-rule",
                f"        source: lid{s}",
                "        destination: " + ", ".join(f"lid{d}" for d in dests),
                f"        qos-level-name: sl{sl}",
                "    end-qos-match-rule",
            ]
    out += ["end-qos-match-rules", ""]
    return "\n".join(out)


def deploy_conf(lfts: str | Path, policy: str | Path, vls: int) -> dict[str, str]:
    """The ``opensm.conf`` lines that load routelab's tables (``file``
    engine) and hand out its SLs (QoS with `qos_policy`), SL i on
    VL i for the ``vls`` lanes the routes use."""
    sl2vl = ",".join(str(min(i, vls - 1)) for i in range(16))
    return {
        "routing_engine": "file",
        "lfts_file": str(lfts),
        "qos": "TRUE",
        "qos_policy_file": str(policy),
        "qos_max_vls": str(max(vls, 1)),
        "qos_sl2vl": sl2vl,
    }


def torus_config(net, dims: tuple[int, ...]) -> str:
    """OpenSM's ``torus-2QoS.conf`` for a torus routelab generated
    (``torus:AxB``, switch ``sI.J`` at coordinates I, J): its size and the
    seed links at ``s0.0`` in each direction, so that OpenSM's coordinates
    and datelines are routelab's."""
    guid = {n[1]: n[2] for n in net.nodes}
    size = list(dims) + [1] * (3 - len(dims))

    def name(c: list[int]) -> str:
        return "s" + ".".join(str(x) for x in c[: len(dims)]) if len(dims) > 1 else f"s{c[0]}"

    origin = [0] * len(dims)
    lines = [f"torus {size[0]} {size[1]} {size[2]}"]
    for d, axis in enumerate("xyz"[: len(dims)]):
        for sign, step in (("p", 1), ("m", -1)):
            far = list(origin)
            far[d] = step % dims[d]
            lines.append(f"{axis}{sign}_link 0x{guid[name(origin)]:016x} 0x{guid[name(far)]:016x}")
    return "\n".join(lines) + "\n"


def osm_errors(dump_dir: Path) -> list[str]:
    """The error lines of an OpenSM log (``ERR`` codes)."""
    text = (Path(dump_dir) / "osm.log").read_text(errors="replace")
    return [ln for ln in text.splitlines() if re.search(r"\bERR [0-9A-F]{4}\b", ln)]


def lft_entries(text: str) -> dict[tuple[int, int], int]:
    """``(switch LID, destination LID) -> port`` of an LFT dump or of
    ``ibroute`` output."""
    out: dict[tuple[int, int], int] = {}
    sw = None
    for ln in text.splitlines():
        m = re.match(r"Unicast lids \[.*\] of switch Lid (\d+)", ln)
        if m:
            sw = int(m.group(1))
            continue
        m = re.match(r"(0x[0-9a-fA-F]+)\s+(\d+)", ln)
        if m and sw is not None:
            out[(sw, int(m.group(1), 16))] = int(m.group(2))
    return out


def ca_lids(net) -> set[int]:
    """LIDs of the adapters of ``net`` (its terminals' own LIDs)."""
    return {net.nodes[t][3] for t in net.terminals}


def load_stats(net, routes) -> dict[str, float]:
    """Maximum and mean load of switch-to-switch channels over all ordered
    pairs of terminals (the number of pairs routed over each)."""
    import routelab

    df = routelab.channel_loads(routes, "all-to-all")
    sw = set(net.switches)
    inner = df[df["src"].isin(sw) & df["dst"].isin(sw)]["load"]
    return {"max_load": float(inner.max()), "mean_load": float(inner.mean())}


def osm_vls(dump_dir: Path) -> tuple[int, int]:
    """The VLs OpenSM's engine needs and uses, as its log states them
    (dfsssp: 'Virtual Lanes needed' and the lanes with paths after
    balancing); (1, 1) for engines that log none."""
    text = (Path(dump_dir) / "osm.log").read_text(errors="replace")
    needed = re.findall(r"Virtual Lanes needed: (\d+)", text)
    if not needed:
        return 1, 1
    after = text.rsplit("(after balancing)", 1)[-1]
    used = sum(1 for n in re.findall(r"\d+\. lane: (\d+)", after) if int(n) > 0)
    return int(needed[-1]), max(used, 1)


def compare(net, osm_dir: Path, engine: str, out_dir: Path, **options: Any) -> dict[str, Any]:
    """OpenSM's tables (``osm_dir``) against routelab's for ``engine`` on
    ``net`` (the fabric read from OpenSM's ``opensm-subnet.lst``, so the LIDs
    are the subnet's): entries to adapters that differ, link loads, VLs."""
    import routelab

    osm_dump = (Path(osm_dir) / "opensm-lfts.dump").read_text()
    osm = routelab.read_lfts(net, Path(osm_dir) / "opensm-lfts.dump")
    mine = routelab.route(net, engine, **options)
    mine.save(out_dir)
    cas = ca_lids(net)
    a = {k: v for k, v in lft_entries(osm_dump).items() if k[1] in cas}
    b = {
        k: v
        for k, v in lft_entries((Path(out_dir) / "opensm-lfts.dump").read_text()).items()
        if k[1] in cas
    }
    differ = sum(1 for k in a if b.get(k) != a[k])
    osm_check, mine_check = osm.deadlock(), mine.deadlock()
    return {
        "engine": engine,
        "entries": len(a),
        "differ": differ,
        "osm": {
            **load_stats(net, osm),
            "vls_needed": osm_vls(osm_dir)[0],
            "vls": osm_vls(osm_dir)[1],
            "deadlock_free_one_vl": osm_check["deadlock_free"],
        },
        "routelab": {
            **load_stats(net, mine),
            "vls_needed": mine_check["lanes_needed"],
            "vls": mine_check["lanes_used"],
            "deadlock_free": mine_check["deadlock_free"],
        },
    }


# The fabrics and engines of the comparison page: (name, spec, engines).
FABRICS = [
    ("2-level fat tree", "kary-ntree:k=4,n=2", ["minhop", "ftree", "updn", "sssp", "dfsssp"]),
    ("3-level fat tree", "kary-ntree:k=4,n=3", ["minhop", "ftree", "updn", "sssp", "dfsssp"]),
    (
        "leaf-spine, 3 cables per leaf and spine",
        "xgft:m=6,w=3,terminals=18,trunks=3",
        ["minhop", "ftree", "updn", "sssp", "dfsssp"],
    ),
    ("4x4 torus", "torus:4x4", ["minhop", "updn", "sssp", "dfsssp", "torus-2QoS"]),
    (
        "random network",
        "random:switches=12,ports=8,hosts=3,seed=1",
        ["minhop", "updn", "sssp", "dfsssp"],
    ),
]

# routelab's engine for each OpenSM engine name ('updn' is not reproduced).
ROUTELAB_ENGINE = {"updn": "updown", "torus-2QoS": "torus-2qos"}


def comparison_rows(workdir: Path, fabrics=FABRICS) -> list[dict[str, Any]]:
    """Runs every fabric and engine of ``fabrics`` and compares."""
    import routelab

    rows = []
    for i, (title, spec, engines) in enumerate(fabrics):
        wd = Path(workdir) / f"f{i}"
        wd.mkdir(parents=True, exist_ok=True)
        net_file = wd / "fabric.net"
        routelab.topology(spec).save(net_file)
        with Subnet(net_file, wd) as sn:
            for engine in engines:
                if engine == "torus-2QoS":
                    # Seeded at routelab's s0.0; routed on the generated
                    # torus (its coordinates) with the subnet's LIDs.
                    dims = tuple(int(k) for k in spec.split(":")[1].split("x"))
                    conf = wd / "torus-2QoS.conf"
                    conf.write_text(torus_config(routelab.topology(spec), dims))
                    d = sn.opensm(engine, engine, torus_config=conf, qos="TRUE")
                    net = routelab.topology(spec).with_guid2lid(d / "guid2lid")
                else:
                    d = sn.opensm(engine, engine)
                    net = routelab.load(d / "opensm-subnet.lst")
                row = compare(net, d, ROUTELAB_ENGINE.get(engine, engine), d / "routelab")
                row.update(fabric=title, spec=spec, osm_engine=engine)
                rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    out = [
        "# routelab and OpenSM, table for table",
        "",
        "Generated by `python -m routelab.opensm docs/opensm-comparison.md` "
        "(OpenSM 3.3.23 on ibsim 0.10, Debian packages). Each fabric is written "
        "by `routelab topo SPEC -o fabric.net`, simulated by ibsim and swept "
        "once by OpenSM with each engine; routelab routes the "
        "`opensm-subnet.lst` OpenSM wrote, so both use the subnet's LIDs.",
        "",
        "- *entries differ*: forwarding entries to adapter LIDs (every switch, "
        "every adapter) where routelab's port differs from OpenSM's.",
        "- *max / mean load*: pairs of adapters routed over a switch-to-switch "
        "link, all ordered pairs, maximum and mean over those links.",
        "- *VLs needed / used*: OpenSM's as its log states them (dfsssp's "
        "'Virtual Lanes needed' and the lanes holding paths after balancing; "
        "1 for the others), routelab's `lanes_needed` and `lanes_used`.",
        "- OpenSM's `updn` is compared with routelab's `updown`, which is not "
        "an alias of it (it balances by its own link-load count).",
        "- OpenSM's `torus-2QoS` is seeded at routelab's `s0.0` "
        "(`routelab.opensm.torus_config`) and run with `qos TRUE`; OpenSM "
        "reports no VL count for it (its SLs name the datelines crossed).",
        "",
        "| fabric | engine | entries differ | max load OpenSM | max load routelab "
        "| mean load OpenSM | mean load routelab | VLs OpenSM | VLs routelab |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        o, m = r["osm"], r["routelab"]
        pct = 100.0 * r["differ"] / max(r["entries"], 1)
        name = r["osm_engine"] + (f" / {r['engine']}" if r["engine"] != r["osm_engine"] else "")
        out.append(
            f"| {r['fabric']} (`{r['spec']}`) | {name} | {r['differ']} of "
            f"{r['entries']} ({pct:.1f}%) | {o['max_load']:g} | {m['max_load']:g} "
            f"| {o['mean_load']:.2f} | {m['mean_load']:.2f} | {o['vls_needed']} / {o['vls']} "
            f"| {m['vls_needed']} / {m['vls']} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    import tempfile

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m routelab.opensm OUT.md", file=sys.stderr)
        return 2
    why = ensure_tools()
    if why:
        print(why, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        rows = comparison_rows(Path(tmp))
    Path(argv[0]).write_text(markdown(rows))
    print(f"wrote {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
