"""Python scripts that reproduce a view's computation on eyedp_core with the view's current settings.

Pure text generation: each function takes the view's parameters (plain numbers and names) and returns a
short, runnable script that loads the same data, runs the same core functions with the same preview seed and
prints the numbers the view showed, one "label: value" line each under the page's own labels, then all of them as
JSON on its last line (tests compare both with the page's)."""
from __future__ import annotations

import datetime as dt
from typing import Any

__all__ = ["SCRIPTS", "areas_of_interest_script", "attacks_script", "gaze_samples_script", "heatmaps_script", "home_script", "report_script",
           "time_series_script"]


def _header(view: str, params: dict[str, Any]) -> str:
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shown = "\n".join(f"#   {k} = {v!r}" for k, v in params.items())
    return (f'"""EyeDP — the {view} view reproduced with eyedp_core (generated {when}).\n\n'
            "Run it from any folder (python this_file.py) once EyeDP is installed: `pip install -r requirements.txt`\n"
            "in a checkout of EyeDP installs eyedp_core. Previews use seeded numpy noise:\n"
            'they are for exploring settings, not private releases (docs/PRIVACY_MODEL.md §11)."""\n'
            f"# Settings of the view:\n{shown}\nimport json\n\nimport numpy as np\n\n")


def _load(kind: str, source: dict[str, Any], var: str) -> str:
    """Lines that load a data source: a bundled sample by name, or the user's own file (path to fill in), read
    as the page read it when the page kept how (`source["read"]`), else with read_table and guessed columns."""
    if source.get("sample"):
        return f"from eyedp_core.data import bundled\n\n{var} = bundled.load_sample({source['sample']!r})\n"
    if source.get("read"):
        return read_as_the_page(source["read"], var)
    return ("from pathlib import Path\n\nfrom eyedp_core import io\n\n"
            f"FILE = Path({source.get('name', 'your_file.csv')!r})  # the file you uploaded: put its path here\n"
            f"_raw = io.read_table(FILE.read_bytes(), FILE.name)\n"
            f"{var} = io.apply_mapping(_raw, io.guess_mapping(_raw, {kind!r}), {kind!r}, FILE.name)\n")


def read_as_the_page(read: dict[str, Any], var: str) -> str:
    """How the page read an upload (ui.yourdata.view.read_recipe) -> lines that read the file the same way: the
    upload pipeline's steps with the reader the page used (a vendor reader's convert step, or the columns mapped
    by hand), the same columns, mapping and options; `var` is the canonical table."""
    head = ("from pathlib import Path\n\nfrom eyedp_core import io\nfrom eyedp_core.io.pipeline import usecols\n\n"
            f"FILE = Path({read['file']!r})  # the file you uploaded: put its path here\n"
            "_up = io.Upload(FILE.read_bytes(), FILE.name)  # the page's pipeline, without its size limits\n")
    from eyedp_core.io.pipeline import ASC  # here, not at import: the app's start imports this module, not pandas

    reader = read["reader"]
    if reader == ASC:
        part = ".fixations()" if read.get("table") == "fixations" else ".samples"
        return head + f"{var} = _up.recording(io.ReadOptions(kind='gaze')){part}\n"
    if read.get("table") == "vendor_fixations":  # the fixations a Tobii export lists, as the page added them
        return head + f"{var} = _up.vendor_fixations({reader!r}, {read['kept']!r})\n"
    geometry = "None" if read["geometry"] is None else f"io.Geometry(**{read['geometry']!r})"
    lines = (f"KEPT = {read['kept']!r}  # the columns not left out\n"
             f"MAPPING = {read['mapping']!r}\n"
             f"OPTIONS = io.ReadOptions(**{read['options']!r}, geometry={geometry})\n")
    if reader == "generic":
        lines += f"_frame = _up.full_table(usecols(KEPT, None, MAPPING, {read['kind']!r}) or KEPT)\n"
    else:
        lines += f"_frame, _ = _up.converted({reader!r}, KEPT, {read['min_confidence']!r})  # the {reader} reader\n"
    return head + lines + f"{var} = _up.finish(_frame, MAPPING, OPTIONS, reader={reader!r}).samples\n"


