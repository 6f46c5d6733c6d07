"""The command line: `python -m eyedp_core.batch heatmap --input 'shards/*.parquet' --engine numpy ... --out release/`.
Every path argument is checked before any work; bad input, paths or settings end in one plain message naming the
file (exit status 2) and nothing written. Standard output is the run report: the files written, the guarantee and
every input row counted by what became of it (the unusual ones named by file and line)."""
from __future__ import annotations

import argparse
import json
import os
import sys

from eyedp_core.batch.canary import canary_audit
from eyedp_core.batch.numpy_engine import DEFAULT_PARTITIONS
from eyedp_core.batch.outputs import write_release
from eyedp_core.batch.plan_run import run_plan_command
from eyedp_core.batch.run import RunOptions, release_batch
from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.batch.sources import expand_inputs
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.io.errors import DataError

__all__ = ["main", "parser"]


def _cap_total(text: str) -> float | None:
    return None if text.lower() in ("none", "off", "") else float(text)


def parser() -> argparse.ArgumentParser:
    """The argument parser of the batch command line."""
    p = argparse.ArgumentParser(prog="python -m eyedp_core.batch",
                                description="EyeDP private releases over sharded files.")
    sub = p.add_subparsers(dest="command", required=True)
    h = sub.add_parser("heatmap", help="release the private mean heatmap of one stimulus")
    h.add_argument("--input", required=True, action="append",
                   help="glob of Parquet / CSV / CSV.gz fixation shards (columns observer, x, y[, stimulus]); repeatable")
    h.add_argument("--engine", choices=[e.value for e in Engine], default=Engine.NUMPY.value)
    h.add_argument("--settings", help="settings file downloaded from the Heatmaps page (options below override it)")
    h.add_argument("--stimulus")
    h.add_argument("--epsilon", type=float)
    h.add_argument("--delta", type=float)
    h.add_argument("--cell-px", type=int)
    h.add_argument("--cap-m", type=float)
    h.add_argument("--cap-total", type=_cap_total, default=argparse.SUPPRESS, help="total cap C per observer, or 'none'")
    h.add_argument("--width", type=int, help="canvas width in px (public)")
    h.add_argument("--height", type=int, help="canvas height in px (public)")
    h.add_argument("--mechanism", choices=[f.value for f in (Family.GAUSSIAN, Family.LAPLACE)])
    h.add_argument("--method", choices=[m.value for m in GaussianMethod])
    h.add_argument("--sigma-px", type=float, help="smoothing of the PNG in px (post-processing)")
    h.add_argument("--out", required=True, help="output folder (written only when the release succeeds)")
    h.add_argument("--master", default="local[*]", help="Spark master URL (engine spark)")
    h.add_argument("--partitions", type=int, default=DEFAULT_PARTITIONS, help="numpy engine: observer partitions")
    h.add_argument("--tmp-dir", "--tmpdir", dest="tmp_dir",
                   help="folder for the engines' temporary files (default: the system's; on a Spark cluster, one "
                        "its workers can read)")
    h.add_argument("--report", help="also write the run report (JSON, describes the private input) to this file")
    _plan_parser(sub)
    _audit_parser(sub)
    return p


def _audit_parser(sub) -> None:  # noqa: ANN001 - argparse's private subparsers type
    """Add the `audit-canaries` subcommand: the heatmap release's one-run canary audit (writes no release)."""
    a = sub.add_parser("audit-canaries", help="one heatmap release with canary observers: a lower bound ε̂ on its ε")
    a.add_argument("--input", required=True, action="append", help="glob of fixation shards (as for heatmap)")
    a.add_argument("--engine", choices=[e.value for e in Engine], default=Engine.NUMPY.value)
    a.add_argument("--settings", help="settings file downloaded from the Heatmaps page (options below override it)")
    for opt, kind in (("--stimulus", str), ("--epsilon", float), ("--delta", float), ("--cell-px", int),
                      ("--cap-m", float), ("--width", int), ("--height", int), ("--sigma-px", float)):
        a.add_argument(opt, type=kind)
    a.add_argument("--cap-total", type=_cap_total, default=argparse.SUPPRESS, help="total cap C per observer, or 'none'")
    a.add_argument("--mechanism", choices=[f.value for f in (Family.GAUSSIAN, Family.LAPLACE)])
    a.add_argument("--method", choices=[m.value for m in GaussianMethod])
    a.add_argument("--canaries", type=int, default=1000, help="canary observers m (each included with probability 1/2)")
    a.add_argument("--guesses", type=int, help="canaries guessed in (top scores) and out (bottom scores); default m/20")
    a.add_argument("--seed", type=int, default=0, help="seed of the audit's own randomness (which canaries are in)")
    a.add_argument("--confidence", type=float, default=0.95)
    a.add_argument("--tmp-dir", "--tmpdir", dest="tmp_dir", help="folder for the temporary files")


