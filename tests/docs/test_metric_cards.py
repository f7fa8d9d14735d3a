"""The metric reference's cards (``docs/tables.py``'s ``metric_reference`` over
``docs/formulas.py``): every catalog entry has a formula, rendered as MathML on its card (no
script: the site opened from disk shows it), and a sentence on what it is for; the worked
examples' hand arithmetic equals what ``pr.evaluate`` prints."""

from __future__ import annotations

import functools
import importlib.util
import io
import math
import re
from contextlib import redirect_stdout
from types import ModuleType

import pytest

import polars_rank as pr
from polars_rank.catalog.model import Metric
from tests.support.docs import ROOT


@functools.cache  # docs/tables.py loaded, and the reference rendered, once per process
def _tables() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "docs" / "tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _reference(tables: ModuleType) -> str:
    return str(tables.metric_reference())


@functools.cache
def _cards(tables: ModuleType) -> dict[str, tuple[Metric, str]]:
    """key -> (entry, the text of its card in the reference)."""
    sections = _reference(tables).split("\n### ")[1:]
    entries = tables.reference_entries()
    assert len(sections) == len(entries)
    return {tables.key(e): (e, s) for e, s in zip(entries, sections, strict=True)}


def test_every_metric_has_a_formula_rendered_as_mathml() -> None:
    """One LaTeX formula per catalog entry (a new metric without one fails here), none for a
    name the catalog lacks, each converted to MathML and shown on its own card."""
    tables = _tables()
    text = tables.formulas()
    cards = _cards(tables)
    assert sorted(text.FORMULAS) == sorted(cards), "docs/formulas.py's FORMULAS != the catalog"
    for name, (_, card) in cards.items():
        rendered = tables.mathml(text.FORMULAS[name])
        assert rendered.startswith("<math") and 'display="block"' in rendered
        assert "<merror" not in rendered, name
        assert "\\" not in rendered, f"{name}: a LaTeX command left unconverted"
        assert rendered in card, name
        # only the card's own formula: none of another entry's
        others = [k for k, f in text.FORMULAS.items() if k != name and tables.mathml(f) in card]
        assert all(text.FORMULAS[k] == text.FORMULAS[name] for k in others), name
    assert "$" not in _reference(tables).split("### ")[0], "unrendered inline math"


def test_a_formula_states_the_convention_of_its_definition() -> None:
    """The formulas state the conventions the plain-text definitions state: trec_eval's
    denominators and cutoffs, what counts as relevant."""
    f = _tables().formulas().FORMULAS
    assert r"\frac{1}{k}" in f["ranking.precision"]  # k even when fewer were retrieved
    assert (
        r"D = R" in f["ranking.average_precision"]
        and r"\min(k, R)" in f["ranking.average_precision"]
    )
    assert r"\frac{1}{\min(k,R)}" in f["ranking.recall_cap"]
    assert r"}{\min(k, n)}" in f["ranking.judged_fraction"]
    assert r"{k}" in f["ranking.unjudged"]  # divides by k (trec_eval)
    assert r"\lfloor m R + 0.9 \rfloor" in f["trec_eval.r_precision_multiple"]
    assert r"\mathrm{lround}(x R)" in f["ranking.iprec_at_recall"]
    assert r"\beta \text{ not squared}" in f["ranking.set_f"]
    assert r"10^{-5}" in f["ranking.gm_map"] and r"10^{-5}" in f["trec_eval.gm_bpref"]
    assert r"2^{g_{\max}}" in f["ranking.err"]
    assert r"2^{-52}" in f["classification.log_loss"]
    assert r"\tfrac{1}{2}[s_i = s_j]" in f["classification.roc_auc"]
    assert r"s_i \ge t" in f["classification.tp"] and r"s_i < t" in f["classification.fn"]


def test_every_metric_says_what_it_is_for() -> None:
    """One sentence per catalog entry saying when a user would pick the metric, first on its
    card (a new metric without one fails here)."""
    tables = _tables()
    purposes = tables.formulas().PURPOSES
    cards = _cards(tables)
    assert sorted(purposes) == sorted(cards), "docs/formulas.py's PURPOSES != the catalog"
    for name, (_, card) in cards.items():
        sentence = purposes[name]
        assert sentence.endswith(".") and sentence.count(". ") == 0, name
        assert card.split("\n\n")[1] == f"**For**: {sentence}", name


#: the metrics a worked example must cover at least
CORE = [
    "ranking.precision",
    "ranking.recall",
    "ranking.average_precision",
    "ranking.ndcg",
    "ranking.reciprocal_rank",
    "ranking.r_precision",
    "ranking.bpref",
    "trec_eval.inferred_ap",
    "ranking.rbp",
    "ranking.err",
    "ranking.hit_rate",
    "ranking.judged_fraction",
]


@functools.cache
def _example_frames(tables: ModuleType) -> dict[str, object]:
    """Run the reference's worked-example code blocks (as a reader would) and return the
    frames they build."""
    section = _reference(tables).split("## Worked examples", 1)[1].split("\n## ")[0]
    namespace: dict[str, object] = {}
    for code in re.findall(r"```python\n(.*?)```", section, re.S):
        with redirect_stdout(io.StringIO()):
            exec(code, namespace)
    return namespace


def _evaluated(frames: dict[str, object], family: str, metric: str, options: str) -> object:
    """The value ``pr.evaluate`` gives on the example, with the card's ``options`` (keyword
    arguments as Python text)."""
    given = eval(f"dict({options})", {"__builtins__": {"dict": dict, "True": True}})
    if family == "classification":
        out = pr.evaluate_classification(frames["predictions"], [metric], **given)
    elif family == "rating":
        out = pr.evaluate_ratings(frames["ratings"], frames["rated"], [metric], **given)
    elif family == "diversity":
        out = pr.evaluate_diversity(frames["run"], frames["intents"], [metric], **given)
    elif family == "recommender":
        out = pr.evaluate(
            frames["recs"],
            frames["liked"],
            [metric],
            interactions=frames["history"],
            catalog=frames["items"],
            item_features=frames["vectors"],
        )
    else:
        out = pr.evaluate(frames["run"], frames["qrels"], [metric], **given)
    return out[out.columns[-1]][0]


def test_every_core_metric_has_a_worked_example() -> None:
    examples = _tables().formulas().EXAMPLES
    assert [k for k in CORE if k not in examples] == []


@pytest.mark.parametrize("name", sorted(_tables().formulas().EXAMPLES))
def test_worked_example_equals_what_evaluate_prints(name: str) -> None:
    """The card shows the metric's name, the hand arithmetic and a value; ``pr.evaluate`` on
    the reference's example data prints that value, and the arithmetic (evaluated in
    Python, an independent route) gives it too."""
    tables = _tables()
    example = tables.formulas().EXAMPLES[name]
    entry, card = _cards(tables)[name]
    given = f" (`{example.options}`)" if example.options else ""
    shown = f"`{example.metric}`{given} = `{example.arithmetic}` = **{example.value}**"
    assert shown in card, name
    value = _evaluated(_example_frames(tables), entry.family, example.metric, example.options)
    assert str(value) == example.value, f"{name}: evaluate prints {value}"
    by_hand = eval(example.arithmetic, {"math": math, "__builtins__": {"max": max, "min": min}})
    if isinstance(value, str):  # relstring
        assert by_hand == value, name
        return
    assert math.isclose(by_hand, float(value), rel_tol=1e-12, abs_tol=1e-15), (
        f"{name}: {example.arithmetic} = {by_hand}, evaluate gives {value}"
    )