def heatmaps_script(p: dict[str, Any]) -> str:
    """Heatmaps view parameters in, the script (gaze maps, sensitivity, seeded noisy preview, metrics) out."""
    image = (f"image = bundled.stimulus_image({p['stimulus']!r})\n" if p.get("stimulus_sample") else
             "from eyedp_core.io import load_image\n"
             f"image = load_image(Path({p['stimulus']!r}).read_bytes(), {p['stimulus']!r})  # your image\n")
    load = _load("fixations", p["fixations"], "fixations")
    if p.get("stimulus_sample") and "bundled" not in load:
        load = "from eyedp_core.data import bundled\n" + load
    return (_header("Heatmaps", p) + load + image + "from eyedp_core.heatmaps import maps, preview\n"
            "from eyedp_core.heatmaps.calibration import HeatmapSetting\n\n"
            "H, W = image.shape[:2]\n"
            f"sub, how = preview.fixations_for_stimulus(fixations, {p['fixations']['name']!r}, {p['stimulus']!r}, W, H)\n"
            f"gm = maps.gaze_maps(sub, W, H, {p['cell_px']!r}, {p['weight']!r})\n"
            f"sens = preview.maps_sensitivity(gm, {p['cap_m']!r}, {p['cap_total']!r})\n"
            f"clean = preview.clean_maps(gm, {p['cap_m']!r}, {p['cap_total']!r}, {p['sigma_px']!r})\n"
            f"setting = HeatmapSetting(epsilon={p['epsilon']!r}, delta={p['delta']!r}, mechanism={p['mechanism']!r}, "
            f"method={p['method']!r}, cap_m={p['cap_m']!r}, cap_total={p['cap_total']!r}, cell_px={p['cell_px']!r}, "
            f"sigma_px={p['sigma_px']!r})\n"
            f"prev = preview.noisy_preview(clean, sens, setting, seed={p['seed']!r})\n"
            "print(prev.calibration.plugged_tex)\n"
            "from eyedp_core.heatmaps.targets import DEFAULT_Q\n"
            "print(f'observers: {gm.n_observers}')\n"
            "print(f'noise scale: {prev.calibration.scale!r}')\n"
            "for k, v in prev.metrics.items():  # the page's labels for its utility numbers\n"
            "    if isinstance(v, (int, float)):\n"
            "        label = f'HOT SPOTS KEPT (top {100 * DEFAULT_Q:g} %)' if k == 'hot_spots' else "
            "k.upper().replace('_PX', ' (px)')\n"
            "        print(f'{label}: {float(v)!r}')\n"
            "print(json.dumps({'n_observers': gm.n_observers, 'l1': sens.l1, 'l2': sens.l2, "
            "'scale': prev.calibration.scale, 'metrics': {k: float(v) for k, v in prev.metrics.items()}}))\n")


def time_series_script(p: dict[str, Any]) -> str:
    """Time-series view parameters in, the script (feature tensor, seeded mechanism run, NMSE) out."""
    return (_header("Time series", p) + _load("features", p["features_source"], "table")
            + "from eyedp_core.dp.registry import Mech\n"
              "from eyedp_core.timeseries.preview import PreviewSetting, run_preview\n"
              "from eyedp_core.timeseries.signals import feature_tensor\n\n"
            f"NAMES = {list(p['names'])!r}\n"
            f"LO = np.array({list(p['lo'])!r})\nHI = np.array({list(p['hi'])!r})\n"
            f"x, recs = feature_tensor(table, NAMES, length={p['length']!r}, fill='edge', order_col={p['order_col']!r})\n"
            f"setting = PreviewSetting(mech=Mech({p['mech']!r}), chunk={p['chunk']!r}, epsilon={p['epsilon']!r}, "
            f"k={p['k']!r}, nmse_kind={p['nmse_kind']!r})\n"
            f"prev = run_preview(x, setting, bounds=(LO, HI), rng=np.random.default_rng({p['seed']!r}), "
            f"feature={p['feature_index']!r})\n"
            "finite = sorted(float(v) for v in prev.nmse_feature if np.isfinite(v))\n"
            "print(f'recordings: {x.shape[0]}')\n"
            "print(f'noise scale: {prev.shown[0].calibration.scale!r}')\n"
            "print(f'median NMSE over features: {finite[len(finite) // 2] if finite else float(\"nan\")!r}')\n"
            f"print(f\"NMSE of '{{NAMES[{p['feature_index']!r}]}}': {{float(prev.nmse_feature[{p['feature_index']!r}])!r}}\")\n"
            "print(json.dumps({'scale': prev.shown[0].calibration.scale, "
            "'nmse_feature': [float(v) for v in prev.nmse_feature], 'recordings': int(x.shape[0])}))\n")


