"""Chapter 10: the exercise checkers and the figures of posenc_lib.course.figures.lab."""

from __future__ import annotations

import math

import exercises_cases.ch10 as cases
import numpy as np
import pytest

from posenc_lib.course import exercises
from posenc_lib.course.exercises import ch10
from posenc_lib.course.figures import lab as figs
from posenc_lib.display.plotting import new_figure, png_bytes
from posenc_lib.lab import extrapolation as X

# ------------------------------------------------------------------------------------------
# Exercise checkers
# ------------------------------------------------------------------------------------------


def _stub(*args):
    ...


def test_checkers_are_re_exported():
    for name in ch10.__all__:
        assert getattr(exercises, name) is getattr(ch10, name)


@pytest.mark.parametrize("checker, reference", [
    (ch10.check_masked_accuracy, X.masked_accuracy),
    (ch10.check_chance_band, X.chance_band),
    (ch10.check_reverse_positions, X.reverse_positions),
])
def test_checkers_accept_the_reference_and_report_a_stub_kindly(checker, reference):
    report = checker(reference)
    assert report.ok, report.text()
    stub = checker(_stub)  # the notebook's `...` body: a report, not an exception
    assert not stub.ok and "replace `...`" in stub.text()


# The usual mistakes and their hints live in tests/exercises_cases/ch10.py (tests/test_checkers.py
# runs them); here: the close-but-valid answers, and the cases where two mistakes coincide.


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_checkers_accept_other_valid_forms_without_notes(name):
    for answer in cases.CASES[name]["also_correct"]:
        report = getattr(ch10, name)(answer)
        assert report.ok and not report.notes, report.text()


def test_hints_are_plain_text():
    # the website shows hints as plain text with `code` spans: no *emphasis* markers
    texts = []
    for name in cases.CASES:
        for wrong, _ in cases.CASES[name]["wrong"]:
            texts.append(getattr(ch10, name)(wrong).text())
    for t in texts:
        assert not any(w.startswith("*") and w.endswith("*") and len(w) > 2
                       for w in t.replace("(", " ").replace(")", " ").split()), t


def test_chance_band_never_names_a_mistake_that_was_not_made():
    # forgetting /n, the spread of the count and swapped clipping all give (0, 1) on the order
    # case: only the general hint may be given there, never "min and max are swapped" alone
    def forgot_n(n, p, z):
        half = z * math.sqrt(p * (1 - p))
        return max(0.0, p - half), min(1.0, p + half)

    text = ch10.check_chance_band(forgot_n).text()
    assert "min and max are swapped in the clipping:" not in text
    assert "divide p(1-p) by n inside the square root" in text
    # no clipping at all: both ends are named, on the cases that need them
    text = ch10.check_chance_band(
        lambda n, p, z: (p - z * math.sqrt(p * (1 - p) / n), p + z * math.sqrt(p * (1 - p) / n))
    ).text()
    assert "the lower end is below 0" in text and "the upper end is above 1" in text
    assert "swapped" not in text


def test_reverse_positions_symmetric_case_gets_the_neutral_hint():
    for wrong in (lambda b: np.asarray(b)[..., ::-1, :], lambda b: np.asarray(b)[..., :, ::-1]):
        lines = ch10.check_reverse_positions(wrong).text().splitlines()
        alibi_line = [ln for ln in lines if "bidirectional ALiBi" in ln][0]
        assert "only one of the two axes" in alibi_line, alibi_line
        assert "queries (rows) only" not in alibi_line and "keys (columns) only" not in alibi_line


def test_checker_reports_an_exception_instead_of_raising():
    def broken(logits, targets, mask):
        raise KeyError("oops")
    report = ch10.check_masked_accuracy(broken)
    assert not report.ok and "your function raised KeyError" in report.text()


# ------------------------------------------------------------------------------------------
# Figures (on small hand-made results, so they are quick and their content is known)
# ------------------------------------------------------------------------------------------


def _sweep(task="copy_back", lengths=(32, 64, 128, 256)):
    acc = {p: tuple(np.linspace(0.9, 0.2 + 0.1 * i, len(lengths)))
           for i, p in enumerate(X.SCHEMES)}
    acc["learned"] = (1.0,) + (math.nan,) * (len(lengths) - 1)
    return X.SweepResult(task, lengths[0], tuple(lengths), X.SCHEMES, acc,
                         {p: 1.0 for p in X.SCHEMES})


