"""The text of each definition of a generated NumPy kernel module, written as Python lines.

codegen.backends.numpy.emit decides what the module holds (the printed expressions of each kernel variant, which
helpers the printed code calls, the check steps); this module only lays it out as functions, so the template
(templates/kernel.py.jinja) is a page of substitutions without logic.  Each `*_function` returns one top-level
definition as a string without a trailing newline; `definitions` joins them with PEP 8's two blank lines.
"""
from __future__ import annotations

IEEE_COMMENT = ["# IEEE special values are intended results here (inf*0 is nan, as in PyTorch); both sides of every",
                "# _where are finite for finite inputs by construction (codegen.rewrite), so nothing is hidden."]


def indent(lines: list[str], levels: int = 1) -> list[str]:
    """The lines shifted right by 4 spaces a level (blank lines stay blank)."""
    pad = "    " * levels
    return [pad + line if line else line for line in lines]


def function(signature: str, body: list[str]) -> str:
    """`def signature:` over the body, indented one level."""
    return "\n".join([f"def {signature}:"] + indent(body))


def assignments(pairs, wrap: str = "{}") -> list[str]:
    """`name = code` for each (name, code); `wrap` formats the code ("np.float32({})" for a constant)."""
    return [f"{name} = {wrap.format(code)}" for name, code in pairs]


def tuple_of(names: list[str]) -> str:
    """A Python tuple display of the names: `(a, b)`, and `(a,)` for one."""
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


# ---- the module's top ------------------------------------------------------------------------------------------

def imports(*, reduce_dim: bool, where: bool, split: bool | str, mathf: bool) -> list[str]:
    """The import lines: the runtime helpers the module calls."""
    blocks = ["row_blocks as _row_blocks" if reduce_dim else "blocks as _blocks", "store as _store"]
    if where:
        blocks.append("where as _where")
    if split:   # True: halves along dim; "rows": read as rows (codegen.runtime.rows)
        blocks += (["halves as _halves"] if split is True else []) + ["unaliased as _unaliased"]
    return (["import ml_dtypes", "import numpy as np", "",
             "from codegen.runtime import calls as _calls",
             "from codegen.runtime import checks as _chk"]
            + (["from codegen.runtime import mathf as _mathf"] if mathf else [])
            + ["from codegen.runtime.blocks import " + ", ".join(blocks)]
            + (["from codegen.runtime.rows import Rows as _Rows"] if split == "rows" else []))


def dtype_table(dtypes: dict) -> list[str]:
    """`DTYPES = {parameter: {SoC: [dtypes]}}`, one SoC a line."""
    lines = ["DTYPES = {"]
    for name, table in dtypes.items():
        lines.append(f'    "{name}": {{')
        for soc, dts in table.items():
            lines.append(f'        "{soc}": [' + ", ".join(f'"{d}"' for d in dts) + "],")
        lines.append("    },")
    return lines + ["}"]


def constants(compute: dict | None) -> list[str]:
    """COMPUTE, where some dtype computes in DOUBLE or COMPLEX (Op.compute); nothing otherwise.  (Outputs are
    allocated through _chk.numpy_dtype, which refuses an out_dtype that names no dtype.)"""
    if not compute:
        return []
    return ["# the dtypes that compute in DOUBLE (the rest compute in FLOAT): the promoted dtype of the inputs "
            f"decides\nCOMPUTE = {compute}"]


# ---- check() and the helpers ------------------------------------------------------------------------------------

def check_function(op_name: str, check_args: list[str], lines: list[str], converted: list[str],
                   empty_returns: bool) -> str:
    returns = "Returns the scalars and attributes as the kernel reads them"
    if empty_returns:
        returns += ", or None when an empty tensor ends the checks\n    early (nothing is computed)"
    doc = [f'"""Phase-1 checks of {op_name}, in order; raises codegen.AclnnError on the first failure.', "",
           returns + ".", '"""']
    values = "{" + ", ".join(f'"{n}": {n}' for n in converted) + "}"
    return function(f"check({', '.join(check_args)}, product)", doc + lines + [f"return {values}"])