def gaze_samples_script(p: dict[str, Any]) -> str:
    """Gaze-samples view parameters in, the script (checked streams, seeded Kaleido preview) out."""
    return (_header("Gaze samples", p) + _load("gaze", p["gaze_source"], "gaze")
            + "from eyedp_core.gazestream.kaleido import kaleido_plan, kaleido_run\n"
              "from eyedp_core.gazestream.streams import prepare_streams\n\n"
            f"df = prepare_streams(gaze, width_px={p['width_px']!r}, height_px={p['height_px']!r}).frame\n"
            f"plan = kaleido_plan(epsilon={p['epsilon']!r}, w={p['w']!r}, l_thresh={p['l_thresh']!r}, "
            f"t_skip={p['t_skip']!r}, r={p['r']!r}, h={p['h']!r}, min_pub={p['min_pub']!r})\n"
            f"_, table = kaleido_run(df, plan, np.random.default_rng([{p['seed']!r}, 1]), "
            f"({p['width_px']!r}, {p['height_px']!r}))\n"
            "shift = np.hypot(table['x'].to_numpy() - df['x'].to_numpy(), table['y'].to_numpy() - df['y'].to_numpy())\n"
            "print(f'samples: {len(table)}')\n"
            "print(f'mean shift of the Kaleido preview (px): {float(np.nanmean(shift))!r}')\n"
            "print(f'largest ε spent by one sample: {float(table[\"eps\"].max())!r}')\n"
            "print(json.dumps({'samples': int(len(table)), 'mean_shift_px': float(np.nanmean(shift)), "
            "'max_eps_per_sample': float(table['eps'].max())}))\n")


def home_script(p: dict[str, Any]) -> str:
    """Home parameters (ε) in, the script (odds factor e^ε, the 50 % belief bound) out."""
    return (_header("Home", p) + "from eyedp_core.dp import explain\n\n"
            f"eps = {p['epsilon']!r}\n"
            "print(json.dumps({'odds_factor': float(explain.odds_factor(eps)), "
            "'posterior_from_50_percent': float(explain.posterior_bound(0.5, eps))}))\n")


def report_script(p: dict[str, Any]) -> str:
    """Report parameters (the ledger's releases, the cap, the accountant its charges were checked under) in, the
    script (composition per person under that accountant, basic composition beside it) out."""
    rows = ",\n    ".join(repr(r) for r in p["releases"])
    accountant = p.get("accountant", "basic")
    return (_header("Report", {"releases": len(p["releases"]), "epsilon_cap": p["epsilon_cap"],
                               "accountant": accountant})
            + "from eyedp_core.dp.accountants import Accountant\n"
              "from eyedp_core.dp.accounting import Ledger, Release\n"
              "from eyedp_core.report import person_table\n\n"
              "inf = float('inf')  # a release without a DP guarantee is recorded as ε = ∞\n"
            f"RELEASES = [\n    {rows},\n]\n"
            "ledger = Ledger(Release(**r) for r in RELEASES)\n"
            f"ledger.note_accounting(Accountant({accountant!r}), {p.get('delta_cap')!r})\n"
            "t = ledger.stated()\n"
            f"print(person_table(ledger, {p['epsilon_cap']!r}).to_string(index=False))\n"
            "print(json.dumps({'epsilon': t.epsilon, 'delta': t.delta, 'accountant': t.accountant.value, "
            "'basic_epsilon': t.basic_epsilon, 'releases': len(ledger)}))\n")


