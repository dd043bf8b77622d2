"""A read-only web page over an index: ``hierdoc serve --web``.

Search with filters and explanations, a section with its parents, children, neighbours,
outline, cross-references and defined terms, the page a result comes from (a PDF page
rendered with the passage outlined), the glossary and the documents. Server-rendered
HTML (Starlette, Jinja2 with autoescaping), one small script, every asset in the
package. The index is opened for reading only; the server binds to loopback and refuses
foreign ``Host`` and ``Origin`` headers as the MCP HTTP server does. With tokens
configured under ``auth:``, every page needs one (a sign-in session or a bearer header,
:mod:`.signin`) and shows only the documents it may see.
"""

from .app import build_app, serve_web

__all__ = ["build_app", "serve_web"]
