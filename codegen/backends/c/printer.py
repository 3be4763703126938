"""SymPy → C99 for the kernels (FLOAT) and the checker's conditions (double).

SymPy's `C99CodePrinter` with `type_aliases={real: float32}` already prints `expf`, `fabsf` and `F`
literals.  What it gets wrong for kernels, and is overridden here (parentheses and constants for every override
come from codegen.backends.infix: each printed form declares its precedence next to its `_print_` method):

* `Piecewise` prints as a multi-line ternary (or needs an assignment target); kernels want one expression,
  nested `(c) ? (a) : (b)`, branches in the order the spec lists them, like NumPy's nested `np.where`.
* `exp` prints as `expf`, a libm call no compiler vectorizes (short of -ffast-math, which would also give up
  nan and inf); it prints as `opgen_expf` (opgen_math.h), inline and branch-free, within 1 ulp, or as
  `opgen_expf_nonpos` where SymPy proves the argument nonpositive.  `expm1`, `tanh`, `erf`, `erfc` and `sign`
  print as opgen_math.h's vectorizable `opgen_expm1f`, `opgen_tanhf`, `opgen_erff`, `opgen_erfcf`,
  `opgen_signf` (`cosh` and `sinh` as `opgen_coshf` and `opgen_sinhf`), `log` as `opgen_logf` (hand-written beside opgen_expf), and `log1p` as `opgen_log1pf` (Goldberg's
  method over opgen_logf) (their algorithms and error bounds: codegen/expansions.py and opgen_math.h, measured by
  tests/test_c_math_functions.py; opgen_erfcf is written in opgen_math.h, not printed: C_WRITTEN).
  `tanh(log1p(exp(u)))`, tanh of the softplus, prints as `opgen_tanh_softplusf(u)` (one exp, not three and a log);
  erfc(|u|/√2) beside an exp(-u²/2) computed first prints as `opgen_erfc_gaussf(u, &ex)`, which gives both
  (opsource._erfc_gauss).  (In a double-typed checker condition every function is libm's double one.)
* `Max`/`Min` print as `fmaxf`/`fminf`, which *drop* a nan argument; NumPy's `maximum`/`minimum` (the
  reference backend) propagate it.  They print as `opgen_maximumf`/`opgen_minimumf` (opgen_math.h).
* Integer powers print as `powf(x, 2)`: a libm call per element where one multiplication is exact and
  vectorizes; up to the 4th power they print as products (`x*x*x`), negative ones as `1.0F/x/x`; `x**(1/2)`
  as `sqrtf(x)`, `x**(-1/2)` as `1.0F/sqrtf(x)`; any other power as `powf(x, e)` (SymPy's `cbrtf` for 1/3 would
  give a real cube root of a negative base, where NumPy's power and the spec's real power give nan).
* Constants (`Rational`, `sqrt(2)`, `pi`, codegen.lower.Const) print as one literal, the FLOAT nearest the exact
  value (`0.33333334F`), or the double nearest it in a checker condition; integers print bare (an int literal
  never promotes a float expression to double) up to 2^24, beyond which an int could overflow.
* `CompensatedAdd(x, hi, lo)` (codegen.lower) prints as `((x + hi) + lo)`; `fma` (in the phase-1 prelude) as
  `fmaf`, SymPy's own printing.
* `Extended(sum)` (codegen.cancellation: a sum that cancels) prints as `(float)(...)` of the sum in double
  (codegen.backends.c.extended).
* `Sigmoid` (codegen.rewrite) prints as a call of the op's `opgen_sigmoidf`, itself printed from
  `Sigmoid.stable_form` by this printer (`opgen_sigmoidf_half` in the copy of a kernel tuned to a half
  output: opsource.half_tuned).
"""
from __future__ import annotations

import sympy
from sympy.codegen.ast import float32, real
from sympy.codegen.cfunctions import log1p
from sympy.printing.c import C99CodePrinter
from sympy.printing.precedence import PRECEDENCE

from codegen.backends import literals
from codegen.backends.infix import InfixPrinting

MAX_EXPANDED_POWER = 4   # x**n for 1 < |n| <= 4 prints as n - 1 multiplications
FUNC = PRECEDENCE["Func"]
MUL = PRECEDENCE["Mul"]
# functions opgen_math.h writes by hand instead of printing their codegen.expansions form (erfc: one exp and one
# polynomial below 2 where the form takes two of each, see the header; Ascend C still lowers the form)
C_WRITTEN = {sympy.erfc}
# functions C takes from libm instead (sin, cos: sinf and cosf reduce the argument over the whole FLOAT range; the
# Ascend C form, codegen.expansions.sin_form, does too, but beyond 65536 in some 820 instructions of its own)
C_LIBM = {sympy.sin, sympy.cos}


