"""An MCP app written with the official Python SDK, driven by test/clients/harness.ts.

It connects to Consulta's MCP server with the SDK's own OAuth support (Dynamic Client
Registration with the token endpoint auth method given on the command line, PKCE, `resource`),
lists the tools, calls list_cities, then hold_consultation_slot; the harness consents at
directory:read first, so the hold meets the server's 403 insufficient_scope and the SDK steps up.

It talks to the harness in JSON lines: on stdout, events (`authorize` with the URL the person
must open, `http` for each answer the SDK got, `registered`, `tokens`, `tools`, `result`,
`error`); on stdin, one line per `authorize`: the query of the redirect back to the app
(`code`, `state`, `iss`), which the harness got by answering the site's pages as the person.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

CALLBACK = "http://127.0.0.1:8977/callback"


def emit(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


class MemoryStorage:
    """The SDK's TokenStorage, in memory; what it is handed is reported to the harness."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        emit("tokens", scope=tokens.scope, refresh_token=tokens.refresh_token is not None)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info
        emit(
            "registered",
            client_id=client_info.client_id,
            token_endpoint_auth_method=client_info.token_endpoint_auth_method,
            client_secret=client_info.client_secret is not None,
        )


async def redirect_handler(url: str) -> None:
    emit("authorize", url=url)


async def callback_handler() -> AuthorizationCodeResult:
    line = await anyio.to_thread.run_sync(sys.stdin.readline)
    if not line:
        raise RuntimeError("the harness closed stdin before answering an authorization")
    answer = json.loads(line)
    return AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))


async def record(response: httpx2.Response) -> None:
    body = None
    if response.status_code >= 400:
        await response.aread()
        body = response.text
    emit(
        "http",
        method=response.request.method,
        url=str(response.request.url),
        status=response.status_code,
        www_authenticate=response.headers.get("www-authenticate"),
        body=body,
    )


def structured(result: Any) -> Any:
    if result.is_error:
        raise RuntimeError(f"tool error: {result.content}")
    return result.structured_content


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server-url", required=True)
    parser.add_argument("--auth-method", choices=["none", "client_secret_post"], required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--hold", required=True, help="hold_consultation_slot arguments, as JSON")
    args = parser.parse_args()

    storage = MemoryStorage()
    oauth = OAuthClientProvider(
        server_url=args.server_url,
        client_metadata=OAuthClientMetadata(
            client_name=args.name,
            redirect_uris=[CALLBACK],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method=args.auth_method,
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with httpx2.AsyncClient(auth=oauth, event_hooks={"response": [record]}, timeout=30) as http:
        async with Client(streamable_http_client(args.server_url, http_client=http)) as client:
            tools = await client.list_tools()
            emit("tools", names=[tool.name for tool in tools.tools])
            emit("result", tool="list_cities", structured=structured(await client.call_tool("list_cities", {})))
            hold = structured(await client.call_tool("hold_consultation_slot", json.loads(args.hold)))
            emit("result", tool="hold_consultation_slot", structured=hold)


if __name__ == "__main__":
    try:
        anyio.run(main)
    except BaseException as err:  # reported to the harness, then the exit status says it failed
        emit("error", message=f"{type(err).__name__}: {err}")
        raise
