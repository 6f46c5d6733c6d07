"""The command line: `python -m eyedp_core.batch heatmap --input 'shards/*.parquet' --engine numpy ... --out release/`.
Bad input ends in one plain message naming the file (exit status 2) and nothing written."""
from __future__ import annotations

import argparse
import json
import sys

from eyedp_core.batch.numpy_engine import DEFAULT_PARTITIONS
from eyedp_core.batch.outputs import write_release
from eyedp_core.batch.run import release_batch
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
    h.add_argument("--tmp-dir", help="numpy engine: folder for the partition files (default: the system's)")
    return p


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


def main(argv: list[str] | None = None) -> int:
    """Command line in, exit status out (0 released, 2 bad input or settings)."""
    args = parser().parse_args(argv)
    try:
        settings = settings_from_args(args)
        files = expand_inputs(args.input)
        rel = release_batch(files, settings, Engine(args.engine), master=args.master, partitions=args.partitions,
                            tmp_dir=args.tmp_dir)
        paths = write_release(args.out, rel.values, rel.manifest, settings.to_json(), cell_px=settings.cell_px,
                              sigma_px=settings.sigma_px, width=settings.width, height=settings.height)
    except (DataError, ValueError) as err:
        print(f"eyedp batch: {err}", file=sys.stderr)
        return 2
    cal = rel.manifest["calibration"]
    print(json.dumps({"released": paths, "guarantee": rel.manifest["guarantee"]["statement"],
                      "noise_std": cal["noise_std"], "n_observers": rel.manifest["n_observers"]}, indent=2))
    return 0