class KernelCPrinter(InfixPrinting, C99CodePrinter):
    """`names` maps symbols to C expressions (`grad_output[i]`, `p.scale`, `alpha_value`)."""

    def __init__(self, names: dict | None = None, float_kernel: bool = True, last=frozenset()):
        settings = {"type_aliases": {real: float32}} if float_kernel else {}
        super().__init__(settings)
        self.names = names or {}
        self.last = last
        self.suffix = "f" if float_kernel else ""
        # the double locals a sum computed in double (Extended) reads instead of `(double)` of the FLOAT one: the
        # kernel's real constants and row sums, unrounded (opsource.variant_context)
        self.wide_names = {}

    def literal(self, value) -> str:
        return literals.c_float(value) if self.suffix else literals.c_double(value)

    def _print_Symbol(self, expr):
        return self.names.get(expr, super()._print_Symbol(expr))

    def _print_Or(self, expr):
        """`(a && b) || c`: SymPy leaves an And inside an Or bare (&& binds tighter), which gcc's -Wparentheses, an
        error in the library's build, refuses (IsrluBackward's `x >= 0 | (alpha == 0 & x < 0)`)."""
        from sympy.core.sorting import default_sort_key
        level = PRECEDENCE["Or"]
        return " || ".join(f"({self._print(a)})" if isinstance(a, sympy.And) else self.parenthesize(a, level)
                           for a in sorted(expr.args, key=default_sort_key))

    def _print_Integer(self, expr):
        if abs(int(expr)) > 2 ** 24:
            return self.literal(expr)
        return str(expr.p)

    # ---- conditions ---------------------------------------------------------------------------------------
    def _print_Piecewise(self, expr):
        args = list(expr.args)
        if args[-1][1] != sympy.true:
            raise ValueError(f"Piecewise without a final True branch: {expr}")
        if self.suffix and _scale_select(args):
            # a choice between two scales, powers of two (codegen.rewrite.scaled_square_roots' s = 2^-66 or 1), as the
            # blend k1*t + k2*(1 - t), t = 0 or 1: the same bits (a positive number plus +0), and no select.
            # A select let GCC 12 duplicate everything computed from it per arm (jump threading) and if-convert
            # both: the scaled arm, (u*2^-66)^2, a subnormal in every lane of ordinary inputs, then one root more
            # (Squareplus's C kernel 4.2x slower than without the scaling; as a blend 1.1x)
            (k1, c), (k2, _) = args
            t = f"(float)({self._print(c)})"
            return f"({self._scaled(k1, t)} + {self._scaled(k2, f'(1 - {t})')})"
        out = self._print(args[-1][0])
        for e, c in reversed(self._mirrors_joined(args[:-1]) if self.suffix else args[:-1]):
            out = f"({self._print(c)} ? {e if isinstance(e, str) else self._print(e)} : {out})"
        return out

    def _scaled(self, k, term: str) -> str:
        return term if k == 1 else f"{self._print(k)}*{term}"

    def _mirrors_joined(self, pairs: list) -> list:
        """`pairs` (value, condition) with each two consecutive mirrored branches joined into one (_mirror_of):
        (v, c(d)) then (-v, c(-d)), where c(d) requires d > 0, is (opgen_xorsignf(v, d), c(|d|)): v where d > 0, -v
        where d < 0 (c(d) is false there, and c(-d) = c(|d|)), neither where d is ±0 or nan (|d| > 0 is false).
        The same bits (the negation flips the sign bit, as opgen_xorsignf does), in fewer compares and masks:
        SmoothL1LossBackward's ±gradOut, whose five compares and their mask logic were its loop's time (AVX-512,
        GCC 12: 27 instructions per 16 elements, 12 of them compares and mask operations)."""
        out, k = [], 0
        while k < len(pairs):
            (v, c), d = pairs[k], (_mirror_of(pairs[k], pairs[k + 1]) if k + 1 < len(pairs) else None)
            if d is None:
                out.append((v, c))
                k += 1
            else:
                out.append((f"opgen_xorsignf({self._print(v)}, {self._print(d)})", c.subs(d, sympy.Abs(d))))
                k += 2
        return out

    def _precedence_Piecewise(self, expr):
        return PRECEDENCE["Atom"]   # printed in parentheses

    def _print_Relational(self, expr):
        return f"({self._print(expr.lhs)} {expr.rel_op} {self._print(expr.rhs)})"

    def _precedence_Relational(self, expr):
        return PRECEDENCE["Atom"]   # printed in parentheses

    # ---- functions ----------------------------------------------------------------------------------------
    def _call(self, name: str, *args) -> str:
        return f"{name}({', '.join(self._print(a) for a in args)})"

    def _print_Max(self, expr):
        bound = _symmetric_clamp(expr)
        if bound is not None:   # codegen.saturate's clamp: one comparison of |u| (not two compare-and-selects)
            return f"opgen_clamp{self.suffix}({self._print(bound[0])}, {self._print(bound[1])})"
        return self._fold(f"opgen_maximum{self.suffix}", expr)

    def _print_Min(self, expr):
        return self._fold(f"opgen_minimum{self.suffix}", expr)

    def _print_exp(self, expr):
        if expr in self.names:   # (computed before a `?:`: opsource._branch_exps_hoisted)
            return self.names[expr]
        if not self.suffix:
            return self._call("exp", expr.args[0])
        arg = expr.args[0]
        if arg.is_nonpositive:   # (the sigmoid's exp(-|u|)): fewer range selects, the same bits
            return self._call("opgen_expf_nonpos", arg)
        return self._call("opgen_expf", arg)

    def _opgen(self, libm: str, expr) -> str:
        """opgen_math.h's vectorizable FLOAT function, or libm's double one in a checker condition."""
        return self._call(f"opgen_{libm}f" if self.suffix else libm, *expr.args)

    def _print_expm1(self, expr):
        return self._opgen("expm1", expr)

    def _print_tanh(self, expr):
        arg = expr.args[0]
        if self.suffix and isinstance(arg, log1p) and isinstance(arg.args[0], sympy.exp):
            # tanh(softplus(u)) (Mish): one exp and one division (opgen_math.h), where the chain takes three
            # exps, a log and two divisions
            return self._call("opgen_tanh_softplusf", arg.args[0].args[0])
        return self._opgen("tanh", expr)

    def _print_erf(self, expr):
        return self._opgen("erf", expr)

    def _print_sin(self, expr):
        return self._call(f"sin{self.suffix}", expr.args[0])   # libm's: argument reduction over the whole range

    def _print_cos(self, expr):
        return self._call(f"cos{self.suffix}", expr.args[0])

    def _print_ExactArgument(self, expr):
        """sin or cos of a product of two FLOATs (codegen.trig_arguments): in a FLOAT kernel, libm's double one of
        the product in double (exact) rounded once; in a DOUBLE kernel, as it stands."""
        f = expr.args[0]
        if not self.suffix:
            return self._print(f)
        a, b = (f.args[0].base,) * 2 if isinstance(f.args[0], sympy.Pow) else f.args[0].args
        return f"(float){type(f).__name__}((double){self.parenthesize(a, FUNC)}*(double){self.parenthesize(b, FUNC)})"

    def _print_cosh(self, expr):
        return self._opgen("cosh", expr)

    def _print_sinh(self, expr):
        return self._opgen("sinh", expr)

    erfc_gauss: dict = {}   # {erfc(|u|/sqrt(2)): name of e^(-u^2/2)}: opsource._erfc_gauss

    def _print_erfc(self, expr):
        if self.suffix and expr in self.erfc_gauss:
            u = _exact_abs_arg(expr)
            return f"opgen_erfc_gaussf({self._print(u)}, &{self.erfc_gauss[expr]})"
        return self._opgen("erfc", expr)

    def _print_sign(self, expr):
        return self._call(f"opgen_sign{self.suffix}", expr.args[0])

    def _print_log(self, expr):
        return self._opgen("log", expr)

    def _print_log1p(self, expr):
        return self._opgen("log1p", expr)

    def _print_Abs(self, expr):
        return self._call(f"fabs{self.suffix}", expr.args[0])

    sigmoid_tail = ""   # "_half": the sigmoid tuned to a half output (opsource.half_tuned)

    def _print_Sigmoid(self, expr):
        return self._call(f"opgen_sigmoid{self.suffix}{self.sigmoid_tail}", expr.args[0])

    def _print_Opaque(self, expr):
        """codegen.expansions.Opaque: its argument, as it stands."""
        return self._print(expr.args[0])

    def _precedence_Opaque(self, expr):
        return self.precedence_of(expr.args[0])

    def _print_Extended(self, expr):
        """A sum that cancels (codegen.cancellation): in a FLOAT kernel, computed in double from double copies of
        its operands (libm's double functions, opgen_sigmoid_f64) and rounded once; in double, as it stands."""
        if not self.suffix:
            return self._print(expr.args[0])
        from .extended import extended_c
        return extended_c(self, expr)

    def _precedence_Extended(self, expr):
        return PRECEDENCE["Atom"] if self.suffix else self.precedence_of(expr.args[0])

    def _print_SplitHi(self, expr):
        return self._call("opgen_split_hif", expr.args[0])

    def _precedence_Function(self, expr):
        return FUNC   # every other function prints as a call

    # ---- powers -------------------------------------------------------------------------------------------
    def _print_Pow(self, expr):
        base, e = expr.base, expr.exp
        one = "1.0F" if self.suffix else "1.0"
        if e == -1:
            return f"{one}/{self.parenthesize(base, MUL)}"
        if e.is_Integer and 1 < abs(int(e)) <= MAX_EXPANDED_POWER:
            n = abs(int(e))
            if e < 0:   # one division at a time: d*d may overflow where 1/d**2 does not (codegen.backends.infix)
                return one + f"/{self.parenthesize(base, MUL)}" * n
            return "*".join([self.parenthesize(base, MUL)] * n)
        if e == sympy.S.Half:
            return self._call(f"sqrt{self.suffix}", base)
        if e == -sympy.S.Half:
            return f"{one}/{self._call(f'sqrt{self.suffix}', base)}"
        if e.is_Integer:
            return f"pow{self.suffix}({self._print(base)}, {int(e)})"
        return f"pow{self.suffix}({self._print(base)}, {self.literal(e)})"

    def _precedence_Pow(self, expr):
        e = expr.exp
        if e == -1 or e.is_Integer and 1 < abs(int(e)) <= MAX_EXPANDED_POWER:
            return MUL
        if e == -sympy.S.Half:
            return MUL
        return FUNC


