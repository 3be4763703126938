"""SymPy → a sequence of Ascend C vector instructions on float tiles in UB.

`codegen.lower.lower(op)` says what to compute (CSE'd body, row sums, hoisted scalars); this module says how,
in Ascend C vector instructions, and allocates the UB temporaries:

- every tensor-valued subexpression becomes one instruction writing a virtual float tile (`Add`, `Muls`,
  `Exp`, `Div`, `Reciprocal`, `Select`, ...); scalar-only subexpressions stay C++ float expressions and become the
  scalar operand of `Adds`/`Muls`/`CompareScalar`/...;
- sums and products are folded left to right in SymPy's printing order, the order the NumPy kernel evaluates,
  so both backends round the same way wherever the instruction set allows;
- conditions become Compare/CompareScalar bit masks (combined with And/Or/Not on uint16), Piecewise a chain of
  Select; `Sigmoid` is lowered through its stable form (codegen.rewrite);
- instructions are selected for one architecture (`arch`, codegen.backends.ascendc.socs): where its API lacks
  CompareScalar the scalar is broadcast and compared as a tile, and where Select has only mode 0 the kernel's
  `SelectByRepeat` helper applies the mask one 256-byte repeat at a time;
- a linear-scan allocator maps virtual tiles to the fewest physical slots (`f0, f1, ...`, masks `m0, ...`): a slot
  is reused once its value's last reader has run.  The slot counts size the UB (codegen.backends.ascendc.tiling).

Every instruction runs on `calc` elements — the tile length rounded up to whole 256-byte blocks, which Compare
requires — except ReduceSum, which sums exactly `len` elements.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy
from sympy.printing.c import C99CodePrinter

from codegen.lower import CompensatedAdd, split_last
from codegen.rewrite import Sigmoid

from .socs import ARCHS, Arch

CMP = {"<": "LT", ">": "GT", "<=": "LE", ">=": "GE", "==": "EQ", "!=": "NE"}


class ScalarPrinter(C99CodePrinter):
    """C++ float expressions for scalar operands and the host-side prelude.

    Customizations: symbols print as the C++ names given (kernel members, tiling fields, parameters); every
    literal and function is single precision (`1.0F`, `expf`), so no scalar is ever computed in double;
    Piecewise prints as nested `?:` (a scalar, not a statement)."""

    def __init__(self, names: dict):
        super().__init__({"type_aliases": {sympy.codegen.ast.real: sympy.codegen.ast.float32}})
        self.names = names

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

    def _print_fma(self, expr):
        """Customizations: `std::fma` (float overload), exact for the rounding error of a product that
        codegen.lower puts in the host-side prelude."""
        return "std::fma(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Integer(self, expr):
        """Customizations: integers are float literals (`2.0F`): every scalar operand is a float."""
        return f"{int(expr)}.0F"


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


@dataclass
class Lowered:
    """The Compute stage of one kernel pass: C++ statements and the UB slots they need."""
    lines: list[str]
    num_temps: int
    num_masks: int


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
            # the stable form, CSE'd exactly as the NumPy backend's `_sigmoid` helper evaluates it
            names = sympy.numbered_symbols(f"_sigmoid{len(self.bound)}_", real=True)
            temps, (res,) = sympy.cse([Sigmoid.stable_form(e.args[0])], symbols=names, order="canonical")
            self.bind(temps)
            return self.value(res)
        if isinstance(e, sympy.Piecewise):
            return self._piecewise(e)
        if isinstance(e, CompensatedAdd):   # (x + hi) + lo, in that order
            x, hi, lo = e.args
            acc = self._emit("Adds({dst}, {0}, {1}, calc);", self.value(x), self.scalar(hi))
            return self._emit("Adds({dst}, {0}, {1}, calc);", acc, self.scalar(lo))
        if isinstance(e, (sympy.Max, sympy.Min)):
            return self._maxmin(e)
        raise NotImplementedError(f"no Ascend C lowering for {type(e).__name__}: {e}")

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
        factors = e.as_ordered_factors()
        split = split_last(e, self.last)
        if split is not None:   # the incoming gradient multiplies last, as in the other backends
            factors = [*split[0].as_ordered_factors(), split[1]]
        nums, dens = [], []
        for f in factors:
            if isinstance(f, sympy.Pow) and f.exp.is_Integer and f.exp < 0 and not self.is_scalar(f):
                dens.append(f.base ** -f.exp)
            else:
                nums.append(f)
        acc, pending = None, []
        for f in nums:
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
            v = self.value(d)
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
        if n.is_Integer and n < -1:
            return self._emit("Reciprocal({dst}, {0}, calc);", self.value(base ** -n))
        raise NotImplementedError(f"no Ascend C lowering for the power {e}")

    def _maxmin(self, e):
        name = "Max" if isinstance(e, sympy.Max) else "Min"
        tensors = [a for a in e.args if not self.is_scalar(a)]
        scalars = [a for a in e.args if self.is_scalar(a)]
        acc = self.value(tensors[0])
        for a in tensors[1:]:
            acc = self._emit(name + "({dst}, {0}, {1}, calc);", acc, self.value(a))
        if scalars:
            acc = self._emit(name + "s({dst}, {0}, {1}, calc);", acc, self.scalar(e.func(*scalars)))
        return acc

    def _piecewise(self, e):
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
        if isinstance(c, sympy.core.relational.Relational):
            lhs, rhs, op = c.lhs, c.rhs, c.rel_op
            if self.is_scalar(lhs) and not self.is_scalar(rhs):
                c = c.reversed
                lhs, rhs, op = c.lhs, c.rhs, c.rel_op
            if self.is_scalar(lhs):
                raise NotImplementedError(f"a condition on scalars only belongs in the prelude: {c}")
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
                acc = self._emit(name + "({dst}.ReinterpretCast<uint16_t>(), {0}.ReinterpretCast<uint16_t>(), "
                                 "{1}.ReinterpretCast<uint16_t>(), " + self.mask_words + ");", acc, m, kind="m")
            return acc
        if isinstance(c, sympy.Not):
            return self._emit("Not({dst}.ReinterpretCast<uint16_t>(), {0}.ReinterpretCast<uint16_t>(), "
                              + self.mask_words + ");", self.mask(c.args[0]), kind="m")
        raise NotImplementedError(f"no Ascend C lowering for the condition {c}")

    # ---- statements -----------------------------------------------------------------------------------------
    def bind(self, temps):
        """CSE temporaries [(symbol, expr)]: computed in order, when an expression first refers to them."""
        for sym, e in temps:
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

    def row_sum(self, expr, dst: str, work: str, accumulate: str):
        """ReduceSum of expr over the `len` valid elements into `dst`, then `accumulate` reads it as a scalar.

        `accumulate` is a C++ statement with {sum} for the scalar just summed."""
        v = self.tile(expr)
        self.instrs.append(Instr("ReduceSum({dst}, {0}, " + work + ", len);", dst, [v]))
        # the scalar unit reads UB: wait for the vector pipe first
        self.instrs.append(Instr("PipeBarrier<PIPE_ALL>();", None, []))
        self.instrs.append(Instr(accumulate.replace("{sum}", dst + ".GetValue(0)"), None, []))

    def finish(self) -> Lowered:
        return allocate(self.instrs)


def allocate(instrs: list[Instr]) -> Lowered:
    """Linear scan: map virtual registers to the fewest slots, freeing a slot after its value's last reader."""
    last = {}
    for i, ins in enumerate(instrs):
        for s in ins.srcs:
            if isinstance(s, Reg):
                last[s] = i
    free = {"f": [], "m": []}
    count = {"f": 0, "m": 0}
    slot = {}
    lines = []
    for i, ins in enumerate(instrs):
        names = [_name(s, slot) for s in ins.srcs]
        dst = ins.dst
        if isinstance(dst, Reg):
            pool = free[dst.kind]
            if pool:
                slot[dst] = pool.pop(0)
            else:
                slot[dst] = f"{'f' if dst.kind == 'f' else 'm'}{count[dst.kind]}"
                count[dst.kind] += 1
            dst_name = slot[dst]
        else:
            dst_name = dst
        lines.append(ins.fmt.format(*names, dst=dst_name))
        for s in ins.srcs:   # operands read for the last time free their slot for later instructions
            if isinstance(s, Reg) and last.get(s) == i and s in slot:
                free[s.kind].append(slot[s])
                free[s.kind].sort(key=lambda n: int(n[1:]))
        if isinstance(dst, Reg) and dst not in last:   # a value nobody reads (cannot happen for a result)
            free[dst.kind].append(slot[dst])
    return Lowered(lines, count["f"], count["m"])


def _name(s, slot) -> str:
    if isinstance(s, Reg):
        return slot[s]
    return s.name if isinstance(s, In) else s
