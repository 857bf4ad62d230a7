# SPDX-License-Identifier: LGPL-2.1-or-later
"""The ONNX importer for swdla (tests/swdla/swdla-import.py): ONNX graph -> swdla model format 2.
dla_rules: the DLA's limits per layer kind; swdla_file: the format's writer; io_formats: the
--inputs/--outputs syntax; context, ops, const_ops: the mapping; importer: load and convert."""