EXP = function("_exp(u)", [
    '"""exp of FLOAT values, evaluated in float64 and rounded once to FLOAT.', "",
    "NumPy's float32 exp trades accuracy for speed: up to 2 ulp from the correctly rounded result (4 in 10",
    'results are off by one or two), which would make this reference kernel less accurate than the C one."""',
    "return np.exp(u, dtype=np.float64).astype(np.float32)"])

F32 = function("_f32(a)", ['"""Load as FLOAT, the compute dtype (no copy when already float32)."""',
                           "return np.asarray(a).astype(np.float32, copy=False)"])

F64 = function("_f64(a)", ['"""Load as DOUBLE, for the dtypes that compute in it."""',
                           "return np.asarray(a).astype(np.float64, copy=False)"])


def sigmoid_function(name: str, doc: str, lines: list[tuple[str, str]]) -> str:
    """`_sigmoid` (or `_sigmoid64`) from its printed (name, code) lines, the last one ("return", code)."""
    body = [f"return {code}" if target == "return" else f"{target} = {code}" for target, code in lines]
    return function(f"{name}(u)", [f'"""{doc}"""'] + body)


# ---- the kernels of the variants ---------------------------------------------------------------------------------

def _params(v: dict, *extra: str) -> str:
    """A variant kernel's parameters: its tensors, scalars and counts, then `out` (and a row op's dim)."""
    return ", ".join(v["tensors"] + v["scalars"] + v["numels"] + ["out", *extra])


def _key_doc(v: dict) -> list[str]:
    """The FLOAT kernel's docstring: the variant key it computes (none for an op of one form)."""
    return [f'"""The form for {v["key"]}."""'] if v["key"] else []


def _form(v: dict, dtype_words: str) -> str:
    """The docstring's start: 'The form for {...}, in DOUBLE' / 'In DOUBLE'."""
    return f"The form for {v['key']}, in {dtype_words}" if v["key"] else f"In {dtype_words}"


def _loop(v: dict, blocks: str, load: str, body: list[str], store: str, ieee: bool) -> list[str]:
    """The block loop: load each tensor, compute under errstate, store the block."""
    tensors = tuple_of(v["tensors"])
    return ([f"for {tensors}, out in {blocks.format(tensors=tensors)}:"]
            + indent([f"{t} = {load.format(t)}" for t in v["tensors"]]
                     + (IEEE_COMMENT if ieee else [])
                     + ['with np.errstate(all="ignore"):'] + indent(body + [store])))


def _prelude(pairs, wrap: str) -> list[str]:
    """The call's constants (the scalars' terms), before the blocks, under errstate as the blocks are: a scalar
    that divides by zero (Softplus's beta = 0, SmoothL1's beta = 0) gives inf or nan there without a warning."""
    if not pairs:
        return []
    return ['with np.errstate(all="ignore"):'] + indent(assignments(pairs, wrap))


def _wide(v: dict) -> list[str]:
    """The constants the sums computed in double read, in float64 from the call's unrounded scalars (emit._wide),
    before the scalars are rounded to FLOAT."""
    if not v["wide"]:
        return []
    return ["# the constants the sums computed in double read, unrounded (before the scalars are rounded to FLOAT)"] \
        + _prelude(v["wide"], "{}")


def _float_or_double(sums, wide: dict, narrow: str, double: str, rounded: str) -> list[str]:
    """`name = <narrow>` per (name, code) of `sums`, or, for a name in `wide` (read by a sum computed in double),
    `name_f64 = <double>` and, where `wide[name]` (the kernel reads it as FLOAT too), `name = <rounded>`: each a
    format of the code (of `name` for `rounded`)."""
    lines = []
    for name, code in sums:
        if name not in wide:
            lines.append(f"{name} = {narrow.format(code)}")
            continue
        lines.append(f"{name}_f64 = {double.format(code)}")
        if wide[name]:
            lines.append(f"{name} = {rounded.format(name)}")
    return lines


def _sums(v: dict, dim: str) -> list[str]:
    """The row sums along dim: in FLOAT, or in double where a sum computed in double reads it (its name `_f64`,
    rounded once to FLOAT where the kernel reads it as FLOAT too)."""
    return _float_or_double(v["reductions"], v["wide_sums"], f"np.sum({{}}, axis={dim}, keepdims=True)",
                            f"np.sum({{}}, axis={dim}, keepdims=True, dtype=np.float64)", "{}_f64.astype(np.float32)")


