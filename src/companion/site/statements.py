"""Statements under the papers' own names (a Sphinx extension, listed in ``_config.yml``).

sphinx-proof numbers every ``prf:`` statement by the book's chapters ("Theorem 4.1") and
shows the directive's argument in parentheses after it, so Dong's Theorem 3 came out as
"Theorem 4.1 (Theorem 3 (sign–magnitude asymmetry))". The book's statements are the
papers' (Fact 1, Proposition 1, Theorem 3, Shirodkar & Narayanan's T1–T6) or ours, so each
is unnumbered (``:nonumber:``) and its argument is its whole name::

    ````{prf:theorem} Theorem 3 (Dong): sign–magnitude asymmetry
    :label: thm-theorem3
    :nonumber:

With ``proof_title_format: "%t"`` the title is that argument alone; this extension drops
the type word ("Theorem ") that sphinx-proof writes before an unnumbered statement's title
when a title is given, so a Fact or a definition is not called a theorem. A reference names
the statement in its text: ``{prf:ref}`Theorem 3 <thm-theorem3>```.
"""

from __future__ import annotations

__all__ = ["setup"]


def _depart_unenumerable(self, node) -> None:
    """sphinx-proof's HTML departure of an unnumbered statement, without the type word
    when the statement has a title of its own."""
    from sphinx_proof.nodes import depart_unenumerable_node

    if node.get("title", "").strip():
        self.body.append("</div>")
        return
    depart_unenumerable_node(self, node)


def setup(app):
    from sphinx_proof.nodes import unenumerable_node, visit_unenumerable_node

    app.setup_extension("sphinx_proof")
    app.add_node(
        unenumerable_node,
        override=True,
        html=(visit_unenumerable_node, _depart_unenumerable),
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}
