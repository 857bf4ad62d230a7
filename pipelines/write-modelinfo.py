#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes a .modelinfo (upstream GStreamer's format 1.0, docs/modelinfo.md) for a cuDLA loadable.

  write-modelinfo.py LOADABLE [--mean M M M] [--std S S S] [--group-id ID] [--id ID]
                     [--channel-order rgb|bgr] [--resize-mode stretch|letterbox|center-crop]
                     [--labels FILE] [--inspect-output FILE] [--inspect PROGRAM] [-o OUT]

The tensors come from `dlainfer-inspect LOADABLE` (run here, so on the Jetson with the loadable) or
from its saved output (--inspect-output). mean/std are dlainfer's (value = (pixel/255 - mean) / std),
written as upstream's per-channel ranges: min = -mean/std, max = (1 - mean)/std. A C x 1 x 1 first
output is the class vector: dims N,C and id classification-generic-out (--id overrides). Writes
LOADABLE.modelinfo unless -o says otherwise; refuses to overwrite without --force.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

LINE = re.compile(r"^(input|output) (\d+): '([^']+)' (fp16|int8) (\w+) (\d+)x(\d+)x(\d+)x(\d+)")


DEFAULT_MEAN = [0.0, 0.0, 0.0]
DEFAULT_STD = [1.0, 1.0, 1.0]


def fmt(values):
    return " ".join(f"{v:g}" for v in values)


def fail(msg):
    print(f"write-modelinfo: {msg}", file=sys.stderr)
    sys.exit(1)


def check_loadable(args):
    """The .modelinfo describes a loadable and sits next to it: refuse one that is not there, unless
    its tensors come from --inspect-output and -o says where the file goes (a loadable elsewhere)."""
    if os.path.isfile(args.loadable):
        return
    if not (args.inspect_output and args.output):
        fail(f"no such loadable: {args.loadable}: give the path of the cuDLA loadable the .modelinfo describes "
             "(it is written next to it, as LOADABLE.modelinfo)")
    print(f"write-modelinfo: note: {args.loadable} is not here: the tensors come from {args.inspect_output}; "
          f"put {args.output} next to the loadable as {os.path.basename(args.loadable)}.modelinfo", file=sys.stderr)


def inspect_text(args):
    if args.inspect_output:
        try:
            with open(args.inspect_output, encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            fail(f"cannot read --inspect-output {args.inspect_output}: {e.strerror}")
    prog = args.inspect or shutil.which("dlainfer-inspect")
    if not prog:
        fail("dlainfer-inspect is not on PATH: give --inspect PROGRAM (build/tools/dlainfer-inspect) "
             "or --inspect-output with its saved output")
    r = subprocess.run([prog, args.loadable], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{prog} {args.loadable} failed (exit {r.returncode}): {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


def tensors(text):
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            d, _, name, _, layout, n, c, h, w = m.groups()
            out.append({"dir": d, "name": name, "layout": layout, "dims": [int(n), int(c), int(h), int(w)]})
    if not any(t["dir"] == "input" for t in out) or not any(t["dir"] == "output" for t in out):
        fail("no 'input N:' and 'output N:' tensor lines in dlainfer-inspect's output: is it a loadable?")
    return out


def image_channels(t):
    """3 where a padded layout's descriptor reports 16, 32 or 4 (docs/cudla.md)."""
    c = t["dims"][1]
    padded = (t["layout"] in ("chw16", "chw32") and c in (16, 32)) or (t["layout"] == "dla_hwc4" and c == 4)
    return 3 if padded else c


def ranges(mean, std):
    pairs = []
    for m, s in zip(mean, std):
        if s <= 0:
            fail(f"--std {s}: every std must be > 0")
        pairs.append(f"{-m / s:.9g},{(1 - m) / s:.9g}")
    return ";".join(pairs)


def render(args, ts):
    lines = ["[modelinfo]", "version=1.0"]
    if args.group_id:
        lines.append(f"group-id={args.group_id}")
    for key, value in (("dlainfer-channel-order", args.channel_order), ("dlainfer-resize-mode", args.resize_mode),
                       ("dlainfer-labels", args.labels)):
        if value:
            lines.append(f"{key}={value}")
    first_output = True
    for t in ts:
        n, c, h, w = t["dims"]
        lines += ["", f"[{t['name']}]", f"dir={t['dir']}", "type=float32"]
        if t["dir"] == "input":
            lines.append(f"dims={n},{image_channels(t)},{h},{w}")
            lines.append(f"ranges={ranges(args.mean, args.std)}")
        elif first_output and h == 1 and w == 1:
            lines.append(f"dims={n},{c}")
            lines.append(f"id={args.id or 'classification-generic-out'}")
        else:
            lines.append(f"dims={n},{c},{h},{w}")
            if first_output and args.id:
                lines.append(f"id={args.id}")
        if t["dir"] == "output":
            first_output = False
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("loadable")
    p.add_argument("--mean", type=float, nargs=3, help=f"the model's mean (default {fmt(DEFAULT_MEAN)})")
    p.add_argument("--std", type=float, nargs=3, help=f"the model's std (default {fmt(DEFAULT_STD)})")
    p.add_argument("--group-id")
    p.add_argument("--id", help="the first output's tensor id")
    p.add_argument("--channel-order", choices=["rgb", "bgr"])
    p.add_argument("--resize-mode", choices=["stretch", "letterbox", "center-crop"])
    p.add_argument("--labels", help="labels file, relative to the .modelinfo's folder or absolute")
    p.add_argument("--inspect-output", help="saved output of dlainfer-inspect LOADABLE")
    p.add_argument("--inspect", help="the dlainfer-inspect program")
    p.add_argument("-o", "--output")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    args = p.parse_args()
    out = args.output or args.loadable + ".modelinfo"
    check_loadable(args)
    defaults = [name for name in ("mean", "std") if getattr(args, name) is None]
    args.mean = args.mean or DEFAULT_MEAN
    args.std = args.std or DEFAULT_STD
    if os.path.exists(out) and not args.force:
        fail(f"{out} exists: remove it or give --force")
    text = render(args, tensors(inspect_text(args)))
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        fail(f"cannot write {out}: {e.strerror}")
    print(out)
    if defaults:
        # Most models were trained with their own normalisation: say the file does not have it.
        given = " and ".join(f"{n} {fmt(getattr(args, n))}" for n in defaults)
        print(f"write-modelinfo: wrote the default {given} (no {'/'.join('--' + n for n in defaults)} given): if the "
              "model was trained with its own normalisation (ImageNet: --mean 0.485 0.456 0.406 --std 0.229 0.224 "
              "0.225), write the file again with it and --force", file=sys.stderr)


if __name__ == "__main__":
    main()
