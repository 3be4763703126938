"""Random forwards F(x, alpha, beta) from the spec language's vocabulary, as Hypothesis strategies.

Each production has a name and the constructs of codegen.vocabulary it draws (`PRODUCTIONS`);
`forwards(vocabulary)` draws only from the productions given.  `VOCABULARY` is every production;
`CI_VOCABULARY` is what the fixed-seed CI slice draws from, per backend: every production whose constructs the
backend accepts (`vocabulary_for`, from codegen.vocabulary: no second list).

Only sensible specs are drawn, by construction:
  * log, sqrt and rational powers take positive arguments: `log(1 + u**2)`, `log(1 + exp(u))`,
    `sqrt(1 + u**2)`, `(2 + tanh(u))**(1/3)`; division and negative powers divide by such a positive form;
  * exp takes arguments that stay moderate on typical inputs (an affine form, -u**2, tanh(u), a sigmoid), so
    most elements keep a rounding-error bound (`codegen.accuracy.bound`);
  * where a branch switches (Abs, sign, Min, Max, Piecewise conditions) the switching quantity is affine in x
    (`3/2*x - 1/2`, `x - alpha`, `x + beta`): the prover decides such conditions, also with scalar-valued
    switch points, and the fuzzer declares the backward's value where the forward is not differentiable.
A second tensor `target` (T, constant for the derivative) enters as a leaf (`x - T`, `T*x`, `T`), never where a
branch switches: products of two tensors of any magnitude, which codegen.scaled scales where they leave FLOAT.
Deep nesting comes from recursion (depth up to `depth`); repeated subexpressions from `repeat`, which
substitutes one drawn subexpression for x in another and multiplies by it again.
"""
from __future__ import annotations

import sympy
from hypothesis import strategies as st
from sympy.codegen.cfunctions import expm1, log1p

from codegen import vocabulary as closed

from codegen.spec import DimSum

from .specfile import ALPHA, BETA, LOSS, T, W, X

# The grammar's productions, each with the constructs of the closed vocabulary (codegen.vocabulary, the one list
# of what the spec language accepts) that it draws.  A production is drawn for a backend when that backend
# accepts all of its constructs (`vocabulary_for`); tests/test_fuzz.py checks that the productions cover every
# construct but DimSum (a reduction needs a reduce_dim attribute: the seed ops' softmax covers it).
_OPS, _ADD = "a * b, a / b, -a", "a + b"
PRODUCTIONS = {
    "add": (_ADD,),
    "sub": (_ADD, _OPS),
    "mul": (_OPS,),
    "div": (_OPS,),
    "pow_int": ("a**n, n an integer",),                       # u**2, u**3
    "pow_neg": ("a**n, n an integer", _OPS),                  # (pos)**-1..-3
    "pow_rational": ("a**r, r a non-integer constant",),      # (pos)**(p/q)
    "exp": ("exp",),                                          # exp(affine/2, tanh(u), sigmoid(u))
    "exp_square": ("exp", "a**n, n an integer"),              # exp(-u**2)
    "expm1": ("expm1",),
    "log": ("log",),
    "log1p": ("log1p",),
    "sqrt": ("sqrt(a), a**(-1/2)",),
    "abs": ("Abs",),
    "sign": ("sign",),
    "min_max": ("Max, Min",),
    "piecewise": ("Piecewise((a, cond), ..., (b, True))", "a < b, a <= b, a > b, a >= b, Eq(a, b), Ne(a, b)",
                  "And, Or, Not"),
    "tanh": ("tanh",),
    "erf": ("erf",),
    "erfc": ("erfc",),
    "sigmoid": ("1/(1 + exp(-a)) (sigmoid)",),
    "cosh_sinh": ("cosh, sinh",),                             # cosh(moderate), sinh(moderate)
    "sin_cos": ("sin, cos",),                                 # sin(moderate), cos(moderate)
    "scalar": ("parameters: tensors, scalars, attributes, numel(name)",),   # alpha (> 0), beta
    "operand": ("parameters: tensors, scalars, attributes, numel(name)", _ADD, _OPS),   # target: x - t, t*x, t
    "rational": ("constants: integers, Rational, pi, E, sqrt(2), log(2), ...",),     # 1/3, -3/2, ...
    "irrational": ("constants: integers, Rational, pi, E, sqrt(2), log(2), ...",),   # sqrt(2), pi, E, log(2)
    "repeat": (_OPS,),                                        # one subexpression used several times
    # batches of another kind (`batch`): row ops and reduced losses
    "row": ("DimSum(a)", _ADD, _OPS),                         # softmax/log-softmax/normalize/mean-center of u
    "loss": ("parameters: tensors, scalars, attributes, numel(name)", _OPS),   # Reduction none/mean/sum, weight
}
VOCABULARY = tuple(PRODUCTIONS)


