"""The metric reference's cards (``docs/tables.py``'s ``metric_reference`` over
``docs/formulas.py``): every catalog entry has a formula, rendered as MathML on its card (no
script: the site opened from disk shows it)."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from polars_rank.catalog.model import Metric
from tests.support.docs import ROOT


def _tables() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "docs" / "tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cards(tables: ModuleType) -> dict[str, tuple[Metric, str]]:
    """key -> (entry, the text of its card in the reference)."""
    sections = tables.metric_reference().split("\n### ")[1:]
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
        assert rendered in card, name
        # only the card's own formula: none of another entry's
        others = [k for k, f in text.FORMULAS.items() if k != name and tables.mathml(f) in card]
        assert all(text.FORMULAS[k] == text.FORMULAS[name] for k in others), name
    assert "$" not in tables.metric_reference().split("### ")[0], "unrendered inline math"


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
