"""Raw MCP messages for tests that speak HTTP or stdio without the SDK's client."""

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
