"""The MCP server: hierdoc's agent tools over stdio or streamable HTTP."""
