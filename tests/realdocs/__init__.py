"""Real public documents with hand-written gold files; see SOURCES.md."""