def constructs(production: str) -> tuple:
    """The codegen.vocabulary constructs a production draws (KeyError for a name the vocabulary lacks)."""
    by_name = {c.name: c for c in closed.VOCABULARY}
    return tuple(by_name[name] for name in PRODUCTIONS[production])


def vocabulary_for(backend: str) -> tuple[str, ...]:
    """The productions whose every construct `backend` accepts (codegen.vocabulary.accepted)."""
    accepted = {c.name for c in closed.accepted(backend)}
    return tuple(p for p in VOCABULARY if all(c.name in accepted for c in constructs(p)))


# The productions that choose a batch's kind (`batch`): a row op (DimSum) or a reduced loss, not a construct
# inside a formula.  A batch of either costs many times an elementwise one (a row proof expands rows of 1..6
# elements): the CI slice draws elementwise batches; tests/test_fuzz.py runs the kinds in the --deep tier.
KINDS = ("row", "loss")
# What the fixed-seed CI slice draws from, per backend: everything the backend accepts.  (Before branch vocab
# each backend had its own exclusions here; every defect they hid is a regression spec in tests/regression.)
CI_VOCABULARY = {b: tuple(p for p in vocabulary_for(b) if p not in KINDS) for b in closed.BACKENDS}
CI_DEPTH = {"numpy": 3, "c": 3, "ascendc": 3}

RATIONALS = [sympy.Rational(1, 2), sympy.Rational(1, 3), sympy.Integer(2), sympy.Integer(3), sympy.Integer(-1),
             sympy.Rational(5, 4), sympy.Rational(-3, 2), sympy.Rational(7, 10), sympy.Rational(-2, 3)]
IRRATIONALS = [sympy.sqrt(2), sympy.pi, sympy.E, sympy.log(2), sympy.sqrt(3) / 2, sympy.pi / 4]
POWERS = [sympy.Rational(1, 3), sympy.Rational(3, 2), sympy.Rational(-1, 2), sympy.Rational(2, 3),
          sympy.Rational(-5, 4)]


def _on(vocab, name) -> bool:
    return name in vocab


@st.composite
def constant(draw, vocab):
    pool = list(RATIONALS) if _on(vocab, "rational") else [sympy.Integer(2), sympy.Integer(-1)]
    if _on(vocab, "irrational"):
        pool += IRRATIONALS
    return draw(st.sampled_from(pool))


@st.composite
def affine(draw, vocab):
    """A quantity affine in x that a branch may switch on: a*x + b, x - alpha, x + beta."""
    forms = ["ax+b"]
    if _on(vocab, "scalar"):
        forms += ["x-alpha", "x+beta", "alpha*x-1"]
    form = draw(st.sampled_from(forms))
    if form == "x-alpha":
        return X - ALPHA
    if form == "x+beta":
        return X + BETA
    if form == "alpha*x-1":
        return ALPHA * X - 1
    a = draw(st.sampled_from([sympy.Integer(1), sympy.Integer(2), sympy.Rational(1, 2), sympy.Integer(-1),
                              sympy.Rational(3, 2)]))
    b = draw(st.sampled_from([sympy.Integer(0), sympy.Rational(1, 2), sympy.Integer(-1), sympy.Rational(1, 3)]))
    return a * X + b


@st.composite
def leaf(draw, vocab):
    kind = draw(st.sampled_from(["x", "affine", "scaled"] + (["scalar"] if _on(vocab, "scalar") else [])
                                + (["operand"] if _on(vocab, "operand") else [])))
    if kind == "x":
        return X
    if kind == "operand":   # a second tensor (MseLoss's target): products and sums of two tensors of any size
        return draw(st.sampled_from([X - T, T * X, T]))
    if kind == "affine":
        return draw(affine(vocab))
    if kind == "scaled":
        return draw(constant(vocab)) * X
    return draw(st.sampled_from([ALPHA * X, X + BETA] + ([X / (1 + ALPHA)] if _on(vocab, "div") else [])))


