#!/usr/bin/env python3
"""Puts the key tables of `reel schema --markdown` into docs/format.md, between their markers.

Usage: scripts/update-format-doc.py [REEL] [FORMAT_MD]
       (defaults: .build/debug/reel, docs/format.md; run from the repository's root)

Each table sits between `<!-- keys: NAME -->` and `<!-- end keys -->`. The prose around them is written by hand;
the tables come from the table of keys the JSON Schema is written from, so the two cannot disagree.
Tests/ReelModelTests/Schema/FormatReferenceTests.swift fails when the file and the generated tables differ.
"""
import re
import subprocess
import sys

reel = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/reel"
path = sys.argv[2] if len(sys.argv) > 2 else "docs/format.md"

generated = subprocess.run([reel, "schema", "--markdown"], check=True, capture_output=True, text=True).stdout
block = re.compile(r"<!-- keys: (.+?) -->\n.*?<!-- end keys -->", re.S)
tables = {match.group(1): match.group(0) for match in block.finditer(generated)}

with open(path, encoding="utf-8") as file:
    text = file.read()
written = [match.group(1) for match in block.finditer(text)]
missing = [name for name in tables if name not in written]
stale = [name for name in written if name not in tables]
if missing or stale:
    sys.exit(f"{path}: add markers for {missing}, remove {stale} (<!-- keys: NAME --> … <!-- end keys -->)")

text = block.sub(lambda match: tables[match.group(1)], text)
with open(path, "w", encoding="utf-8") as file:
    file.write(text)
print(f"{path}: {len(tables)} key tables written")