def test_scheme_styles_are_distinct_without_colour():
    combos = {(m, str(ls)) for _, m, ls in figs.SCHEME_STYLE.values()}
    assert len(combos) == len(X.SCHEMES)
    assert len({m for _, m, _ in figs.SCHEME_STYLE.values()}) == len(X.SCHEMES)
    assert set(figs.SCHEME_STYLE) == set(figs.SCHEME_LABEL) == set(X.SCHEMES)


def test_accuracy_vs_length_draws_one_line_per_scheme_on_a_log2_axis():
    fig = new_figure(7.5, 3.6)
    sweep = _sweep()
    figs.accuracy_vs_length(fig, sweep, chance=1 / 16)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    labels = [figs.SCHEME_LABEL[p] for p in X.SCHEMES]
    labels[1] = "learned (n/a past 32)"  # learned cannot run past its table
    assert [ln.get_label() for ln in lines] == labels
    assert lines[1].get_markerfacecolor() == "none"  # drawn hollow, on top of the others
    rope = lines[X.SCHEMES.index("rope")]
    np.testing.assert_allclose(rope.get_ydata(), sweep.accuracy["rope"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["32", "64", "128", "256"]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    assert png_bytes(fig)[:4] == b"\x89PNG"


def test_accuracy_vs_length_titles_name_the_task():
    for task, start in (("copy_back", "Copy the token 3 back: trained at 32 tokens"),
                        ("latest_signal", "Name the latest signal: trained at 32 tokens")):
        fig = new_figure(7.5, 3.6)
        figs.accuracy_vs_length(fig, _sweep(task), chance=1 / 8)
        assert fig.axes[0].get_title().startswith(start)


def test_order_bars_return_what_they_plot_and_check_their_inputs():
    plain = _sweep("order", (32,))
    bos = _sweep("order_bos", (32,))
    fig = new_figure(7.5, 3.6)
    out = figs.order_accuracy_bars(fig, plain, bos, X.chance_band(256))
    assert out["rope"] == (plain.accuracy["rope"][0], bos.accuracy["rope"][0])
    heights = sorted(round(b.get_height(), 6) for b in fig.axes[0].patches if b.get_height() > 0
                     and b.get_width() < 0.5)
    expected = sorted(round(v, 6) for pair in out.values() for v in pair)
    assert heights == expected
    other = X.SweepResult("order_bos", 32, (32,), ("rope",), {"rope": (1.0,)}, {"rope": 1.0})
    with pytest.raises(ValueError, match="plain and bos must cover the same schemes"):
        figs.order_accuracy_bars(new_figure(), plain, other, (0.4, 0.6))


def test_accuracy_by_position_plot_bins_the_curves():
    fig = new_figure(7.5, 3.6)
    curve = np.r_[np.full(3, np.nan), np.ones(29), np.zeros(32)]
    figs.accuracy_by_position_plot(fig, {"rope": curve}, train_length=32, width=8)
    line = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "RoPE"][0]
    np.testing.assert_allclose(line.get_ydata(), [1, 1, 1, 1, 0, 0, 0, 0])
    np.testing.assert_allclose(line.get_xdata()[:2], [3.5, 11.5])


def test_copy_offsets_plot_and_attention_grid_render():
    fig = new_figure(8, 3.4)
    prof = np.r_[0.05, 0.05, 0.05, 1.0, np.full(5, 0.05)]
    figs.copy_offsets_plot(fig, {32: {"rope": prof}, 256: {"rope": prof / 2}}, k=3,
                           vocab_size=16)
    assert len(fig.axes) == 2 and fig.axes[1].get_title() == "input length 256"
    fig = new_figure(6, 5)
    w = np.tril(np.ones((8, 8)))
    w /= w.sum(-1, keepdims=True)
    figs.attention_map_grid(fig, [[("a", w[:4, :4]), ("b", w)], [("c", w)]], train_length=4)
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["a", "b", "c"]
    assert len(axes[1].patches) == 1 and len(axes[0].patches) == 0  # the training square
    assert png_bytes(fig)[:4] == b"\x89PNG"


def test_explorer_shows_the_learned_table_limit_as_text():
    ex = figs.extrapolation_explorer()
    assert {p.name for p in ex.params} == {"scheme", "length"}
    fig = ex.draw(scheme="learned", length=64)
    texts = " ".join(t.get_text() for t in [*fig.texts, *(t for ax in fig.axes for t in ax.texts)]
                     if t.get_visible())
    assert "cannot even run" in texts
    assert not any(ax.get_visible() for ax in fig.axes)   # no stale panel from another frame
    fig = ex.draw(scheme="rope", length=64)
    assert all(ax.get_visible() for ax in fig.axes)
    assert not any(t.get_visible() and "cannot" in t.get_text() for t in fig.texts)
    assert "cannot run" in ex.alt_text(scheme="learned", length=64)
    assert "RoPE" in ex.alt_text(scheme="rope", length=32)


def _seeds(task="copy_back", lengths=(32, 64, 128, 256), positions=("rope", "alibi")):
    runs = []
    for k in range(3):
        acc = {p: tuple(0.9 - 0.1 * i - 0.05 * k for i in range(len(lengths))) for p in positions}
        runs.append(X.SweepResult(task, lengths[0], tuple(lengths), positions, acc,
                                  {p: 1.0 for p in positions}))
    return X.SeedSweep(task, lengths[0], tuple(lengths), positions, (0, 1, 2), tuple(runs))


def test_accuracy_vs_length_draws_a_band_per_scheme_of_the_spread():
    fig = new_figure(7.5, 3.6)
    spread = _seeds()
    figs.accuracy_vs_length(fig, _sweep(), chance=1 / 16, spread=spread)
    ax = fig.axes[0]
    bands = [c for c in ax.collections if c.get_label() and not c.get_label().startswith("_")]
    assert [c.get_label() for c in bands] == ["range over seeds 0, 1, 2"]
    assert len(ax.collections) == len(spread.positions) + 1
    with pytest.raises(ValueError, match="spread must have the lengths of sweep"):
        figs.accuracy_vs_length(new_figure(), _sweep(), spread=_seeds(lengths=(32, 64)))


def test_order_bars_of_seed_sweeps_show_the_mean_and_the_range():
    plain = _seeds("order", (32,), positions=X.SCHEMES)
    bos = _seeds("order_bos", (32,), positions=X.SCHEMES)
    fig = new_figure(7.5, 3.6)
    out = figs.order_accuracy_bars(fig, plain, bos, X.chance_band(256))
    assert out["rope"] == pytest.approx((0.85, 0.85))
    whiskers = [ln for ln in fig.axes[0].get_lines() if len(ln.get_ydata()) == 2
                and ln.get_xdata()[0] == ln.get_xdata()[1]]
    assert len(whiskers) == 2 * len(X.SCHEMES)
    assert sorted(whiskers[0].get_ydata()) == pytest.approx([0.8, 0.9])


# ------------------------------------------------------------------------------------------
# The quick check, built from results shaped like the chapter's
# ------------------------------------------------------------------------------------------


def test_quiz_quotes_the_results_it_is_given():
    from posenc_lib.course import quizzes
    order = _seeds("order", (32,), positions=X.SCHEMES)
    order_bos = _seeds("order_bos", (32,), positions=X.SCHEMES)
    long = X.SweepResult("copy_back", 32, (32, 64, 128, 256), ("alibi",),
                         {"alibi": (0.65, 0.58, 0.51, 0.45)}, {"alibi": 1.0})
    q = quizzes.chapter(10, order=order, order_bos=order_bos, latest=_sweep("latest_signal"),
                     sweep=_sweep(), copy_seeds=_seeds(), alibi_long=long)
    text = q._repr_mimebundle_()["text/plain"]
    assert "0.90, 0.85, 0.80" in text          # ALiBi with a start token, seed by seed
    assert "scores 0.65 at 32 tokens and 0.45 at 256" in text
    kinds = [x.kind for x in q.questions]
    assert "predict" in kinds and "compute" in kinds
    feedback = " ".join(o.feedback for x in q.questions for o in x.options)
    assert "exp(−6.25) ≈ 0.0019" in feedback and "2^(−6.25)" in feedback