def _audit_command(args: argparse.Namespace, files: list[str]) -> int:
    """Parsed `audit-canaries` arguments and the input files in, ε̂ beside ε printed (JSON); exit status 0."""
    if args.settings is not None and not os.path.isfile(args.settings):
        raise ValueError(f"--settings '{args.settings}' is not a file")
    if args.tmp_dir is not None and not os.path.isdir(args.tmp_dir):
        raise ValueError(f"--tmp-dir '{args.tmp_dir}' is not a folder")
    audit = canary_audit(files, settings_from_args(args), Engine(args.engine), canaries=args.canaries,
                         seed=args.seed, confidence=args.confidence, guesses=args.guesses, tmp_dir=args.tmp_dir)
    b = audit.bound
    print(json.dumps({"epsilon_hat": b.epsilon, "epsilon": audit.epsilon_claimed, "delta": audit.delta_claimed,
                      "confidence": b.confidence, "canaries": b.canaries, "guesses": b.guesses,
                      "correct": b.correct, "cells_per_canary": audit.cells_per_canary,
                      "shift_over_sensitivity": audit.shift_fraction, "n_observers": audit.n_observers,
                      "engine": audit.engine.value, "seconds": round(audit.seconds, 3),
                      "reading": "ε̂ is a lower confidence bound: ε̂ > ε reveals a bug; ε̂ ≤ ε certifies nothing"},
                     indent=2, ensure_ascii=False))
    return 0


def _plan_parser(sub) -> None:  # noqa: ANN001 - argparse's private subparsers type
    """Add the `plan` subcommand: a whole study plan (eyedp_core.plan) released into one bundle."""
    pl = sub.add_parser("plan", help="release every output of a study plan (plan.json) into one bundle")
    pl.add_argument("--plan", required=True, help="the plan file (JSON; see README 'Study plans')")
    pl.add_argument("--input", required=True, action="append",
                    help="glob of Parquet / CSV / CSV.gz fixation shards (observer, x, y, stimulus); repeatable")
    pl.add_argument("--series", action="append",
                    help="glob of Parquet / CSV feature-window tables (participant[, task], window, feature columns) "
                         "for the plan's series forms; repeatable. Without it a series form writes nothing: its ε "
                         "stays reserved in the plan's total (a manifest note says so)")
    pl.add_argument("--samples", action="append",
                    help="glob of Parquet / CSV gaze-sample tables (participant[, task], t_s, x, y in px) for the "
                         "plan's gaze-samples outputs (Kaleido); repeatable. Without it a gaze-samples output writes "
                         "nothing: its ε stays reserved in the plan's total (a manifest note says so)")
    pl.add_argument("--engine", choices=[e.value for e in Engine], default=Engine.NUMPY.value)
    pl.add_argument("--out", required=True, help="output folder (written only when every output is released)")
    pl.add_argument("--master", default="local[*]", help="Spark master URL (engine spark)")
    pl.add_argument("--partitions", type=int, default=DEFAULT_PARTITIONS, help="numpy engine: observer partitions")
    pl.add_argument("--tmp-dir", "--tmpdir", dest="tmp_dir", help="folder for the engines' temporary files")
    pl.add_argument("--report", help="also write the run report (JSON, describes the private input) to this file")
    pl.set_defaults(settings=None)


_OPTION_FIELDS = {"stimulus": "stimulus", "epsilon": "epsilon", "delta": "delta", "cell_px": "cell_px",
                  "cap_m": "cap_m", "width": "width", "height": "height", "mechanism": "mechanism",
                  "method": "method", "sigma_px": "sigma_px"}


def settings_from_args(args: argparse.Namespace) -> HeatmapSettings:
    """Parsed arguments in, the HeatmapSettings out (a settings file first, then the options given)."""
    data: dict = {}
    if args.settings:
        with open(args.settings, encoding="utf-8") as f:
            data = HeatmapSettings.from_json(f.read()).to_dict()
    for opt, field in _OPTION_FIELDS.items():
        v = getattr(args, opt)
        if v is not None:
            data[field] = v
    if hasattr(args, "cap_total"):  # given, possibly as 'none'
        data["cap_total"] = args.cap_total
    missing = [k for k in ("stimulus", "width", "height") if k not in data]
    if missing:
        raise ValueError(f"give --{' --'.join(missing)} (or a --settings file)")
    return HeatmapSettings.from_dict(data)


