"""Pictures of optimized programs: `kiln-opt --graph OUT.html|OUT.svg` and
`--memory-timeline OUT.svg` (docs/profiling.md).

Every fusion of the entry function must be a cluster of the picture, with its
ops inside; library calls and routines must be marked. The HTML page is also
opened in headless Chromium where it is installed (it is not a dependency:
the test skips without it).
"""
import html.parser
import os
import pathlib
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("KILN_BUILD_DIR", REPO / "build"))
KILN_OPT = BUILD_DIR / "bin" / "kiln-opt"
CORPUS = REPO / "tests" / "corpus" / "jax"
# Library calls (dots), a routine (scatter), attention, convolutions.
PROGRAMS = ["mlp_train_step_sgd.mlir", "transformer_encoder_layer.mlir", "cnn_train_step.mlir"]


def kiln_opt(program, *flags, env=None):
    assert KILN_OPT.exists(), f"{KILN_OPT} not built (set KILN_BUILD_DIR)"
    return subprocess.run([str(KILN_OPT), str(CORPUS / program), "--pipeline=cpu", *flags], capture_output=True,
                          text=True, check=False, env=env)


def entry_fusions(optimized_text):
    """The kiln.fusion ops at the top level of @main in kiln-opt's output, as
    (kind, number of ops inside, not counting constants and the yield)."""
    lines = optimized_text.splitlines()
    start = next(i for i, line in enumerate(lines) if "func.func public @main" in line or "func.func @main" in line)
    indent = len(lines[start + 1]) - len(lines[start + 1].lstrip())
    fusions = []
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.strip() == "}" and len(line) - len(line.lstrip()) < indent:
            break
        if len(line) - len(line.lstrip()) == indent and '"kiln.fusion"' in line:
            kind = re.search(r'kind = "(\w+)"', line).group(1)
            inner = 0
            for body in lines[i + 1:]:
                depth = len(body) - len(body.lstrip())
                if depth == indent and body.lstrip().startswith("})"):
                    break
                if depth == indent + 2 and not re.search(r"stablehlo\.constant|kiln\.yield", body):
                    inner += 1
            fusions.append((kind, inner))
    return fusions


class GraphPage(html.parser.HTMLParser):
    """The clusters and nodes of a --graph page, with their classes and the
    nodes drawn inside each cluster."""

    def __init__(self):
        super().__init__()
        self.clusters, self.nodes, self.edges, self.scripts = [], [], [], 0
        self.external = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = attrs.get("class", "").split()
        if tag in ("script", "link", "img", "iframe") and (attrs.get("src") or attrs.get("href")):
            self.external.append(attrs.get("src") or attrs.get("href"))
        if tag == "script":
            self.scripts += 1
        if tag == "g" and "cluster" in classes:
            self.clusters.append(attrs)
        if tag == "g" and "node" in classes:
            self.nodes.append(attrs)
        if tag == "g" and "edge" in classes:
            self.edges.append(attrs)
        if tag == "rect" and self.nodes and "x" in attrs and self.nodes[-1].get("_box") is None:
            self.nodes[-1]["_box"] = tuple(float(attrs[k]) for k in ("x", "y", "width", "height"))
        if tag == "rect" and self.clusters and "x" in attrs and self.clusters[-1].get("_box") is None:
            self.clusters[-1]["_box"] = tuple(float(attrs[k]) for k in ("x", "y", "width", "height"))


def inside(box, outer):
    x, y, w, h = box
    ox, oy, ow, oh = outer
    return ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_fusion_is_a_cluster_of_its_ops(program, tmp_path):
    page_path = tmp_path / "graph.html"
    done = kiln_opt(program, f"--graph={page_path}")
    assert done.returncode == 0, done.stderr
    fusions = entry_fusions(done.stdout)
    assert fusions, "the program has fusions to draw"
    page = GraphPage()
    page.feed(page_path.read_text())
    assert not page.external, "the page loads nothing from elsewhere"
    assert page.scripts == 1
    assert [c["class"].split()[1] for c in page.clusters] == [f"fusion-{kind}" for kind, _ in fusions]
    for cluster, (kind, inner) in zip(page.clusters, fusions):
        members = [n for n in page.nodes if inside(n["_box"], cluster["_box"])]
        assert len(members) == inner, cluster["data-text"].splitlines()[0]
        assert '"kiln.fusion"' in cluster["data-text"]
    # Each op's text and location are there to show.
    ops = [n for n in page.nodes if "parameter" not in n["class"]]
    assert all(n["data-text"] for n in ops)
    assert any(n["data-loc"] for n in ops)
    # Edges through memory say what they carry.
    labels = [e["data-text"] for e in page.edges]
    assert labels and all(re.fullmatch(r"tensor<[^>]*>  [0-9.]+ (B|KiB|MiB|GiB)", label) for label in labels)


