"""Connects to the runtime with the official Python MCP SDK (`mcp` on PyPI) over streamable HTTP.

Run by python_client.test.mjs as `.venv/bin/python tests/e2e/python_client.py <runtime url> <name>`.
For each way of connecting (the legacy initialize handshake, and 'auto', which probes server/discover),
it lists the tools and creates a playbook named `<name> <mode>`, saves an approval in it and rehearses
that on a stand-in's answer, then prints one JSON object on stdout for the JavaScript test to assert
on. It asserts nothing itself.
"""

import asyncio
import json
import pathlib
import sys

from mcp import Client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def session(url: str, name: str, mode: str) -> dict:
    async with Client(f"{url}/mcp", mode=mode) as client:
        tools = await client.list_tools()
        created = await client.call_tool(
            "create_playbook", {"name": f"{name} {mode}", "description": "Made by the Python SDK."}
        )
        failed = await client.call_tool("get_playbook", {"playbook": "pb_aaaaaaaaaaaaaaaa"})
        playbook = (created.structured_content or {}).get("id")
        approve = pathlib.Path(__file__).parent.parent / "fixtures" / "approve-campaign-brief.md"
        await client.call_tool(
            "create_definition",
            {
                "playbook": playbook,
                "type": "interaction",
                "name": "approve",
                "source": approve.read_text(),
                "overview": "Asks the campaign owner to approve a reviewed brief.",
                "diagram": "flowchart LR\n  A[brief] --> B[approve]",
            },
        )
        rehearsed = await client.call_tool(
            "run_definition",
            {
                "playbook": playbook,
                "type": "interaction",
                "name": "approve",
                "input": {"title": "Autumn trial", "review": "Ready."},
                "rehearse": True,
                "stand_ins": {"people": {"approve": {"verdict": "revise"}}},
            },
        )
        server_info = client.server_info
        return {
            "protocol_version": client.protocol_version,
            "server_name": server_info.name if server_info else None,
            "instructions": client.instructions,
            "tools": [dump(tool) for tool in tools.tools],
            "created": {
                "is_error": created.is_error,
                "content": [dump(block) for block in created.content],
                "structured_content": created.structured_content,
            },
            "rehearsed": {"is_error": rehearsed.is_error, "structured_content": rehearsed.structured_content},
            "failed": {
                "is_error": failed.is_error,
                "content": [dump(block) for block in failed.content],
                "structured_content": failed.structured_content,
            },
        }


async def main() -> None:
    url, name = sys.argv[1], sys.argv[2]
    out = {}
    for mode in ("legacy", "auto"):
        out[mode] = await session(url, name, mode)
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
