#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# fetch_skimage_images.sh DEST: puts astronaut.png, chelsea.png and coffee.png from Debian's
# python3-skimage package into DEST (for the oracle test). Downloads the .deb with apt-get (no
# install, no root needed beyond apt's lists) and extracts only the three photographs. CI calls it
# in its install step; a no-op when DEST already has them.
set -eu
dest=$1
mkdir -p "$dest"
[ -f "$dest/astronaut.png" ] && [ -f "$dest/chelsea.png" ] && [ -f "$dest/coffee.png" ] && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download python3-skimage >/dev/null)
dpkg-deb --fsys-tarfile "$work"/python3-skimage_*.deb |
  tar -x -C "$work" --wildcards '*/skimage/data/astronaut.png' '*/skimage/data/chelsea.png' '*/skimage/data/coffee.png'
find "$work" -path '*/skimage/data/*.png' -exec cp {} "$dest"/ \;
ls "$dest"/astronaut.png "$dest"/chelsea.png "$dest"/coffee.png >/dev/null
