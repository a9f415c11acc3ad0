"""Connects to the runtime with the official Python MCP SDK as API keys, under a host name that is not loopback.

Run by access_keys.test.mjs as `.venv/bin/python tests/e2e/python_keys.py <public url> <plan as JSON>`.
The URL names a host (such as runtime.test) that the httpx transport below connects to on 127.0.0.1, so
the runtime sees that Host and no local mode. The plan is a list of sessions, each
`{"label", "key", "mode", "path", "calls": [[tool, arguments], ...]}`; for each, this prints what the SDK
saw: the HTTP statuses, the protocol version, the instructions, the tools, each call's result or JSON-RPC
error, or the error that stopped the connection. It asserts nothing itself.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


class Loopback(httpx2.AsyncBaseTransport):
    """Sends every request to 127.0.0.1 and keeps the Host header the URL gave it."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request):
        request.url = request.url.copy_with(host="127.0.0.1")
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def error_of(exc: BaseException) -> dict:
    # A task group wraps what failed inside it: report the first real error.
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return {"code": exc.error.code, "message": exc.error.message}
    return {"type": type(exc).__name__, "message": str(exc)[:1000]}


async def session(url: str, plan: dict) -> dict:
    headers = {"Authorization": f"Bearer {plan['key']}"} if plan.get("key") else {}
    out: dict = {"statuses": []}

    async def seen(response) -> None:
        out["statuses"].append(response.status_code)

    http = httpx2.AsyncClient(
        transport=Loopback(), headers=headers, timeout=httpx2.Timeout(30, read=60), event_hooks={"response": [seen]}
    )
    try:
        async with http:
            transport = streamable_http_client(f"{url}{plan.get('path', '/mcp')}", http_client=http)
            async with Client(transport, mode=plan["mode"]) as client:
                out["protocol_version"] = client.protocol_version
                out["instructions"] = client.instructions
                out["tools"] = [dump(tool) for tool in (await client.list_tools()).tools]
                out["calls"] = []
                for name, arguments in plan.get("calls", []):
                    try:
                        result = await client.call_tool(name, arguments)
                        out["calls"].append({
                            "result": {
                                "is_error": result.is_error,
                                "content": [dump(block) for block in result.content],
                                "structured_content": result.structured_content,
                            }
                        })
                    except MCPError as exc:
                        out["calls"].append({"error": error_of(exc)})
    except BaseException as exc:  # noqa: BLE001 - the test asserts on what stopped the session
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        out["connect_error"] = error_of(exc)
    return out


async def main() -> None:
    url, plans = sys.argv[1], json.loads(sys.argv[2])
    out = {}
    for plan in plans:
        out[plan["label"]] = await session(url, plan)
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
