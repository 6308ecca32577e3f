"""The notebook page (issue 24) in Chromium: a seed lesson opens as a notebook and its cells
run in order, each with its own output and the third cell's graph only its own operations; an
edit marks cells stale; an .ipynb with markdown and code cells imports, runs and exports a file
nbformat validates; Stop; share links; prose rendered safely; no axe violation."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx2 as httpx
import nbformat
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from server.lessons import lessons
from server.program.packing import unpack_answer
from tests.e2e.test_teaching import axe_violations

pytestmark = pytest.mark.e2e

LESSON = "autodiff-and-computation-graphs"


def code_cell(page: Page, number: int) -> Locator:
    return page.locator(f'[data-testid=cell][data-kind=code][data-cell="{number}"]')


def draws(page: Page) -> int:
    """How many graphs the pane has shown so far (its SVG counts them)."""
    return int(page.get_by_test_id("graph").get_attribute("data-run-count") or 0)


def graph_drawn(page: Page, before: int) -> Locator:
    """Wait until the pane has shown a graph since it had shown `before`; return the SVG."""
    page.wait_for_function(
        "n => { const g = document.querySelector('[data-testid=graph]');"
        " return g.dataset.state === 'ready' && Number(g.dataset.runCount || 0) > n; }",
        arg=before,
        timeout=60_000,
    )
    return page.get_by_test_id("graph")


def run_cell(page: Page, number: int) -> Locator:
    """Shift+Enter in code cell `number`, as a learner runs it; wait for its graph to be drawn."""
    before = draws(page)
    code_cell(page, number).get_by_test_id("cell-editor").click()
    page.keyboard.press("Shift+Enter")
    graph = graph_drawn(page, before)
    expect(page.get_by_test_id("graph-cell")).to_have_attribute("data-cell", str(number))
    return graph


def run_all(page: Page) -> Locator:
    """Run all, and wait until its last code cell's graph is drawn (each cell runs in turn)."""
    last = page.locator("[data-testid=cell][data-kind=code]").last.get_attribute("data-cell")
    page.get_by_test_id("run-all").click()
    page.wait_for_function(
        "last => document.querySelector('[data-testid=cells]').dataset.state === 'ready'"
        " && document.querySelector('[data-testid=graph-cell]').dataset.cell === last"
        " && document.querySelector('[data-testid=graph]').dataset.state === 'ready'",
        arg=last,
        timeout=60_000,
    )
    return page.get_by_test_id("graph")


def open_lesson(page: Page, lesson_id: str) -> None:
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    page.get_by_test_id("lessons").click()
    page.get_by_test_id(f"lesson-{lesson_id}").click()
    expect(page.get_by_test_id("notebook-title")).to_have_attribute("data-lesson", lesson_id)


def graph_names(page: Page) -> list[str]:
    result: list[str] = page.locator("[data-testid=graph] g[data-node-id]").evaluate_all(
        "gs => gs.map((g) => g.dataset.nodeName || '')"
    )
    return result


def test_the_playground_links_to_the_notebook(page: Page) -> None:
    page.goto("/")
    link = page.get_by_test_id("notebook-link")
    expect(link).to_have_attribute("href", "/notebook")
    link.click()
    expect(page).to_have_url("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")


