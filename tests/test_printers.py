"""The expression printers, compiled (C, C++) or run (NumPy), against mpmath: parentheses and constants.

Each expression below stresses one way a printer can lose a parenthesis or a constant: unary minus of a power,
a power or a product in a denominator, Piecewise inside products, rational coefficients, nested Min/Max, relations
inside And/Or/Not, irrational constants.  The C kernel printer (FLOAT and the checker's double), the Ascend C
scalar printer (C++) and the NumPy printer each print all of them (after codegen.lower's constant grouping, as
the kernels get them); one program per language evaluates them on a grid, and mpmath at 40 digits gives the
exact values.  A lost parenthesis is off by far more than the bound (64 ulps of FLOAT; 1e-12 for double).
"""
from __future__ import annotations

import subprocess

import mpmath
import numpy as np
import pytest
import sympy
from sympy import Abs, E, Eq, Max, Min, Not, Or, And, Piecewise, Rational, exp, log, pi, sqrt

from codegen.backends.ascendc.lowering import ScalarPrinter
from codegen.backends.c.printer import KernelCPrinter
from codegen.backends.numpy.printer import KernelNumPyPrinter
from codegen.lower import group_constants
from codegen.runtime import mathf

x, y, g = sympy.symbols("x y g", real=True)

EXPRS = [
    g * exp(x) * (x - 1) ** 2 / (1 + x ** 2) ** 2,                  # the squared denominator
    -(x + y) ** 2 / (x * y),
    x / (y * (x + 2)) ** 3,
    (x - y) * Piecewise((x, x > y), (2 * y, True)) / Piecewise((1 + x ** 2, Or(x > 1, Not(y < 0))), (2, True)),
    -x ** 2 - Rational(1, 3) * y + x * Rational(-7, 2),
    Max(Min(x, y, 1), -Max(x, 2 * y)),
    Piecewise((x, And(x > 0, Not(y > x), Or(y < -1, Eq(x, 2)))), (-y, True)),
    1 / (x + 3) + 1 / (x * y) ** 2 + (y ** 2 + 1) ** -3 + 2 / (x ** 2 * (y + 2)),
    sqrt(2) * pi * x / E - 1 / sqrt(2 * pi) + log(2) * y,
    -Piecewise((x, x > 0), (y, True)) ** 2,
    -(-x) ** 3 * g,
    (x ** 2 + y ** 2) ** Rational(3, 2) - 1 / sqrt(x ** 2 + 1),
    g * x / (y * Piecewise((x, x > 0), (-x, True)) * (1 - y)),
    1 - Rational(2, 3) * (x - y) ** 4 / (x - Rational(1, 2)),
    sympy.sign(x - y) * sympy.Abs(x) + sympy.erf(y) * sympy.tanh(x) - sympy.erfc(x) / 2,
]
POINTS = [(a, b, c) for a in (-2.5, -1.0, -0.3, 0.7, 1.3, 2.0, 3.0) for b in (-1.7, -0.4, 0.6, 2.2)
          for c in (0.75,)]


def _exact():
    with mpmath.workdps(40):
        out = np.empty((len(POINTS), len(EXPRS)))
        for j, e in enumerate(EXPRS):
            f = sympy.lambdify([x, y, g], e, "mpmath")
            for i, (a, b, c) in enumerate(POINTS):
                try:
                    v = f(mpmath.mpf(float(np.float32(a))), mpmath.mpf(float(np.float32(b))),
                          mpmath.mpf(float(np.float32(c))))
                    out[i, j] = float(v) if not isinstance(v, mpmath.mpc) else np.nan
                except ZeroDivisionError:
                    out[i, j] = np.nan
        return out


EXACT = _exact()
NAMES = {x: "x", y: "y", g: "g"}


