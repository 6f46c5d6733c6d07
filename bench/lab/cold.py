"""Lab: where a cold start goes (server launch -> health -> first script run -> page drawn), py-spy on the server.

python bench/lab/cold.py <script> <out.spy|-> [url path]"""
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from playwright.sync_api import sync_playwright  # noqa: E402

import harness  # noqa: E402 - found through the sys.path entry above

script, out = sys.argv[1], sys.argv[2]
path = sys.argv[3] if len(sys.argv) > 3 else ""
port = harness.free_port()
cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), "--server.address", "127.0.0.1",
       "--server.headless", "true", "--browser.gatherUsageStats", "false"]
if out != "-":
    cmd = ["py-spy", "record", "-o", out, "-f", "raw", "-r", "200", "--subprocesses", "--"] + cmd
with sync_playwright() as p:
    b = harness.launch_browser(p)
    t0 = time.perf_counter()
    log = Path("/tmp/cold_runlog.txt")
    log.write_text("")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "EYEDP_RUN_LOG": str(log)})
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    t1 = time.perf_counter()
    page = b.new_page(viewport={"width": 1440, "height": 1000})
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.goto(f"{url}/{path}")
    t2 = time.perf_counter()
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="running"], [data-testid="stMain"] [data-testid="stElementContainer"]', timeout=60000)
    t3 = time.perf_counter()
    harness.wait_idle(page, 120000)
    t4 = time.perf_counter()
    m = {x["name"]: x["value"] for x in cdp.send("Performance.getMetrics")["metrics"]}
    print(f"browser main thread: task {m['TaskDuration']:.2f} s, script {m['ScriptDuration']:.2f} s, layout {m['LayoutDuration']:.2f} s")
    print(f"health {t1-t0:.2f}  goto {t2-t1:.2f}  first element/running {t3-t2:.2f}  idle {t4-t3:.2f}  total {t4-t0:.2f}  runs {log.read_text().split()}")
    proc.send_signal(2)
    proc.wait(30)