def attacks_script(p: dict[str, Any]) -> str:
    """Attacks parameters (the last run's grid and protocol) in, the script (one result row per point, task and
    classifier, through the same Runner and seed, with the page's self-extending grid if it was on) out."""
    utility = "'task'" if "task" in p["tasks"] else "None"
    return (_header("Attacks", p) + _load("features", p["features_source"], "table")
            + "from eyedp_core import attacks\n\n"
              "at = attacks.prepare(table)\n"
            f"runner = attacks.Runner(at, gap={p['gap']!r}, subsample={p['subsample']!r}, seed={p['seed']!r}, "
            f"n_jobs=2, bounds={p['bounds']!r}, max_train={p.get('max_train', 4000)!r})\n"
            f"points = attacks.plan_points({p['mechanisms']!r}, {p['epsilons']!r}, train_on={p['scenarios']!r}, "
            f"repetitions={p['repetitions']!r}, accounting={p['accounting']!r}, k={p['k']!r})\n"
              "rows, results = [], []\n"
              "while points:\n"
              "    point = points.pop(0)\n"
            f"    for task in {p['tasks']!r}:\n"
            f"        for r in runner.run_point(point, tasks=(task,), classifiers={p['classifiers']!r}, "
            f"majority_vote={p['majority_vote']!r}):\n"
              "            results.append(r)\n"
              "            rows.append({'label': point.label, 'epsilon': point.epsilon, 'task': task, "
              "'classifier': r.classifier, 'accuracy': r.accuracy, 'chance': r.chance})\n"
              "            print(rows[-1])\n"
            + (f"    if not points:  # larger ε until every mechanism shows its transition (up to 10^6)\n"
               f"        found = attacks.find_transitions(attacks.summarise(results), "
               f"classifier={p['classifiers'][0]!r}, utility={utility})\n"
               f"        points = [attacks.Point(mechanism=m, epsilon=e, train_on=s, accounting={p['accounting']!r}, "
               f"k={p['k']!r}, repetition=i)\n"
               f"                  for m, e in attacks.epsilons_to_add(found).items() for s in {p['scenarios']!r} "
               f"for i in range({p['repetitions']!r})]\n" if p.get("extend") else "")
            + "print(json.dumps(rows))\n")


def areas_of_interest_script(p: dict[str, Any]) -> str:
    """Areas-of-interest parameters in, the script (AOIs, clipped per-observer table, seeded preview of the
    metrics with their 95 % half-widths) out."""
    return (_header("Areas of interest", {k: v for k, v in p.items() if k != "aois"})
            + _load("fixations", p["fixations"], "fixations")
            + "from eyedp_core.aoi.metrics import AoiMetric, private_metrics\n"
              "from eyedp_core.aoi.observers import AoiBounds, observer_table\n"
              "from eyedp_core.aoi.parse import aois_from_records\n"
              "from eyedp_core.heatmaps import preview\n\n"
            f"AOIS = aois_from_records({p['aois']!r})\n"
            f"sub, how = preview.fixations_for_stimulus(fixations, {p['fixations']['name']!r}, {p['stimulus']!r}, "
            f"{p['width']!r}, {p['height']!r})\n"
            f"table = observer_table(sub, AOIS, AoiBounds(**{p['bounds']!r}))\n"
            f"res, _ = private_metrics(table, [AoiMetric(m) for m in {p['metrics']!r}], {p['epsilon']!r}, "
            f"np.random.default_rng({p['seed']!r}))\n"
              "print(json.dumps({'observers': table.n, 'aois': list(table.aoi_names), 'metrics': {m.value: {"
              "'clean': np.asarray(r.clean).ravel().tolist(), 'private': np.asarray(r.private).ravel().tolist(), "
              "'half_width': np.asarray(r.half_width).ravel().tolist()} for m, r in res.items()}}))\n")


SCRIPTS = {"attacks": attacks_script, "heatmaps": heatmaps_script, "time_series": time_series_script, "gaze_samples": gaze_samples_script,
           "home": home_script, "report": report_script, "areas_of_interest": areas_of_interest_script}
