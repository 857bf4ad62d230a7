#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# multi-stream.sh: STREAMS sources sharing one loaded model over every DLA core (model-instance-id,
# dla-core=-1), printing each stream's per-core stats and the totals at the end (multi-stream.py).
#
#   MODEL=net.loadable LABELS=labels.txt [STREAMS=4] [FRAMES=300] bash pipelines/multi-stream.sh
#
# Without MODEL: the colours model on swdla (a software DLA: not hardware results). DRY_RUN=print:
# print the command and do not run it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
use_model
cmd=(/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/multi-stream.py" --model "$MODEL"
     --streams "${STREAMS:-4}" --frames "${FRAMES:-300}")
[ -z "${LABELS:-}" ] || cmd+=(--labels "$LABELS")
if [ "$DRY_RUN" = print ]; then
  shell_words "${cmd[@]}"
  exit 0
fi
exec "${cmd[@]}"
