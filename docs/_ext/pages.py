"""`{pages}`: a toctree for a site that other branches add pages to without editing the index.

Like `{toctree}`, with two differences:

* an entry naming a page that does not exist (yet) is left out instead of failing the build, so the index can
  place pages that another branch is still writing (`c-api`, `vocabulary`, ...);
* with `:glob:`, a pattern skips the pages an earlier `{pages}` of the same document already lists, and the pages
  of a folder that has its own page (`operators.md` or `operators/index.md` owns `operators/**`, and lists them
  itself), so a last `**` gathers every page nobody placed, at any depth.

A page in no toctree would make `sphinx-build -W` fail; with the catch-all at the end of the index, none is.
"""
from docutils.statemachine import StringList
from sphinx.directives.other import TocTree, glob_re
from sphinx.util import docname_join
from sphinx.util.nodes import explicit_title_re


def _current_docname(env) -> str:
    current = getattr(env, "current_document", None)
    return current.docname if current is not None else env.docname


class Pages(TocTree):
    def parse_content(self, toctree) -> None:
        here = _current_docname(self.env)
        listed = self.state.document.__dict__.setdefault("opgen_pages_listed", set())
        keep = []
        for entry in self.content:
            if not entry.strip():
                continue
            m = explicit_title_re.match(entry)
            ref = m.group(2) if m else entry
            if ("glob" in self.options and glob_re.match(ref)) \
                    or docname_join(here, ref.removesuffix(".md")) in self.env.found_docs:
                keep.append(entry)
        self.content = StringList(keep, source=self.content.source(0) if self.content else "")
        super().parse_content(toctree)
        if "glob" in self.options:
            listed = listed | {d for _, d in toctree["entries"] if self._owned(d)}
        pairs = [(t, d) for t, d in toctree["entries"] if d not in listed]
        toctree["entries"] = pairs
        toctree["includefiles"] = [d for d in toctree["includefiles"] if d not in listed]
        self.state.document.__dict__["opgen_pages_listed"].update(d for _, d in pairs)

    def _owned(self, docname: str) -> bool:
        """Whether a folder above `docname` has its own page (`F` or `F/index`), which then lists it."""
        parts = docname.split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            if {folder, f"{folder}/index"} & (self.env.found_docs - {docname}):
                return True
        return False

    def run(self):
        if self.content or "glob" in self.options:
            nodes = super().run()
            toctree = nodes[0][0] if nodes else None
            if toctree is not None and not toctree["entries"]:
                return []        # nothing to list (yet): no empty caption in the sidebar
            return nodes
        return []


def setup(app):
    app.add_directive("pages", Pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
