"""Reads a paper through pksd's /mcp with the official Python MCP client, piece by piece (CONTRACT §20).

Usage: mcp_read_paper.py <mcp-url> <token> <paper-id> <max-chars>
Writes the reassembled markdown (UTF-8) to stdout and "<pieces> pieces" to stderr; any deviation is an
AssertionError (exit 1).
"""

import asyncio
import re
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

HINT = re.compile(r"^\[… (\d+) more characters; call again with offset=(\d+)\]$")


async def read_paper(url: str, token: str, paper_id: str, max_chars: int) -> str:
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                names = [tool.name for tool in (await session.list_tools()).tools]
                assert "paper_markdown" in names and "paper_outline" in names, names
                pieces: list[str] = []
                offset = 0
                while True:
                    result = await session.call_tool(
                        "paper_markdown", {"id": paper_id, "offset": offset, "max_chars": max_chars}
                    )
                    assert not result.is_error, result
                    texts = [item.text for item in result.content]
                    assert sum(len(t) for t in texts) <= max_chars, [len(t) for t in texts]
                    pieces.append(texts[0])
                    if len(texts) == 1:
                        break
                    match = HINT.match(texts[1])
                    assert match, texts[1]
                    # Cut at a line end, unless one line is longer than the piece.
                    assert texts[0].endswith("\n") or "\n" not in texts[0], texts[0][-20:]
                    offset += len(texts[0])
                    assert int(match.group(2)) == offset, (match.group(2), offset)
                sys.stderr.write(f"{len(pieces)} pieces\n")
                return "".join(pieces)


def main() -> None:
    url, token, paper_id, max_chars = sys.argv[1:5]
    text = asyncio.run(read_paper(url, token, paper_id, int(max_chars)))
    sys.stdout.buffer.write(text.encode("utf-8"))


if __name__ == "__main__":
    main()