def _compile_and_run(tmp_path, source: str, compiler: list[str], ext: str, dtype) -> np.ndarray:
    src = tmp_path / f"exprs.{ext}"
    src.write_text(source)
    exe = tmp_path / f"exprs_{ext}"
    build = subprocess.run([*compiler, "-O1", "-ffp-contract=off", "-I", str(_math_header_dir(tmp_path)), str(src),
                            "-o", str(exe), "-lm"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr + source
    out = subprocess.run([str(exe)], capture_output=True, check=True, text=True).stdout.split()
    return np.array([float.fromhex(v) for v in out], dtype).reshape(len(POINTS), len(EXPRS))


def _math_header_dir(tmp_path):
    """opgen_math.h, as the C kernels include it."""
    from codegen.backends.c.emit import runtime_files
    folder = tmp_path / "include"
    folder.mkdir(exist_ok=True)
    (folder / "opgen_math.h").write_text(runtime_files()["src/opgen_math.h"])
    return folder


def _program(printed: list[str], ctype: str, header: str) -> str:
    funcs = "\n".join(f"static {ctype} e{j}({ctype} x, {ctype} y, {ctype} g) {{ return {p}; }}"
                      for j, p in enumerate(printed))
    calls = " ".join(f'printf("%a\\n", (double)e{j}(p[i][0], p[i][1], p[i][2]));' for j in range(len(printed)))
    hexa = lambda v: float(np.float32(v)).hex()   # the FLOAT inputs mpmath evaluates at, exactly
    pts = ", ".join(f"{{{hexa(a)}, {hexa(b)}, {hexa(c)}}}" for a, b, c in POINTS)
    return (f"{header}\n#include <stdio.h>\n{funcs}\nstatic const {ctype} p[][3] = {{{pts}}};\n"
            f"int main(void) {{ for (unsigned i = 0; i < sizeof p / sizeof p[0]; ++i) {{ {calls} }} return 0; }}\n")


def _assert_close(got, tolerance_ulps, what):
    bad = []
    for j in range(len(EXPRS)):
        for i in range(len(POINTS)):
            want, have = EXACT[i, j], float(got[i, j])
            if np.isnan(want) or abs(want) > 1e30:
                continue
            ulp = float(np.spacing(np.float32(abs(want)))) if got.dtype == np.float32 else abs(want) * 2.0 ** -52
            if not abs(have - want) <= tolerance_ulps * max(ulp, 1e-30):
                bad.append(f"{EXPRS[j]} at {POINTS[i]}: {have!r}, exact {want!r}")
    assert not bad, f"{what}: {len(bad)} wrong, e.g.\n" + "\n".join(bad[:6])


def test_the_c_kernel_printer_keeps_every_parenthesis_and_constant(tmp_path):
    pr = KernelCPrinter(NAMES, last=frozenset({g}))
    printed = [pr.doprint(group_constants(e)) for e in EXPRS]
    assert "M_" not in " ".join(printed)                   # no M_PI, M_SQRT2: undeclared under -std=c11
    # the squared denominator divides as a unit, one factor at a time (never `/(x*x + 1)*(x*x + 1)`, nor by the
    # product, which overflows FLOAT where the quotient does not: codegen.backends.infix)
    assert "/(x*x + 1)/(x*x + 1))*g" in printed[0], printed[0]
    got = _compile_and_run(tmp_path, _program(printed, "float", '#include "opgen_math.h"'),
                           ["cc", "-std=c11", "-Wall", "-Werror", "-Wno-unused-function"], "c", np.float32)
    _assert_close(got, 64, "C (FLOAT)")


def test_the_c_checker_printer_keeps_every_parenthesis_and_constant_in_double(tmp_path):
    pr = KernelCPrinter(NAMES, float_kernel=False)
    printed = [pr.doprint(e) for e in EXPRS]
    got = _compile_and_run(tmp_path, _program(printed, "double", '#include "opgen_math.h"'),
                           ["cc", "-std=c11", "-Wall", "-Werror", "-Wno-unused-function"], "c", np.float64)
    _assert_close(got, 64, "C (double)")


def test_the_ascendc_scalar_printer_keeps_every_parenthesis_and_constant(tmp_path):
    pr = ScalarPrinter(NAMES)
    printed = [pr.doprint(group_constants(e)) for e in EXPRS]
    assert "M_" not in " ".join(printed) and "1.0/" not in " ".join(printed)
    got = _compile_and_run(tmp_path, _program(printed, "float", "#include <cmath>\nusing std::fma;"),
                           ["g++", "-std=c++17", "-Wall", "-Werror", "-Wno-unused-function"], "cpp", np.float32)
    _assert_close(got, 64, "Ascend C scalars (FLOAT)")


def test_the_numpy_printer_keeps_every_parenthesis_and_constant():
    pr = KernelNumPyPrinter(NAMES, last=frozenset({g}))
    from codegen.runtime.blocks import where
    namespace = {"np": np, "_where": where, "_mathf": mathf,
                 "_exp": lambda u: np.exp(u, dtype=np.float64).astype(np.float32)}
    pts = np.array(POINTS, np.float32)
    got = np.empty((len(POINTS), len(EXPRS)), np.float32)
    with np.errstate(all="ignore"):
        for j, e in enumerate(EXPRS):
            code = pr.doprint(group_constants(e))
            value = eval(code, dict(namespace, x=pts[:, 0], y=pts[:, 1], g=pts[:, 2]))
            got[:, j] = np.broadcast_to(np.asarray(value, np.float32), len(POINTS))
    _assert_close(got, 64, "NumPy (FLOAT)")


@pytest.mark.parametrize("value, text", [(sympy.sqrt(2), "1.4142135F"), (pi, "3.1415927F"), (E, "2.7182817F"),
                                         (Rational(1, 3), "0.33333334F"), (1 / sqrt(2 * pi), "0.3989423F"),
                                         (log(2), "0.6931472F"), (Rational(-7, 2), "-3.5F")])
def test_a_constant_is_the_float_nearest_its_exact_value(value, text):
    """The literal reads back as the FLOAT nearest the exact constant (mpmath at 60 digits, rounded once)."""
    printed = KernelCPrinter({}).doprint(value)
    assert printed == text
    with mpmath.workdps(60):
        exact = mpmath.mpf(sympy.N(value, 60))
        f = np.float32(float(printed[:-1]))
        for neighbour in (np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))):
            assert abs(mpmath.mpf(float(f)) - exact) <= abs(mpmath.mpf(float(neighbour)) - exact)


