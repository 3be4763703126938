"""`{opgen-help}`: the `--help` text of an `opgen` command, taken from the command itself at build time.

    ```{opgen-help} accuracy
    ```

renders what `opgen accuracy --help` prints, so the command-line reference cannot drift from `codegen/cli.py`
(`{opgen-help} plots` renders `python -m codegen.plots --help`).
"""
import contextlib
import io
import os

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def help_text(*argv: str) -> str:
    """What `opgen ARGV --help` prints (`plots`: `python -m codegen.plots --help`), 100 columns wide."""
    if argv[:1] == ("plots",):
        from codegen.plots import main
        argv = argv[1:]
    else:
        from codegen.cli import main
    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"          # argparse wraps to the terminal: fix it, the page must not vary
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main([*argv, "--help"])
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return out.getvalue().rstrip()


class OpgenHelp(SphinxDirective):
    optional_arguments = 1

    def run(self):
        text = help_text(*self.arguments)
        if "usage:" not in text:
            return [self.state.document.reporter.warning(f"opgen {' '.join(self.arguments)} --help printed "
                                                         f"no usage", line=self.lineno)]
        block = nodes.literal_block(text, text, language="text")
        return [block]


def setup(app):
    app.add_directive("opgen-help", OpgenHelp)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
