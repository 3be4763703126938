"""Hostile specs, as a newcomer writes them (session 23): each is refused when it loads, as a SpecError naming the
file, the op and what is wrong — never a traceback from inside the validator, never a spec that verifies and then
breaks the build, the NumPy module or the mpmath check.  Each row was found by running `opgen verify` and
`opgen generate --out DIR` on a toy spec (x*exp(x)) with one edit (the table of the session-23 note); the loader is
what both commands call, so these cheap in-process checks pin the root."""
from __future__ import annotations

import pytest

import codegen
from codegen.errors import SpecError
from codegen.loader import load_spec_file

SPEC_TEXT = '''"""aclnnXexpBackward: the gradient of x*exp(x), a toy op to break."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)

SPEC = Op(
    name="aclnnXexpBackward", forward_name="XExp",
    params=[Tensor("gradOutput", g, role=GRAD, doc=Text("g", "g")),
            Tensor("self", x, role=FORWARD_INPUT, doc=Text("x", "x")),
            Output("gradInput", doc=Text("d", "d"))],
    wrt=x, forward=x * exp(x),
    backward=g * exp(x) * (1 + x),
    dtypes={"ascend910b": ["FLOAT16", "FLOAT"]},
    rules=[DtypeSupported("gradOutput", "self", "gradInput"), ShapeSame("gradOutput", "self", "gradInput")],
    description=Text("XExp", "XExp"),
)
'''
BACKWARD = "backward=g * exp(x) * (1 + x),"

# (what, edit: (old, new) of SPEC_TEXT, the message's words); before session 23 the first seven were tracebacks
# (AttributeError, SympifyError), a proof failing on "BooleanAtom not allowed" (a relation), a spec generated (a
# tuple of params) or a SystemExit that ended `opgen` silently with the spec's status
HOSTILE = [
    ("backward a list of expressions", (BACKWARD, "backward=[g * exp(x), x],"), "a list of backward forms holds Formula"),
    ("backward None", (BACKWARD, "backward=None,"), "the backward must be a SymPy expression"),
    ("backward a function", (BACKWARD, "backward=lambda x: x,"), "the backward must be a SymPy expression"),
    ("backward a relation", (BACKWARD, "backward=Eq(g, x),"), "the backward must be a SymPy expression"),
    ("forward a list", ("forward=x * exp(x),", "forward=[x * exp(x)],"), "the forward must be a SymPy expression"),
    ("params a tuple", ('Output("gradInput", doc=Text("d", "d"))],', 'Output("gradInput", doc=Text("d", "d"))] and ("x",),'),
     "params must be a list"),
    ("sys.exit at import", ("SPEC = Op(", "import sys; sys.exit(3)\nSPEC = Op("), "SystemExit (line 6)"),
    # verified, then broke `opgen generate` with a compiler's error (C), or the NumPy module (a SyntaxError or a
    # failing call) with nothing naming the parameter
    ("dtypes of a product empty", ('["FLOAT16", "FLOAT"]', "[]"), "is empty"),
    ("a dtype twice", ('["FLOAT16", "FLOAT"]', '["FLOAT", "FLOAT"]'), "names a dtype twice"),
    ("a parameter named fabsf", ('"self"', '"fabsf"'), "name of the C library"),
    ("a parameter named INFINITY", ('"self"', '"INFINITY"'), "name of the C library"),
    ("a parameter named int64_t", ('"self"', '"int64_t"'), "name of the C library"),
    ("a parameter named ret", ('"self"', '"ret"'), "name of the C library"),
    ("a parameter named aclTensor", ('"self"', '"aclTensor"'), "name of the C library"),
    ("a parameter named None", ('"self"', '"None"'), "name of the C library"),
    ("a parameter named np", ('"self"', '"np"'), "NumPy module binds"),
    ("a parameter named product", ('"self"', '"product"'), "NumPy module binds"),
    ("a parameter named values", ('"self"', '"values"'), "NumPy module binds"),
    ("a parameter named check", ('"self"', '"check"'), "NumPy module binds"),
    ("a parameter name of 5000 letters", ('"self"', '"' + "s" * 5000 + '"'), "at most 63 characters"),
    # verified by the proof, then failed its mpmath check ("'mpf' object is not callable", a SyntaxError)
    ("a symbol named exp", ('symbols("x gradOutput"', 'symbols("exp gradOutput"'), "its symbol is named 'exp'"),
    ("MaxRank(n=10**30)", ("ShapeSame(", "MaxRank(\"self\", n=10**30), ShapeSame("), "n=1000000000000000000000000000000 must be"),
    ("MaxRank(n='8')", ("ShapeSame(", "MaxRank(\"self\", n='8'), ShapeSame("), "n='8' must be an integer"),
    ("a scalar defaulting to nan", ('        Output(', '        Scalar("alpha", Symbol("alpha", real=True), optional=True, '
                                    'default=float("nan")),\n        Output('), "default=nan must be a finite"),
    ("no rule shapes the output", ('ShapeSame("gradOutput", "self", "gradInput")', 'ShapeSame("gradOutput", "self"), '
                                   'OneElement("gradInput")'),
     "no rule gives the output gradInput its shape"),
    ("an input no shape rule ties", ('ShapeSame("gradOutput", "self", "gradInput")', 'ShapeSame("gradOutput", "gradInput")'),
     "no rule ties the shape of self"),
    ("a description closing a C comment", ('description=Text("XExp", "XExp")', 'description=Text("XExp", "XExp */ int evil; /*")'),
     "C comment mark"),
    ("an op name of 200 letters", ('name="aclnnXexpBackward"', 'name="aclnnXexp' + "X" * 200 + 'Backward"'),
     "at most 96 characters"),
    ("two symbols named x", ('x, g = symbols("x gradOutput", real=True)', 'x = Symbol("x", real=True); g = Symbol("x")'),
     "two symbols both named 'x'"),
]


