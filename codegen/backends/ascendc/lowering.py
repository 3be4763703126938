"""SymPy → a sequence of Ascend C vector instructions on float tiles in UB.

`codegen.lower.lower(op)` says what to compute (CSE'd body, row sums, hoisted scalars); this module says how,
in Ascend C vector instructions, and allocates the UB temporaries:

- every tensor-valued subexpression becomes one instruction writing a virtual float tile (`Add`, `Muls`,
  `Exp`, `Div`, `Reciprocal`, `Select`, ...); scalar-only subexpressions stay C++ float expressions and become the
  scalar operand of `Adds`/`Muls`/`CompareScalar`/...;
- sums and products are folded left to right in SymPy's printing order, the order the NumPy kernel evaluates,
  so both backends round the same way wherever the instruction set allows; a product then divides by each
  denominator factor in turn (d**-n as n divisions, a lone d**-n as (1/d)**n), never by d**n or a product of
  denominators, which overflow where the quotient does not (codegen.backends.infix);
- conditions become Compare/CompareScalar bit masks (combined with And/Or/Not on uint16; SymPy's ITE(k, a, b),
  its form of a comparison of a Piecewise, as (k & a) | (~k & b)), Piecewise a chain of Select; `Sigmoid` is
  lowered through its stable form (codegen.rewrite); `expm1`, `tanh`, `erf`, `erfc`, `sign` and `log1p`, which
  are not basic instructions, through their expansions (codegen.expansions, which says why not the advanced
  math APIs), a non-integer power as exp(e*log(u)); a sum that cancels (codegen.cancellation.Extended) as
  double-float pairs (codegen.backends.ascendc.doublefloat); Max/Min through Max/Min and a Select of
  each operand that is nan (the documentation does not say what Max does with a nan; NumPy's maximum, the
  reference, propagates it);
- instructions are selected for one architecture (`arch`, codegen.backends.ascendc.socs): where its API lacks
  CompareScalar the scalar is broadcast and compared as a tile, and where Select has only mode 0 the kernel's
  `SelectByRepeat` helper applies the mask one 256-byte repeat at a time;
- a linear-scan allocator maps virtual tiles to the fewest physical slots (`f0, f1, ...`, masks `m0, ...`): a slot
  is reused once its value's last reader has run.  The slot counts size the UB (codegen.backends.ascendc.tiling).

Every instruction runs on `calc` elements — the tile length rounded up to whole 256-byte blocks, which Compare
requires — except ReduceSum, which sums exactly `len` elements.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

import sympy
from sympy.printing.c import C99CodePrinter
from sympy.printing.precedence import PRECEDENCE

from codegen.backends import literals
from codegen.backends.infix import InfixPrinting
from codegen.expansions import FORMS, BeyondReduction, Opaque, SplitHi, power_form
from codegen.cancellation import Extended
from codegen.lower import CompensatedAdd, Const, bounded_after_first, split_last
from codegen.trig_arguments import is_exact_branch, narrow
from codegen.rewrite import Sigmoid

from .doublefloat import lower_extended
from .outline import Group, outline
from .sincos import lower_beyond_reduction
from .socs import ARCHS, Arch

CMP = {"<": "LT", ">": "GT", "<=": "LE", ">=": "GE", "==": "EQ", "!=": "NE"}


class ScalarPrinter(InfixPrinting, C99CodePrinter):
    """C++ float expressions for scalar operands and the host-side prelude.

    Customizations: symbols print as the C++ names given (kernel members, tiling fields, parameters); every
    literal and function is single precision (`1.0F`, `expf`; a constant is the FLOAT nearest its exact value,
    codegen.backends.infix), so no scalar is ever computed in double (and `Muls`/`Adds` have no double overload);
    Piecewise prints as nested `?:` (a scalar, not a statement); Max/Min keep a nan, as NumPy's maximum does."""

    def __init__(self, names: dict):
        super().__init__({"type_aliases": {sympy.codegen.ast.real: sympy.codegen.ast.float32}})
        self.names = names

    def literal(self, value) -> str:
        return literals.c_float(value)

    def _print_Symbol(self, expr):
        """Customizations: the C++ name of a parameter, tiling field or row sum."""
        if expr in self.names:
            return self.names[expr]
        raise NotImplementedError(f"no C++ name for symbol {expr}")

    def _print_Piecewise(self, expr):
        """Customizations: a `?:` chain, since scalars here are expressions, not statements."""
        out = self._print(expr.args[-1][0])
        for e, c in reversed(expr.args[:-1]):
            out = f"(({self._print(c)}) ? {self._print(e)} : {out})"
        return out

    def _precedence_Piecewise(self, expr):
        return PRECEDENCE["Atom"]   # printed in parentheses

    def _minmax(self, expr, op):
        """a op b, or the nan among them (`(a > b || a != a) ? a : b`), folded over the arguments."""
        out = self._print(expr.args[0])
        for a in expr.args[1:]:
            b = self.parenthesize(a, PRECEDENCE["Atom"])
            out = f"(({out} {op} {b} || {out} != {out}) ? {out} : {b})"
        return out

    def _print_Max(self, expr):
        return self._minmax(expr, ">")

    def _print_Min(self, expr):
        return self._minmax(expr, "<")

    def _precedence_MinMaxBase(self, expr):
        return PRECEDENCE["Atom"]

    def _print_Sigmoid(self, expr):
        """1/(1 + e^-x): in FLOAT, e^-x overflows to inf only where the result is 0."""
        return f"(1.0F/(1.0F + expf(-{self.parenthesize(expr.args[0], PRECEDENCE['Atom'])})))"

    def _precedence_Sigmoid(self, expr):
        return PRECEDENCE["Atom"]

    def _print_sign(self, expr):
        x = self.parenthesize(expr.args[0], PRECEDENCE["Atom"])
        return f"({x} > 0.0F ? 1.0F : ({x} < 0.0F ? -1.0F : ({x} == 0.0F ? 0.0F : {x})))"

    def _precedence_sign(self, expr):
        return PRECEDENCE["Atom"]

    def _print_fma(self, expr):
        """Customizations: `std::fma` (float overload), exact for the rounding error of a product that
        codegen.lower puts in the host-side prelude."""
        return "std::fma(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Integer(self, expr):
        """Customizations: integers are float literals (`2.0F`): every scalar operand is a float."""
        return f"{int(expr)}.0F"