def _conjuncts(cond) -> frozenset:
    return frozenset(a.canonical if isinstance(a, sympy.core.relational.Relational) else a
                     for a in (cond.args if isinstance(cond, sympy.And) else (cond,)))


def _scale_select(args) -> bool:
    """Whether a Piecewise's (value, condition) pairs choose between two powers of two (a scale)."""
    return len(args) == 2 and all(literals.power_of_two(v) and v.is_positive for v, _ in args)


def _mirror_of(first, second):
    """d where the branches `first` = (v, c) and `second` = (-v, c with d -> -d) of a Piecewise mirror each other
    about d = 0, c requiring d > 0 (one of its conjuncts), v an operand (a symbol: -v then flips only v's sign
    bit, as opgen_xorsignf does); else None."""
    (v, c), (w, c2) = first, second
    if not isinstance(v, sympy.Symbol) or w != -v:
        return None
    for a in _conjuncts(c):
        if isinstance(a, sympy.StrictGreaterThan) and a.rhs == 0 and isinstance(a.lhs, sympy.Symbol):
            d = a.lhs
            if _conjuncts(c.subs(d, -d)) == _conjuncts(c2):
                return d
    return None


def _exact_abs_arg(expr):
    """u of erfc(c*|u|) (the argument's Abs)."""
    (a,) = [x for x in expr.args[0].atoms(sympy.Abs)]
    return a.args[0]


