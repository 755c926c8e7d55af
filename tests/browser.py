"""Headless Chromium (Debian's chromium package, which `make test` installs) for
the report tests: the DOM after scripts ran, screenshots, and where elements are."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

WIDTH = 1280


def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("chromium is not installed: run `make chromium` (Debian's chromium package)")
    return path


def run_chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            chromium(),
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def console_problems(stderr: str) -> list[str]:
    """Console messages and uncaught errors a page produced."""
    return [ln for ln in stderr.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]


def dump_dom(page: Path, height: int = 900) -> str:
    """The DOM of ``page`` once its scripts ran; fails on console errors."""
    r = run_chromium(f"--window-size={WIDTH},{height}", "--dump-dom", page.resolve().as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    assert console_problems(r.stderr) == []
    return r.stdout


def with_script(page: Path, script: str, out: Path) -> Path:
    """A copy of ``page`` that runs ``script`` after its own scripts."""
    text = page.read_text()
    out.write_text(text.replace("</body>", f"<script>{script}</script></body>"))
    return out


def probe(page: Path, expression: str, tmp: Path) -> object:
    """The JSON value of a JavaScript ``expression`` evaluated in ``page`` after
    its scripts ran (stored on the body, read back from the dumped DOM)."""
    script = f"document.body.setAttribute('data-probe', JSON.stringify({expression}));"
    dom = dump_dom(with_script(page, script, tmp / f"probe-{page.stem}.html"))
    found = re.search(r'<body[^>]*\sdata-probe="([^"]*)"', dom)
    assert found, "the probe script did not run"
    return json.loads(html.unescape(found[1]))


def boxes(page: Path, selector: str, tmp: Path) -> tuple[list[dict[str, float]], int]:
    """Page coordinates of the elements matching ``selector`` and the page height."""
    value = probe(
        page,
        "{h: document.documentElement.scrollHeight, boxes: Array.from("
        f"document.querySelectorAll({json.dumps(selector)})).map(function (e) {{"
        " var r = e.getBoundingClientRect();"
        " return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; })}",
        tmp,
    )
    assert isinstance(value, dict)
    return value["boxes"], int(value["h"])


def screenshot(page: Path, height: int, out: Path) -> np.ndarray:
    """The whole page, ``height`` pixels tall, as an RGB array of bytes."""
    url = page.resolve().as_uri()
    r = run_chromium(f"--window-size={WIDTH},{height}", f"--screenshot={out}", url)
    assert r.returncode == 0 and out.is_file(), r.stderr[-2000:]
    img = matplotlib.image.imread(out)
    assert img.shape[:2] == (height, WIDTH)
    return (img[..., :3] * 255).astype(np.uint8)


def ink(rgb: np.ndarray, box: dict[str, float]) -> tuple[float, int]:
    """The share of pixels in ``box`` that are not near-white, and how many
    distinct colours it holds."""
    x0, y0 = int(box["x"]), int(box["y"])
    region = rgb[y0 : y0 + int(box["h"]), x0 : x0 + int(box["w"])]
    assert region.size, f"empty region {box}"
    dark = (region.astype(int).sum(axis=2) < 3 * 235).mean()
    return float(dark), len(np.unique(region.reshape(-1, 3), axis=0))