@st.composite
def positive(draw, vocab, depth):
    """A form positive for every x: 1 + u**2, 1 + exp(u), 2 + tanh(u), 1 + |u|, 1 + sigmoid(u)."""
    u = draw(node(vocab, depth))
    forms = ["1+u^2"]
    if _on(vocab, "exp"):
        forms.append("1+exp")
    if _on(vocab, "tanh"):
        forms.append("2+tanh")
    if _on(vocab, "sigmoid"):
        forms.append("1+sigmoid")
    form = draw(st.sampled_from(forms))
    if form == "1+exp":
        return 1 + sympy.exp(draw(moderate(vocab, depth)))
    if form == "2+tanh":
        return 2 + sympy.tanh(u)
    if form == "1+sigmoid":
        return 1 + 1 / (1 + sympy.exp(-u))
    return 1 + u ** 2


@st.composite
def moderate(draw, vocab, depth, square=True):
    """An argument for exp that stays moderate on typical inputs (`square`: also -u^2, which only exp damps: cosh
    and sinh of it grow like e^(u^2), and nested, cosh(cosh(cosh(x^2)^2)^2) took mpmath to a MemoryError)."""
    forms = ["affine"] + (["-u^2"] if square and _on(vocab, "exp_square") else [])
    if _on(vocab, "tanh"):
        forms.append("tanh")
    if _on(vocab, "sigmoid"):
        forms.append("sigmoid")
    form = draw(st.sampled_from(forms))
    if form == "affine":
        return draw(affine(vocab)) / 2
    u = draw(node(vocab, depth))
    if form == "-u^2":
        return -u ** 2
    if form == "tanh":
        return sympy.tanh(u)
    return 1 / (1 + sympy.exp(-u))


def node(vocab, depth):
    """An expression in x of at most `depth` nested constructs."""
    if depth <= 0:
        return leaf(vocab)
    return _node(vocab, depth)


@st.composite
def _node(draw, vocab, depth):
    choices = [c for c in ("add", "sub", "mul", "div", "pow_int", "pow_neg", "pow_rational", "exp", "expm1",
                           "log", "log1p", "sqrt", "abs", "sign", "min_max", "piecewise", "tanh", "erf",
                           "erfc", "sigmoid", "cosh_sinh", "sin_cos", "repeat") if _on(vocab, c)] + ["leaf"]
    c = draw(st.sampled_from(choices))
    sub = lambda: draw(node(vocab, depth - 1))  # noqa: E731
    if c == "leaf":
        return draw(leaf(vocab))
    if c == "add":
        return sub() + sub()
    if c == "sub":
        return sub() - draw(constant(vocab)) * sub()
    if c == "mul":
        return sub() * sub()
    if c == "div":
        return sub() / draw(positive(vocab, depth - 1))
    if c == "pow_int":
        return sub() ** draw(st.sampled_from([2, 3]))
    if c == "pow_neg":
        return draw(positive(vocab, depth - 1)) ** draw(st.sampled_from([-1, -2, -3]))
    if c == "pow_rational":
        return draw(positive(vocab, depth - 1)) ** draw(st.sampled_from(POWERS))
    if c == "exp":
        return sympy.exp(draw(moderate(vocab, depth - 1)))
    if c == "expm1":
        arg = draw(moderate(vocab, depth - 1))
        return expm1(arg) if draw(st.booleans()) else sympy.exp(arg) - 1
    if c == "log":
        return sympy.log(draw(positive(vocab, depth - 1)))
    if c == "log1p":
        u = sub()
        return log1p(u ** 2)
    if c == "sqrt":
        return sympy.sqrt(draw(positive(vocab, depth - 1)))
    if c == "abs":
        a = sympy.Abs(draw(affine(vocab)))
        return a * sub() if draw(st.booleans()) else a
    if c == "sign":
        return sympy.sign(draw(affine(vocab))) * sub()
    if c == "min_max":
        fn = draw(st.sampled_from([sympy.Max, sympy.Min]))
        other = draw(st.one_of(constant(vocab), affine(vocab)))
        return fn(draw(affine(vocab)), other) * (sub() if draw(st.booleans()) else 1)
    if c == "piecewise":
        a = draw(affine(vocab))
        rel = draw(st.sampled_from([sympy.Gt, sympy.Ge, sympy.Lt, sympy.Le]))
        cond = rel(a, 0)
        if draw(st.booleans()):   # an interval: two conditions
            cond = sympy.And(cond, rel(draw(affine(vocab)), 1))
        return sympy.Piecewise((sub(), cond), (sub(), True))
    if c == "tanh":
        return sympy.tanh(sub())
    if c == "erf":
        return sympy.erf(sub())
    if c == "erfc":
        return sympy.erfc(sub())
    if c == "sigmoid":
        return 1 / (1 + sympy.exp(-sub()))
    if c == "cosh_sinh":
        return draw(st.sampled_from([sympy.cosh, sympy.sinh]))(draw(moderate(vocab, depth - 1, square=False)))
    if c == "sin_cos":
        return draw(st.sampled_from([sympy.sin, sympy.cos]))(draw(moderate(vocab, depth - 1)))
    # repeat: one subexpression s, used as the argument of another and once more as a factor
    s = sub()
    t = sub()
    return t.xreplace({X: s}) * s if X in t.free_symbols else t + s * s


