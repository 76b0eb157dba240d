#!/usr/bin/env python3
"""podcycle beside its peers, on the same inputs, in one run.

Installs pinned peer releases from their registries into a cache directory (never into the
repository), writes the generated corpus of benches/corpus.rs to disk, and times every tool on
every input in interleaved rounds: wall time, CPU time (user + system) and peak resident set
size, from wait4() on each child. Prints a Markdown table of medians with ratios to podcycle,
with the load of the machine before and after. docs/performance.md describes what each tool
checks and how to read the table.

    python3 benches/peers/run.py install        # install the peers only
    python3 benches/peers/run.py run            # install what is missing, then measure
    python3 benches/peers/run.py run --rounds 5 --checkov-rounds 1

The cache directory is $PODCYCLE_BENCH_CACHE, else ~/.cache/podcycle-bench. The corpus of real
manifests is $PODCYCLE_BENCH_CORPUS, else ../shared/corpus or ../../shared/corpus beside the
repository; without one, only the generated corpus is measured.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHECKOV = "3.3.30"
# Kubernetes' JSON schemas for kubeconform, as PyPI's kubernetes-validate ships them.
SCHEMAS_PACKAGE = "kubernetes-validate"
SCHEMAS_VERSION = "1.37.0"
KUBERNETES_VERSION = "1.37.0"
# Go peers: the module paths their documentation gives, newest pinned tag first; the first one
# the module proxy serves is installed.
GO_PEERS = {
    "kubeconform": [("github.com/yannh/kubeconform/cmd/kubeconform", "v0.8.0")],
    "kube-score": [("github.com/zegl/kube-score/cmd/kube-score", "v1.20.0")],
    "kube-linter": [
        ("golang.stackrox.io/kube-linter/cmd/kube-linter", "v0.8.3"),
        ("golang.stackrox.io/kube-linter/cmd/kube-linter", "v0.7.6"),
        ("github.com/stackrox/kube-linter/cmd/kube-linter", "v0.8.3"),
    ],
    "polaris": [
        ("github.com/fairwindsops/polaris", "v10.2.2"),
        ("github.com/fairwindsops/polaris/v9", "v9.6.4"),
        ("github.com/FairwindsOps/polaris/v9", "v9.6.4"),
    ],
}

# What each tool checks with its defaults, for the table: compare like with like.
CHECKS = {
    "podcycle": "default rules (lifecycle, probes, hooks, pod spec types and fields)",
    "kubeconform": "JSON-schema validation of every object (Kubernetes 1.37 schemas)",
    "kube-score": "default checks (pod spec, probes, resources, network policies, …)",
    "kube-linter": "default checks",
    "polaris": "default checks (`audit`)",
    "checkov": "`--framework kubernetes`: its Kubernetes checks only",
}


def cache_dir():
    return Path(os.environ.get("PODCYCLE_BENCH_CACHE", Path.home() / ".cache" / "podcycle-bench"))


def go_env(cache):
    env = dict(os.environ)
    env.update(
        GOBIN=str(cache / "go" / "bin"),
        GOPATH=str(cache / "gopath"),
        GOFLAGS="-modcacherw -buildvcs=false",
    )
    return env


def log(message):
    print(message, file=sys.stderr, flush=True)


def install(cache):
    """Installs what is missing; returns {tool: version} of what is there, and notes on what
    could not be had."""
    cache.mkdir(parents=True, exist_ok=True)
    versions, notes = {}, []

    venv = cache / f"checkov-{CHECKOV}"
    if not (venv / "bin" / "checkov").exists():
        log(f"installing checkov {CHECKOV} from PyPI into {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", f"checkov=={CHECKOV}"], check=True
        )
    versions["checkov"] = CHECKOV

    for tool, candidates in GO_PEERS.items():
        binary = cache / "go" / "bin" / tool
        marker = cache / "go" / f"{tool}.version"
        if binary.exists() and marker.exists():
            versions[tool] = marker.read_text().strip()
            continue
        refused = []
        for module, tag in candidates:
            log(f"go install {module}@{tag}")
            done = subprocess.run(
                ["go", "install", f"{module}@{tag}"],
                env=go_env(cache),
                capture_output=True,
                text=True,
            )
            if done.returncode == 0:
                installed = cache / "go" / "bin" / Path(module).name
                if installed != binary and installed.exists():
                    installed.rename(binary)
                marker.write_text(f"{tag} ({module})\n")
                versions[tool] = marker.read_text().strip()
                break
            reason = (done.stderr.strip().splitlines() or ["failed"])[-1]
            refused.append(f"{module}@{tag}: {reason}")
        else:
            if binary.exists():
                versions[tool] = f"{version_of(binary)} (built by hand, not by this script)"
                notes.append(f"{tool}: not served by the module proxy; using {binary}")
            else:
                notes.append(f"{tool}: not installed; " + "; ".join(refused))
    return versions, notes


def version_of(binary):
    for args in (["version"], ["--version"]):
        done = subprocess.run([str(binary), *args], capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip().splitlines()[0]
    return "unknown version"


def kubeconform_schemas(cache):
    """Kubernetes' schemas for kubeconform, from PyPI's kubernetes-validate. Its schemas refer
    to `/api/_definitions.json`, where its own server has them; they are rewritten to the local
    file so that kubeconform reads them offline."""
    target = cache / "kubeconform-schemas" / f"v{KUBERNETES_VERSION}"
    if (target / "_definitions.json").exists():
        return target
    venv = cache / f"schemas-{SCHEMAS_PACKAGE}-{SCHEMAS_VERSION}"
    if not venv.exists():
        log(f"installing {SCHEMAS_PACKAGE} {SCHEMAS_VERSION} from PyPI for its schemas")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "--no-deps",
             f"{SCHEMAS_PACKAGE}=={SCHEMAS_VERSION}"],
            check=True,
        )
    source = next(venv.glob(
        f"lib/python3*/site-packages/kubernetes_validate/kubernetes-json-schema/v{KUBERNETES_VERSION}-local"
    ))
    target.mkdir(parents=True, exist_ok=True)
    definitions = (target / "_definitions.json").as_uri()
    for schema in source.glob("*.json"):
        text = schema.read_text().replace('"/api/_definitions.json', f'"{definitions}')
        (target / schema.name).write_text(text)
    return target


def build_podcycle():
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    return ROOT / "target" / "release" / "podcycle"


def inputs(cache, podcycle):
    found = []
    generated = cache / "corpus" / "generated"
    if not generated.exists():
        log(f"writing the generated corpus to {generated}")
        subprocess.run(
            ["cargo", "bench", "--quiet", "--bench", "memory", "--", "--write-corpus",
             str(generated)],
            cwd=ROOT,
            check=True,
        )
    found.append(("generated corpus", generated))
    real = os.environ.get("PODCYCLE_BENCH_CORPUS")
    candidates = [Path(real)] if real else [ROOT / "../shared/corpus", ROOT / "../../shared/corpus"]
    for candidate in candidates:
        if candidate.is_dir():
            found.append(("shared corpus", candidate.resolve()))
            break
    result = []
    for name, directory in found:
        listing = subprocess.run(
            [str(podcycle), "check", "--no-render", "--show-files", "."],
            cwd=directory, capture_output=True, text=True,
        ).stdout
        files = [path for path, _, what in (line.partition(": ") for line in listing.splitlines())
                 if what.startswith("lint")]
        size = sum((directory / f).stat().st_size for f in files)
        result.append({"name": name, "dir": directory, "files": files, "bytes": size})
    return result


def commands(cache, podcycle, schemas, available):
    """The command line of each tool for an input: a directory where the tool walks one, the
    list of files podcycle lints where it takes files only."""
    bin_dir = cache / "go" / "bin"
    tools = {
        "podcycle": lambda i: [str(podcycle), "check", "--no-render", "--format", "json", "."],
        "kubeconform": lambda i: [
            str(bin_dir / "kubeconform"), "-summary", "-ignore-missing-schemas",
            "-kubernetes-version", KUBERNETES_VERSION,
            "-schema-location", f"{schemas}/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json", ".",
        ],
        "kube-score": lambda i: [str(bin_dir / "kube-score"), "score", "-o", "ci", *i["files"]],
        "kube-linter": lambda i: [str(bin_dir / "kube-linter"), "lint", "--format", "json", "."],
        "polaris": lambda i: [
            str(bin_dir / "polaris"), "audit", "--audit-path", ".", "--format", "json",
        ],
        "checkov": lambda i: [
            str(cache / f"checkov-{CHECKOV}" / "bin" / "checkov"), "--framework", "kubernetes",
            "-d", ".", "--skip-download", "--quiet", "--compact", "-o", "json",
        ],
    }
    return {name: make for name, make in tools.items() if name in available}


def measure(argv, cwd, log_file):
    """Runs one command to the end; returns wall and CPU seconds, peak RSS in bytes and the
    exit status."""
    start = time.monotonic()
    with open(log_file, "ab") as err:
        child = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return {
        "wall": time.monotonic() - start,
        "cpu": usage.ru_utime + usage.ru_stime,
        # Linux gives kilobytes; the largest of the child and what it waited for.
        "rss": usage.ru_maxrss * 1024,
        "status": child.returncode,
    }


def machine_load():
    try:
        pressure = Path("/proc/pressure/cpu").read_text().splitlines()[0]
        fields = dict(f.split("=") for f in pressure.split()[1:])
        cpu = f"CPU pressure {fields['avg10']}% (10 s), {fields['avg60']}% (60 s)"
    except OSError:
        cpu = "CPU pressure unknown"
    load = Path("/proc/loadavg").read_text().split()[:3]
    return f"{cpu}, load average {' '.join(load)} on {os.cpu_count()} CPUs"


def run(args):
    cache = cache_dir()
    versions, notes = install(cache)
    podcycle = build_podcycle()
    versions["podcycle"] = version_of(podcycle)
    schemas = kubeconform_schemas(cache)
    corpora = inputs(cache, podcycle)
    tools = commands(cache, podcycle, schemas, versions)
    if args.only:
        tools = {k: v for k, v in tools.items() if k in args.only or k == "podcycle"}
    log_file = cache / "peers-stderr.log"
    log_file.write_text("")

    skip = {tuple(s.split(":", 1)) for s in args.skip or []}
    before = machine_load()
    runs = {}
    for round_ in range(args.rounds):
        for corpus in corpora:
            for tool, make in tools.items():
                if tool == "checkov" and round_ >= args.checkov_rounds:
                    continue
                if (tool, corpus["name"].split()[0]) in skip:
                    continue
                log(f"round {round_ + 1}: {tool} on the {corpus['name']}")
                result = measure(make(corpus), corpus["dir"], log_file)
                runs.setdefault((corpus["name"], tool), []).append(result)
        # What is measured so far, should the run be stopped.
        write_table(args, cache, corpora, tools, versions, notes, runs, before, machine_load())


def write_table(args, cache, corpora, tools, versions, notes, runs, before, after):
    lines = [
        f"{args.rounds} interleaved rounds (Checkov: {args.checkov_rounds}); medians; "
        f"ratios are the tool's median over podcycle's.",
        f"Before: {before}. After: {after}.",
        "",
        "| input | tool | version | checks | wall | CPU | peak RSS | wall ÷ podcycle | CPU ÷ podcycle | RSS ÷ podcycle | exit |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for corpus in corpora:
        base = runs[(corpus["name"], "podcycle")]
        base_wall = statistics.median(r["wall"] for r in base)
        base_cpu = statistics.median(r["cpu"] for r in base)
        base_rss = statistics.median(r["rss"] for r in base)
        label = f"{corpus['name']} ({len(corpus['files'])} files, {corpus['bytes'] / 1e6:.1f} MB)"
        for tool in tools:
            results = runs.get((corpus["name"], tool))
            if not results:
                continue
            wall = statistics.median(r["wall"] for r in results)
            cpu = statistics.median(r["cpu"] for r in results)
            rss = statistics.median(r["rss"] for r in results)
            statuses = sorted({r["status"] for r in results})
            lines.append(
                f"| {label} | {tool} | {versions[tool]} | {CHECKS[tool]} | {wall:.2f} s | "
                f"{cpu:.2f} s | {rss / 1e6:.0f} MB | {wall / base_wall:.1f}× | "
                f"{cpu / base_cpu:.1f}× | {rss / base_rss:.1f}× | "
                f"{','.join(map(str, statuses))} |"
            )
    if notes:
        lines += ["", *[f"- {note}" for note in notes]]
    table = "\n".join(lines)
    print(table)
    (cache / "peers-results.md").write_text(table + "\n")
    (cache / "peers-results.json").write_text(json.dumps(
        {f"{c} / {t}": r for (c, t), r in runs.items()}, indent=1))
    log(f"written to {cache / 'peers-results.md'}; the tools' stderr is in {cache / 'peers-stderr.log'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("install", help="install the peers into the cache directory")
    measure_parser = sub.add_parser("run", help="install what is missing, then measure")
    measure_parser.add_argument("--rounds", type=int, default=3)
    measure_parser.add_argument(
        "--checkov-rounds", type=int, default=1,
        help="rounds Checkov takes part in (one run takes minutes)")
    measure_parser.add_argument(
        "--only", nargs="*", help="measure only these peers (and podcycle)")
    measure_parser.add_argument(
        "--skip", action="append",
        help="leave out one tool on one input, as TOOL:generated or TOOL:shared (repeatable)")
    args = parser.parse_args()
    if shutil.which("go") is None:
        log("go is not installed: the Go peers will be missing")
    if args.command == "install":
        versions, notes = install(cache_dir())
        for tool, version in versions.items():
            print(f"{tool}: {version}")
        for note in notes:
            print(note)
    else:
        run(args)


if __name__ == "__main__":
    main()
