"""Clients of model APIs: LLMs that write chunk contexts, API embedders, and their retries."""
