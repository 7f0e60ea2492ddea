"""Chapter 6 (the transformer's sinusoids): a claim of the chapter and its exercise checkers.

The checkers' typical right and wrong answers live in ``tests/exercises_cases/ch06.py``; here: the
concat layout, float32 answers, integer-only solutions and cases that tell the mistakes apart.
"""

import math

import numpy as np
import pytest
from helpers import pe_loop

from posenc_lib.course import exercises
from posenc_lib.maths import encodings, similarity


def test_small_base_and_small_d_make_a_distant_look_alike():
    # d=16, n=10: after p±1, the closest encoding in a 512 window is 101 positions away,
    # found here by brute force over the vectors themselves.
    pe = encodings.sinusoidal(512, 16, 10.0)
    dists = np.linalg.norm(pe[2:] - pe[0], axis=1)
    assert 2 + int(np.argmin(dists)) == 101
    assert np.linalg.norm(pe[101] - pe[0]) < np.linalg.norm(pe[2] - pe[0])


# -- exercise checkers (the concat layout; the default layout is in exercises_cases) ------------
def _loop_encoding(layout, first=0):
    def f(seq_len, d, base):
        rows = np.array([pe_loop(p, d, base) for p in range(first, first + seq_len)])
        return rows[:, encodings.split_permutation(d)] if layout == "concat" else rows
    return f


@pytest.mark.parametrize("layout", encodings.LAYOUTS)
def test_check_sinusoidal_encoding_accepts_a_correct_answer(layout):
    report = exercises.check_sinusoidal_encoding(_loop_encoding(layout), layout=layout)
    assert report.ok and not report.notes, report.text()