def test_a_seed_lesson_opens_as_a_notebook_and_runs_in_order(page: Page, base_url: str) -> None:
    open_lesson(page, LESSON)
    lesson = next(x for x in lessons() if x.id == LESSON)
    # its prose as markdown cells, rendered; its code blocks as code cells
    markdown = page.locator("[data-testid=cell][data-kind=markdown]")
    expect(markdown).to_have_count(sum(kind == "markdown" for kind, _ in lesson.cells))
    expect(
        page.locator("[data-testid=cell-markdown] h3", has_text="Example 1: A Scalar Graph")
    ).to_be_visible()
    expect(page.locator("[data-testid=cell][data-kind=code]")).to_have_count(3)
    # the cells run in order: each output under its own cell
    run_cell(page, 1)
    expect(code_cell(page, 1).get_by_test_id("cell-output")).to_have_text("10.0\n7.0\n")
    run_cell(page, 2)
    expect(code_cell(page, 2).get_by_test_id("cell-output")).to_have_text(
        "18.6667\n-18.6667 -8.0\n"
    )
    expect(code_cell(page, 1).get_by_test_id("cell-output")).to_have_text("10.0\n7.0\n")
    graph = run_cell(page, 3)
    output = code_cell(page, 3).get_by_test_id("cell-output")
    expect(output).to_contain_text("3.")  # the fitted w and b print
    # the third cell's graph: only the third cell's operations (its last backward pass)
    expect(page.get_by_test_id("graph-cell")).to_have_text("Graph of cell 3")
    names = [n for n in graph_names(page) if n]
    assert set(names) <= {"x", "y", "w", "b", "prediction", "loss"}, names
    assert "y_true" not in names  # cell 2's
    expect(graph.locator("g[data-earlier]")).to_have_count(0)
    alone = unpack_answer(
        httpx.post(f"{base_url}/api/v1/run", json={"source": lesson.code[2]}, timeout=60).json()
    )
    assert graph.locator("g[data-node-id]").count() == len(alone["graph"]["nodes"])
    expect(page.get_by_test_id("pass-select")).to_be_visible()  # 40 passes ran in the loop
    # the walk is the playground's: step back from the end and the caption says the step
    page.get_by_test_id("walk-first").click()
    page.get_by_test_id("walk-next").click()
    expect(page.get_by_test_id("walk-caption")).to_contain_text("Step 1 of")
    # cell 1's graph is still its own
    before = draws(page)
    code_cell(page, 1).get_by_test_id("cell-graph").click()
    graph_drawn(page, before)
    expect(page.get_by_test_id("graph-cell")).to_have_text("Graph of cell 1")
    assert sorted(n for n in graph_names(page) if n) == ["x", "y"]


def test_after_run_all_each_cell_keeps_its_own_graph_opening_at_its_first_step(
    page: Page,
) -> None:
    """Run all runs every code cell as the cell shown, in turn: each gets its own graph (the
    server records only a run's last cell), and each graph opens at its walk's first step (the
    loss's own, as on the playground), not at its end."""
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    run_all(page)
    expect(page.get_by_test_id("graph-cell")).to_have_text("Graph of cell 3")
    expect(page.get_by_test_id("walk-position")).to_have_text("1 / 4")
    active = page.locator("[data-testid=graph] [data-walk-active=true]")
    expect(active).to_have_attribute("data-node-name", "loss")
    seen: dict[int, list[str]] = {}
    for number in (1, 2, 3):
        cell = code_cell(page, number)
        expect(cell.get_by_test_id("cell-graph")).to_be_visible()
        before = draws(page)
        cell.get_by_test_id("cell-graph").click()
        graph_drawn(page, before)
        expect(page.get_by_test_id("graph-cell")).to_have_text(f"Graph of cell {number}")
        seen[number] = sorted(n for n in graph_names(page) if n)
    # cell 1 made the leaves, cell 2 the error, cell 3 the loss: three graphs, each its own
    assert "loss" in seen[3] and "loss" not in seen[2] and "err" in seen[2], seen
    assert "err" not in seen[1], seen
    # cell 3's walk opens at its first step again when shown again
    expect(page.get_by_test_id("walk-position")).to_have_text(re.compile(r"^1 / \d+$"))


def test_a_backward_pass_through_earlier_cells_is_marked(page: Page) -> None:
    """The starter notebook's cell 3 calls backward() through what cells 2 recorded: the pass
    is drawn whole, the nodes cell 2 recorded dashed (data-earlier)."""
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    graph = run_cell(page, 3)
    expect(code_cell(page, 3).get_by_test_id("cell-output")).to_have_text(
        "tensor(-24.) tensor(-12.)\n"
    )
    expect(code_cell(page, 2).get_by_test_id("cell-output")).to_have_text(
        "tensor(-6., grad_fn=<SubBackward0>)\n"
    )
    expect(graph.locator('[data-node-name="err"]')).to_have_attribute("data-earlier", "true")
    expect(graph.locator('[data-node-name="loss"]')).not_to_have_attribute("data-earlier", "true")
    page.get_by_test_id("walk-last").click()  # the walk opens at its first step: to its end
    expect(graph.locator('[data-node-name="w"]')).to_have_attribute(
        "aria-label", re.compile(r"value 0\.5, grad −24")
    )


