"""Real public documents with hand-written gold files (issue 13); see SOURCES.md."""
