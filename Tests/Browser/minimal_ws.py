"""A minimal WebSocket client (RFC 6455) on the Python standard library, for the API tests.

Text messages only on the way out (masked, any length), text/binary/close/ping on the way in.
Kept here so the tests need nothing beyond the standard library; it also lets a test send frames
a library would refuse (e.g. an oversized message).
"""

import base64
import hashlib
import json
import os
import socket
import struct
import time

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class ConnectionClosed(Exception):
    """The server closed the connection (code and reason when it sent a close frame)."""

    def __init__(self, code=None, reason=""):
        super().__init__(f"connection closed (code={code}, reason={reason!r})")
        self.code = code
        self.reason = reason


class HandshakeError(Exception):
    pass


class WebSocket:
    def __init__(self, host, port, path="/api/live", timeout=30.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.buffer = b""
        self.closed = False
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\n"
            f"Host: {host}:{port}\r\n"
            "Upgrade: websocket\r\n"
            "Connection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n"
            f"Origin: http://{host}:{port}\r\n"
            "\r\n"
        )
        self.sock.sendall(request.encode())
        head = self._read_until(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status_line = lines[0]
        parts = lines[0].split(" ", 2)
        self.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        self.headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                self.headers[k.strip().lower()] = v.strip()
        if self.status != 101:
            raise HandshakeError(f"expected 101, got {lines[0]!r}")
        expected = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        if self.headers.get("sec-websocket-accept") != expected:
            raise HandshakeError("bad Sec-WebSocket-Accept")

    # -- low level ----------------------------------------------------------------------------

    def _read_until(self, marker):
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionClosed(None, "EOF during handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def _read_exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                self.closed = True
                raise ConnectionClosed(None, "EOF")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _send_frame(self, opcode, payload, fin=True):
        header = bytearray([(0x80 if fin else 0) | opcode])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header.append(0x80 | 126)
            header += struct.pack("!H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", n)
        mask = os.urandom(4)
        header += mask
        # XOR with the mask, fast enough for a few hundred KiB.
        m = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
        masked = (int.from_bytes(payload, "big") ^ m).to_bytes(n, "big") if n else b""
        self.sock.sendall(bytes(header) + masked)

    def _read_frame(self):
        b0, b1 = self._read_exact(2)
        fin, opcode = b0 & 0x80, b0 & 0x0F
        masked, n = b1 & 0x80, b1 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self._read_exact(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self._read_exact(8))
        mask = self._read_exact(4) if masked else None
        payload = self._read_exact(n)
        if mask:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return bool(fin), opcode, payload

    # -- API ----------------------------------------------------------------------------------

    def send_text(self, text):
        self._send_frame(0x1, text.encode("utf-8"))

    def send_json(self, obj):
        self.send_text(json.dumps(obj))

    def recv(self, timeout=None):
        """The next text message (str); raises ConnectionClosed, or socket.timeout."""
        if timeout is not None:
            self.sock.settimeout(timeout)
        parts, kind = [], None
        while True:
            fin, opcode, payload = self._read_frame()
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                reason = payload[2:].decode("utf-8", "replace")
                try:
                    self._send_frame(0x8, payload[:2])
                except OSError:
                    pass
                self.closed = True
                raise ConnectionClosed(code, reason)
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            if opcode in (0x1, 0x2):
                kind, parts = opcode, [payload]
            elif opcode == 0x0:
                parts.append(payload)
            if fin and kind is not None:
                data = b"".join(parts)
                return data.decode("utf-8") if kind == 0x1 else data

    def recv_json(self, timeout=None):
        return json.loads(self.recv(timeout))

    def recv_until(self, predicate, timeout=30.0):
        """Messages (parsed) up to and including the first one for which predicate is true."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching message within {timeout}s; got {seen!r}"[:2000])
            msg = self.recv_json(timeout=left)
            seen.append(msg)
            if predicate(msg):
                return seen

    def drain(self, quiet=1.0):
        """Every message that arrives until none has for `quiet` seconds."""
        out = []
        while True:
            try:
                out.append(self.recv_json(timeout=quiet))
            except (socket.timeout, TimeoutError):
                return out

    def close(self):
        if not self.closed:
            try:
                self._send_frame(0x8, struct.pack("!H", 1000))
            except OSError:
                pass
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