class DoubleScalarPrinter(ScalarPrinter):
    """The host's double expressions of the constants a pair sum reads (FillScalars' lo parts): literals double,
    libm's double functions."""

    def __init__(self, names: dict):
        C99CodePrinter.__init__(self)
        self.names = names

    def literal(self, value) -> str:
        return literals.c_double(value)

    def _print_Integer(self, expr):
        return f"{int(expr)}.0"

    def _print_Sigmoid(self, expr):
        return f"(1.0/(1.0 + std::exp(-{self.parenthesize(expr.args[0], PRECEDENCE['Atom'])})))"

    def _print_sign(self, expr):
        x = self.parenthesize(expr.args[0], PRECEDENCE["Atom"])
        return f"({x} > 0.0 ? 1.0 : ({x} < 0.0 ? -1.0 : ({x} == 0.0 ? 0.0 : {x})))"


@dataclass(frozen=True)
class Reg:
    kind: str   # "f": float tile, "m": uint8 bit mask
    id: int


@dataclass(frozen=True)
class In:
    name: str   # an input tile (already float) of the pass


@dataclass
class Instr:
    fmt: str               # C++ statement with {0}, {1}, ... for the register/operand names
    dst: Reg | None
    srcs: list             # Reg or str (input tile name / scalar C++ expression)
    extra: list = field(default_factory=list)   # more destinations (a helper call's, codegen.backends.ascendc
                                                # .outline): formatted after the sources, {len(srcs)}, ...

    @property
    def dsts(self) -> list:
        return ([self.dst] if isinstance(self.dst, Reg) else []) + self.extra


@dataclass
class Lowered:
    """The Compute stage of one kernel pass: C++ statements and the UB slots they need."""
    lines: list[str]
    num_temps: int
    num_masks: int
    helpers: list = field(default_factory=list)   # the pair operations' functions it calls (outline.Helper)