def test_a_quotient_divides_by_one_denominator_factor_at_a_time():
    """(seed 37) a/((1 + x**2)*(1 + y**2)**2) printed as a/(d1*d2*d2) overflowed FLOAT at x = 1.2e17 although the
    quotient is 9e-23: each printer divides in turn, and a lone negative power never computes d**n."""
    names = {x: "x", y: "y"}
    e = x / ((1 + x ** 2) * (1 + y ** 2) ** 2)
    assert KernelCPrinter(names).doprint(e) == "x/(x*x + 1)/(y*y + 1)/(y*y + 1)"
    assert KernelCPrinter(names).doprint(Rational(1, 3) / (1 + x)) == "1/(x + 1)/3"   # never C's integer 1/3
    assert KernelCPrinter(names).doprint((1 + x) ** -2) == "1.0F/(x + 1)/(x + 1)"
    np_printer = KernelNumPyPrinter(names)
    assert np_printer.doprint(e) == "x/(x**2 + 1)/(y**2 + 1)/(y**2 + 1)"
    assert np_printer.doprint((1 + x) ** -6) == "(1/(x + 1))**6"


class _Unjoined(KernelCPrinter):
    """The C kernel printer with every Piecewise branch printed as the spec lists it."""

    def _mirrors_joined(self, pairs):
        return pairs


MIRRORED = Piecewise((g, (y <= x) & (x > 0)), (-g, (y <= -x) & (x < 0)), (x / y * g, Abs(x) < y), (0, True))