def forwards(vocab=VOCABULARY, depth: int = 3, max_ops: int = 40):
    """A forward in x: depends on x, not too large."""
    return node(tuple(vocab), depth).filter(_usable(max_ops))


# a row op's forward has no branch (the row proof has none): its elementwise parts are drawn without these
BRANCHES = ("abs", "sign", "min_max", "piecewise")


@st.composite
def row_forward(draw, vocab, depth):
    """A forward that reads a row sum (DimSum along the last axis) of an elementwise form u of x, as softmax,
    log-softmax, L2-normalize and mean-center do."""
    # (and without target: (x - target)/sqrt(DimSum((x - target)**2) + alpha)'s proof ran past 5 minutes)
    smooth = tuple(v for v in vocab if v not in BRANCHES + ("operand",))
    u = draw(node(smooth, depth))
    form = draw(st.sampled_from(["softmax", "log_softmax", "normalize", "mean_center"]))
    if form == "softmax":
        return sympy.exp(u) / DimSum(sympy.exp(u))
    if form == "log_softmax":
        return u - sympy.log(DimSum(sympy.exp(u)))
    if form == "normalize":   # alpha (> 0) inside the root, as L2-normalize's eps
        return u / sympy.sqrt(DimSum(u ** 2) + ALPHA)
    return u - DimSum(u) / DimSum(1)


@st.composite
def loss_forward(draw, vocab, depth):
    """A loss term F(x, ...) reduced none/mean/sum (the LOSS marker), with or without an optional weight."""
    f = draw(node(vocab, depth))
    return LOSS * W * f if draw(st.booleans()) else LOSS * f


def _usable(max_ops):
    return lambda e: (X in e.free_symbols and sympy.count_ops(e) <= max_ops
                      and not e.has(sympy.zoo, sympy.nan))


def forwards_of(kind: str, vocab=VOCABULARY, depth: int = 3, max_ops: int = 40):
    """A forward of one kind: "elementwise" (`forwards`), "row" or "loss"."""
    vocab = tuple(vocab)
    if kind == "row":
        return row_forward(vocab, max(depth - 2, 0)).filter(_usable(max_ops))
    if kind == "loss":
        return loss_forward(vocab, depth).filter(_usable(max_ops))
    return forwards(vocab, depth, max_ops)


def batch(vocab, depth: int, size: int, kinds=None):
    """A batch of `size` forwards of one kind (a batch spec is elementwise, a row op or a loss): the kind is drawn
    among those `vocab` names ("row", "loss"; elementwise always), and not at all when it names neither, so the
    draws of a vocabulary without them are the same as before they existed.  `kinds`: draw only these."""
    kinds = list(kinds) if kinds else ["elementwise"] + [k for k in KINDS if k in vocab]
    vocab = tuple(v for v in vocab if v not in KINDS)

    def of(kind):
        return st.lists(forwards_of(kind, vocab, depth), min_size=size, max_size=size, unique_by=str)
    if len(kinds) == 1:
        return of(kinds[0])
    return st.sampled_from(kinds).flatmap(of)