@dataclass
class Lowering:
    """Lower expressions of one pass; `tensors` maps symbols to float tile names, `scalars` to C++ scalars."""
    tensors: dict
    scalars: dict
    last: frozenset = frozenset()               # symbols that multiply last (codegen.lower.split_last)
    arch: Arch = ARCHS["dav-c220"]              # the architecture whose API the instructions must exist in
    instrs: list = field(default_factory=list)
    memo: dict = field(default_factory=dict)
    bound: dict = field(default_factory=dict)   # CSE symbols -> their computed values
    lazy: dict = field(default_factory=dict)    # CSE symbols -> expressions, computed on first use
    counter: dict = field(default_factory=lambda: {"f": 0, "m": 0})
    operands: dict = field(default_factory=dict)  # a function's operand holding a Piecewise -> its symbol (_operand)
    lo: dict = field(default_factory=dict)      # symbols a pair sum reads unrounded -> the C++ name of their lo part
                                                # (codegen.backends.ascendc.plan._lo_names)
    scaled: dict = field(default_factory=dict)  # row sums a pair sum reads -> C++ names of (sHi, sLo, c): the row
                                                # summed again by 2^-66 where it left FLOAT (PairRowSumWide)

    # ---- helpers --------------------------------------------------------------------------------------------
    def _new(self, kind="f") -> Reg:
        r = Reg(kind, self.counter[kind])
        self.counter[kind] += 1
        return r

    def _emit(self, fmt, *srcs, kind="f") -> Reg:
        dst = self._new(kind)
        self.instrs.append(Instr(fmt, dst, list(srcs)))
        return dst

    def is_scalar(self, expr) -> bool:
        return expr.is_Number or all(s in self.scalars for s in expr.free_symbols)

    def scalar(self, expr) -> str:
        return ScalarPrinter(self.scalars).doprint(sympy.sympify(expr))

    # ---- values ---------------------------------------------------------------------------------------------
    def value(self, expr):
        """A Reg (or input tile name) holding expr, or a C++ scalar string when expr has no tensor in it."""
        expr = sympy.sympify(expr)
        if self.is_scalar(expr):
            return self.scalar(expr)
        if expr in self.memo:
            return self.memo[expr]
        out = self._value(expr)
        self.memo[expr] = out
        return out

    def tile(self, expr):
        """Like value, but a scalar is broadcast into a tile (Duplicate)."""
        v = self.value(expr)
        if isinstance(v, str):
            return self._emit("Duplicate({dst}, {0}, calc);", v)
        return v

    def _value(self, e):
        if isinstance(e, sympy.Symbol):
            if e in self.tensors:
                return In(self.tensors[e])
            if e in self.bound:
                return self.bound[e]
            if e in self.lazy:
                self.bound[e] = self.value(self.lazy[e])
                return self.bound[e]
            raise NotImplementedError(f"symbol {e} is neither a tensor nor a scalar of the kernel")
        if isinstance(e, sympy.Add):
            return self._add(e)
        if isinstance(e, sympy.Mul):
            return self._mul(e)
        if isinstance(e, sympy.Pow):
            return self._pow(e)
        unary = {sympy.exp: "Exp", sympy.log: "Ln", sympy.Abs: "Abs"}
        if type(e) in unary:
            return self._emit(unary[type(e)] + "({dst}, {0}, calc);", self.value(e.args[0]))
        if isinstance(e, Sigmoid):
            # the stable form, lowered as it stands: `value` computes its shared e = exp(-|u|) once (memo), as
            # the NumPy backend's `_sigmoid` helper does.  (It was CSE'd into temporaries named after
            # len(self.bound), which two sigmoids could share: the second read the first one's 1 + e.)
            return self.value(Sigmoid.stable_form(self._operand(e.args[0])))
        if isinstance(e, sympy.Piecewise):
            return self._piecewise(e)
        if isinstance(e, Extended):   # a sum that cancels: as double-float pairs (no double on the vector unit)
            return lower_extended(self, e)
        if isinstance(e, BeyondReduction):   # sin, cos: the long path beyond |u| = 65536, in a tile that needs it
            return lower_beyond_reduction(self, e)
        if isinstance(e, CompensatedAdd):   # (x + hi) + lo, in that order
            x, hi, lo = e.args
            acc = self._emit("Adds({dst}, {0}, {1}, calc);", self.value(x), self.scalar(hi))
            return self._emit("Adds({dst}, {0}, {1}, calc);", acc, self.scalar(lo))
        if isinstance(e, (sympy.Max, sympy.Min)):
            return self._maxmin(e)
        form = FORMS.get(type(e))
        if form is not None:   # a function with no instruction: its expansion into basic ones
            return self.value(form(self._operand(e.args[0])))
        if isinstance(e, Opaque):
            return self.value(e.args[0])
        if isinstance(e, SplitHi):   # c = 4097 a; c - (c - a)
            a = self.value(e.args[0])
            c = self._emit("Muls({dst}, {0}, 4097.0F, calc);", a)
            d = self._emit("Sub({dst}, {0}, {1}, calc);", c, a)
            return self._emit("Sub({dst}, {0}, {1}, calc);", c, d)
        raise NotImplementedError(f"no Ascend C lowering for {type(e).__name__}: {e}")

    def _operand(self, u):
        """The operand of an expansion (a sigmoid's stable form, erf's, tanh's, ...), as a symbol bound to it where
        it holds a Piecewise.  An expansion builds conditions on its operand (`u >= 0`); SymPy's Piecewise folds a
        condition on a Piecewise into an ITE of its branches' conditions, and where those are CSE temporaries
        (plain symbols) it simplified the ITE to one branch's comparison: a sigmoid of a near-root series
        (codegen.cancellation) chose its branch by the series' sign everywhere, also where the exact expression
        was selected.  Behind a symbol the operand is computed once, as it stands, and compared as a tile."""
        if not u.has(sympy.Piecewise):
            return u
        if u not in self.operands:
            self.operands[u] = sym = sympy.Symbol(f"_operand{len(self.operands)}", real=True)
            self.lazy[sym] = u
        return self.operands[u]

    def _add(self, e):
        terms = e.as_ordered_terms()
        negative = [not self.is_scalar(t) and t.as_coeff_Mul()[0] == -1 for t in terms]
        if len(terms) > 1 and negative[0] and not negative[1] and not self.is_scalar(terms[1]):
            terms[0], terms[1] = terms[1], terms[0]   # -a + b is exactly b - a: one Sub instead of Muls + Add
        acc, pending = None, []
        for term in terms:
            if self.is_scalar(term):
                if acc is None:
                    pending.append(term)
                else:
                    acc = self._emit("Adds({dst}, {0}, {1}, calc);", acc, self.scalar(term))
                continue
            coeff, rest = term.as_coeff_Mul()
            negative = coeff == -1
            v = self.value(rest if negative else term)
            if acc is None:
                acc = self._emit("Muls({dst}, {0}, -1.0F, calc);", v) if negative else v
                if pending:
                    acc = self._emit("Adds({dst}, {0}, {1}, calc);", acc, self.scalar(sympy.Add(*pending)))
                    pending = []
            else:
                acc = self._emit(("Sub" if negative else "Add") + "({dst}, {0}, {1}, calc);", acc, v)
        return acc

    def _mul(self, e):
        split = split_last(e, self.last)
        if split is not None:   # the incoming gradient multiplies last, after the divisions too, as in the other
            rest, g = split     # backends: g*x/d with g near FLOAT's max must not overflow before the division
            if self.is_scalar(rest):
                return self._emit("Muls({dst}, {0}, {1}, calc);", self.value(g), self.scalar(rest))
            return self._emit("Mul({dst}, {0}, {1}, calc);", self.value(rest), self.value(g))
        factors = e.as_ordered_factors()
        nums, dens = [], []
        for f in factors:
            if isinstance(f, sympy.Pow) and f.exp.is_Integer and f.exp < 0 and (
                    not self.is_scalar(f) or isinstance(f.base, Const)):
                # (a constant divisor too, codegen.lower.exact_affine's: a true division, not a product by fl(1/q))
                # divided by the base -n times, never by base**n, which overflows where base**-n does not
                # (codegen.backends.infix says why this order stays in range wherever the oracle judges)
                dens += [f.base] * int(-f.exp)
            else:
                nums.append(f)
        acc, pending = None, []
        for f in bounded_after_first(nums):
            if self.is_scalar(f):
                if acc is None:
                    pending.append(f)
                else:
                    acc = self._emit("Muls({dst}, {0}, {1}, calc);", acc, self.scalar(f))
                continue
            v = self.value(f)
            if acc is None:
                acc = self._emit("Muls({dst}, {0}, {1}, calc);", v, self.scalar(sympy.Mul(*pending))) if pending else v
                pending = []
            else:
                acc = self._emit("Mul({dst}, {0}, {1}, calc);", acc, v)
        for d in dens:
            v = self.tile(d) if self.is_scalar(d) else self.value(d)
            if acc is None:
                acc = self._emit("Reciprocal({dst}, {0}, calc);", v)
                if pending:
                    acc = self._emit("Muls({dst}, {0}, {1}, calc);", acc, self.scalar(sympy.Mul(*pending)))
                    pending = []
            else:
                acc = self._emit("Div({dst}, {0}, {1}, calc);", acc, v)
        return acc

    def _pow(self, e):
        base, n = e.base, e.exp
        if n == -1:
            return self._emit("Reciprocal({dst}, {0}, calc);", self.value(base))
        if n == sympy.Rational(1, 2):
            return self._emit("Sqrt({dst}, {0}, calc);", self.value(base))
        if n.is_Integer and n > 1:
            v = self.value(base)
            acc = v
            for _ in range(int(n) - 1):
                acc = self._emit("Mul({dst}, {0}, {1}, calc);", acc, v)
            return acc
        if n.is_Integer and n < -1:   # (1/b)**n: b**n may overflow where b**-n does not
            r = self._emit("Reciprocal({dst}, {0}, calc);", self.value(base))
            acc = r
            for _ in range(int(-n) - 1):
                acc = self._emit("Mul({dst}, {0}, {1}, calc);", acc, r)
            return acc
        if n == -sympy.S.Half:
            return self._emit("Reciprocal({dst}, {0}, calc);", self.value(sympy.sqrt(base)))
        if n.is_number:   # any other constant exponent (the vocabulary allows no other)
            return self.value(power_form(base, n))
        raise NotImplementedError(f"no Ascend C lowering for the power {e}")

    def _maxmin(self, e):
        """Max/Min over the tensor operands (and Maxs/Mins with a constant), then each tensor operand that is nan
        selected in (`Compare(k, a, a, EQ)` is false only for nan): NumPy's maximum propagates a nan, and what the
        Max instruction does with one is not documented.  A scalar parameter, which may be nan too, is broadcast
        to a tile and treated like a tensor."""
        name = "Max" if isinstance(e, sympy.Max) else "Min"
        constants = [a for a in e.args if a.is_number]
        tiles = [self.tile(a) for a in e.args if not a.is_number]
        acc = tiles[0]
        for t in tiles[1:]:
            acc = self._emit(name + "({dst}, {0}, {1}, calc);", acc, t)
        if constants:
            acc = self.minmax_scalar(name, acc, self.scalar(e.func(*constants)))
        if len(tiles) + bool(constants) == 1:
            return acc
        compare = "Compare" if self.dense_masks else "CompareByRepeat"
        for t in tiles:
            ok = self._emit(compare + "({dst}, {0}, {0}, CMPMODE::EQ, calc);", t, kind="m")
            acc = self._select(ok, acc, t)
        return acc

    def minmax_scalar(self, name: str, v, scalar: str) -> Reg:
        """Maxs/Mins (name "Max"/"Min") of a tile and a C++ scalar; where the architecture lacks them (dav-c100),
        Max/Min with the scalar broadcast into a tile: the same result element by element."""
        if self.arch.scalar_minmax:
            return self._emit(name + "s({dst}, {0}, " + scalar + ", calc);", v)
        return self._emit(name + "({dst}, {0}, {1}, calc);", v, self._emit("Duplicate({dst}, {0}, calc);", scalar))

    def _piecewise(self, e):
        if is_exact_branch(e):   # no double: the argument rounded to FLOAT, as before (codegen.trig_arguments)
            return self.value(narrow(e))
        args = list(e.args)
        if args[-1][1] != sympy.true:
            raise NotImplementedError(f"Piecewise without a final True branch: {e}")
        acc = self.value(args[-1][0])
        for branch, cond in reversed(args[:-1]):
            mask = self.mask(cond)
            a = self.tile(branch)
            acc = self._select(mask, a, acc)
        return acc

    def _select(self, mask, a, b):
        """dst = mask ? a : b, with the Select mode the architecture has (b a tile or a C++ scalar)."""
        if 2 not in self.arch.select_modes:   # mode 0 only: one repeat per call, both operands tiles
            b = b if not isinstance(b, str) else self._emit("Duplicate({dst}, {0}, calc);", b)
            return self._emit("SelectByRepeat({dst}, {0}, {1}, {2}, calc);", mask, a, b)
        if isinstance(b, str):
            return self._emit("Select({dst}, {0}, {1}, {2}, SELMODE::VSEL_TENSOR_SCALAR_MODE, calc);", mask, a, b)
        return self._emit("Select({dst}, {0}, {1}, {2}, SELMODE::VSEL_TENSOR_TENSOR_MODE, calc);", mask, a, b)

    # ---- conditions -----------------------------------------------------------------------------------------
    @property
    def dense_masks(self) -> bool:
        """Bit masks packed (8 elements a byte), or one 32-byte slot per 256-byte repeat where Select has only
        mode 0 and so takes its mask one repeat per call (the kernel's CompareByRepeat / SelectByRepeat)."""
        return 2 in self.arch.select_modes

    @property
    def mask_words(self) -> str:
        """uint16 words of a mask of `calc` elements (And/Or/Not count)."""
        return "calc / 16" if self.dense_masks else "calc / 4"

    def mask(self, cond) -> Reg:
        key = ("mask", cond)
        if key not in self.memo:
            self.memo[key] = self._mask(cond)
        return self.memo[key]

    def _mask(self, c) -> Reg:
        if isinstance(c, sympy.Symbol) and c in self.lazy:   # a condition CSE made a temporary (used twice)
            return self.mask(self.lazy[c])
        if self.is_scalar(c):   # the same for every element (a condition on scalars): a uniform mask
            ones = self._emit("Duplicate({dst}, {0}, calc);", f"(({self.scalar(c)}) ? 1.0F : 0.0F)")
            if self.arch.compare_scalar:
                return self._emit("CompareScalar({dst}, {0}, 0.5F, CMPMODE::GT, calc);", ones, kind="m")
            compare = "Compare" if self.dense_masks else "CompareByRepeat"
            return self._emit(compare + "({dst}, {0}, {1}, CMPMODE::GT, calc);", ones, self.tile(sympy.Float(0.5)),
                              kind="m")
        if isinstance(c, sympy.Symbol):   # a BOOL tensor (a mask) read as a number: true where it is nonzero
            return self.mask(sympy.Ne(c, 0))
        if isinstance(c, sympy.core.relational.Relational):
            lhs, rhs, op = c.lhs, c.rhs, c.rel_op
            if self.is_scalar(lhs) and not self.is_scalar(rhs):
                c = c.reversed
                lhs, rhs, op = c.lhs, c.rhs, c.rel_op
            if self.is_scalar(rhs) and self.arch.compare_scalar:
                return self._emit("CompareScalar({dst}, {0}, {1}, CMPMODE::" + CMP[op] + ", calc);",
                                  self.value(lhs), self.scalar(rhs), kind="m")
            compare = "Compare" if self.dense_masks else "CompareByRepeat"
            # (no CompareScalar on this architecture: a scalar is compared as a broadcast tile)
            return self._emit(compare + "({dst}, {0}, {1}, CMPMODE::" + CMP[op] + ", calc);",
                              self.value(lhs), self.tile(rhs), kind="m")
        if isinstance(c, (sympy.And, sympy.Or)):
            name = "And" if isinstance(c, sympy.And) else "Or"
            masks = [self.mask(a) for a in c.args]
            acc = masks[0]
            for m in masks[1:]:
                acc = self._bits(name, acc, m)
            return acc
        if isinstance(c, sympy.Not):
            return self._bits("Not", self.mask(c.args[0]))
        if isinstance(c, sympy.ITE):
            # a comparison of a Piecewise (an expansion's `u < 0` of u = Piecewise(...)): SymPy writes it as
            # ITE(k, a, b), here (k & a) | (~k & b) bit by bit.  (Not the mask of a negated relation: for a nan
            # both k and its negation are false.)
            k, a, b = (self.mask(t) for t in c.args)
            return self._bits("Or", self._bits("And", k, a), self._bits("And", self._bits("Not", k), b))
        raise NotImplementedError(f"no Ascend C lowering for the condition {c}")

    def _bits(self, name: str, *masks) -> Reg:
        """And/Or/Not of masks, over the uint16 words of `calc` elements."""
        fmt = "".join("{%d}.ReinterpretCast<uint16_t>(), " % i for i in range(len(masks)))
        return self._emit(name + "({dst}.ReinterpretCast<uint16_t>(), " + fmt + self.mask_words + ");", *masks,
                          kind="m")

    # ---- statements -----------------------------------------------------------------------------------------
    def bind(self, temps):
        """CSE temporaries [(symbol, expr)]: computed in order, when an expression first refers to them.

        A temporary with no tensor in it (a constant CSE found twice, e.g. a series coefficient `-Const(c)` shared
        by two expansions) is a scalar: it is printed inline wherever it is used, so that every instruction
        taking it sees a scalar operand (`Adds`, not an `Add` of a tile and a C++ float)."""
        for sym, e in temps:
            if self.is_scalar(e):
                self.scalars = {**self.scalars, sym: f"({self.scalar(e)})"}
            else:
                self.lazy[sym] = e

    def result(self, expr, target: str):
        """Compute expr into the tile named `target` (the output tile)."""
        v = self.value(expr)
        if isinstance(v, Reg) and self.instrs and self.instrs[-1].dst == v:
            self.instrs[-1].dst = target   # the last instruction writes the output tile directly
        elif isinstance(v, str):
            self.instrs.append(Instr("Duplicate({dst}, {0}, calc);", target, [v]))
        else:
            self.instrs.append(Instr("Muls({dst}, {0}, 1.0F, calc);", target, [v]))
        self._infinite_row_sum(expr, target)

    def _infinite_row_sum(self, expr, target: str):
        """Where a FLOAT row sum S of the formula is not finite, the elements that came out nan take the formula with
        its common factor out, y·(g + (y - y) - S) for Softmax's y·g - S·y (the long hostile fuzz: SoftmaxBackward
        with g = y = 1e30 in a row, Σ g·y = 1e60 is +inf here): there y·g beyond FLOAT made inf - inf where NumPy
        and C give the ∓inf this does; y - y keeps the nan of an infinite y (inf·g - S·inf is nan in double there
        too, and where it is not, the usual value is a number and stands).  A scalar branch on S whose mask takes a
        float tile free by then: a tile whose sums are finite runs none of it, and the usual code and tiling are
        unchanged."""
        sums = sorted((str(self.scalars[x]) for x in expr.free_symbols
                       if str(self.scalars.get(x, "")).startswith("sums[") and x not in self.lo))
        factored = sympy.factor_terms(expr)
        if not sums or not isinstance(expr, sympy.Add) or not isinstance(factored, sympy.Mul) or self.is_scalar(expr):
            return
        common = sympy.Mul(*[f for f in factored.args if not isinstance(f, sympy.Add)])
        inner = sympy.Add(*[f for f in factored.args if isinstance(f, sympy.Add)])
        if self.is_scalar(common):
            return
        test = " || ".join(f"!({x} - {x} == 0.0F)" for x in sums)
        self.instrs.append(Instr(f"if ({test}) {{{{", None, []))
        memo, bound = dict(self.memo), dict(self.bound)
        # (y - y + g) - S in that order: two float tiles, as the usual code's
        scalar = sympy.Add(*[t for t in inner.args if self.is_scalar(t)])
        alt = self._emit("Add({dst}, {0}, {1}, calc);", self._emit("Sub({dst}, {0}, {0}, calc);", self.tile(common)),
                         self.tile(inner - scalar))
        if scalar != 0:
            alt = self._emit("Adds({dst}, {0}, " + self.scalar(scalar) + ", calc);", alt)
        alt = self._emit("Mul({dst}, {0}, {1}, calc);", self.tile(common), alt)
        compare = "Compare" if self.dense_masks else "CompareByRepeat"
        number = self._emit(compare + "({dst}.ReinterpretCast<uint8_t>(), {0}, {0}, CMPMODE::EQ, calc);", target)
        select = ("Select({dst}, {0}.ReinterpretCast<uint8_t>(), {1}, {2}, SELMODE::VSEL_TENSOR_TENSOR_MODE, calc);"
                  if self.dense_masks else "SelectByRepeat({dst}, {0}.ReinterpretCast<uint8_t>(), {1}, {2}, calc);")
        self.instrs.append(Instr(select, target, [number, target, alt]))
        self.instrs.append(Instr("}}", None, []))
        self.memo, self.bound = memo, bound

    def row_sum(self, expr, dst: str, work: str, accumulate: str):
        """ReduceSum of expr over the `len` valid elements into `dst`, then `accumulate` reads it as a scalar.

        `accumulate` is a C++ statement with {sum} for the scalar just summed."""
        v = self.tile(expr)
        self.instrs.append(Instr("ReduceSum({dst}, {0}, " + work + ", len);", dst, [v]))
        # the scalar unit reads UB: wait for the vector pipe first
        self.instrs.append(Instr("PipeBarrier<PIPE_ALL>();", None, []))
        self.instrs.append(Instr(accumulate.replace("{sum}", dst + ".GetValue(0)"), None, []))

    def pair_row_sum(self, expr, hi: str, lo: str, scaled: tuple[str, str, str]):
        """The row sum of expr added to the scalar pair (hi, lo), as the double kernels sum it in double: folded
        onto 64 lanes of pairs by vector TwoSums, the lanes then added on the scalar unit; where the row's sum
        leaves FLOAT's range, summed again scaled by 2^-66 into `scaled` = (sHi, sLo, c), which the overflow path
        of a pair sum reads (templates/kernel/pair_row_sum.cpp, PairRowSumWide)."""
        v = self.tile(expr)
        lanes_hi, lanes_lo, s, bb, e, down = (self._new() for _ in range(6))
        self.instrs.append(Instr(f"PairRowSumWide({hi}, {lo}, {', '.join(scaled)}, {{1}}, {{2}}, {{3}}, {{4}}, "
                                 "{5}, {6}, {0}, len);", None, [v], [lanes_hi, lanes_lo, s, bb, e, down]))

    @contextmanager
    def group(self, method: str, doc: str):
        """The instructions emitted inside, recorded as one helper call (codegen.backends.ascendc.outline)."""
        outer, self.instrs = self.instrs, []
        try:
            yield
        finally:
            body, self.instrs = self.instrs, outer
            if body:
                outer.append(Group(method, doc, body))

    def finish(self) -> Lowered:
        instrs, helpers = outline(self.instrs)
        low = allocate(instrs)
        low.helpers = helpers
        return low


