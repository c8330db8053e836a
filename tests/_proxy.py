"""An authenticating proxy's stand-in for the browser tests: a reverse proxy (tornado, which Streamlit runs on) in
front of the app that sets one user's header on every request it forwards, the websocket's handshake included, and
drops that header from what the client sent, as a real proxy must (docs/deploy.md#the-teams-register). The browser's
own extra headers do not reach the websocket's handshake, from which Streamlit reads ``st.context.headers``."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from tornado import httpclient, httputil, web, websocket
from tornado.httpserver import HTTPServer

from tests._server import free_port

HOP = {"connection", "keep-alive", "transfer-encoding", "upgrade", "content-length", "host", "te", "trailer",
       "proxy-authorization", "proxy-authenticate"}


def _forwarded(headers: httputil.HTTPHeaders, header: str, user: str) -> httputil.HTTPHeaders:
    out = httputil.HTTPHeaders()
    for name, value in headers.get_all():
        if name.lower() not in HOP and name.lower() != header.lower() and not name.lower().startswith("sec-websocket"):
            out.add(name, value)
    out[header] = user
    return out


def _app(upstream: str, header: str, user: str) -> web.Application:
    ws_upstream = "ws" + upstream.removeprefix("http")

    class Stream(websocket.WebSocketHandler):
        upstream_ws: websocket.WebSocketClientConnection | None = None

        def check_origin(self, origin: str) -> bool:
            return True  # the app behind checks the origin it is sent

        def select_subprotocol(self, subprotocols: list[str]) -> str | None:
            return subprotocols[0] if subprotocols else None

        async def open(self, *args: str) -> None:
            protocols = [p.strip() for p in self.request.headers.get("Sec-WebSocket-Protocol", "").split(",")
                         if p.strip()]
            request = httpclient.HTTPRequest(ws_upstream + self.request.uri,
                                             headers=_forwarded(self.request.headers, header, user))
            self.upstream_ws = await websocket.websocket_connect(request, subprotocols=protocols or None)
            asyncio.ensure_future(self._pump())

        async def _pump(self) -> None:
            while self.upstream_ws is not None:
                message = await self.upstream_ws.read_message()
                if message is None:
                    self.close()
                    return
                await self.write_message(message, binary=isinstance(message, bytes))

        async def on_message(self, message: str | bytes) -> None:
            if self.upstream_ws is not None:
                await self.upstream_ws.write_message(message, binary=isinstance(message, bytes))

        def on_close(self) -> None:
            if self.upstream_ws is not None:
                self.upstream_ws.close()
                self.upstream_ws = None

    class Forward(web.RequestHandler):
        SUPPORTED_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH")

        def check_xsrf_cookie(self) -> None:  # the app behind checks its own
            return None

        async def _forward(self) -> None:
            body = self.request.body if self.request.method in ("POST", "PUT", "PATCH", "DELETE") else None
            request = httpclient.HTTPRequest(upstream + self.request.uri, method=self.request.method,
                                             headers=_forwarded(self.request.headers, header, user), body=body,
                                             follow_redirects=False, decompress_response=False,
                                             allow_nonstandard_methods=True, request_timeout=300)
            response = await httpclient.AsyncHTTPClient().fetch(request, raise_error=False)
            self.set_status(response.code, response.reason)
            self._headers = httputil.HTTPHeaders()
            for name, value in response.headers.get_all():
                if name.lower() not in HOP:
                    self.add_header(name, value)
            if response.body:
                self.write(response.body)

        get = head = post = put = delete = options = patch = _forward

    return web.Application([(r"/_stcore/stream", Stream), (r".*", Forward)], websocket_ping_interval=None)


@contextlib.contextmanager
def user_proxy(upstream: str, header: str, user: str) -> Iterator[str]:
    """A proxy in front of ``upstream`` (the app's URL) that names ``user`` in ``header``; yields its URL."""
    port = free_port()
    started = threading.Event()
    holder: dict[str, object] = {}

    def serve() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        server = HTTPServer(_app(upstream, header, user), max_body_size=256 * 2**20)
        server.listen(port, "127.0.0.1")
        holder["loop"], holder["server"] = loop, server
        started.set()
        loop.run_forever()
        server.stop()
        loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started.wait(10)
    try:
        yield f"http://localhost:{port}"
    finally:
        loop = holder["loop"]
        loop.call_soon_threadsafe(loop.stop)  # type: ignore[attr-defined]
        thread.join(10)