def math_functions() -> list[dict]:
    """opgen_math.h's functions printed from codegen.expansions: [{name, doc, lines}], each `float f(float x)`,
    its body the CSE'd expansion, one `const float` per temporary."""
    from codegen.expansions import FORMS
    x = sympy.Symbol("x", real=True)
    out = []
    for fn, form in FORMS.items():
        if fn in C_WRITTEN or fn in C_LIBM:
            continue
        temps, (res,) = sympy.cse([form(x)], symbols=sympy.numbered_symbols("t", real=True), order="canonical")
        names = {x: "x", **{t: str(t) for t, _ in temps}}
        pr = KernelCPrinter(names)
        lines = [f"const float {t} = {pr.doprint(e)};" for t, e in temps] + [f"return {pr.doprint(res)};"]
        out.append({"name": f"opgen_{fn.__name__}f", "doc": (form.__doc__ or "").strip(), "lines": lines})
    return out


def _symmetric_clamp(expr):
    """(u, c) for Max(-c, Min(c, u)) with a number c > 0 (codegen.saturate.clamped), else None."""
    if len(expr.args) != 2:
        return None
    low, inner = sorted(expr.args, key=lambda a: not a.is_number)
    if not (low.is_number and isinstance(inner, sympy.Min) and len(inner.args) == 2):
        return None
    high, u = sorted(inner.args, key=lambda a: not a.is_number)
    return (u, high) if high.is_number and high > 0 and low == -high and not u.is_number else None