def test_mirrored_branches_print_as_one_sign_flip_with_the_same_bits(tmp_path):
    """SmoothL1's ±gradOut: v where x > 0 and -v where -x > 0 (the same condition with x -> -x) print as
    opgen_xorsignf(v, x) under the condition at |x|; compiled beside the branches as the spec lists them and run on
    every mix of ±0, ±inf, ±nan, subnormals, ±max and ordinary values, the bits agree (the sign of a nan too)."""
    joined = KernelCPrinter(NAMES).doprint(MIRRORED)
    assert "opgen_xorsignf(g, x)" in joined and "-g" not in joined, joined
    listed = _Unjoined(NAMES).doprint(MIRRORED)
    assert "opgen_xorsignf" not in listed and "-g" in listed, listed
    # not mirrors: another bound, a value that is not an operand, a condition without x > 0
    for pw in (Piecewise((g, x > 0), (-g, x < -1), (0, True)),
               Piecewise((2 * g, (y <= x) & (x > 0)), (-2 * g, (y <= -x) & (x < 0)), (0, True)),
               Piecewise((g, y <= x), (-g, y <= -x), (0, True)),
               Piecewise((g, (y <= x) & (x > 0)), (g, (y <= -x) & (x < 0)), (0, True))):
        assert "opgen_xorsignf" not in KernelCPrinter(NAMES).doprint(pw), pw
    values = ["0.0f", "-0.0f", "INFINITY", "-INFINITY", "NAN", "-NAN", "FLT_MAX", "-FLT_MAX", "1e-40f", "-1e-40f",
              "FLT_MIN", "0.5f", "-0.5f", "1.0f", "-1.0f", "2.5f", "-3.0f"]
    source = "\n".join([
        "#include <float.h>", "#include <math.h>", "#include <stdio.h>", "#include <string.h>",
        '#include "opgen_math.h"',
        f"static float joined(float x, float y, float g) {{ return {joined}; }}",
        f"static float listed(float x, float y, float g) {{ return {listed}; }}",
        "int main(void) {",
        f"    const float v[] = {{{', '.join(values)}}};",
        "    const int n = (int)(sizeof v / sizeof v[0]);",
        "    long same = 0, differ = 0;",
        "    for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) for (int k = 0; k < n; ++k) {",
        "        volatile float x = v[i], y = v[j], g = v[k];",
        "        const float a = joined(x, y, g), b = listed(x, y, g);",
        "        if (memcmp(&a, &b, sizeof a) == 0) ++same;",
        '        else { ++differ; printf("x=%a y=%a g=%a: %a against %a\\n", x, y, g, a, b); }',
        "    }",
        '    printf("%ld %ld\\n", same, differ);',
        "    return 0;",
        "}"])
    src = tmp_path / "mirrored.c"
    src.write_text(source)
    exe = tmp_path / "mirrored"
    build = subprocess.run(["cc", "-std=c11", "-O2", "-march=native", "-ffp-contract=off", "-Wall", "-Werror",
                            "-Wno-unused-function", "-I", str(_math_header_dir(tmp_path)), str(src), "-o", str(exe),
                            "-lm"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr + source
    out = subprocess.run([str(exe)], capture_output=True, check=True, text=True).stdout.split("\n")
    same, differ = (int(w) for w in out[-2].split())
    assert (same, differ) == (len(values) ** 3, 0), "\n".join(out[:8])


def test_a_choice_between_two_scales_prints_as_a_blend_with_the_same_bits(tmp_path):
    """codegen.rewrite.scaled_square_roots' s = 2^-66 where |u| > 2^62, else 1 (and 1/s) prints as k1*t + k2*(1 - t):
    as a select, GCC 12 if-converted both arms of everything computed from s, the scaled one a subnormal in every
    lane of ordinary inputs (Squareplus's C kernel 4.2x slower).  Compiled beside the select and run on special and
    ordinary values, the bits agree; a choice that is not between two powers of two keeps its select."""
    from codegen.rewrite import SCALE_DOWN
    chosen = Piecewise((SCALE_DOWN, Abs(x) > 2**62), (1, True))
    blend = KernelCPrinter(NAMES).doprint(x * chosen)
    assert "?" not in blend, blend
    select = f"x*((fabsf(x) > {float(2**62)!r}F) ? {float(SCALE_DOWN)!r}F : 1.0F)"
    for other in (Piecewise((3, x > 0), (1, True)), Piecewise((SCALE_DOWN, x > 0), (-1, True)),
                  Piecewise((SCALE_DOWN, x > 0), (y, True))):
        assert "?" in KernelCPrinter(NAMES).doprint(other), other
    values = ["0.0f", "-0.0f", "INFINITY", "-INFINITY", "NAN", "-NAN", "FLT_MAX", "-FLT_MAX", "1e-40f", "-1e-40f",
              "FLT_MIN", "0.5f", "-3.0f", "4.611686e18f", "4.611687e18f", "-4.7e18f", "1e30f"]
    source = "\n".join([
        "#include <float.h>", "#include <math.h>", "#include <stdio.h>", "#include <string.h>",
        f"static float blend(float x) {{ return {blend}; }}",
        f"static float select(float x) {{ return {select}; }}",
        "int main(void) {",
        f"    const float v[] = {{{', '.join(values)}}};",
        "    int differ = 0;",
        "    for (int i = 0; i < (int)(sizeof v / sizeof v[0]); ++i) {",
        "        volatile float x = v[i];",
        "        const float a = blend(x), b = select(x);",
        '        if (memcmp(&a, &b, sizeof a) != 0) { ++differ; printf("x=%a: %a against %a\\n", x, a, b); }',
        "    }",
        '    printf("%d\\n", differ);',
        "    return 0;",
        "}"])
    src = tmp_path / "blend.c"
    src.write_text(source)
    exe = tmp_path / "blend"
    build = subprocess.run(["cc", "-std=c11", "-O2", "-ffp-contract=off", "-Wall", "-Werror", str(src), "-o",
                            str(exe), "-lm"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr + source
    out = subprocess.run([str(exe)], capture_output=True, check=True, text=True).stdout
    assert out.strip().endswith("\n0") or out.strip() == "0", out
