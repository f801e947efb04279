"""A one-line description of the machine a benchmark ran on, and the docs writer."""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path

import psutil


def describe() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        text = Path("/proc/cpuinfo").read_text()
        found = re.search(r"model name\s*:\s*(.+)", text)
        if found:
            cpu = found.group(1).strip()
    except OSError:
        pass
    mem = psutil.virtual_memory().total / 2**30
    system = f"{platform.system()} {platform.release()}"
    python = platform.python_version()
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, {system}, Python {python}"


_PREAMBLE = (
    "# Benchmarks\n\nEvery figure here was measured by an `avadata bench` command;"
    " each section names its command and machine.\n"
)


def write_section(doc: Path, title: str, body: str) -> None:
    """Replace (or append) the `## title` section of `doc`, leaving other sections alone."""
    text = doc.read_text() if doc.exists() else _PREAMBLE
    header = f"## {title}\n"
    start = text.find(header)
    section = header + "\n" + body.strip() + "\n"
    if start == -1:
        text = text.rstrip() + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(header))
        text = text[:start] + section + ("\n" + text[end + 1 :] if end != -1 else "")
    doc.write_text(text)