@pytest.mark.parametrize("what, edit, says", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_spec_is_refused_at_load_naming_the_op_and_the_rule(tmp_path, what, edit, says):
    old, new = edit
    assert old in SPEC_TEXT
    (tmp_path / "xexp_backward.py").write_text(SPEC_TEXT.replace(old, new))
    with pytest.raises(SpecError) as info:
        load_spec_file(tmp_path / "xexp_backward.py")
    assert says in str(info.value) and "aclnnXexp" in str(info.value), str(info.value)


def test_an_import_error_names_the_op_the_file_writes():
    """A spec that raises while it loads has no Op yet: the error names the op from the file's text."""
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "xexp_backward.py").write_text(SPEC_TEXT.replace("SPEC = Op(", "raise RuntimeError('boom')\nSPEC = Op("))
        with pytest.raises(SpecError) as info:
            load_spec_file(Path(d) / "xexp_backward.py")
    assert info.value.op == "aclnnXexpBackward" and "RuntimeError (line 6): boom" in str(info.value)


def test_a_tensor_named_like_a_python_keyword_gets_a_module_that_compiles_and_runs(tmp_path):
    """A tensor named `lambda` (a Python keyword, an aclnn name Softshrink's scalar has) was passed to the NumPy
    module's rank check as `lambda=lambd`: the generated module was a SyntaxError."""
    import numpy as np
    (tmp_path / "xexp_backward.py").write_text(SPEC_TEXT.replace('"self"', '"lambda"'))
    fn = codegen.kernel("xexp_backward", specs_dir=tmp_path)
    x = np.float32([-1, 0, 2])
    got = fn(grad_output=np.ones_like(x), lambd=x)
    f = lambda u: u * np.exp(u)
    u, h = x.astype(np.float64), 1e-6
    np.testing.assert_allclose(got, (f(u + h) - f(u - h)) / (2 * h), rtol=1e-5, atol=1e-6)