def test_library_calls_and_routines_are_marked(tmp_path):
    page_path = tmp_path / "graph.html"
    done = kiln_opt("mlp_train_step_sgd.mlir", f"--graph={page_path}")
    assert done.returncode == 0, done.stderr
    page = GraphPage()
    page.feed(page_path.read_text())
    kinds = [n["class"].split()[1] for n in page.nodes]
    library = [n for n in page.nodes if "library" in n["class"]]
    assert library and all("dot_general" in n["data-text"] for n in library)
    # Its loss gradient's one-hot scatter became a select inside a fused kernel
    # (canonicalize): no scatter and no routine left.
    assert not any("scatter" in n["data-text"] or "routine" in n["class"] for n in page.nodes)
    assert kinds.count("parameter") == 8

    # A Cholesky solve: the factorization and both triangular solves are routines.
    done = kiln_opt("cholesky_solve.mlir", f"--graph={page_path}")
    assert done.returncode == 0, done.stderr
    page = GraphPage()
    page.feed(page_path.read_text())
    routines = [n["data-text"] for n in page.nodes if "routine" in n["class"]]
    assert len(routines) == 3 and "stablehlo.cholesky" in routines[0]
    assert all("triangular_solve" in text for text in routines[1:])


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("program", PROGRAMS)
def test_graphviz_svg_has_a_cluster_per_fusion(program, tmp_path):
    svg_path = tmp_path / "graph.svg"
    done = kiln_opt(program, f"--graph={svg_path}")
    assert done.returncode == 0, done.stderr
    svg = ET.parse(svg_path).getroot()
    clusters = [g for g in svg.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "cluster"]
    assert len(clusters) == len(entry_fusions(done.stdout))


def test_svg_without_graphviz_is_a_clear_error(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    done = kiln_opt("scan_rnn.mlir", f"--graph={tmp_path / 'g.svg'}", env={**os.environ, "PATH": str(empty)})
    assert done.returncode == 1
    assert "needs Graphviz's `dot` on PATH" in done.stderr


def test_graph_needs_a_known_extension():
    done = kiln_opt("scan_rnn.mlir", "--graph=graph.png")
    assert done.returncode == 2
    assert "must end in .html" in done.stderr


def test_memory_timeline_draws_every_arena_buffer(tmp_path):
    svg_path = tmp_path / "memory.svg"
    done = kiln_opt("mlp_train_step_sgd.mlir", f"--memory-timeline={svg_path}", "--stats", "--memory-report")
    assert done.returncode == 0, done.stderr
    svg = ET.parse(svg_path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    titles = [r.find(f"{ns}title").text for r in svg.iter(f"{ns}rect") if r.find(f"{ns}title") is not None]
    stats = dict(line.split("=", 1) for line in done.stderr.splitlines() if re.fullmatch(r"\w+=\d+", line))
    # One rectangle per arena buffer and per parameter.
    arena = [t for t in titles if re.match(r"(buffer|scratch)", t)]
    assert len(arena) == int(stats["buffers"])
    assert sum(t.startswith("parameter") for t in titles) == 8
    heading = next(t.text for t in svg.iter(f"{ns}text") if t.text and t.text.startswith("memory timeline"))
    kib = lambda n: f"{int(n) / 1024:.1f} KiB"  # noqa: E731
    assert f"arena {kib(stats['arena_bytes'])}, peak {kib(stats['peak_bytes'])}" in heading


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


# Appended to a copy of the page: hovers over and clicks the first fusion, as
# a user would, so that the dumped DOM shows what the page's script did.
HOVER_AND_CLICK = """<script>
var cluster = document.querySelector('g.cluster');
cluster.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: 40, clientY: 40}));
cluster.dispatchEvent(new MouseEvent('click', {bubbles: true}));
</script></body>"""


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (run once by hand: docs/profiling.md)")
def test_page_loads_in_chromium_without_errors(tmp_path):
    page_path = tmp_path / "graph.html"
    done = kiln_opt("mlp_train_step_sgd.mlir", f"--graph={page_path}")
    assert done.returncode == 0, done.stderr
    page_path.write_text(page_path.read_text().replace("</body>", HOVER_AND_CLICK))
    browser = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
         "--dump-dom", page_path.as_uri()], capture_output=True, text=True, timeout=120, check=False)
    assert browser.returncode == 0, browser.stderr
    console = [line for line in browser.stderr.splitlines() if "CONSOLE" in line]
    assert not [line for line in console if "Uncaught" in line or "Error" in line], console
    page = GraphPage()
    page.feed(browser.stdout)
    assert len(page.clusters) == len(entry_fusions(done.stdout))
    # The hovered fusion is highlighted and its text shown; the click pinned it.
    assert 'class="cluster fusion-' in browser.stdout and "hovered pinned" in browser.stdout
    tip = re.search(r'<div id="tip" style="([^"]*)">(.*?)</div>', browser.stdout, re.S)
    assert tip and "display: block" in tip.group(1) and "kiln.fusion" in tip.group(2)
    detail = re.search(r'<pre id="detail">(.*?)</pre>', browser.stdout, re.S).group(1)
    assert "kiln.fusion" in detail