def _grid_sums(v: dict) -> list[str]:
    """The sums over the whole grid (GridSum: a class-index loss's mean divisor), before the blocks: each summand
    on the grid in FLOAT, summed pairwise in FLOAT; in double where a sum computed in double reads it (`_f64`, as
    C's runtime sums it: a total weight beyond FLOAT's largest), rounded once where the kernel reads it as FLOAT."""
    if not v["grid_sums"]:
        return []
    lines = _float_or_double(v["grid_sums"], v["wide_grid"], "np.sum(np.broadcast_to({}, out.shape), dtype=np.float32)",
                             "np.sum(np.broadcast_to({}, out.shape), dtype=np.float64)", "np.float32({}_f64)")
    return ["# the sums over the whole (sample, class) grid, before the blocks", 'with np.errstate(all="ignore"):'] \
        + indent(lines)


def compute_function(v: dict) -> str:
    """The FLOAT kernel of an elementwise variant, block by block."""
    args = _params(v)
    doc = _key_doc(v)
    body = (doc + _wide(v) + [f"{s} = np.float32({s})" for s in v["float_scalars"] + v["numels"]]
            + _prelude(v["prelude"], "np.float32({})") + _grid_sums(v)
            + ["# block by block: the temporaries stay small and in the cache (codegen.runtime.blocks)"]
            + _loop(v, "_blocks({tensors}, out)", "_f32({})", _scaled_rare(v) or
                    assignments(v["body"]) + [f"result = {v['result']}"],
                    "_store(out, result)  # round once to the output dtype (overflow gives inf)", ieee=True))
    return function(f"_compute{v['suffix']}({args})", body)


def _scaled_rare(v: dict) -> list[str]:
    """A block's lines where its products L*g are scaled where L leaves FLOAT (emit._scaled_rare_context): the
    plain products, which are the result wherever no L did, and the scaled form only in a block where one did
    (the kernel's own result then, every element's bits as before)."""
    r = v["scaled_rare"]
    if not r:
        return []
    return (assignments(r["body"]) + [f"result = {r['result']}",
                                      "# a local derivative beyond FLOAT: the block again with its product scaled "
                                      "(codegen.scaled)", f"if {r['beyond']}.any():"]
            + indent(assignments(r["rest"]) + [f"result = {v['result']}"]))


def double_function(v: dict) -> str:
    """The DOUBLE kernel of an elementwise variant (Op.compute)."""
    d = v["double"]
    args = _params(v)
    body = ([f'"""{_form(v, "DOUBLE")} (COMPUTE)."""']
            + [f"{s} = np.float64({s})" for s in v["float_scalars"]]
            + _prelude(d["prelude"], "np.float64({})")
            + _loop(v, "_blocks({tensors}, out)", "_f64({})",
                    assignments(d["body"]) + [f"result = {d['result']}"],
                    "_store(out, result)  # round once to the output dtype", ieee=False))
    return function(f"_compute64{v['suffix']}({args})", body)


def complex_function(v: dict) -> str:
    """The complex kernel of an elementwise variant: gradOutput times the conjugate of the local derivative."""
    c = v["complex"]
    args = _params(v)
    body = ([f'"""{_form(v, "complex double")} (COMPUTE): gradOutput times the conjugate of the',
             'local derivative."""']
            + [f"{s} = np.float64({s})" for s in v["float_scalars"]]
            + _prelude(c["prelude"], "np.float64({})")
            + _loop(v, "_blocks({tensors}, out)", "np.asarray({}).astype(np.complex128, copy=False)",
                    assignments(c["body"]) + [f"result = {c['result']}"],
                    'np.copyto(out, result, casting="unsafe")  # each part rounded once to the output dtype',
                    ieee=False))
    return function(f"_computeC{v['suffix']}({args})", body)


def _row_wide(v: dict, dim: str) -> list[str]:
    """After a row block's FLOAT results: its rows whose FLOAT sums leave FLOAT's range computed again in float64
    (emit._row_wide_context), their results in place of the FLOAT ones."""
    w = v["row_wide"]
    finite = " & ".join(f"np.isfinite({name})" for name, _ in w["reductions"])
    return (["# rows whose FLOAT sums leave FLOAT's range (a summand or the sum ±inf): again in float64, where the",
             "# float64 sums are finite (emit._row_wide_context)",
             f"left = {w['left']}",
             "if left.any():"]
            + indent([f"{t}_w = {t}.astype(np.float64)" for t in w["tensors"]]
                     + [f"{name} = np.sum({code}, axis={dim}, keepdims=True)" for name, code in w["reductions"]]
                     + [f"left = left & {finite}"]
                     + assignments(w["body"])
                     + [f"result = np.where(left, np.asarray({w['result']}, np.float32), result)"]))


