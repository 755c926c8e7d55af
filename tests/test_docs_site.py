"""The documentation site (mkdocs.yml over docs/) builds with no warning, and
every relative link in README.md points at a file that exists."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent


def relative_links(markdown: str) -> list[str]:
    """The link and image targets of a Markdown text that name a local file."""
    targets = []
    stack = list(MarkdownIt("commonmark").enable("table").parse(markdown))
    while stack:
        token = stack.pop()
        stack.extend(token.children or [])
        target = token.attrGet("href") if token.type == "link_open" else None
        if token.type == "image":
            target = token.attrGet("src")
        if not target:
            continue
        parts = urlsplit(str(target))
        if parts.scheme or parts.netloc or not parts.path:
            continue  # a URL, mailto: or an anchor on the same page
        targets.append(unquote(parts.path))
    return targets


def test_every_relative_link_in_the_readme_exists():
    links = relative_links((ROOT / "README.md").read_text())
    assert links, "README.md links to no page"
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_the_documentation_site_builds_strictly(tmp_path):
    # requirements-dev.txt installs it: a missing mkdocs is a failure.
    assert importlib.util.find_spec("mkdocs"), "mkdocs: pip install -r requirements-dev.txt"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    site = tmp_path / "site"
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert (site / "index.html").is_file()
    # mkdocstrings rendered the Python API from the docstrings.
    api = (site / "api-reference" / "index.html").read_text()
    assert 'id="routelab.routing.route"' in api and 'id="routelab.sim.simulate"' in api
