"""Peak memory and time of the upload page's first step (the format peek) on a large .csv.gz.

Each variant runs in a fresh Python process; the number is the growth of the peak resident set size during the
call (the imports are done before), and the wall time of the call. Variants:

* head only (now): `io.peek_format` with the web caps unpacks the first 64 KiB and no more;
* counted through (before): the whole file unpacked piece by piece and counted (`gzipped.unpacked_head` with a
  cap), the former peek;
* preview: the first 5,000 rows through the pipeline (`Upload.preview`), what the page shows next.

    python -m bench.peek_memory [file.csv.gz]

Default file: ../shared/realdata/uniss_fgd/fgd_samples.csv.gz (a 24 MB Tobii export), else a generated
.csv.gz of about the same size.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "realdata" / "uniss_fgd" / "fgd_samples.csv.gz"

_CHILD = r'''
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from eyedp_core import io
from eyedp_core.io import gzipped, pipeline
data = Path({path!r}).read_bytes()
name = Path({path!r}).name
variant = {variant!r}
def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
before = rss_mb()
t0 = time.perf_counter()
if variant == "head only (now)":
    out = io.peek_format(data, name, max_bytes=io.MAX_UPLOAD_BYTES, max_unpacked=io.MAX_UNPACKED_BYTES)
elif variant == "counted through (before)":
    raw = gzipped.unpacked_head(data, name, pipeline.PEEK_BYTES, io.MAX_UNPACKED_BYTES)
    out = pipeline.format_of(raw, name)
else:
    out = len(io.Upload(data, name, io.WEB_LIMITS).preview())
seconds = time.perf_counter() - t0
print(json.dumps({{"variant": variant, "result": out, "extra_mb": rss_mb() - before, "seconds": seconds}}))
'''

VARIANTS = ("head only (now)", "counted through (before)", "preview (5,000 rows)")


def _generated(folder: Path) -> Path:
    """-> a generated gaze .csv.gz of about 24 MB packed."""
    import gzip

    import numpy as np

    rng = np.random.default_rng(0)
    n = 3_000_000
    lines = ["participant,t_s,x,y,pupil"]
    t = np.arange(n) / 300.0
    x, y, p = rng.normal(960, 200, n), rng.normal(540, 150, n), rng.normal(3.5, 0.3, n)
    lines += [f"P{i // 300_000:02d},{a:.4f},{b:.2f},{c:.2f},{d:.3f}" for i, (a, b, c, d) in
              enumerate(zip(t, x, y, p))]
    path = folder / "generated_gaze.csv.gz"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), 6))
    return path


def measure(path: Path) -> list[dict]:
    """A .csv.gz -> one result per variant (each in a fresh process)."""
    out = []
    for variant in VARIANTS:
        code = _CHILD.format(root=str(ROOT), path=str(path), variant=variant)
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        out.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return out


def main() -> None:
    """Print the table for the given file, the real Tobii export, or a generated file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(sys.argv[1]) if len(sys.argv) > 1 else (REAL if REAL.exists() else _generated(Path(tmp)))
        print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB packed")
        for r in measure(path):
            print(f"  {r['variant']:<26} +{r['extra_mb']:6.1f} MB peak RSS  {r['seconds']:6.3f} s  -> {r['result']}")


if __name__ == "__main__":
    main()
