"""The extract stage over one document: linear in the document's size."""

import time

from hierdoc.models import Chunk, Section
from hierdoc.pipeline.extract.document import _Locator, _units
from hierdoc.pipeline.structure import parse_sections


def _act(points: int) -> str:
    lines = [f"({i}) “Term {i}” means a thing of kind {i} that is kept;\n" for i in range(points)]
    return "# Act\n\n## Article 1 Definitions\n\n" + "".join(lines)


def _best_seconds(sections: list[Section]) -> float:
    times = []
    for _ in range(3):
        started = time.perf_counter()
        _units(sections)
        times.append(time.perf_counter() - started)
    return min(times)


def test_a_long_list_of_points_is_one_unit_built_in_linear_time() -> None:
    small, large = parse_sections(_act(4_000), "Act"), parse_sections(_act(20_000), "Act")
    units = _units(large)
    article = units[-1]
    assert len(article.sections) >= 20_000  # the article and its points
    assert article.text == "".join(s.heading_line + s.body for s in article.sections)
    for n in (0, 1, 7_000, len(article.sections) - 1):
        section = article.sections[n]
        own = section.heading_line + section.body
        assert article.text[article.starts[n] :].startswith(own)
        assert article.section_at(article.starts[n] + 3) == (section, 3)
    # 5x the points: about 5x the time when linear, 25x when every point copies the text
    assert _best_seconds(large) < 10 * _best_seconds(small) + 0.01


def test_the_locator_finds_the_chunk_holding_a_text() -> None:
    section = Section("article-1", "Article 1", 2, (), (), "", "## Article 1\n", 0, "article")
    filler = " It applies to every widget kept by the operator in the register."
    texts = ["Intro words here.", "The   first\nterm means this." + filler, "The second." + filler]
    chunks = [
        Chunk(f"act:article-1:{n}", "act", "Act", "article-1", "Article 1", (), (), text, n, 5,
              sections=("article-1",) if n == 0 else ())
        for n, text in enumerate(texts)
    ]  # fmt: skip
    locator = _Locator(chunks)
    body = " ".join(" ".join(t.split()) for t in texts)
    assert locator.chunk_for(section, body, body.index("The first")) is chunks[1]
    assert locator.chunk_for(section, body, body.index("The second")) is chunks[2]
    assert locator.chunk_for(section, "Text found in no chunk at all.", 0) is chunks[0]
    other = Section("article-2", "Article 2", 2, (), (), "", "", 1, "article")
    assert locator.chunk_for(other, body, 0) is None