class AllocationError(AssertionError):
    """The slots given to a pass's virtual tiles would let an instruction read a value that was overwritten."""


def allocate(instrs: list[Instr], fixed: dict | None = None, prefix: dict | None = None) -> Lowered:
    """Linear scan: map virtual registers to the fewest slots, a slot free again after its value's last reader.

    A destination never shares a slot with an operand of its own instruction (the advanced math APIs forbid the
    overlap, and it keeps every instruction's operands intact while it runs).  The result is checked by
    `check_allocation`, which does not trust this bookkeeping: it replays the instructions over the slots.
    `fixed` names registers that are not allocated (a helper's parameters), `prefix` the slots' names by kind."""
    fixed = fixed or {}
    prefix = prefix or {"f": "f", "m": "m"}
    last = {}
    for i, ins in enumerate(instrs):
        for s in ins.srcs:
            if isinstance(s, Reg):
                last[s] = i
    free = {"f": set(), "m": set()}
    count = {"f": 0, "m": 0}
    slot = {}
    written = set()
    for i, ins in enumerate(instrs):
        for dst in ins.dsts:
            if dst in written:
                raise AllocationError(f"virtual tile {dst} is written twice")
            written.add(dst)
            if dst in fixed:
                continue
            pool = free[dst.kind]
            if pool:
                n = min(pool)
                pool.remove(n)
            else:
                n = count[dst.kind]
                count[dst.kind] += 1
            slot[dst] = (dst.kind, n)
        # a value dies after its last reader; a value nobody reads dies at once.  (Each register once: an
        # instruction may read the same value twice, `Mul(a, x, x)`, and a slot freed twice would be handed out
        # to two live values.)
        dying = {s for s in ins.srcs if isinstance(s, Reg) and last[s] == i}
        dying |= {d for d in ins.dsts if d not in last}
        for r in dying - fixed.keys():
            free[r.kind].add(slot[r][1])
    slot = {r: f"{prefix[k]}{n}" for r, (k, n) in slot.items()}
    slot.update(fixed)
    check_allocation(instrs, slot, [r for r in fixed if r not in written])
    lines, depth = [], 0
    for ins in instrs:   # (a scalar branch's block, codegen.backends.ascendc.doublefloat, indented)
        line = ins.fmt.format(*[_name(s, slot) for s in ins.srcs], *[_name(s, slot) for s in ins.extra],
                              dst=_name(ins.dst, slot))
        depth -= line.startswith("}")
        lines.append("    " * depth + line)
        depth += line.endswith("{")
    return Lowered(lines, count["f"], count["m"])


def check_allocation(instrs: list[Instr], slot: dict, given: list = ()) -> None:
    """Replay `instrs` over the physical slots: every operand must still hold the value its reader expects, and no
    destination may overlap an operand of its own instruction, nor another destination of it.  `given` registers
    hold their values from the start (a helper's inputs).  Raises AllocationError naming the instruction."""
    holds = {slot[r]: r for r in given}   # physical slot -> the virtual register it holds now
    for i, ins in enumerate(instrs):
        regs = [s for s in ins.srcs if isinstance(s, Reg)]
        for r in regs:
            where = slot.get(r)
            if where is None or holds.get(where) != r:
                now = holds.get(where)
                raise AllocationError(
                    f"instruction {i} `{ins.fmt}` reads {r} from slot {where}, which holds "
                    f"{'nothing yet' if now is None else now}: a live value was overwritten")
        read = {slot[r] for r in regs}
        for d in ins.dsts:
            where = slot[d]
            if where in read:
                raise AllocationError(f"instruction {i} `{ins.fmt}` writes slot {where}, which it also reads")
            read.add(where)
            holds[where] = d


def _name(s, slot) -> str:
    if isinstance(s, Reg):
        return slot[s]
    return s.name if isinstance(s, In) else s