def rows_function(v: dict, dim: str) -> str:
    """The FLOAT kernel of a variant that reduces along `dim` (softmax-like), in blocks of whole rows."""
    args = _params(v, dim)
    doc = _key_doc(v)
    sums = _sums(v, dim)
    body = (doc + _wide(v) + [f"{s} = np.float32({s})" for s in v["float_scalars"] + v["numels"]]
            + _prelude(v["prelude"], "np.float32({})") + _grid_sums(v)
            + ["# in blocks of whole rows (dim and the axes after it whole): the temporaries stay small and the "
               "sums are the", "# same bits (codegen.runtime.blocks.row_blocks)"]
            + _loop(v, "_row_blocks({tensors}, out, " + dim + ")", "_f32({})",
                    sums + assignments(v["body"]) + [f"result = {v['result']}"] + _row_wide(v, dim),
                    "_store(out, result)  # round once to the output dtype (overflow gives inf)", ieee=True))
    return function(f"_compute{v['suffix']}({args})", body)


def variant_functions(v: dict, reduce_dim: str | None) -> list[str]:
    if reduce_dim:
        return [rows_function(v, reduce_dim)]
    return ([compute_function(v)] + ([double_function(v)] if v["double"] else [])
            + ([complex_function(v)] if v["complex"] else []))


# ---- the op function -------------------------------------------------------------------------------------------

def _computes(v: dict, compute: bool) -> list[str]:
    """One variant's call: the DOUBLE or COMPLEX kernel where the promoted dtype computes in it, else FLOAT."""
    if not compute:
        return [v["call"]]
    lines = [f"computes = COMPUTE.get(_chk.default_dtype({v['promoted']}))"]
    for kind, word in (("double", "DOUBLE"), ("complex", "COMPLEX")):
        if v[kind]:
            lines += [f'if computes == "{word}":'] + indent([v[kind]["call"], "return out"])
    return lines + [v["call"]]


def _split_calls(split: dict, compute: bool) -> list[str]:
    """A split op's calls: the halves as views, each dispatch condition's kernels, one per half."""
    src, dim = split["tensor"], split["dim"]
    if split["rows"]:   # read as rows [pre, cut] from dim on (codegen.runtime.rows)
        rows = split["rows"]
        lines = [f"# {src} and out read as rows from {dim} on, each cut into "
                 + ("its even and odd elements or its halves by " + rows["interleaved"] if rows["interleaved"]
                    else "its halves") + (f", the first sum({rows['counts']}) rows computed" if rows["counts"] else "")
                 + ": each half's kernel writes its half of out",
                 f"whole = _unaliased(out, {split['inputs']})",
                 f"rows = _Rows({src}, whole, {dim} % {src}.ndim, interleaved={rows['interleaved'] or 'False'}, "
                 f"counts={rows['counts'] or 'None'}{', uint32=True' if rows['uint32'] else ''})",
                 f"{split['halves']} = rows.halves({src})",
                 f"{split['out_halves']} = rows.out_halves()"]
        lines += [f"{t} = rows.half_rows({t})" for t in rows["others"]]
        lines += [f"{t} = rows.per_row({t})  # one value per row, broadcast along it (PerRow)" for t in rows["per_row"]]
    else:
        lines = [f"# {src} and out cut in halves along {dim} (views): each half's kernel writes its half of out",
                 f"whole = _unaliased(out, {split['inputs']})",
                 f"{split['halves']} = _halves({src}, {dim} % {src}.ndim)",
                 f"{split['out_halves']} = _halves(whole, {dim} % {src}.ndim)"]
    for i, (dispatch, group) in enumerate(split["groups"]):
        calls = [v["call"] for v in group]
        if compute:
            calls = ([f'if COMPUTE.get(_chk.default_dtype({group[0]["promoted"]})) == "DOUBLE":']
                     + indent([v["double"]["call"] for v in group]) + ["else:"] + indent(calls))
        if dispatch == "True":
            lines += calls
        else:
            lines += [f"{'if' if i == 0 else 'elif'} {dispatch}:"] + indent(calls)
    return lines + (["rows.finish()"] if split["rows"] else []) + ["if whole is not out:", "    out[...] = whole"]