def test_an_edit_marks_the_cell_and_those_below_it_stale(page: Page) -> None:
    open_lesson(page, LESSON)
    run_all(page)
    for number in (1, 2, 3):
        expect(code_cell(page, number)).to_have_attribute("data-stale", "false")
    expect(page.get_by_test_id("graph-note")).to_be_hidden()
    editor = code_cell(page, 2).get_by_test_id("cell-editor")
    editor.click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text("\nprint('edited')")
    expect(code_cell(page, 1)).to_have_attribute("data-stale", "false")
    expect(code_cell(page, 2)).to_have_attribute("data-stale", "true")
    expect(code_cell(page, 3)).to_have_attribute("data-stale", "true")
    expect(code_cell(page, 2).get_by_test_id("cell-status")).to_contain_text("Stale")
    note = page.get_by_test_id("graph-note")
    expect(note).to_be_visible()
    expect(note).to_have_attribute("data-kind", "stale")
    # the link now carries the edited cells
    assert "nb=" in page.url and "lesson=" not in page.url
    # running cell 3 again runs the edited cell 2: all fresh, cell 2 printing its new line
    run_cell(page, 3)
    for number in (1, 2, 3):
        expect(code_cell(page, number)).to_have_attribute("data-stale", "false")
    expect(code_cell(page, 2).get_by_test_id("cell-output")).to_have_text(
        "18.6667\n-18.6667 -8.0\nedited\n"
    )
    expect(note).to_be_hidden()


def write_ipynb(path: Path) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell(
            "# From Colab\n\nA cell that **builds** `w`, then one that uses it."
        ),
        nbformat.v4.new_code_cell(
            "!pip install torch\nimport torch\nw = torch.tensor(3.0, requires_grad=True)"
        ),
        nbformat.v4.new_code_cell("y = w * w\nprint(y.item())\ny"),
        nbformat.v4.new_markdown_cell("Now the gradient:"),
        nbformat.v4.new_code_cell("y.backward()\nprint(w.grad)"),
    ]
    nbformat.validate(notebook)
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    return path


def test_an_ipynb_imports_runs_and_exports_what_nbformat_validates(
    page: Page, tmp_path: Path
) -> None:
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    page.get_by_test_id("import-ipynb").set_input_files(write_ipynb(tmp_path / "colab.ipynb"))
    expect(page.get_by_test_id("notebook-title")).to_have_text("colab")
    expect(page.get_by_test_id("run-status")).to_contain_text("1 IPython line commented out")
    expect(page.locator("[data-testid=cell]")).to_have_count(5)
    expect(page.locator("[data-testid=cell-markdown] h2")).to_have_text("From Colab")
    graph = run_all(page)
    expect(code_cell(page, 2).get_by_test_id("cell-output")).to_have_text("9.0\n")
    expect(code_cell(page, 2).get_by_test_id("cell-result")).to_contain_text(
        "tensor(9., grad_fn=<MulBackward0>)"
    )
    expect(code_cell(page, 3).get_by_test_id("cell-output")).to_have_text("tensor(6.)\n")
    expect(graph.locator('[data-node-name="w"]')).to_be_visible()
    with page.expect_download() as download:
        page.get_by_test_id("export-ipynb").click()
    saved = Path(download.value.path())
    assert download.value.suggested_filename == "colab.ipynb"
    notebook = nbformat.reads(saved.read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(notebook)
    assert [c.cell_type for c in notebook.cells] == ["markdown", "code", "code", "markdown", "code"]
    second = notebook.cells[2]
    assert second.execution_count == 2
    assert [o.output_type for o in second.outputs] == ["stream", "execute_result"]
    assert second.outputs[0].text == "9.0\n"
    assert second.outputs[1].data["text/plain"] == "tensor(9., grad_fn=<MulBackward0>)"
    assert notebook.cells[4].outputs[0].text == "tensor(6.)\n"
    assert notebook.cells[1].source.startswith("# !pip install torch")


def test_stop_ends_the_running_cell_and_keeps_what_the_cells_printed(
    page: Page, tmp_path: Path
) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("print('first cell')"),
        nbformat.v4.new_code_cell("print('looping')\nwhile True:\n    pass"),
    ]
    path = tmp_path / "loop.ipynb"
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    page.get_by_test_id("import-ipynb").set_input_files(path)
    page.get_by_test_id("run-all").click()
    loop = code_cell(page, 2)
    expect(loop).to_have_attribute("data-running", "true")
    expect(loop.get_by_test_id("cell-output")).to_have_text("looping\n")  # streamed, not at the end
    expect(code_cell(page, 1).get_by_test_id("cell-output")).to_have_text("first cell\n")
    loop.get_by_test_id("cell-stop").click()
    expect(loop).to_have_attribute("data-running", "false")
    expect(loop.get_by_test_id("cell-status")).to_have_text("Stopped.")
    expect(loop.get_by_test_id("cell-output")).to_have_text("looping\n")
    expect(page.get_by_test_id("run-status")).to_contain_text("Stopped after")
    expect(page.get_by_test_id("stop")).to_be_hidden()


