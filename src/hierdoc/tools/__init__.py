"""The agent tools (search, get_section, define, references, list_documents) over ``Index``."""