@pytest.mark.parametrize("wrong, hint", [
    (_loop_encoding("interleaved"), "you built the interleaved layout"),
    (_loop_encoding("concat", first=1), "positions start at 0: row 0 is PE(0) = [0, …, 0, 1, …, 1]"),
    (lambda L, d, b: similarity.sinusoidal_tensor2tensor(np.arange(L), d, b), "tensor2tensor"),
    (lambda L, d, b: _loop_encoding("concat")(L, d, b)[:, np.r_[d // 2:d, 0:d // 2]],
     "sine and cosine are swapped: the sine goes to the first d/2 dimensions"),
])
def test_check_sinusoidal_encoding_concat_diagnoses(wrong, hint):
    report = exercises.check_sinusoidal_encoding(wrong, layout="concat")
    assert not report.ok
    assert hint in report.text(), report.text()


def test_check_sinusoidal_encoding_accepts_float32_with_a_note_in_both_layouts():
    for layout in encodings.LAYOUTS:
        def f32(L, d, b, layout=layout):
            return similarity.sinusoidal_float32(np.arange(L), d, b)[
                :, encodings.split_permutation(d) if layout == "concat" else slice(None)]
        report = exercises.check_sinusoidal_encoding(f32, layout=layout)
        assert report.ok and "float32" in " ".join(report.notes), report.text()


def test_check_shift_matrix_names_a_dropped_sign():
    report = exercises.check_shift_matrix(lambda k, d, b: similarity.shift_matrix(abs(k), d, b))
    assert report.passed == report.total - 1
    assert "drops the sign of k" in report.text()


def _one_step(d, base):
    """M(1) built block by block from its definition."""
    m = np.zeros((d, d))
    for i in range(d // 2):
        a = base ** (-2 * i / d)
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]
    return m


def test_check_shift_matrix_accepts_integer_only_solutions():
    # the offsets are integers: solutions that only work for ints must pass
    def by_power(k, d, base=10000.0):
        return np.linalg.matrix_power(_one_step(d, base), k)      # raises TypeError on a float k

    def by_loop(k, d, base=10000.0):
        step = _one_step(d, base) if k >= 0 else _one_step(d, base).T
        m = np.eye(d)
        for _ in range(abs(k)):                                      # raises TypeError on a float k
            m = step @ m
        return m

    for solution in (by_power, by_loop):
        report = exercises.check_shift_matrix(solution)
        assert report.ok and not report.notes, report.text()


# -- the checkers' cases tell the typical mistakes apart -------------------------------------------
def _collisions(mistakes, cases):
    """Pairs of distinct mistakes that give the same numbers on some case (a false hint)."""
    from posenc_lib.course.exercises._core import close
    found = []
    for name, args in cases:
        outs = [(label, f(*args)) for label, f in mistakes]
        for a, (la, oa) in enumerate(outs):
            for lb, ob in outs[a + 1:]:
                if oa is not None and ob is not None and close(oa, ob):
                    found.append((name, la, lb))
    return found


@pytest.mark.parametrize("layout", encodings.LAYOUTS)
def test_encoding_cases_separate_the_mistakes(layout):
    from posenc_lib.course.exercises import ch06
    mistakes = [(kind, f) for kind, f, _ in ch06._encoding_mistakes(layout)]
    assert not _collisions(mistakes, ch06.ENCODING_CASES)
    # and every mistake fails at least one case
    for kind, f in mistakes:
        assert any(not np.allclose(f(*args), encodings.sinusoidal(*args, layout=layout), atol=1e-5)
                   for _, args in ch06.ENCODING_CASES), kind


def test_wavelength_and_shift_cases_separate_the_mistakes():
    from posenc_lib.course.exercises import ch06
    wl = [(hint[:40], f) for f, hint in ch06._wavelength_mistakes()]
    assert not _collisions(wl, ch06.WAVELENGTH_CASES)
    sh = [(hint[:40], f) for f, hint in ch06._shift_mistakes()]
    assert not _collisions(sh, ch06.SHIFT_CASES)
    assert all(type(args[0]) is int for _, args in ch06.SHIFT_CASES)


def test_blog_loop_bug_gets_its_own_hint_and_no_other():
    # `for i in range(0, d, 2)` with 2*i/d in both columns: exponent 4i'/d for pair i'
    def blog(seq_len, d, base=10000.0):
        return np.array([[math.sin(p / base ** (2 * (j - j % 2) / d)) if j % 2 == 0
                          else math.cos(p / base ** (2 * (j - 1) / d)) for j in range(d)]
                         for p in range(seq_len)])
    report = exercises.check_sinusoidal_encoding(blog)
    assert report.passed == 0
    assert report.text().count("Hint:") == 1 and "your exponent is 4i/d" in report.text()
    for other in ("tensor2tensor", "ignores its base", "dimension index 2i or"):
        assert other not in report.text(), report.text()


def _float32_variants():
    """The usual ways of computing the table in float32 (all steps float32)."""
    def recipe(L, d, b):           # PyTorch tutorial: exp(2i * -ln(n)/d)
        pos = np.arange(L, dtype=np.float32)[:, None]
        w = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-math.log(b) / d))
        return pos * w

    def power(L, d, b):            # pos / n ** (2i/d)
        pos = np.arange(L, dtype=np.float32)[:, None]
        return pos / np.float32(b) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))

    def reciprocal(L, d, b):       # pos * (1 / n ** (2i/d))
        pos = np.arange(L, dtype=np.float32)[:, None]
        return pos * (np.float32(1) / np.float32(b) ** (np.arange(0, d, 2, dtype=np.float32)
                                                         / np.float32(d)))

    def half(L, d, b):             # exp(-ln(n) * arange(d/2) / (d/2))
        pos = np.arange(L, dtype=np.float32)[:, None]
        return pos * np.exp(-np.float32(math.log(b)) * np.arange(d // 2, dtype=np.float32)
                            / np.float32(d // 2))

    def table(angles):
        def f(L, d, b):
            a = angles(L, d, b)
            pe = np.empty((L, d), dtype=np.float32)
            pe[:, 0::2], pe[:, 1::2] = np.sin(a), np.cos(a)
            return pe
        return f

    return [table(a) for a in (recipe, power, reciprocal, half)]


def test_float32_tolerance_fits_real_float32_error():
    from posenc_lib.course.exercises import ch06
    worst = max(float(np.max(np.abs(f(*args).astype(float) - encodings.sinusoidal(*args))))
                for f in _float32_variants() for _, args in ch06.ENCODING_CASES)
    assert 1e-6 < worst < ch06.FLOAT32_TOL / 2          # accepted with a margin (about 3x)
    assert ch06.FLOAT32_TOL <= 5 * worst                 # but not much looser than float32 is
    for f in _float32_variants():
        report = exercises.check_sinusoidal_encoding(f)
        assert report.ok, report.text()
    # a constant error larger than float32 rounding is rejected, without the float32 note
    for err in (2 * ch06.FLOAT32_TOL, 9e-5):
        report = exercises.check_sinusoidal_encoding(
            lambda L, d, b, err=err: encodings.sinusoidal(L, d, b) + err)
        assert report.passed == 0 and not report.notes, report.text()