def test_a_share_link_reopens_the_cells_and_the_graph_shown(page: Page, browser: Browser) -> None:
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    editor = code_cell(page, 2).get_by_test_id("cell-editor")
    editor.click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.insert_text("\nprint('shared ' * 60)")  # long enough to be compressed
    run_cell(page, 3)
    expect(page.get_by_test_id("walk-position")).to_have_text("1 / 4")  # its first step
    page.get_by_test_id("walk-next").click()
    page.get_by_test_id("share").click()
    link = page.get_by_test_id("share-url").input_value()
    assert "nb=z" in link and "cell=3" in link and "step=2" in link
    other = browser.new_page()
    try:
        other.goto(link)
        graph_drawn(other, 1)
        expect(other.get_by_test_id("graph-cell")).to_have_text("Graph of cell 3")
        expect(code_cell(other, 2).get_by_test_id("cell-output")).to_contain_text("shared shared")
        expect(other.get_by_test_id("walk-position")).to_have_text("2 / 4")
    finally:
        other.close()


def test_prose_is_text_never_html(page: Page, tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell(
            '<img src=x onerror="document.title=\'owned\'"> <script>document.title="owned"</script>\n\n'
            "[a link](javascript:alert(1)) and [docs](https://pytorch.org)"
        )
    ]
    path = tmp_path / "hostile.ipynb"
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    page.get_by_test_id("import-ipynb").set_input_files(path)
    prose = page.get_by_test_id("cell-markdown")
    expect(prose).to_contain_text("<img src=x onerror=\"document.title='owned'\">")
    assert prose.locator("img, script").count() == 0
    links: list[dict[str, Any]] = prose.locator("a").evaluate_all(
        "as => as.map((a) => ({ href: a.getAttribute('href'), text: a.textContent }))"
    )
    assert links == [{"href": "https://pytorch.org", "text": "docs"}]
    assert page.title() != "owned"


def test_a_damaged_link_or_file_says_so_and_keeps_a_notebook(page: Page, tmp_path: Path) -> None:
    page.goto("/notebook#nb=zNOT-DEFLATE")
    expect(page.get_by_test_id("run-status")).to_contain_text("Could not open the link")
    expect(page.locator("[data-testid=cell][data-kind=code]")).to_have_count(3)  # the starter
    bad = tmp_path / "old.ipynb"
    bad.write_text(json.dumps({"nbformat": 3, "worksheets": []}), encoding="utf-8")
    page.get_by_test_id("import-ipynb").set_input_files(bad)
    expect(page.get_by_test_id("run-status")).to_contain_text("nbformat 3")


def test_axe_finds_nothing_on_the_notebook(browser: Browser, base_url: str) -> None:
    context = browser.new_context(base_url=base_url, bypass_csp=True)
    page = context.new_page()
    try:
        page.goto(f"/notebook#lesson={LESSON}")
        expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
        assert axe_violations(page) == []
        run_all(page)
        code_cell(page, 1).get_by_test_id("cell-editor").click()
        page.keyboard.insert_text(" ")
        expect(code_cell(page, 1)).to_have_attribute("data-stale", "true")
        assert axe_violations(page) == []
    finally:
        context.close()