def _kernel_calls(c: dict) -> list[str]:
    """The kernel calls: split halves, one variant, or a dispatch over the variants."""
    variants, compute = c["variants"], bool(c["compute"])
    if c["split"]:
        return _split_calls(c["split"], compute)
    if len(variants) == 1:
        return _computes(variants[0], compute)
    lines = []
    for i, v in enumerate(variants):
        lines += [f"{'if' if i == 0 else 'elif'} {v['dispatch']}:"] + indent(_computes(v, compute))
    return lines


def op_function(c: dict) -> str:
    """The public function: checks, allocates `out`, computes (through the broadcast shape for a sum_to output,
    by rows for a reduction, by halves for a split op)."""
    params = "".join(f"{n}, " for n in c["input_names"]) + f'product="{c["default_product"]}", ' \
        + ("out_dtype=None, " if c["out_dtype_free"] else "") + "out=None"
    default = f"_chk.default_dtype({c['default_dtype_from']})"
    body = [f'"""{c["op_name"]}: returns `out` ({c["output_name"]}), allocated when not given.', "",
            "Raises codegen.AclnnError (status, param, message) when an argument breaks a rule.", '"""',
            f'_chk.writeable_out("{c["snake_name"]}", out)', "_chk.known_product(product)", c["describable"]]
    if c["out_dtype_free"]:
        body += ["requested = _chk.requested_dtype(out_dtype)",
                 f"out_arg = out if out is not None else _chk.Allocate(requested or {default})"]
    else:
        body += [f"out_arg = out if out is not None else _chk.Allocate({default})"]
    body += [f"values = check({', '.join(c['check_args'][:-1])}, out_arg, product)"]
    if c["empty_returns"]:
        # (an output allocated here holds zeros: nothing is computed into it)
        body += ["if values is None:  # an empty tensor ended the checks early: success, nothing computed",
                 "    if out is None:",
                 f"        out = np.zeros(_chk.empty_shape(lambda: {c['output_shape']}, {c['empty_returns']}),",
                 "                       dtype=_chk.numpy_dtype(out_arg))",
                 "    return out"]
    body += [f'{n} = values["{n}"]' for n in c["converted"]]
    body += ["if out is None:", f"    out = np.empty({c['output_shape']}, dtype=_chk.numpy_dtype(out_arg))",
             "if out.size == 0:", "    return out  # an empty tensor: nothing to compute"]
    if c.get("classes"):   # codegen.spec.classes
        k = c["classes"]
        body += [f"# every input as a view on the (sample, class) grid of {k['tensor']}, and the class coordinate",
                 f"{k['names']} = _calls.class_views({k['tensor']}.shape, {k['kinds']})"]
    if c["bshape"]:
        body += [f"bshape = np.broadcast_shapes(*(np.shape(a) for a in ({c['bshape']},) if a is not None))"]
    if c["sum_to"]:
        body += ["full = np.empty(bshape, dtype=np.float32)  # the gradient on the broadcast shape, summed into "
                 "out below"]
    if c["reduce_dim"]:
        body += ["view = out", "if out.ndim == 0:  # a rank-0 tensor is a row of one element along dim 0 / -1",
                 f"    {c['rank0_line']}"]
    body += _kernel_calls(c)
    if c.get("sequence"):   # codegen.spec.sequence: the kernels computed the form where IN_SEQUENCE holds
        lengths, time, batch = c["sequence"]
        body += [f"# 0 at and past each sequence's length: t >= {lengths}[b] (t along axis {time}, b along {batch})",
                 f"out[_calls.past_length(out.shape, {lengths}, {time}, {batch})] = 0"]
    if c["sum_to"]:
        body += [f"# the adjoint of broadcasting {c['sum_to']}: summed over the broadcast axes, rounded once to "
                 "out's dtype", "_store(out, _calls.sum_to(full, out.shape))"]
    return function(f"{c['snake_name']}(*, {params})", body + ["return out"])