def _inside(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies inside it (both resolved)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def _writable_place(path: str, what: str) -> None:
    """A path to be created in, ValueError unless its nearest existing ancestor is a writable folder."""
    parent = os.path.dirname(os.path.abspath(path).rstrip(os.sep)) or os.sep
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise ValueError(f"{what} '{path}' cannot be made: '{parent}' is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{what} '{path}' cannot be made: the folder '{parent}' is not writable")


def check_paths(args: argparse.Namespace, files: list[str]) -> None:
    """Parsed arguments and the input files in, None when every path argument is usable; otherwise a ValueError
    saying which and why (checked before any work, so nothing is read or written)."""
    if args.settings is not None and not os.path.isfile(args.settings):
        raise ValueError(f"--settings '{args.settings}' is not a file")
    if args.tmp_dir is not None:
        if not os.path.exists(args.tmp_dir):
            raise ValueError(f"--tmp-dir '{args.tmp_dir}' does not exist; give an existing folder")
        if not os.path.isdir(args.tmp_dir):
            raise ValueError(f"--tmp-dir '{args.tmp_dir}' is a file; give a folder")
        if not os.access(args.tmp_dir, os.W_OK | os.X_OK):
            raise ValueError(f"--tmp-dir '{args.tmp_dir}' is not writable")
    out = args.out
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"--out '{out}' is a file; give a folder (it is made if missing)")
    _writable_place(out, "--out")
    for folder in sorted({os.path.dirname(os.path.abspath(f)) for f in files}):
        if _inside(out, folder):
            raise ValueError(f"--out '{out}' is the input folder '{folder}' or inside it: the release would be "
                             "written among the shards (and read back as input by the next run); choose another "
                             "folder")
    if args.report is not None:
        if os.path.isdir(args.report):
            raise ValueError(f"--report '{args.report}' is a folder; give a file name")
        if any(os.path.realpath(args.report) == os.path.realpath(f) for f in files):
            raise ValueError(f"--report '{args.report}' is one of the input files")
        _writable_place(args.report, "--report")


def main(argv: list[str] | None = None) -> int:
    """Command line in, exit status out (0 released, 2 bad input or settings)."""
    args = parser().parse_args(argv)
    try:
        files = expand_inputs(args.input)
        if args.command == "audit-canaries":  # writes no release: none of the output checks apply
            return _audit_command(args, files)
        series = expand_inputs(args.series) if getattr(args, "series", None) else None
        samples = expand_inputs(args.samples) if getattr(args, "samples", None) else None
        check_paths(args, [*files, *(series or []), *(samples or [])])
        if args.partitions < 1:
            raise ValueError(f"--partitions must be at least 1, got {args.partitions}")
        run = RunOptions(Engine(args.engine), args.master, args.partitions, tmp_dir=args.tmp_dir)
        if args.command == "plan":
            if not os.path.isfile(args.plan):
                raise ValueError(f"--plan '{args.plan}' is not a file")
            report = run_plan_command(args.plan, files, args.out, run, series=series, samples=samples)
            return _done(json.dumps(report, indent=2, default=str), args.report)
        settings = settings_from_args(args)
        rel = release_batch(files, settings, run)
        paths = write_release(args.out, rel.values, rel.manifest, settings.to_json(), cell_px=settings.cell_px,
                              sigma_px=settings.sigma_px, width=settings.width, height=settings.height)
        cal = rel.manifest["calibration"]
        report = {"released": paths, "guarantee": rel.manifest["guarantee"]["statement"],
                  "noise_std": cal["noise_std"], "n_observers": rel.manifest["n_observers"],
                  "input_rows": rel.report.to_dict() if rel.report is not None else None}
        text = json.dumps(report, indent=2)
        if args.report is not None:
            with open(args.report, "w", encoding="utf-8") as f:
                f.write(text + "\n")
    except (DataError, ValueError) as err:
        print(f"eyedp batch: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # a disk that fills up or a folder that vanishes while the job runs
        print(f"eyedp batch: {err.strerror or err}: {err.filename or ''}", file=sys.stderr)
        return 2
    print(text)
    return 0


def _done(text: str, report_path: str | None) -> int:
    """Run report in, written to --report (if given) and printed; exit status 0."""
    if report_path is not None:
        with open(report_path, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(text)
    return 0
