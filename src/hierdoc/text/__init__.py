"""The text layer: pure functions on strings that ingest, storage and search share.

Nothing here reads or writes an index, calls a model or knows a backend (the one read is
the tokenizer's vocabulary, loaded once from the bundled model); store/, pipeline/ and
search/ import it, and it imports only :mod:`hierdoc.models`.

- :mod:`.analyze`: the BM25 analyzer (text -> index terms, query terms with back-off);
- :mod:`.numbering`: the citation grammar ("Article 6(1)(a)", "§ 4.2") and section ids;
- :mod:`.normalize`: the lookup keys of defined terms and acronyms;
- :mod:`.names`: what names a document (its name keys) and their version;
- :mod:`.short_names`: the short forms of a document's title ("the DPA");
- :mod:`.sentences`: sentence and paragraph boundaries (pysbd);
- :mod:`.term_sentences`: where a text defines a known term (the shapes ``define`` looks up);
- :mod:`.tokenizer`: the word-piece tokenizer that counts a chunk's tokens;
- :mod:`.windows`: how a chunk is cut into the windows its vectors embed;
- :mod:`.invisible`: invisible characters and their removal.
"""
